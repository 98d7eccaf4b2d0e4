"""Module: the base class of every layer (``torch.nn.Module``).

Assigning a Parameter, a Module or a registered buffer to an attribute files it
in one of three ordered dicts, as PyTorch does; everything that walks a model
(parameters, state_dict, to, train) walks those dicts, so the key names match
PyTorch's ("fc.weight", "bn.running_mean").
"""
import itertools
import warnings
from collections import OrderedDict, namedtuple

from .. import dtypes as _dt
from ..autograd.custom_function import Function
from ..autograd.state import state
from ..device import as_device
from ..tensor import Tensor
from .parameter import Parameter
from .utils import zero_grads

__all__ = ["Module"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """A handle that removes a hook it was returned for (``torch.utils.hooks.RemovableHandle``)."""
    _ids = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict = hooks_dict
        self.id = next(RemovableHandle._ids)

    def remove(self):
        self.hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookIdentity(Function):
    """Passes tensors through unchanged; its backward hands their gradients to ``on_grads``, whose
    answer flows on (PyTorch's BackwardHookFunction)."""

    @staticmethod
    def forward(ctx, on_grads, *tensors):
        ctx.on_grads = on_grads
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_grads(grads))


class _BackwardHooks:
    """One call's full backward hooks: the gradients of the outputs are kept as they pass, and the hooks
    run with them once the gradients of the inputs arrive (at once, if no input requires grad)."""

    def __init__(self, module, hooks):
        self.module = module
        self.hooks = list(hooks.values())
        self.grad_outputs = None
        self.n_inputs = 0
        self.inputs_need_grad = False

    def _run_hooks(self, grad_inputs):
        for hook in self.hooks:
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(grad_inputs):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got "
                                       f"{len(result)}, but expected {len(grad_inputs)}")
                grad_inputs = result
        return grad_inputs

    def _wrap(self, values, on_grads):
        where = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
        if not where:
            return values, where
        passed = _HookIdentity.apply(on_grads, *(values[i] for i in where))
        passed = passed if isinstance(passed, tuple) else (passed,)
        values = list(values)
        for i, t in zip(where, passed):
            values[i] = t
        return values, where

    def setup_inputs(self, args):
        tensors = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(tensors)

        def on_input_grads(grads):
            full = [None] * self.n_inputs
            for k, g in zip(self.wrapped_inputs, grads):
                full[tensors.index(k)] = g
            full = self._run_hooks(tuple(full))
            return tuple(full[tensors.index(k)] for k in self.wrapped_inputs)

        values, self.wrapped_inputs = self._wrap(args, on_input_grads)
        self.inputs_need_grad = bool(self.wrapped_inputs)
        return tuple(values)

    def setup_outputs(self, out):
        single = isinstance(out, Tensor)
        outs = (out,) if single else out
        if not isinstance(outs, (tuple, list)):
            return out

        def on_output_grads(grads):
            self.grad_outputs = tuple(grads)
            if not self.inputs_need_grad:
                warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                              "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                              "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                              UserWarning, stacklevel=2)
                self._run_hooks((None,) * self.n_inputs)
            return grads

        values, where = self._wrap(tuple(outs), on_output_grads)
        if not where:
            return out
        return values[0] if single else type(outs)(values)


