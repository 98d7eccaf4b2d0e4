"""A session's persistent state, like a notebook kernel's: its top-level
variables, its own random generator, default dtype and print options (swapped
into the engine while its programs run), its views of the engine's modules,
and the runtime its programs count steps against."""
import collections

from .. import dtypes as _dt
from ..autograd.state import state
from ..ops.creation import Generator
from ..tensor import Tensor
from . import access
from .builtin_functions import make_builtins
from .memory import module_tensors, tensor_bytes
from .runtime import Runtime

__all__ = ["Namespace"]

_COMPILED_KEPT = 32


def _is_module(v):
    d = getattr(v, "__dict__", None)
    return isinstance(d, dict) and "_parameters" in d and "_modules" in d


class Namespace:
    """A session's variables and per-session engine state."""

    def __init__(self):
        self.globals = {}
        self.generator = Generator()
        self.default_dtype = _dt.float32
        self.print_options = _new_print_options()
        self.settings = {}   # torch.set_num_threads and the like (engine/settings.py), this session's own
        self.views = access.make_views()
        self.runtime = Runtime(self)
        self.builtins = make_builtins(self.runtime, self.views)
        self.compiled = collections.OrderedDict()   # source -> compiled top-level statements

    # ------------------------------------------------------------------ variables
    def get(self, name):
        """The value bound to top-level ``name`` (KeyError if none)."""
        return self.globals[name]

    def set(self, name, value):
        """Binds a host value (an engine Tensor, a number, ...) to top-level ``name``."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"not a variable name: {name!r}")
        self.globals[name] = access.wrap(value, self.runtime)
        self.runtime.session_changed()

    def delete(self, name):
        del self.globals[name]
        self.runtime.session_changed()

    def names(self):
        return list(self.globals)

    def resolve(self, path):
        """The value at a dotted path such as ``model.fc.weight`` or ``layers.0.bias``."""
        parts = path.split(".")
        if parts[0] not in self.globals:
            raise KeyError(path)
        value = self.globals[parts[0]]
        for part in parts[1:]:
            value = _step(value, part, path)
        return value

    def tensors(self, max_name=None, skipped=None):
        """Every top-level tensor, and every module parameter and buffer by its
        dotted name (``model.fc.weight``), for checkpoints. With ``max_name``, those whose
        names would be longer are counted in ``skipped[0]``, not listed (memory.module_tensors)."""
        out = {}
        for name, value in self.globals.items():
            if isinstance(value, Tensor):
                out[name] = value
            elif _is_module(value):
                module_tensors(name + ".", value, out, max_name, skipped)
        return out

    def load_tensors(self, tensors):
        """Restores tensors by name into existing modules and variables (in place,
        so optimizers keep their parameters), or binds new top-level tensors.

        All or nothing: every name is resolved and checked before anything changes, so a
        checkpoint that names a missing part, or a tensor of another shape than the one it
        would fill, is refused with the session as it was (PyTorch's load_state_dict raises
        RuntimeError "size mismatch for ..." for the latter)."""
        plan = []   # (tensor to fill in place, or None to bind the top-level name, path, new tensor)
        for path, t in tensors.items():
            if not isinstance(t, Tensor):
                raise TypeError(f"{path}: expected a Tensor, got {type(t).__name__}")
            plan.append((self._load_target(path, t), path, t))
        self.runtime.session_changed()
        for current, path, t in plan:
            if current is None:
                self.globals[path] = t
            else:
                _assign(current, t)

    def _load_target(self, path, t):
        """The tensor ``path`` names, to be filled with ``t`` in place; None for a top-level name
        that ``t`` rebinds. KeyError when nothing holds a tensor there, RuntimeError on a size mismatch."""
        parent_path, _, leaf = path.rpartition(".")
        if not parent_path:
            current = self.globals.get(leaf)
            if isinstance(current, Tensor) and tuple(current.shape) == tuple(t.shape):
                return current
            return None
        parent = self.resolve(parent_path)
        current = None
        d = getattr(parent, "__dict__", None)
        if isinstance(d, dict):
            for kind in ("_parameters", "_buffers"):
                reg = d.get(kind)
                if reg is not None and leaf in reg:
                    current = reg[leaf]
                    break
        if current is None:
            try:
                current = _step(parent, leaf, path)
            except KeyError:
                current = None
            if isinstance(current, Tensor) and _step(parent, leaf, path) is not current:
                # a property that makes a new tensor on each access (x.T, x.data): filling it changes nothing
                raise TypeError(f"{path!r} is computed on each access, not a stored tensor: writing into it "
                                f"would change nothing")
        if not isinstance(current, Tensor):
            raise KeyError(path)
        if tuple(current.shape) != tuple(t.shape):
            raise RuntimeError(f"size mismatch for {path}: copying a param with shape {_size(t)} from "
                               f"checkpoint, the shape in current model is {_size(current)}.")
        return current

    def roots(self):
        """What the session holds from run to run: its variables, the state its program modules
        keep (logging's loggers and their handlers, warning filters, compiled patterns), and the names
        it added to its views of the engine's modules (``nn.MaskedLinear = MaskedLinear``)."""
        modules = self.__dict__.get("program_modules")
        roots = list(self.globals.values()) + (list(modules.values()) if modules else [])
        for view in self.views.values():
            if view.own:
                roots.extend(view.own.values())
        return roots

    def nbytes(self):
        """Bytes of the tensors this session's variables and program modules hold (each array counted once)."""
        return tensor_bytes(self.roots())

    # ------------------------------------------------------------------ engine state swap
    def swap_in(self):
        """Installs this session's generator, default dtype and print options in the
        engine; returns what was there."""
        saved = (state.generator, state.default_dtype, state.print_options, state.settings)
        state.generator = self.generator
        state.default_dtype = self.default_dtype
        if self.print_options is not None:
            state.print_options = self.print_options
        state.settings = self.settings
        return saved

    def swap_out(self, saved):
        self.generator = state.generator
        self.default_dtype = state.default_dtype
        self.print_options = state.print_options
        state.generator, state.default_dtype, state.print_options, state.settings = saved


def _size(t):
    return f"torch.Size([{', '.join(str(n) for n in t.shape)}])"


def _assign(current, new):
    """Copies ``new``'s values into tensor ``current``, keeping its identity."""
    current.data = new.detach().to(dtype=current.dtype, device=current.device).clone()


def _step(value, part, path):
    if isinstance(value, dict):
        if part in value:
            return value[part]
        raise KeyError(path)
    if part[:2] != "__" and _is_module(value):
        # a module's parameters, buffers and submodules by their registered names, as state_dict
        # names them: nn.Sequential(OrderedDict([("-1", ...), ("0", ...)]))'s "0" is the module
        # registered as "0" (CLIP's downsample), not the first one; a private name
        # (self._encoder = Encoder(...)) is found there too, never as an attribute
        d = getattr(value, "__dict__", None)
        if isinstance(d, dict):
            for kind in ("_parameters", "_buffers", "_modules"):
                reg = d.get(kind)
                if isinstance(reg, dict) and part in reg and reg[part] is not None:
                    return reg[part]
    if isinstance(value, (list, tuple)) and part.lstrip("-").isdigit():
        try:
            return value[int(part)]
        except IndexError:
            raise KeyError(path) from None
    if part.isdigit() and hasattr(value, "__getitem__") and _is_module(value):
        try:
            return value[int(part)]
        except Exception:
            pass
    if not part or part[0] == "_":
        raise KeyError(path)
    try:
        return access.get_attr(value, part)
    except Exception:
        raise KeyError(path) from None


def _new_print_options():
    try:
        from ..printing import PrintOptions
    except ImportError:
        return None
    return PrintOptions()
