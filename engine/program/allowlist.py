"""What the host exposes to programs: THE allowlist. Default deny.

A program reaches host things in three ways only, and each has its table here:

- ``MODULES``: the engine's modules under PyTorch's names (``torch``, ``torch.nn``, ...) and
  program-side ``math``: each lists the names a program may read from it, the host module the
  names come from, and its child modules. A name the engine defines that is not listed here
  does not exist for programs (``AttributeError: module 'torch' has no attribute ...``).
- ``TYPES``: the host classes whose instances (and the classes themselves) a program may hold,
  with the attributes it may read on them (and set, where a session owns the object). A host
  object of a class not listed here (or a subclass of an entry marked ``subclasses``) is refused
  wherever it would reach a program.
- ``GUARDS``: size checks run before an op whose result can outgrow its operands; one row per op
  name, with where the name is guarded (``torch.X``, ``Tensor.X``, ``F.X``).

Program-defined things (functions, classes, their objects) are the program's own and never
appear here; neither do the interpreter's builtins (``builtin_functions.py``).

How to add something (and regenerate the golden file the tests compare with):

- A module: add a row to ``MODULES`` (``Module(host="gradserve.engine.utils.data", names=(...))``)
  and name it as a child of its parent (``children={"data": "torch.utils.data"}``). Imports
  (``import torch.utils.data``) resolve through these rows.
- A function, class or constant of a module: add its name to that module's ``names``. A class
  also needs a ``TYPES`` row, or a program can name it but never hold one of its objects.
- A type: add ``"module.Qualname": Type(attrs=(...))``. ``subclasses=True`` makes the row cover
  the engine's subclasses too (each may add its own row with its own extra names);
  ``data=True`` lets programs read the public data an instance holds in its ``__dict__``
  (a module's ``in_features``; for modules also parameters, buffers and submodules);
  ``settable``: the public names a program may set on the engine's objects (``ANY`` for the
  objects a session owns: modules, optimizers, schedulers); ``base=True``: a program class may
  derive from it (``class Net(nn.Module)``).
- A guard: write the check in ``guards.py`` and add a ``GUARDS`` row naming it (``check_kron`` and
  ``check_cartesian_prod`` are written, waiting for the engine's ``kron`` and ``cartesian_prod``).

Then run ``python -m gradserve.engine.program.allowlist > tests/program/allowlist.golden.txt``;
the diff of that file is what a reviewer reads.
"""
from typing import NamedTuple

__all__ = ["MODULES", "TYPES", "GUARDS", "Module", "Type", "Guard", "ANY", "render"]

ANY = "*"   # settable: any public name (the program owns the object's state)


class Module(NamedTuple):
    host: str | None            # the host module the names are read from (None: all replaced)
    names: tuple = ()           # public names programs may read
    children: dict = {}         # attribute -> child module (its key in MODULES)
    replaced: dict = {}         # name -> "module:function" the program gets instead of the host's


class Type(NamedTuple):
    attrs: tuple = ()           # methods, properties and class attributes programs may read
    subclasses: bool = False    # also covers the engine's subclasses of this class
    data: bool = False          # instances' own public data (``__dict__``, module registries) is readable
    settable: tuple | str = ()  # public names programs may set on instances (ANY: all public names)
    base: bool = False          # program classes may derive from it


class Guard(NamedTuple):
    check: str                  # a function of guards.py, called with the op's arguments
    on: tuple                   # where it applies: "torch" (torch.X), "Tensor" (x.X), "F" (F.X)


_T, _X, _F = "torch", "Tensor", "F"

