"""The engine's named tuples as outputs: ``torch.max(x, 0)``, ``torch.aminmax``, ``torch.sort``, ...
answer as the list of their fields, as a tuple does (they were refused with a 422 "is or holds a max").
A program's own named tuple, whose class the host does not trust, is still refused."""
import pytest


@pytest.mark.parametrize("encoding", ["json", "base64"])
def test_engine_named_tuples_answer_as_lists_of_their_fields(session, encoding):
    program = ("x = torch.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])\n"
               "mx = torch.max(x, 1)\nmm = torch.aminmax(x)\nst = x.sort(1)\nnested = [mx, (mm, 2)]\n")
    r = session.run(program, outputs=["mx", "mm", "st", "nested"], encoding=encoding)
    assert r.status_code == 200, r.text
    values = r.json()["values"]
    assert [len(values[k]) for k in ("mx", "mm", "st")] == [2, 2, 2]
    if encoding == "json":
        assert values["mx"][0]["data"] == [5.0, 4.0] and values["mx"][1]["data"] == [1, 0]
        assert values["mm"][0]["data"] == 0.0 and values["mm"][1]["data"] == 5.0
        assert values["nested"][1][1] == 2


def test_a_programs_own_named_tuple_is_still_refused(session):
    program = ("from collections import namedtuple\n"
               "P = namedtuple('P', 'a b', module='torch.return_types')\n"
               "t = P(torch.ones(1), 2)\n")
    r = session.run(program, outputs=["t"])
    assert r.status_code == 422, r.text
    assert r.json()["error"]["type"] == "TypeError" and r.json()["error"]["name"] == "t"
