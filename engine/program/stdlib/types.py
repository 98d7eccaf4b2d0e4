"""Program-side ``types``: ``SimpleNamespace``, an object whose attributes are its keyword
arguments. Its repr and equality go through the interpreter (the values are program values)."""
from . import builtins, check_string, iterate, step

__all__ = ["SimpleNamespace"]

_MAX_REPR_DEPTH = 50


class SimpleNamespace:
    """``SimpleNamespace(mapping_or_iterable=(), /, **kwargs)``: attribute access to its arguments."""

    def __init__(self, mapping_or_iterable=(), /, **kwargs):
        items = {}
        if isinstance(mapping_or_iterable, dict):
            source = list(mapping_or_iterable.items())
        else:
            source = []
            for pair in iterate(mapping_or_iterable):
                pair = tuple(iterate(pair))
                if len(pair) != 2:
                    raise ValueError(f"dictionary update sequence element has length {len(pair)}; 2 is required")
                source.append(pair)
        for k, v in source + list(kwargs.items()):
            step()
            if type(k) is not str:
                raise TypeError(f"keywords must be strings, not '{type(k).__name__}'")
            items[k] = v
        for k, v in items.items():
            if k.startswith("_"):
                raise TypeError(f"SimpleNamespace attribute names cannot start with '_' in programs: {k!r}")
            self.__dict__[k] = v

    def __repr__(self):
        b = builtins()
        active = _repr_active(b)
        if id(self) in active:
            return "namespace(...)"
        if len(active) >= _MAX_REPR_DEPTH:
            return "namespace(...)"
        active.add(id(self))
        try:
            parts, total = [], 11
            for k, v in self.__dict__.items():
                step()
                r = f"{k}={b.b_repr(v)}"
                total += len(r) + 2
                check_string(total)
                parts.append(r)
            return "namespace(" + ", ".join(parts) + ")"
        finally:
            active.discard(id(self))

    def __eq__(self, other):
        if not isinstance(other, SimpleNamespace):
            return NotImplemented
        from ..operators import COMPARE
        return COMPARE["Eq"](self.__dict__, other.__dict__)

    __hash__ = None


def _repr_active(b):
    from . import session_state
    return session_state("types.SimpleNamespace.repr", set)
