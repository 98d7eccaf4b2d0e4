"""Program-side ``abc``: ``ABC`` and ``abstractmethod``. A program class deriving from
``ABC`` cannot be instantiated while it has abstract methods, as in Python."""
__all__ = ["ABC", "ABCMeta", "abstractmethod", "abstractproperty", "abstractclassmethod",
           "abstractstaticmethod"]

import sys as _sys

_ABSTRACT = "__gs_abstract__"


def _mark(f):
    from ..values import Function
    if type(f) is Function:
        _abstract_functions.add(f)
    elif isinstance(f, (staticmethod, classmethod)) and type(f.__func__) is Function:
        _abstract_functions.add(f.__func__)
    elif isinstance(f, property) and type(f.fget) is Function:
        _abstract_functions.add(f.fget)
    return f


import weakref as _weakref  # noqa: E402

_abstract_functions = _weakref.WeakSet()


def abstractmethod(funcobj):
    """Marks a method abstract: a class that does not override it cannot be instantiated."""
    return _mark(funcobj)


def abstractproperty(f):
    return property(_mark(f))


def abstractclassmethod(f):
    return classmethod(_mark(f))


def abstractstaticmethod(f):
    return staticmethod(_mark(f))


def _is_abstract(v):
    if isinstance(v, (staticmethod, classmethod)):
        v = v.__func__
    elif isinstance(v, property):
        v = v.fget
    try:
        return v in _abstract_functions
    except TypeError:
        return False


class ABCMeta(type):
    """Computes a program class's abstract methods; instantiating one that has some raises."""

    def __new__(mcls, name, bases, ns):
        cls = super().__new__(mcls, name, bases, ns)
        abstract = set()
        for k in reversed(cls.__mro__):
            for key, v in k.__dict__.items():
                if _is_abstract(v):
                    abstract.add(key)
                else:
                    abstract.discard(key)
        type.__setattr__(cls, _ABSTRACT, frozenset(abstract))
        return cls

    def __call__(cls, *args, **kwargs):
        abstract = cls.__dict__.get(_ABSTRACT)
        if abstract:
            names = sorted(abstract)
            s = "s" if len(names) > 1 else ""
            if _sys.version_info >= (3, 12):
                raise TypeError(f"Can't instantiate abstract class {cls.__name__} without an implementation for "
                                f"abstract method{s} " + ", ".join(f"'{n}'" for n in names))
            raise TypeError(f"Can't instantiate abstract class {cls.__name__} with abstract method{s} "
                            + ", ".join(names))
        return super().__call__(*args, **kwargs)


class ABC(metaclass=ABCMeta):
    """A base class for the program's abstract classes."""
    __slots__ = ()