# --------------------------------------------------------------------------- guards
GUARDS = {
    "matmul": Guard("check_matmul", (_T, _X)),
    "mm": Guard("check_matmul", (_T, _X)),
    "bmm": Guard("check_matmul", (_T, _X)),
    "outer": Guard("check_outer", (_T, _X)),
    "ger": Guard("check_outer", (_T, _X)),
    "einsum": Guard("check_einsum", (_T,)),
    "meshgrid": Guard("check_meshgrid", (_T,)),
    "conv1d": Guard("check_conv", (_T, _F)),
    "conv2d": Guard("check_conv", (_T, _F)),
    "tensor": Guard("check_nested", (_T,)),
    "as_tensor": Guard("check_nested", (_T,)),
    "new_tensor": Guard("check_new_tensor", (_X,)),
    "split": Guard("check_split", (_T, _X)),
    "chunk": Guard("check_chunk", (_T, _X)),
    "tensor_split": Guard("check_chunk", (_T, _X)),
    "unbind": Guard("check_unbind", (_T, _X)),
    "one_hot": Guard("check_one_hot", (_F,)),
    "pad": Guard("check_pad", (_F,)),
    "unfold": Guard("check_unfold", (_F,)),
    "embedding": Guard("check_embedding", (_F,)),
}

# --------------------------------------------------------------------------- modules
_E = "gradserve.engine"

