"""Program-side ``json``: ``dumps``, ``loads`` and ``JSONDecodeError``, as CPython's json writes and
reads text (notebooks import json for their configs: uvadlc's tutorials build ``self.config`` dicts).

``dumps`` first copies the program's value into plain dicts, lists, strings and numbers, a step per
item, by the builtin types' own methods (a program's subclass of dict or list never has its
overrides called by the host; its ``default`` is called through the interpreter), so CPython's
encoder only ever sees plain data; NumPy scalars are what CPython's json makes of NumPy's (a
float64 is a float, the others not serializable). ``loads`` parses with CPython's decoder, which
calls no program code, and then applies the program's hooks (``object_hook``,
``object_pairs_hook``, ``parse_float``, ``parse_int``, ``parse_constant``) through the interpreter.
Files are not there for programs: ``dump`` and ``load`` are absent."""
import json as _json

from ..errors import PROGRAM_EXCEPTIONS as _P
from . import call, check_sequence, check_string, step

__all__ = ["dumps", "loads", "JSONDecodeError"]

_NoneType = type(None)
_MAX_DEPTH = 200      # nesting a value or a document may have (CPython's C coders recurse on it)
_MAX_INDENT = 64      # characters of indent per level


class JSONDecodeError(_P["ValueError"]):
    """Subclass of ValueError with the following additional properties: msg, doc, pos, lineno, colno."""

    def __init__(self, msg, doc, pos):
        lineno = doc.count("\n", 0, pos) + 1
        colno = pos - doc.rfind("\n", 0, pos)
        super().__init__(f"{msg}: line {lineno} column {colno} (char {pos})")
        self.msg, self.doc, self.pos, self.lineno, self.colno = msg, doc, pos, lineno, colno




def _not_serializable(v):
    from .numpy import _Scalar
    name = v._name if isinstance(v, _Scalar) else type(v).__name__   # np.float32, as NumPy names it
    return _P["TypeError"](f"Object of type {name} is not JSON serializable")


def _plain(v, default, skipkeys, stack, depth):
    """``v`` as plain data CPython's encoder takes (a step per item)."""
    step()
    t = type(v)
    if t is str or t is int or t is float or t is bool or v is None:
        return v
    from .numpy import _Scalar
    if isinstance(v, _Scalar):
        if v._name == "float64":   # NumPy's float64 is a float subclass; its other scalars are not
            return float.__float__(v)
    elif isinstance(v, (str, int, float)):
        return _builtin_value(v)
    elif isinstance(v, (dict, list, tuple)):
        if depth >= _MAX_DEPTH:
            raise _P["RecursionError"]("maximum recursion depth exceeded while encoding a JSON object")
        if id(v) in stack:
            raise _P["ValueError"]("Circular reference detected")
        stack.add(id(v))
        try:
            if isinstance(v, dict):
                items = dict.items(v)
                check_sequence(len(items))
                out = {}
                for k, x in items:
                    k = _key(k, skipkeys)
                    if k is not _SKIP:
                        out[k] = _plain(x, default, skipkeys, stack, depth + 1)
                return out
            items = list(list.__iter__(v) if isinstance(v, list) else tuple.__iter__(v))
            check_sequence(len(items))
            return [_plain(x, default, skipkeys, stack, depth + 1) for x in items]
        finally:
            stack.discard(id(v))
    if default is None:
        raise _not_serializable(v)
    if depth >= _MAX_DEPTH:
        raise _P["RecursionError"]("maximum recursion depth exceeded while encoding a JSON object")
    return _plain(call(default, [v]), default, skipkeys, stack, depth + 1)


_SKIP = object()


def _builtin_value(v):
    """A subclass instance of str, int or float as the builtin value it holds (the builtin's own slot)."""
    return (str.__str__ if isinstance(v, str) else int.__int__ if isinstance(v, int) else float.__float__)(v)


def _key(k, skipkeys):
    t = type(k)
    if t is str or t is int or t is float or t is bool or k is None:
        return k
    from .numpy import _Scalar
    if isinstance(k, _Scalar) and k._name == "float64":
        return float.__float__(k)
    if isinstance(k, (str, int, float)) and not isinstance(k, _Scalar):
        return _builtin_value(k)
    if skipkeys:
        return _SKIP
    raise _P["TypeError"](f"keys must be str, int, float, bool or None, not {type(k).__name__}")


