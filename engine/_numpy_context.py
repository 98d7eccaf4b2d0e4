"""NumPy's allocator context variable, so a program run can keep it cached.

NumPy reads two context variables: its error state (``np.errstate``) on every ufunc call, and its
memory handler (``current_allocator``) on every array it allocates. CPython caches a variable's
value per thread only once the variable is set in the running context; an unset one is looked up
in the context's mapping on every read, which is free while the mapping is empty and a hash-trie
search once anything is set. A program run sets the error state (``runner.run``: PyTorch computes
inf and NaN without warnings), so every allocation of the run searched the trie: about 3,000
instructions a pass of the ragged GRU loop, a quarter of the interpreter's whole cost there.

``allocator_var`` is that variable, found once: NumPy does not expose it to Python, but its C API
``PyDataMem_SetHandler`` (slot 304 of the API table since NumPy 1.22) sets it, after which
``contextvars`` lists it. That is done in a throwaway context, so nothing of the host's changes. A
run then sets it to the handler already in effect (a no-op for NumPy) and resets it after, and
every read in the run is a cache hit. None where any of this is unavailable (another Python, a
NumPy without the slot): runs work as before, only without the saving.
"""
import contextvars
import ctypes

__all__ = ["allocator_var", "ignore_errors"]

_SET_HANDLER = 304   # PyDataMem_SetHandler's slot in NumPy's _ARRAY_API table (NumPy >= 1.22)
_GET_HANDLER = 305   # PyDataMem_GetHandler's


def _find():
    try:
        try:
            from numpy._core import _multiarray_umath as umath
        except ImportError:   # NumPy 1.x
            from numpy.core import _multiarray_umath as umath
        capsule = umath._ARRAY_API
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        table = ctypes.cast(get_pointer(capsule, get_name(capsule)), ctypes.POINTER(ctypes.c_void_p))
        get_handler = ctypes.PYFUNCTYPE(ctypes.py_object)(table[_GET_HANDLER])
        set_handler = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)(table[_SET_HANDLER])
    except (ImportError, AttributeError, OSError, ValueError, TypeError):
        return None

    def reveal():
        handler = get_handler()
        if type(handler).__name__ != "PyCapsule":
            return None
        set_handler(handler)
        found = [v for v in contextvars.copy_context() if v.name == "current_allocator"]
        return found[0] if len(found) == 1 else None
    try:
        return contextvars.Context().run(reveal)
    except Exception:   # anything unexpected from a NumPy that differs: go without
        return None


allocator_var = _find()


def _errstate_parts():
    try:
        from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
        return _extobj_contextvar, _make_extobj(all="ignore")
    except (ImportError, AttributeError, TypeError):   # NumPy 1.x keeps its error state elsewhere
        return None, None


_errstate_var, _ignore_all = _errstate_parts()


class ignore_errors:
    """``np.errstate(all="ignore")`` for a program run (PyTorch computes inf and NaN without warnings),
    entered and left as one context-variable set and reset of NumPy's error-state variable with the
    state made once (np.errstate builds it on every entry: an object, a call with keywords, about 1 us
    a run); np.errstate itself where NumPy keeps that state elsewhere."""
    __slots__ = ("token", "fallback")

    def __enter__(self):
        if _errstate_var is not None:
            self.token = _errstate_var.set(_ignore_all)
        else:
            import numpy as np
            self.fallback = np.errstate(all="ignore")
            self.fallback.__enter__()

    def __exit__(self, *exc):
        if _errstate_var is not None:
            _errstate_var.reset(self.token)
        else:
            self.fallback.__exit__(*exc)
