"""JSON text: orjson's output is the standard library's, and what orjson refuses still gets written."""
import json

import pytest

from gradserve.server.json_codec import dumps


@pytest.mark.parametrize("obj", [
    {"values": {"y": {"shape": [], "dtype": "float32", "data": 14.0}}, "graph": None, "stdout": "é ✓\n"},
    [1, -0.0, 1e-300, 1.5e308, True, None, "NaN", {"nested": [[1, 2], []]}],
    {"big": 2 ** 100},          # past 64 bits: orjson refuses, json writes it
])
def test_dumps_writes_what_the_standard_library_writes(obj):
    expected = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    assert dumps(obj) == expected.encode()


def test_lone_surrogates_are_written_as_escapes():
    assert dumps({"text": "lone \ud800 é"}) == b'{"text":"lone \\ud800 \\u00e9"}'
    assert json.loads(dumps({"text": "lone \ud800"})) == {"text": "lone \ud800"}
