"""Program-side ``pprint``: ``pprint``, ``pformat``, ``pp``, ``isreadable``, ``isrecursive``,
``saferepr`` and ``PrettyPrinter``, laid out as CPython's pprint lays out dicts, lists, tuples,
sets and OrderedDicts; every other value is written as the program's own ``repr`` gives it
(through the interpreter). Each item costs a step and the text built is counted. Dict keys are
sorted (``sort_dicts``) when they are all strings or all numbers; CPython also orders other keys,
by calling their ``<``, which would run program code outside the interpreter: those stay in
insertion order."""
from collections import OrderedDict as _HostOrderedDict

from . import builtins, check_string, step

__all__ = ["pprint", "pformat", "pp", "isreadable", "isrecursive", "saferepr", "PrettyPrinter"]

_NESTING = 100   # deeper containers are written by repr (which has its own bound)
_SCALARS = (str, bytes, bytearray, float, complex, bool, type(None))


def _sortable(keys):
    kinds = {type(k) for k in keys}
    return kinds <= {str} or kinds <= {int, float, bool}


class _Out:
    __slots__ = ("parts", "size")

    def __init__(self):
        self.parts, self.size = [], 0

    def write(self, s):
        self.size += len(s)
        check_string(self.size)
        self.parts.append(s)


def _check_int(name, v, low):
    if type(v) is not int:
        raise TypeError(f"{name} must be an int")
    if v < low:
        raise ValueError(f"{name} must be >= {low}" if name != "width" else "width must be != 0")


class PrettyPrinter:
    """``PrettyPrinter(indent=1, width=80, depth=None, stream=None, *, compact=False, sort_dicts=True,
    underscore_numbers=False)``; ``stream`` may be None or ``sys.stdout``/``sys.stderr``."""

    def __init__(self, indent=1, width=80, depth=None, stream=None, *, compact=False, sort_dicts=True,
                 underscore_numbers=False):
        _check_int("indent", indent, 0)
        if depth is not None:
            _check_int("depth", depth, 1)
        _check_int("width", width, 1)
        if stream is not None:
            from .sys import _Stream
            if type(stream) is not _Stream:
                raise TypeError("pprint in programs writes to their output (stream=None or sys.stdout)")
        self._indent_per_level = indent
        self._width = width
        self._depth = depth
        self._compact = bool(compact)
        self._sort_dicts = bool(sort_dicts)
        self._underscore_numbers = bool(underscore_numbers)
        self._stream = stream

    # ---- public API, as CPython's
    def pprint(self, object):
        text = self.pformat(object) + "\n"
        check_string(len(text))
        builtins().rt.write(text)

    def pformat(self, object):
        out = _Out()
        self._readable, self._recursive = True, False
        self._format(object, out, 0, 0, {}, 0)
        return "".join(out.parts)

    def isrecursive(self, object):
        return self.format(object, {}, 0, 0)[2]

    def isreadable(self, object):
        s, readable, recursive = self.format(object, {}, 0, 0)
        return readable and not recursive

    def format(self, object, context, maxlevels, level):
        return self._safe_repr(object, context, maxlevels, level)

    # ---- layout
    def _format(self, object, stream, indent, allowance, context, level):
        step()
        objid = id(object)
        if objid in context:
            stream.write(_recursion(object))
            self._recursive, self._readable = True, False
            return
        rep = self._repr(object, context, level)
        if len(rep) > self._width - indent - allowance and level < _NESTING:
            p = self._layout(object)
            if p is not None:
                context[objid] = 1
                p(object, stream, indent, allowance, context, level + 1)
                del context[objid]
                return
        stream.write(rep)

    def _layout(self, object):
        t = type(object)
        if t is dict:
            return self._pprint_dict
        if isinstance(object, _HostOrderedDict) and t.__repr__ is _HostOrderedDict.__repr__:
            return self._pprint_ordered_dict
        if t is list:
            return self._pprint_list
        if t is tuple:
            return self._pprint_tuple
        if t is set or t is frozenset:
            return self._pprint_set
        return None

    def _pprint_dict(self, object, stream, indent, allowance, context, level):
        stream.write("{")
        if self._indent_per_level > 1:
            stream.write((self._indent_per_level - 1) * " ")
        if len(object):
            self._format_dict_items(self._dict_items(object), stream, indent, allowance + 1, context, level)
        stream.write("}")

    def _dict_items(self, d):
        items = list(d.items())
        if self._sort_dicts and _sortable(d.keys()):
            items.sort(key=lambda kv: kv[0])
        return items

    def _format_dict_items(self, items, stream, indent, allowance, context, level):
        indent += self._indent_per_level
        delimnl = ",\n" + " " * indent
        last_index = len(items) - 1
        for i, (key, ent) in enumerate(items):
            last = i == last_index
            rep = self._repr(key, context, level)
            stream.write(rep)
            stream.write(": ")
            self._format(ent, stream, indent + len(rep) + 2, allowance if last else 1, context, level)
            if not last:
                stream.write(delimnl)

    def _pprint_ordered_dict(self, object, stream, indent, allowance, context, level):
        name = type(object).__name__
        if not len(object):
            stream.write(builtins().b_repr(object))
            return
        stream.write(name + "(")
        self._format(list(object.items()), stream, indent + len(name) + 1, allowance + 1, context, level)
        stream.write(")")

    def _pprint_list(self, object, stream, indent, allowance, context, level):
        stream.write("[")
        self._format_items(object, stream, indent, allowance + 1, context, level)
        stream.write("]")

    def _pprint_tuple(self, object, stream, indent, allowance, context, level):
        stream.write("(")
        endchar = ",)" if len(object) == 1 else ")"
        self._format_items(object, stream, indent, allowance + len(endchar), context, level)
        stream.write(endchar)

    def _pprint_set(self, object, stream, indent, allowance, context, level):
        if not len(object):
            stream.write(builtins().b_repr(object))
            return
        if type(object) is set:
            stream.write("{")
            endchar = "}"
        else:
            stream.write("frozenset({")
            endchar = "})"
            indent += len("frozenset") + 1
        items = list(object)
        if _sortable(items):
            items.sort()
        self._format_items(items, stream, indent, allowance + len(endchar), context, level)
        stream.write(endchar)

    def _format_items(self, items, stream, indent, allowance, context, level):
        indent += self._indent_per_level
        if self._indent_per_level > 1:
            stream.write((self._indent_per_level - 1) * " ")
        delimnl = ",\n" + " " * indent
        delim = ""
        width = max_width = self._width - indent + 1
        n = len(items)
        for i, ent in enumerate(items):
            last = i == n - 1
            if last:
                max_width -= allowance
                width -= allowance
            if self._compact:
                rep = self._repr(ent, context, level)
                w = len(rep) + 2
                if width < w:
                    width = max_width
                    if delim:
                        delim = delimnl
                if width >= w:
                    width -= w
                    stream.write(delim)
                    delim = ", "
                    stream.write(rep)
                    continue
            stream.write(delim)
            delim = delimnl
            self._format(ent, stream, indent, allowance if last else 1, context, level)

    # ---- one-line text
    def _repr(self, object, context, level):
        rep, readable, recursive = self.format(object, dict(context), self._depth, level)
        if not readable:
            self._readable = False
        if recursive:
            self._recursive = True
        check_string(len(rep))
        return rep

    def _safe_repr(self, object, context, maxlevels, level):
        step()
        typ = type(object)
        if typ in _SCALARS:
            return builtins().b_repr(object), True, False
        if typ is int:
            if self._underscore_numbers:
                return builtins().b_format(object, "_d"), True, False
            return builtins().b_repr(object), True, False
        if level >= _NESTING or typ not in (dict, list, tuple):
            rep = builtins().b_repr(object)
            return rep, bool(rep) and not rep.startswith("<"), False
        if typ is dict:
            if not object:
                return "{}", True, False
            fmt = "{%s}"
        elif typ is list:
            if not object:
                return "[]", True, False
            fmt = "[%s]"
        elif len(object) == 1:
            fmt = "(%s,)"
        else:
            if not object:
                return "()", True, False
            fmt = "(%s)"
        objid = id(object)
        if maxlevels and level >= maxlevels:
            return fmt % "...", False, objid in context
        if objid in context:
            return _recursion(object), False, True
        context[objid] = 1
        readable, recursive, components, size = True, False, [], 0
        level += 1
        if typ is dict:
            for k, v in self._dict_items(object):
                krepr, kreadable, krecur = self.format(k, context, maxlevels, level)
                vrepr, vreadable, vrecur = self.format(v, context, maxlevels, level)
                components.append(f"{krepr}: {vrepr}")
                size += len(components[-1]) + 2
                check_string(size)
                readable = readable and kreadable and vreadable
                recursive = recursive or krecur or vrecur
        else:
            for o in object:
                orepr, oreadable, orecur = self.format(o, context, maxlevels, level)
                components.append(orepr)
                size += len(orepr) + 2
                check_string(size)
                readable = readable and oreadable
                recursive = recursive or orecur
        del context[objid]
        return fmt % ", ".join(components), readable, recursive