MODULES = {
    "torch": Module(
        host=_E,
        children={"nn": "torch.nn", "optim": "torch.optim", "autograd": "torch.autograd",
                  "linalg": "torch.linalg"},
        names=(
            "Generator", "Size", "Tensor", "abs", "absolute", "acos", "adaptive_avg_pool1d", "add", "addbmm",
            "addcdiv", "addcmul", "addmm", "addmv", "addr", "adjoint", "all", "allclose", "amax", "amin", "any",
            "arange", "arccos", "arcsin", "arctan", "arctan2", "argmax", "argmin", "argsort", "argwhere",
            "as_tensor", "asin", "atan", "atan2", "atleast_1d", "atleast_2d", "atleast_3d", "avg_pool1d",
            "baddbmm", "bernoulli", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "bool",
            "broadcast_shapes", "broadcast_tensors", "broadcast_to", "can_cast", "cat", "ceil",
            "celu", "chunk", "clamp", "clamp_max", "clamp_min", "clip", "clone", "column_stack", "concat",
            "concatenate", "contiguous", "conv1d", "conv2d", "cos", "cosh", "cosine_similarity",
            "count_nonzero", "cuda", "cumprod", "cumsum", "device", "diag", "diag_embed", "diagonal",
            "diagonal_scatter", "div", "divide", "dot", "double", "dropout", "dstack", "dtype", "einsum",
            "empty", "empty_like", "enable_grad", "eq", "equal", "erf", "erfc", "exp", "exp2", "expand",
            "expand_as", "expm1", "eye", "finfo", "fix", "flatten", "flip", "fliplr", "flipud", "float",
            "float16", "float32", "float64", "floor", "floor_divide", "fmax", "fmin", "fmod", "frac", "full",
            "full_like", "gather", "ge", "ger", "get_default_dtype", "get_printoptions", "get_rng_state",
            "greater", "greater_equal", "group_norm", "gt", "half", "hstack", "hypot", "iinfo", "index_add",
            "index_put", "index_select", "inference_mode", "initial_seed", "inner", "int", "int16", "int32",
            "int64", "int8", "is_anomaly_enabled", "is_floating_point", "is_grad_enabled", "is_nonzero",
            "is_tensor", "isclose", "isfinite", "isinf", "isnan", "layer_norm", "le", "lerp", "less",
            "less_equal", "linspace", "log", "log10", "log1p", "log2", "log_softmax", "logaddexp",
            "logical_and", "logical_not", "logical_or", "logical_xor", "logspace", "logsumexp", "long", "lt",
            "manual_seed", "masked_fill", "masked_select", "matmul", "max", "max_pool1d", "max_pool2d",
            "maximum", "mean", "median", "meshgrid", "min", "minimum", "mm", "moveaxis", "movedim", "mul",
            "multinomial", "multiply", "mv", "nan_to_num", "narrow", "ne", "neg", "negative", "no_grad",
            "nonzero", "norm", "normal", "not_equal", "numel", "ones", "ones_like", "outer",
            "pairwise_distance", "permute", "pow", "prod", "promote_types", "rand", "rand_like", "randint",
            "randint_like", "randn", "randn_like", "randperm", "ravel", "reciprocal", "relu", "remainder",
            "repeat", "repeat_interleave", "reshape", "result_type", "return_types", "roll", "rot90", "round",
            "rsqrt", "scalar_tensor", "scatter", "scatter_add", "seed", "select", "selu", "set_default_dtype",
            "set_detect_anomaly", "set_grad_enabled", "set_printoptions", "set_rng_state", "sgn", "short",
            "sigmoid", "sign", "signbit", "sin", "sinh", "softmax", "sort", "split", "sqrt", "square",
            "squeeze", "stack", "std", "std_mean", "sub", "subtract", "sum", "sum_to", "swapaxes", "swapdims",
            "t", "take", "take_along_dim", "tan", "tanh", "tensor", "tensor_split", "tensordot", "threshold",
            "tile", "topk", "trace", "transpose", "tril", "triu", "true_divide", "trunc", "uint8", "unbind",
            "unflatten", "unsqueeze", "var", "var_mean", "vdot", "view", "vstack", "where", "xlogy", "zeros",
            "zeros_like",
        )),
    "torch.nn": Module(
        host=_E + ".nn",
        children={"functional": "torch.nn.functional", "init": "torch.nn.init", "utils": "torch.nn.utils"},
        names=(
            "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss",
            "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Bilinear", "CELU", "Conv1d", "Conv2d",
            "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "ELU", "Embedding", "Flatten", "GELU",
            "GLU", "GRU", "GRUCell", "GroupNorm", "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss",
            "Identity", "KLDivLoss", "L1Loss", "LSTM", "LSTMCell", "LayerNorm", "LeakyReLU", "Linear",
            "LogSigmoid", "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d", "Mish", "Module", "ModuleDict",
            "ModuleList", "MultiheadAttention", "NLLLoss", "Parameter", "ParameterDict", "ParameterList", "RNN",
            "RNNBase", "RNNCell", "RNNCellBase", "ReLU", "ReLU6", "SELU", "Sequential", "SiLU", "Sigmoid",
            "SmoothL1Loss", "Softmax", "Softmin", "Softplus", "Softsign", "Tanh", "Tanhshrink", "Threshold",
            "Unflatten",
        )),
    "torch.nn.functional": Module(
        host=_E + ".nn.functional",
        names=(
            "adaptive_avg_pool1d", "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "batch_norm", "bilinear",
            "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu", "conv1d", "conv2d",
            "cosine_similarity", "cross_entropy", "dropout", "dropout1d", "dropout2d", "elu", "embedding",
            "fold", "gelu", "glu", "group_norm", "hardsigmoid", "hardswish", "hardtanh", "huber_loss", "kl_div",
            "l1_loss", "layer_norm", "leaky_relu", "leaky_relu_", "linear", "log_softmax", "logsigmoid",
            "max_pool1d", "max_pool2d", "mish", "mse_loss", "nll_loss", "normalize", "one_hot", "pad",
            "pairwise_distance", "relu", "relu6", "relu_", "scaled_dot_product_attention", "selu", "sigmoid",
            "silu", "smooth_l1_loss", "softmax", "softmin", "softplus", "softsign", "tanh", "tanhshrink",
            "threshold", "unfold",
        )),
    "torch.nn.init": Module(
        host=_E + ".nn.init",
        names=(
            "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_",
            "ones_", "orthogonal_", "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
        )),
    "torch.nn.utils": Module(
        host=_E + ".nn.utils",
        names=("clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters")),
    "torch.optim": Module(
        host=_E + ".optim",
        children={"lr_scheduler": "torch.optim.lr_scheduler"},
        names=("Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD")),
    "torch.optim.lr_scheduler": Module(
        host=_E + ".optim.lr_scheduler",
        names=("CosineAnnealingLR", "ExponentialLR", "LRScheduler", "LambdaLR", "MultiStepLR", "Optimizer",
               "StepLR")),
    "torch.autograd": Module(
        host=_E + ".autograd",
        names=("GradcheckError", "Variable", "backward", "detect_anomaly", "enable_grad", "grad", "gradcheck",
               "gradgradcheck", "is_anomaly_enabled", "is_grad_enabled", "no_grad", "set_detect_anomaly",
               "set_grad_enabled")),
    "torch.linalg": Module(host=_E + ".linalg"),
    "math": Module(
        host="math",
        names=(
            "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos",
            "cosh", "degrees", "dist", "e", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "floor", "fmod",
            "frexp", "gamma", "gcd", "hypot", "inf", "isclose", "isfinite", "isinf", "isnan", "isqrt", "ldexp",
            "lgamma", "log", "log10", "log1p", "log2", "modf", "nan", "pi", "radians", "remainder", "sin",
            "sinh", "sqrt", "tan", "tanh", "tau", "trunc",
        ),
        # integer results whose size is checked first; pow always float, as Python's math.pow
        replaced={"pow": _E + ".program.access:math_pow", "factorial": _E + ".program.access:math_factorial",
                  "comb": _E + ".program.access:math_comb", "perm": _E + ".program.access:math_perm"}),
}

