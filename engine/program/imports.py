"""Imports in programs (SPEC section 2): every form Python allows, resolved against the
session's module views (the allowlist's ``MODULES``: the engine under PyTorch's names,
the program-side standard modules and NumPy subset). Nothing is ever imported on the
host for a program: a name that is not a view is an ImportError at its line.

- ``import a.b.c`` binds ``a``; ``import a.b.c as x`` binds the view ``a.b.c``;
- ``from a.b import c`` binds child view ``a.b.c`` when there is one, else the name ``c``
  of view ``a.b`` (ImportError when it has none);
- ``from a import *`` binds the public names the allowlist lists for ``a``;
- ``from __future__ import ...`` is accepted and changes nothing.
"""
from .errors import PROGRAM_EXCEPTIONS

__all__ = ["import_module", "import_name", "star_names", "unknown_module_error", "FUTURE"]

_ImportError = PROGRAM_EXCEPTIONS["ImportError"]

FUTURE = "__future__"

# names programs commonly write for a module that is the same as one of ours
ALIASES = {"typing_extensions": "typing", "collections.abc": "typing", "numpy.random.mtrand": "numpy.random"}


def _resolve(dotted):
    return ALIASES.get(dotted, dotted)


def _available(views):
    engine = sorted(k for k in views if k == "torch" or k.startswith("torch."))
    std = sorted(k for k in views if not (k == "torch" or k.startswith("torch.")) and "." not in k)
    return engine, std


def unknown_module_error(views, dotted):
    top = dotted.split(".")[0]
    engine, std = _available(views)
    if top == "torch" or top in views:
        why = (f"No module named '{dotted}' in programs; the engine's modules are: {', '.join(engine)}"
               if top == "torch" else f"No module named '{dotted}' in programs")
    else:
        why = (f"No module named '{dotted}': programs cannot import '{top}'. Programs import torch and its "
               f"modules, numpy and the standard modules {', '.join(s for s in std if s != 'numpy')}; "
               f"data comes in as inputs (send tensors with the run, or PUT them as variables) instead of "
               f"being read from files or other libraries")
    return _ImportError(why)


def import_module(views, dotted):
    """The session's view of module ``dotted`` (ImportError when programs have none)."""
    view = views.get(_resolve(dotted))
    if view is None:
        raise unknown_module_error(views, dotted)
    return view


def import_name(views, module, name):
    """``from module import name``: a child module, else the module's attribute."""
    view = import_module(views, module)
    child = views.get(_resolve(module) + "." + name)
    if child is not None:
        return child
    try:
        return view.get(name)
    except PROGRAM_EXCEPTIONS["AttributeError"]:
        from .access import file_hint   # (access is imported after this module)
        raise _ImportError(f"cannot import name '{name}' from '{module}'{file_hint(_resolve(module), name)}") from None


def star_names(views, module):
    """The names ``from module import *`` binds: those the allowlist lists for it."""
    view = import_module(views, module)
    source = view._source
    names = set(source.allow) | set(source.extra)
    return sorted(n for n in names if not n.startswith("_"))
