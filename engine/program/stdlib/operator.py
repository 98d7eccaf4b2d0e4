"""Program-side ``operator``: Python's operators as functions, with the interpreter's
size checks (those of ``a + b`` written in the program), ``itemgetter``,
``attrgetter`` (through the attribute gate) and ``methodcaller``."""
from .. import access, operators
from . import call

__all__ = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lshift", "rshift", "and_",
           "or_", "xor", "neg", "pos", "abs", "invert", "inv", "not_", "truth", "is_", "is_not", "eq", "ne",
           "lt", "le", "gt", "ge", "contains", "countOf", "indexOf", "getitem", "setitem", "delitem", "concat",
           "index", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul", "itemgetter",
           "attrgetter", "methodcaller", "length_hint"]

_B, _I, _U, _C = operators.BINARY, operators.INPLACE, operators.UNARY, operators.COMPARE


def _named(f, name):
    def op(*args):
        return f(*args)
    op.__name__ = op.__qualname__ = name
    return op


for _py, _ast in (("add", "Add"), ("sub", "Sub"), ("mul", "Mult"), ("truediv", "Div"), ("floordiv", "FloorDiv"),
                  ("mod", "Mod"), ("pow", "Pow"), ("matmul", "MatMult"), ("lshift", "LShift"),
                  ("rshift", "RShift"), ("and_", "BitAnd"), ("or_", "BitOr"), ("xor", "BitXor")):
    globals()[_py] = _named(_B[_ast], _py)
    globals()["i" + _py.rstrip("_")] = _named(_I[_ast], "i" + _py.rstrip("_"))
for _py, _ast in (("eq", "Eq"), ("ne", "NotEq"), ("lt", "Lt"), ("le", "LtE"), ("gt", "Gt"), ("ge", "GtE"),
                  ("is_", "Is"), ("is_not", "IsNot")):
    globals()[_py] = _named(_C[_ast], _py)
neg = _named(_U["USub"], "neg")
pos = _named(_U["UAdd"], "pos")
invert = inv = _named(_U["Invert"], "invert")
del _py, _ast


def abs(a):
    import builtins
    return builtins.abs(a)


def not_(a):
    return not a


def truth(a):
    return bool(a)


def contains(a, b):
    return b in a


def countOf(a, b):
    from . import counted
    return sum(1 for x in counted(a) if x is b or x == b)


def indexOf(a, b):
    from . import counted
    for i, x in enumerate(counted(a)):
        if x is b or x == b:
            return i
    raise ValueError("sequence.index(x): x not in sequence")


def getitem(a, b):
    return a[b]


def setitem(a, b, c):
    if isinstance(a, (list, dict)) or access.is_program_value(a):
        a[b] = c
        return None
    raise TypeError(f"'{type(a).__name__}' object does not support item assignment")


def delitem(a, b):
    del a[b]


def concat(a, b):
    if not hasattr(a, "__getitem__"):
        raise TypeError(f"'{type(a).__name__}' object can't be concatenated")
    return _B["Add"](a, b)


def index(a):
    import operator as _op
    return _op.index(a)


def length_hint(obj, default=0):
    try:
        return len(obj)
    except TypeError:
        return default


class itemgetter:
    """``itemgetter(i)(x) == x[i]``; with several items, a tuple."""
    __slots__ = ("items",)

    def __init__(self, item, *items):
        self.items = (item,) + items

    def __call__(self, obj):
        if len(self.items) == 1:
            return obj[self.items[0]]
        return tuple(obj[i] for i in self.items)

    def __repr__(self):
        return f"operator.itemgetter({', '.join(map(repr, self.items))})"


class attrgetter:
    """``attrgetter('a.b')(x) == x.a.b``, through the program's attribute rules."""
    __slots__ = ("names",)

    def __init__(self, attr, *attrs):
        for a in (attr,) + attrs:
            if type(a) is not str:
                raise TypeError("attribute name must be a string")
        self.names = (attr,) + attrs

    def _get(self, obj, dotted):
        for part in dotted.split("."):
            obj = access.get_attr(obj, part)
        return obj

    def __call__(self, obj):
        if len(self.names) == 1:
            return self._get(obj, self.names[0])
        return tuple(self._get(obj, n) for n in self.names)


class methodcaller:
    """``methodcaller('name', *args)(x) == x.name(*args)``."""
    __slots__ = ("name", "args", "kwargs")

    def __init__(self, name, *args, **kwargs):
        if type(name) is not str:
            raise TypeError("method name must be a string")
        self.name, self.args, self.kwargs = name, args, kwargs

    def __call__(self, obj):
        return call(access.get_attr(obj, self.name), self.args, self.kwargs)
