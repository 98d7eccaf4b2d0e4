"""JSON text for answers, events and worker frames: orjson where it can, the standard library where it cannot.

orjson writes the same compact UTF-8 JSON as ``json.dumps(separators=(",", ":"),
ensure_ascii=False)`` about ten times faster, which matters on the run route
where every request writes a frame header and an answer. It refuses integers past
64 bits (a program may output 2**100) and strings with lone surrogates; those
objects go through ``json`` (lone surrogates as ``\\udXXX`` escapes, which UTF-8
cannot carry). Reading stays with ``json.loads`` everywhere: orjson reads big
integers as floats.
"""
import json

try:
    import orjson
except ImportError:  # an install without the server extra's orjson: the standard library alone
    orjson = None


class RawJSON:
    """JSON text written elsewhere (a worker's graph answer), carried inside an answer's tree and written
    into it as it is: the API process never parses it (``json.loads`` of a 50 MB graph held the event
    loop, and so every other client, for seconds). ``data``: bytes, or a memoryview of a worker's reply."""
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data

    def text(self):
        return self.data if type(self.data) is bytes else bytes(self.data)


def _stdlib_default(obj):
    if type(obj) is RawJSON:  # (only where orjson cannot write the rest of the answer)
        return json.loads(obj.text())
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def _stdlib_dumps(obj):
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_stdlib_default)
    try:
        return text.encode()
    except UnicodeEncodeError:  # lone surrogates (a program may print one): written as \\udXXX escapes
        return json.dumps(obj, separators=(",", ":"), allow_nan=False, default=_stdlib_default).encode()


if orjson is not None:
    def _default(obj):
        if type(obj) is RawJSON:
            return orjson.Fragment(obj.text())
        raise TypeError

    def dumps(obj):
        """``obj`` as compact UTF-8 JSON bytes."""
        try:
            return orjson.dumps(obj, default=_default)
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            return _stdlib_dumps(obj)
else:
    dumps = _stdlib_dumps
