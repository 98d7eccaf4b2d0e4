"""Variable names as the wire accepts them: the names a program could bind and read.

A top-level name is a Python identifier that is not a keyword and does not start
with an underscore (private and dunder names such as ``__builtins__`` belong to
the interpreter, not to the session). A dotted path (``model.fc.weight``,
``layers.0.bias``) continues with such names or with decimal indexes; checkpoint names and
run outputs, which are state_dict names, may also continue with a module's own private names
(``model._encoder._conv_1.weight``, of a module that sets ``self._encoder``) and registry keys
that begin with a digit (``model.f.1_block.weight``, SAM's WideResNet), which the
session finds in the module's registries only; dunder parts are refused everywhere. The same
rule serves run inputs and outputs, ``/variables/{name}``, ``/graph?of=`` and
checkpoint tensor names, so whatever a client may write it may also read back.
"""
import keyword

MAX_NAME_LENGTH = 256

# For the OpenAPI schema (the route checks keywords too, which a pattern cannot say simply).
NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*$"
PATH_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*(\.([A-Za-z][A-Za-z0-9_]*|[0-9]+))*$"


def name_problem(name, dotted=False, module_private=False):
    """Why ``name`` cannot name a variable (a short phrase), or None when it can. With
    ``module_private`` (checkpoint names and run outputs: state_dict names), a dotted path's parts
    after the first may be a module's own private names (``model._encoder._conv_1.weight``)."""
    if not isinstance(name, str) or not name:
        return "is empty" if name == "" else "is not a string"
    if len(name) > MAX_NAME_LENGTH:
        return f"is longer than {MAX_NAME_LENGTH} characters"
    parts = name.split(".") if dotted else [name]
    for i, part in enumerate(parts):
        if i and part.isascii() and (part.isdigit() or (module_private and part[:1].isdigit()
                                                          and part.replace("_", "").isalnum())):
            continue   # an index, or a registry key such as nn.Sequential's "1_block" in a state_dict name
        if not part.isidentifier() or not part.isascii():
            return "is not a name" + (" or a dotted path such as model.fc.weight" if dotted else "")
        if keyword.iskeyword(part):
            return f"uses the keyword {part!r}"
        if part.startswith("__") or (part.startswith("_") and (i == 0 or not module_private)):
            return f"uses the private name {part[:40]!r} (names starting with '_' belong to the interpreter)"
    return None


def check_name(name, field, dotted=False, module_private=False):
    """Raises a 422 ApiError naming ``field`` when ``name`` is not a usable variable name."""
    problem = name_problem(name, dotted, module_private)
    if problem is not None:
        from .errors import ApiError
        shown = name[:80] if isinstance(name, str) else name
        raise ApiError(422, "ValidationError", f"{field}: {shown!r} {problem}", field=field)