def _addindent(s, spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join((spaces * " ") + line if line.strip() else "" for line in lines)


class Module:
    """Base class for all neural network modules."""

    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_hooks"] = {}
        d["_forward_pre_hooks"] = {}
        d["_backward_hooks"] = {}

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -------------------------------------------------------------- calling
    def __call__(self, *args, **kwargs):
        observer = state.observer
        if observer is not None and hasattr(observer, "enter_module"):
            # a graph observer groups the nodes this forward makes under the module's path
            observer.enter_module(self)
            try:
                return self._call(args, kwargs)
            finally:
                observer.exit_module()
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        backward_hooks = self.__dict__.get("_backward_hooks")
        if not (self._forward_pre_hooks or self._forward_hooks or backward_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        bw = _BackwardHooks(self, backward_hooks) if backward_hooks and state.grad_enabled else None
        if bw is not None:
            args = bw.setup_inputs(args)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        if bw is not None:
            out = bw.setup_outputs(out)
        return out

    def register_forward_hook(self, hook):
        """Registers hook(module, args, output), called after forward; it may return a new output."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_forward_pre_hook(self, hook):
        """Registers hook(module, args), called before forward; it may return new args."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook):
        """Registers hook(module, grad_input, grad_output), called once the gradients with respect to the
        module's tensor inputs are computed (None for an input that does not require grad); it may return
        new grad_input, which then flow on in their place."""
        hooks = self.__dict__.setdefault("_backward_hooks", {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_backward_hook(self, hook):
        """PyTorch's older module backward hook (grad-cam-pytorch's guided backpropagation and Grad-CAM).
        It is called as a full backward hook is: for a module whose forward is one operation on one tensor
        (ReLU, a convolution, a pooling) that is what PyTorch passes too; for a module of several
        operations PyTorch passes the gradients of its last operation's inputs instead, a behaviour
        PyTorch itself deprecates."""
        return self.register_full_backward_hook(hook)

    # -------------------------------------------------------------- registration
    def __setattr__(self, name, value):
        d = self.__dict__
        modules = d.get("_modules")
        if modules is not None and "parametrizations" in modules and _parametrize is not None \
                and _parametrize.is_parametrized(self, name):
            modules["parametrizations"][name].right_inverse(value)   # m.weight = X of a parametrized weight
            return
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
            return
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = None
            return
        buffers = d.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        # the name leaves every other registry; in ``keep`` it is about to be rebound in place, so a
        # replaced child, parameter or buffer keeps its position (a Sequential's order, state_dict's)
        d = self.__dict__
        d.pop(name, None)
        for key in ("_parameters", "_buffers", "_modules"):
            if key != keep:
                d[key].pop(name, None)
        d["_non_persistent_buffers_set"].discard(name)

    def __getattr__(self, name):
        # only reached when normal lookup fails: parameters, buffers, submodules
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            group = d.get(key)
            if group is not None and name in group:
                return group[name]
        if _parametrize is not None and _parametrize.is_parametrized(self, name):
            return _parametrize.get(self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if name in d.get(key, ()):
                del d[key][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._buffers) | set(self._modules))

    def _check_name(self, name, kind):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name, param):
        """Adds a parameter to the module, accessible as an attribute by the given name."""
        self._check_name(name, "parameter")
        if hasattr(type(self), name) or (name in self.__dict__ and name not in self._parameters):
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             "created explicitly.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer (state that is not a parameter, e.g. BatchNorm's running_mean) to the module."""
        self._check_name(name, "buffer")
        if name not in self._buffers and (hasattr(type(self), name) or name in self.__dict__
                                          or name in self._parameters or name in self._modules):
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._forget(name, keep="_buffers")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Adds a child module to the current module."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(type(self), name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._forget(name, keep="_modules")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        """Returns the submodule given by the dotted path ``target``."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not isinstance(mod, Module) or item not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._parameters:
            raise AttributeError(f"{mod._get_name()} has no parameter `{name}`")
        return mod._parameters[name]

    def get_buffer(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError(f"{mod._get_name()} has no buffer `{name}`")
        return mod._buffers[name]

    # -------------------------------------------------------------- walking
    def _named_members(self, members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in members(module):
                if v is None or id(v) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield (module_prefix + "." + k if module_prefix else k), v

    def parameters(self, recurse=True):
        """Returns an iterator over module parameters."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Returns an iterator over (name, parameter) pairs, each parameter once."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """Returns an iterator over module buffers."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Returns an iterator over (name, buffer) pairs."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        """Returns an iterator over immediate children modules."""
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """Returns an iterator over (name, module) pairs of immediate children."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def modules(self):
        """Returns an iterator over all modules in the network, this one first."""
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Returns an iterator over all modules in the network as (dotted name, module) pairs."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # -------------------------------------------------------------- modes
    def train(self, mode=True):
        """Sets the module in training mode (or evaluation mode with mode=False)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.training = mode
        return self

    def eval(self):
        """Sets the module in evaluation mode."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Changes whether autograd should record operations on parameters in this module."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Resets gradients of all model parameters (to None by default)."""
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        """Applies fn recursively to every submodule (children first) and to self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -------------------------------------------------------------- devices and dtypes
    def _apply(self, convert):
        """Replaces each parameter's and buffer's array by convert(tensor), keeping the objects."""
        prev = state.grad_enabled
        state.grad_enabled = False
        try:
            for m in self.modules():
                for p in m._parameters.values():
                    if p is None:
                        continue
                    new = convert(p)
                    if new is not p:
                        p._data = new._data
                        p._version[0] += 1
                    if p.grad is not None:
                        g = convert(p.grad)
                        if g is not p.grad:
                            p.grad = Tensor._adopt_array(g._data, False, None)
                for name, b in m._buffers.items():
                    if b is not None:
                        new = convert(b)
                        if new is not b:
                            b._data = new._data
                            b._version[0] += 1
        finally:
            state.grad_enabled = prev
        return self

    def to(self, *args, **kwargs):
        """Moves and/or casts the parameters and buffers (floating point ones only, for a dtype)."""
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        for a in args:
            if isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, _dt.dtype):
                dtype = a
            elif a is not None:
                device = a
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")
        device = as_device(device) if device is not None else None

        def convert(t):
            out = t
            if device is not None:
                out = out.to(device)
            if dtype is not None and out.is_floating_point():
                out = out.to(dtype)
            return out
        return self._apply(convert)

    def cuda(self, device=None):
        """Moves all model parameters and buffers to the GPU."""
        return self.to("cuda" if device is None else (device if isinstance(device, str) else f"cuda:{device}"))

    def cpu(self):
        """Moves all model parameters and buffers to the CPU."""
        return self.to("cpu")

    def _cast_floating(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def double(self):
        """Casts all floating point parameters and buffers to float64."""
        return self._cast_floating(_dt.float64)

    def float(self):
        """Casts all floating point parameters and buffers to float32."""
        return self._cast_floating(_dt.float32)

    def half(self):
        """Casts all floating point parameters and buffers to float16."""
        return self._cast_floating(_dt.float16)

    def bfloat16(self):
        """PyTorch's cast to bfloat16: a TypeError saying the engine has none (NumPy has no bfloat16)."""
        return self._cast_floating(_dt.bfloat16)

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    # -------------------------------------------------------------- state dict
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Returns a dict of every parameter and persistent buffer, keyed by PyTorch's dotted names."""
        if args:  # the positional (destination, prefix, keep_vars) form PyTorch still accepts
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, missing_keys, error_msgs, assign=False):
        local = [(n, p) for n, p in self._parameters.items() if p is not None]
        local += [(n, b) for n, b in self._buffers.items()
                  if b is not None and n not in self._non_persistent_buffers_set]
        for name, current in local:
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            if tuple(value.shape) != tuple(current.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {current.shape}.")
                continue
            if assign:
                if name in self._parameters:
                    self._parameters[name] = value if isinstance(value, Parameter) \
                        else Parameter(value, current.requires_grad)
                else:
                    self._buffers[name] = value
                continue
            src = value.detach().to(current.device)._data
            if src.dtype != current._data.dtype:
                src = src.astype(current._data.dtype)
            current._data[...] = src
            current._version[0] += 1

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies parameters and buffers from state_dict into this module and its descendants."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, errors = [], []
        for prefix, module in self.named_modules(remove_duplicate=False):
            module._load_from_state_dict(state_dict, prefix + "." if prefix else "", missing, errors, assign)
        known = set(self.state_dict(keep_vars=True))
        unexpected = [k for k in state_dict if k not in known]
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -------------------------------------------------------------- printing
    def _get_name(self):
        name = type(self).__name__
        if _parametrize is not None and _parametrize.is_parametrized(self):
            return "Parametrized" + name   # PyTorch's generated class (engine/nn/utils/parametrize.py)
        return name

    def extra_repr(self):
        """The module's own settings, shown inside its repr."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body += extra_lines[0]
            else:
                body += "\n  " + "\n  ".join(lines) + "\n"
        return body + ")"

    def __setstate__(self, d):
        self.__dict__.update(d)
        self.__dict__.setdefault("_forward_hooks", {})
        self.__dict__.setdefault("_forward_pre_hooks", {})
        self.__dict__.setdefault("_backward_hooks", {})
        self.__dict__.setdefault("_non_persistent_buffers_set", set())


# engine/nn/utils/parametrize.py once imported (it installs itself): the reads and writes of parametrized tensors
_parametrize = None


def install_parametrize(parametrize):
    global _parametrize
    _parametrize = parametrize


def _typename(x):
    """torch.typename in PyTorch's messages: a tensor by its legacy type (``torch.FloatTensor``)."""
    if isinstance(x, Tensor):
        return x.type()
    return type(x).__name__