# --------------------------------------------------------------------------- types
_MODULE_API = (
    "add_module", "apply", "buffers", "children", "cpu", "cuda", "double", "eval", "extra_repr", "float",
    "forward", "get_buffer", "get_parameter", "get_submodule", "half", "load_state_dict", "modules",
    "named_buffers", "named_children", "named_modules", "named_parameters", "parameters", "register_buffer",
    "register_forward_hook", "register_forward_pre_hook", "register_module", "register_parameter",
    "requires_grad_", "state_dict", "to", "train", "training", "type", "zero_grad",
)

TYPES = {
    # ---- tensors
    _E + ".tensor.Tensor": Type(
        subclasses=True, settable=("data", "grad", "requires_grad"),
        attrs=(
            "H", "T", "abs", "abs_", "absolute", "absolute_", "acos", "acos_", "add", "add_", "addbmm",
            "addbmm_", "addcdiv", "addcdiv_", "addcmul", "addcmul_", "addmm", "addmm_", "addmv", "addmv_", "addr",
            "addr_", "adjoint", "all", "allclose", "amax", "amin", "any", "arccos", "arccos_", "arcsin",
            "arcsin_", "arctan", "arctan2", "arctan2_", "arctan_", "argmax", "argmin", "argsort", "argwhere",
            "asin", "asin_", "atan", "atan2", "atan2_", "atan_", "backward", "baddbmm", "baddbmm_",
            "bernoulli_", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "bool",
            "broadcast_to", "byte", "ceil", "ceil_", "char", "chunk", "clamp", "clamp_", "clamp_max",
            "clamp_max_", "clamp_min", "clamp_min_", "clip", "clip_", "clone", "contiguous", "copy_", "cos",
            "cos_", "cosh", "cosh_", "count_nonzero", "cpu", "cuda", "cumprod", "cumsum", "data", "detach",
            "detach_", "device", "diag", "diag_embed", "diagonal", "diagonal_scatter", "dim", "div", "div_",
            "divide", "divide_", "dot", "double", "dtype", "element_size", "eq", "equal", "erf", "erf_", "erfc",
            "erfc_", "exp", "exp2", "exp2_", "exp_", "expand", "expand_as", "expm1", "expm1_", "exponential_",
            "fill_", "fix", "fix_", "flatten", "flip", "fliplr", "flipud", "float", "floor", "floor_",
            "floor_divide", "floor_divide_", "fmax", "fmin", "fmod", "fmod_", "frac", "frac_", "gather", "ge",
            "ger", "get_device", "grad", "grad_fn", "greater", "greater_equal", "gt", "half", "hypot", "hypot_",
            "index_add", "index_add_", "index_put", "index_put_", "index_select", "inner", "int", "is_complex",
            "is_contiguous", "is_cuda", "is_floating_point", "is_leaf", "is_same_size", "is_signed", "isclose",
            "isfinite", "isinf", "isnan", "item", "itemsize", "le", "lerp", "lerp_", "less", "less_equal", "log",
            "log10", "log10_", "log1p", "log1p_", "log2", "log2_", "log_", "log_softmax", "logaddexp",
            "logical_and", "logical_not", "logical_not_", "logical_or", "logical_xor", "logsumexp", "long", "lt",
            "mH", "mT", "masked_fill", "masked_fill_", "masked_select", "matmul", "max", "maximum", "maximum_",
            "mean", "median", "min", "minimum", "minimum_", "mm", "moveaxis", "movedim", "mul", "mul_",
            "multiply", "multiply_", "mv", "nan_to_num", "nan_to_num_", "narrow", "nbytes", "ndim",
            "ndimension", "ne", "neg", "neg_", "negative", "negative_", "nelement", "new_empty", "new_full",
            "new_ones", "new_tensor", "new_zeros", "nonzero", "norm", "normal_", "not_equal", "numel", "numpy",
            "outer", "permute", "pow", "pow_", "prod", "random_", "ravel", "reciprocal", "reciprocal_",
            "register_hook", "relu", "relu_", "remainder", "remainder_", "repeat", "repeat_interleave",
            "requires_grad", "requires_grad_", "reshape", "reshape_as", "retain_grad", "retains_grad", "roll",
            "rot90", "round", "round_", "rsqrt", "rsqrt_", "scatter", "scatter_", "scatter_add",
            "scatter_add_", "select", "sgn", "sgn_", "shape", "short", "sigmoid", "sigmoid_", "sign", "sign_",
            "signbit", "sin", "sin_", "sinh", "sinh_", "size", "softmax", "sort", "split", "sqrt", "sqrt_",
            "square", "square_", "squeeze", "squeeze_", "std", "stride", "sub", "sub_", "subtract",
            "subtract_", "sum", "sum_to_size", "swapaxes", "swapdims", "t", "t_", "take", "take_along_dim",
            "tan", "tan_", "tanh", "tanh_", "tensor_split", "tile", "to", "tolist", "topk", "trace",
            "transpose", "transpose_", "tril", "tril_", "triu", "triu_", "true_divide", "true_divide_", "trunc",
            "trunc_", "type", "type_as", "unbind", "unflatten", "uniform_", "unsqueeze", "unsqueeze_", "var",
            "vdot", "view", "view_as", "where", "xlogy", "xlogy_", "zero_",
        )),
    _E + ".tensor.Size": Type(attrs=("count", "index", "numel")),
    _E + ".dtypes.dtype": Type(attrs=("is_floating_point", "is_signed", "itemsize")),
    _E + ".device.device": Type(attrs=("index", "type")),
    _E + ".cuda": Type(attrs=("device_count", "is_available", "manual_seed", "manual_seed_all", "synchronize")),
    _E + ".finfo": Type(data=True),
    _E + ".iinfo": Type(data=True),
    _E + ".ops.creation.Generator": Type(attrs=("device", "get_state", "initial_seed", "manual_seed", "seed",
                                                "set_state")),
    _E + ".ops.reduction.return_types": Type(attrs=("max", "median", "min", "sort", "topk")),
    "torch.return_types.max": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.min": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.sort": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.topk": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.median": Type(attrs=("count", "index", "indices", "values")),
    # ---- autograd
    _E + ".autograd.function.Node": Type(
        subclasses=True,
        attrs=("name", "next_functions", "register_hook", "register_prehook")),
    _E + ".autograd.function.AccumulateGrad": Type(attrs=("variable",)),
    _E + ".autograd.function._RemovableHandle": Type(attrs=("remove",)),
    _E + ".autograd.grad_mode.no_grad": Type(),
    _E + ".autograd.grad_mode.enable_grad": Type(),
    _E + ".autograd.grad_mode.set_grad_enabled": Type(),
    _E + ".autograd.grad_mode.inference_mode": Type(),
    _E + ".autograd.grad_mode.detect_anomaly": Type(),
    _E + ".autograd.grad_mode.set_detect_anomaly": Type(),
    _E + ".autograd.finite_differences.GradcheckError": Type(),
    # ---- modules
    _E + ".nn.module.Module": Type(subclasses=True, data=True, settable=ANY, base=True, attrs=_MODULE_API),
    _E + ".nn.module.RemovableHandle": Type(attrs=("remove",)),
    _E + ".nn.module._IncompatibleKeys": Type(attrs=("count", "index", "missing_keys", "unexpected_keys")),
    _E + ".nn.container.ModuleDict": Type(attrs=("clear", "items", "keys", "pop", "update", "values")),
    _E + ".nn.container.ModuleList": Type(attrs=("append", "extend", "insert", "pop")),
    _E + ".nn.container.ParameterDict": Type(attrs=("items", "keys", "update", "values")),
    _E + ".nn.container.ParameterList": Type(attrs=("append", "extend")),
    _E + ".nn.container.Sequential": Type(attrs=("append", "extend", "insert")),
    _E + ".nn.attention.NonDynamicallyQuantizableLinear": Type(attrs=("reset_parameters",)),
    _E + ".nn.conv._ConvNd": Type(attrs=("reset_parameters",)),
    _E + ".nn.linear.Bilinear": Type(attrs=("reset_parameters",)),
    _E + ".nn.linear.Linear": Type(attrs=("reset_parameters",)),
    _E + ".nn.normalization._BatchNorm": Type(attrs=("reset_parameters", "reset_running_stats")),
    _E + ".nn.normalization.LayerNorm": Type(attrs=("reset_parameters",)),
    _E + ".nn.rnn.RNNBase": Type(attrs=("all_weights", "reset_parameters")),
    _E + ".nn.rnn.RNNCellBase": Type(attrs=("reset_parameters",)),
    _E + ".nn.sparse.Embedding": Type(attrs=("from_pretrained", "reset_parameters")),
    # ---- optimisers and schedulers
    _E + ".optim.optimizer.Optimizer": Type(
        subclasses=True, data=True, settable=ANY, base=True,
        attrs=("add_param_group", "load_state_dict", "state_dict", "step", "zero_grad")),
    _E + ".optim.lr_scheduler.LRScheduler": Type(
        subclasses=True, data=True, settable=ANY, base=True,
        attrs=("get_last_lr", "get_lr", "load_state_dict", "state_dict", "step")),
}