def _text_option(name, v):
    if v is None or type(v) is str:
        if v is not None:
            check_string(len(v))
        return v
    raise _P["TypeError"](f"{name} must be a str or None")


def dumps(obj, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None, indent=None,
          separators=None, default=None, sort_keys=False, **kw):
    """Serialize ``obj`` to a JSON formatted ``str``."""
    if cls is not None or kw:
        raise _P["TypeError"]("json.dumps in programs takes no encoder class (cls=) or its extra arguments")
    if indent is not None:
        if type(indent) is int:
            if indent > _MAX_INDENT:
                raise _P["ValueError"](f"indent in programs is at most {_MAX_INDENT}")
        else:
            indent = _text_option("indent", indent)
            if len(indent) > _MAX_INDENT:
                raise _P["ValueError"](f"indent in programs is at most {_MAX_INDENT} characters")
    if separators is not None:
        if type(separators) not in (tuple, list) or len(separators) != 2:
            raise _P["ValueError"]("separators must be an (item_separator, key_separator) tuple")
        separators = tuple(_text_option("separators", s) for s in separators)
        if any(len(s) > _MAX_INDENT for s in separators):
            raise _P["ValueError"](f"separators in programs are at most {_MAX_INDENT} characters")
    data = _plain(obj, default, bool(skipkeys), set(), 0)
    try:
        text = _json.dumps(data, skipkeys=bool(skipkeys), ensure_ascii=bool(ensure_ascii), allow_nan=bool(allow_nan),
                           indent=indent, separators=separators, sort_keys=bool(sort_keys))
    except TypeError as e:   # sort_keys over keys of different types
        raise _P["TypeError"](str(e)) from None
    except ValueError as e:  # a NaN with allow_nan=False
        raise _P["ValueError"](str(e)) from None
    check_string(len(text))
    return text


class _Pairs(list):
    """An object's (key, value) pairs as CPython's decoder reads them, before the program's hooks."""
    __slots__ = ()


class _Number(str):
    """A number's text, for the program's parse_float / parse_int / parse_constant."""
    __slots__ = ("kind",)


def _number(kind):
    def make(text):
        n = _Number(text)
        n.kind = kind
        return n
    return make


def loads(s, *, cls=None, object_hook=None, parse_float=None, parse_int=None, parse_constant=None,
          object_pairs_hook=None, **kw):
    """Deserialize ``s`` (a ``str``, ``bytes`` or ``bytearray`` instance containing a JSON document) to a
    Python object."""
    if cls is not None or kw:
        raise _P["TypeError"]("json.loads in programs takes no decoder class (cls=) or its extra arguments")
    if type(s) in (bytes, bytearray):
        s = bytes(s).decode("utf-8")
    if type(s) is not str:
        raise _P["TypeError"](f"the JSON object must be str, bytes or bytearray, not {type(s).__name__}")
    check_string(len(s))
    step(len(s) // 64 + 1)
    hooks = {"object_pairs_hook": _Pairs}
    if parse_float is not None:
        hooks["parse_float"] = _number("float")
    if parse_int is not None:
        hooks["parse_int"] = _number("int")
    if parse_constant is not None:
        hooks["parse_constant"] = _number("constant")
    try:
        raw = _json.loads(s, **hooks)
    except _json.JSONDecodeError as e:
        raise JSONDecodeError(e.msg, s, e.pos) from None
    fns = {"float": parse_float, "int": parse_int, "constant": parse_constant}
    return _hooked(raw, object_hook, object_pairs_hook, fns, 0)


def _hooked(v, object_hook, object_pairs_hook, fns, depth):
    step()
    if depth >= _MAX_DEPTH:
        raise _P["RecursionError"]("maximum recursion depth exceeded while decoding a JSON document")
    t = type(v)
    if t is _Number:
        return call(fns[v.kind], [str.__str__(v)])
    if t is list:
        return [_hooked(x, object_hook, object_pairs_hook, fns, depth + 1) for x in v]
    if t is _Pairs:
        pairs = [(k, _hooked(x, object_hook, object_pairs_hook, fns, depth + 1)) for k, x in v]
        if object_pairs_hook is not None:
            return call(object_pairs_hook, [pairs])
        d = dict(pairs)
        return d if object_hook is None else call(object_hook, [d])
    return v