def _recursion(object):
    return f"<Recursion on {type(object).__name__} with id={builtins().b_id(object)}>"


def pprint(object, stream=None, indent=1, width=80, depth=None, *, compact=False, sort_dicts=True,
           underscore_numbers=False):
    """Pretty-print a Python object to the program's output."""
    PrettyPrinter(indent=indent, width=width, depth=depth, stream=stream, compact=compact, sort_dicts=sort_dicts,
                  underscore_numbers=underscore_numbers).pprint(object)


def pp(object, *args, sort_dicts=False, **kwargs):
    """Pretty-print a Python object (dicts in insertion order)."""
    pprint(object, *args, sort_dicts=sort_dicts, **kwargs)


def pformat(object, indent=1, width=80, depth=None, *, compact=False, sort_dicts=True, underscore_numbers=False):
    """Format a Python object into a pretty-printed representation."""
    return PrettyPrinter(indent=indent, width=width, depth=depth, compact=compact, sort_dicts=sort_dicts,
                         underscore_numbers=underscore_numbers).pformat(object)


def saferepr(object):
    """Version of repr() which can handle recursive data structures."""
    return PrettyPrinter()._safe_repr(object, {}, None, 0)[0]


def isreadable(object):
    """Determine if saferepr(object) is readable by eval()."""
    return PrettyPrinter()._safe_repr(object, {}, None, 0)[1]


def isrecursive(object):
    """Determine if object requires a recursive representation."""
    return PrettyPrinter()._safe_repr(object, {}, None, 0)[2]