# --------------------------------------------------------------------------- rendering
def render():
    """The whole allowlist as text, one line per entry (the golden file's content)."""
    out = ["# gradserve: what programs may reach of the host (engine/program/allowlist.py)", ""]
    out.append("## guards")
    for name in sorted(GUARDS):
        g = GUARDS[name]
        out.append(f"{name}: {g.check} on {', '.join(g.on)}")
    out.append("")
    out.append("## modules")
    for key in sorted(MODULES):
        m = MODULES[key]
        out.append(f"[{key}] from {m.host}")
        for child in sorted(m.children):
            out.append(f"  {child} -> module {m.children[child]}")
        for name in sorted(m.names):
            out.append(f"  {name}")
        for name in sorted(m.replaced):
            out.append(f"  {name} = {m.replaced[name]}")
    out.append("")
    out.append("## types")
    for key in sorted(TYPES):
        t = TYPES[key]
        flags = [f for f, on in (("subclasses", t.subclasses), ("data", t.data), ("base", t.base)) if on]
        if t.settable:
            flags.append("settable=" + (t.settable if t.settable == ANY else ",".join(sorted(t.settable))))
        out.append(f"[{key}]" + (" " + " ".join(flags) if flags else ""))
        for name in sorted(t.attrs):
            out.append(f"  {name}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
