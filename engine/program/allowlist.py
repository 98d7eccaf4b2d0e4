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
- A guard: write the check in ``guards.py`` and add a ``GUARDS`` row naming it.

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
    settable: tuple = ()        # of ``names``, the flags a program may set: in its own session's view only


class Type(NamedTuple):
    attrs: tuple = ()           # methods, properties and class attributes programs may read
    subclasses: bool = False    # also covers the engine's subclasses of this class
    data: bool = False          # instances' own public data (``__dict__``, module registries) is readable
    settable: tuple | str = ()  # public names programs may set on instances (ANY: all public names)
    base: bool = False          # program classes may derive from it


class Guard(NamedTuple):
    check: str                  # a function of guards.py, called with the op's arguments
    on: tuple                   # where it applies: "torch" (torch.X), "Tensor" (x.X), "F" (F.X)


_T, _X, _F, _L = "torch", "Tensor", "F", "linalg"

# --------------------------------------------------------------------------- guards
GUARDS = {
    "matmul": Guard("check_matmul", (_T, _X)),
    "matrix_power": Guard("check_matrix_power", (_T, _X, _L)),
    "mm": Guard("check_matmul", (_T, _X)),
    "bmm": Guard("check_matmul", (_T, _X)),
    "outer": Guard("check_outer", (_T, _X)),
    "ger": Guard("check_outer", (_T, _X)),
    "kron": Guard("check_kron", (_T, _X)),
    "cdist": Guard("check_cdist", (_T,)),
    "einsum": Guard("check_einsum", (_T,)),
    "meshgrid": Guard("check_meshgrid", (_T,)),
    "conv1d": Guard("check_conv", (_T, _F)),
    "conv2d": Guard("check_conv", (_T, _F)),
    "conv3d": Guard("check_conv", (_T, _F)),
    "tensor": Guard("check_nested", (_T,)),
    "as_tensor": Guard("check_nested", (_T,)),
    "new_tensor": Guard("check_new_tensor", (_X,)),
    "new": Guard("check_new", (_X,)),
    "split": Guard("check_split", (_T, _X)),
    "chunk": Guard("check_chunk", (_T, _X)),
    "tensor_split": Guard("check_tensor_split", (_T, _X)),
    "hsplit": Guard("check_tensor_split", (_T, _X)),
    "vsplit": Guard("check_tensor_split", (_T, _X)),
    "dsplit": Guard("check_tensor_split", (_T, _X)),
    "unbind": Guard("check_unbind", (_T, _X)),
    "one_hot": Guard("check_one_hot", (_F,)),
    "pad": Guard("check_pad", (_F,)),
    "expand": Guard("check_expand", (_T, _X)),
    "broadcast_to": Guard("check_expand", (_T, _X)),
    "unfold": Guard("check_unfold", (_F,)),
    "embedding": Guard("check_embedding", (_F,)),
    "avg_pool1d": Guard("check_pool", (_T, _F)),
    "avg_pool2d": Guard("check_pool", (_F,)),
    "max_pool1d": Guard("check_pool", (_T, _F)),
    "max_pool2d": Guard("check_pool", (_T, _F)),
    "max_pool3d": Guard("check_pool", (_T, _F)),
    "avg_pool3d": Guard("check_pool", (_F,)),
    "adaptive_avg_pool1d": Guard("check_adaptive_pool", (_T, _F)),
    "adaptive_avg_pool2d": Guard("check_adaptive_pool", (_F,)),
    "adaptive_avg_pool3d": Guard("check_adaptive_pool", (_F,)),
    "cartesian_prod": Guard("check_cartesian_prod", (_T,)),
    "block_diag": Guard("check_block_diag", (_T,)),
    "triu_indices": Guard("check_tri_indices", (_T,)),
    "tril_indices": Guard("check_tri_indices", (_T,)),
    "bincount": Guard("check_bincount", (_T, _X)),
}

# --------------------------------------------------------------------------- modules
_E = "gradserve.engine"
_S = _E + ".program.stdlib"
# torch.optim's per-optimizer modules and the classes each holds
_OPTIMIZER_MODULES = {"adadelta": ("Adadelta",), "adagrad": ("Adagrad",), "adam": ("Adam",), "adamax": ("Adamax",),
                      "adamw": ("AdamW",), "lbfgs": ("LBFGS",), "nadam": ("NAdam",), "radam": ("RAdam",),
                      "rmsprop": ("RMSprop",), "sgd": ("SGD",)}

MODULES = {
    "torch": Module(
        host=_E,
        children={"nn": "torch.nn", "optim": "torch.optim", "autograd": "torch.autograd",
                  "linalg": "torch.linalg", "utils": "torch.utils", "backends": "torch.backends", "sparse": "torch.sparse",
                  "distributions": "torch.distributions", "cuda": "torch.cuda", "jit": "torch.jit",
                  "special": "torch.special", "amp": "torch.amp", "cpu": "torch.cpu", "distributed": "torch.distributed",
                  "func": "torch.func", "_utils": "torch._utils"},
        # NumPy arrays in, as PyTorch takes them (engine/program/stdlib/numpy.py)
        replaced={"from_numpy": _S + ".numpy:torch_from_numpy", "tensor": _S + ".numpy:torch_tensor",
                  "as_tensor": _S + ".numpy:torch_as_tensor"},
        names=(
            "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "Generator", "HalfTensor",
            "IntTensor", "LongTensor", "ShortTensor", "Size", "Tensor", "e", "inf", "nan", "newaxis", "pi", "abs", "vmap",
            "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "gcd", "lcm", "isneginf", "isposinf", "isreal", "positive", "isin", "unique_consecutive", "combinations", "unravel_index", "diagflat", "vander", "hsplit", "vsplit", "dsplit", "row_stack", "msort", "nanmedian", "select_scatter", "slice_scatter", "renorm", "pdist", "is_same_size", "hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window", "set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads", "set_float32_matmul_precision", "get_float32_matmul_precision", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode", "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled", "set_flush_denormal", "get_default_device",
            "channels_last", "channels_last_3d", "contiguous_format", "memory_format", "preserve_format",
            "index_fill", "matrix_power", "unique", "cholesky", "cholesky_inverse", "cholesky_solve", "det", "inverse",
            "logdet", "pinverse", "qr", "lu", "lu_solve", "lu_unpack", "slogdet", "svd", "triangular_solve", "absolute", "accelerator", "acos", "adaptive_avg_pool1d", "add", "addbmm",
            "addcdiv", "addcmul", "addmm", "addmv", "addr", "adjoint", "all", "allclose", "amax", "amin", "any",
            "arange", "arccos", "arcsin", "arctan", "arctan2", "argmax", "argmin", "argsort", "argwhere",
            "as_tensor", "asin", "atan", "atan2", "atleast_1d", "atleast_2d", "atleast_3d", "avg_pool1d",
            "baddbmm", "bernoulli", "cdist", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "bool",
            "broadcast_shapes", "broadcast_tensors", "broadcast_to", "can_cast", "cat", "ceil",
            "celu", "chunk", "clamp", "clamp_max", "clamp_min", "clip", "clone", "column_stack", "concat",
            "concatenate", "contiguous", "conv1d", "conv2d", "conv3d", "copysign", "cos", "cosh", "cosine_similarity", "cross",
            "dist", "float_power",
            "count_nonzero", "cumprod", "cumsum", "device", "diag", "diag_embed", "diagonal",
            "diff", "nansum", "nanmean", "block_diag", "cartesian_prod", "triu_indices", "tril_indices", "bincount",
            "cummax", "cummin", "sinc", "logaddexp2", "autocast", "bfloat16", "index_copy", "logcumsumexp", "quantile", "nanquantile", "cov", "corrcoef", "aminmax",
            "trapezoid", "trapz", "cumulative_trapezoid", "heaviside", "histc", "lgamma", "digamma", "polygamma", "erfinv", "mvlgamma", "logit",
            "diagonal_scatter", "div", "divide", "dot", "double", "dropout", "dstack", "dtype", "einsum",
            "empty", "empty_like", "enable_grad", "eq", "equal", "erf", "erfc", "exp", "exp2", "expand",
            "expand_as", "expm1", "eye", "finfo", "fix", "flatten", "flip", "fliplr", "flipud", "float",
            "float16", "float32", "float64", "floor", "floor_divide", "fmax", "fmin", "fmod", "frac", "full",
            "full_like", "gather", "ge", "ger", "get_default_dtype", "get_printoptions", "get_rng_state",
            "greater", "greater_equal", "group_norm", "gt", "half", "hstack", "hypot", "iinfo", "index_add",
            "index_put", "index_select", "inference_mode", "initial_seed", "inner", "int", "int16", "int32",
            "int64", "int8", "is_anomaly_enabled", "is_complex", "is_floating_point", "is_grad_enabled",
            "is_nonzero", "is_tensor", "isclose", "isfinite", "isinf", "isnan", "kron", "kthvalue", "layer_norm", "le", "lerp", "less",
            "less_equal", "linspace", "log", "log10", "log1p", "log2", "log_softmax", "logaddexp",
            "logical_and", "logical_not", "logical_or", "logical_xor", "logspace", "logsumexp", "long", "lt",
            "manual_seed", "masked_fill", "masked_scatter", "masked_select", "matmul", "max", "max_pool1d", "max_pool2d", "max_pool3d",
            "maximum", "mean", "median", "meshgrid", "min", "minimum", "mm", "moveaxis", "movedim", "mul",
            "multinomial", "multiply", "mv", "nan_to_num", "narrow", "ne", "neg", "negative", "no_grad",
            "nonzero", "norm", "normal", "not_equal", "numel", "ones", "ones_like", "outer",
            "pairwise_distance", "permute", "pow", "prod", "promote_types", "rand", "rand_like", "randint",
            "randint_like", "randn", "randn_like", "randperm", "ravel", "reciprocal", "relu", "remainder",
            "repeat", "repeat_interleave", "reshape", "result_type", "return_types", "roll", "rot90", "round",
            "rsqrt", "scalar_tensor", "scatter", "scatter_add", "scatter_reduce", "searchsorted", "sparse_coo_tensor", "spmm", "bucketize", "seed", "select", "selu", "set_default_dtype", "set_default_tensor_type",
            "set_detect_anomaly", "set_grad_enabled", "set_printoptions", "set_rng_state", "sgn", "short",
            "sigmoid", "sign", "signbit", "sin", "sinh", "softmax", "sort", "split", "sqrt", "square",
            "squeeze", "stack", "std", "std_mean", "sub", "subtract", "sum", "sum_to", "swapaxes", "swapdims",
            "t", "take", "take_along_dim", "tan", "tanh", "tensor", "tensor_split", "tensordot", "threshold",
            "tile", "topk", "trace", "transpose", "tril", "triu", "true_divide", "trunc", "uint8", "unbind",
            "unflatten", "unsqueeze", "var", "var_mean", "vdot", "view", "vstack", "where", "xlogy", "zeros",
            "zeros_like",
            "mode", "rsub", "ldexp", "frexp", "nextafter", "bitwise_left_shift", "bitwise_right_shift",
            # PyTorch's torch.X aliases of F.X
            "alpha_dropout", "bilinear", "channel_shuffle", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
            "feature_alpha_dropout", "hardshrink", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_", "rrelu",
            "rrelu_",
        )),
    "torch.nn": Module(
        host=_E + ".nn",
        children={"functional": "torch.nn.functional", "init": "torch.nn.init", "utils": "torch.nn.utils",
                  "parallel": "torch.nn.parallel", "parameter": "torch.nn.parameter", "modules": "torch.nn.modules",
                  "_reduction": "torch.nn._reduction"},
        names=(
            "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "BCELoss", "BCEWithLogitsLoss",
            "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Bilinear", "CELU", "Conv1d", "Conv2d", "Conv3d",
            "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
            "AlphaDropout", "ChannelShuffle", "CosineSimilarity", "FeatureAlphaDropout", "Fold", "Hardshrink",
            "LocalResponseNorm", "PReLU", "PairwiseDistance", "RReLU", "Softmax2d", "Softshrink", "Unfold",
            "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
            "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss",
            "TripletMarginWithDistanceLoss", "CTCLoss",
            "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "EmbeddingBag", "MaxUnpool1d", "MaxUnpool2d",
            "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "ELU", "Embedding", "Flatten", "GELU", "GLU",
            "GRU", "GRUCell", "GroupNorm", "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss", "Identity", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
            "KLDivLoss", "L1Loss", "LSTM", "LSTMCell", "LayerNorm", "LazyLinear", "LeakyReLU", "Linear",
            "LogSigmoid", "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d", "MaxPool3d", "Mish", "Module", "ModuleDict",
            "ModuleList", "MultiheadAttention", "NLLLoss", "Parameter", "ParameterDict", "ParameterList", "PixelShuffle", "PixelUnshuffle", "RMSNorm", "RNN",
            "RNNBase", "RNNCell", "RNNCellBase", "ReLU", "ReLU6", "SELU", "Sequential", "SiLU", "Sigmoid",
            "SmoothL1Loss", "Softmax", "Softmin", "Softplus", "Softsign", "SyncBatchNorm", "Tanh", "Tanhshrink",
            "Threshold",
            "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
            "TransformerEncoderLayer", "Unflatten", "UninitializedParameter",
            # lazy modules and padding layers
            "CircularPad1d", "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "LazyBatchNorm1d",
            "LazyBatchNorm2d", "LazyConv1d", "LazyConv2d", "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d",
            "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
            # resampling
            "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d",
            # one device: the module as it is
            "DataParallel",
        )),
    "torch.nn.functional": Module(
        host=_E + ".nn.functional",
        names=(
            "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
            "batch_norm", "bilinear",
            "binary_cross_entropy", "binary_cross_entropy_with_logits", "celu", "conv1d", "conv2d", "conv3d",
            "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
            "alpha_dropout", "channel_shuffle", "feature_alpha_dropout", "hardshrink", "local_response_norm",
            "prelu", "rrelu", "rrelu_", "softshrink",
            "cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss",
            "multi_margin_loss", "multilabel_soft_margin_loss", "poisson_nll_loss", "soft_margin_loss",
            "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss",
            "adaptive_max_pool1d", "adaptive_max_pool2d", "embedding_bag", "max_unpool1d", "max_unpool2d",
            "cosine_similarity", "cross_entropy", "dropout", "dropout1d", "dropout2d", "dropout3d", "elu", "embedding",
            "fold", "gelu", "glu", "gumbel_softmax", "group_norm", "hardsigmoid", "hardswish", "hardtanh", "huber_loss", "instance_norm", "kl_div",
            "l1_loss", "layer_norm", "leaky_relu", "leaky_relu_", "linear", "log_softmax", "logsigmoid",
            "rms_norm", "max_pool1d", "max_pool2d", "max_pool3d", "mish", "mse_loss", "multi_head_attention_forward", "nll_loss", "affine_grid", "grid_sample", "normalize", "one_hot", "pad",
            "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "relu", "relu6", "relu_", "scaled_dot_product_attention", "selu", "sigmoid",
            "silu", "smooth_l1_loss", "softmax", "softmin", "softplus", "softsign", "tanh", "tanhshrink",
            "threshold", "unfold",
            # resampling
            "interpolate", "upsample", "upsample_bilinear", "upsample_nearest",
        )),
    "torch.nn.parallel": Module(host=_E + ".nn.parallel", names=("DataParallel", "data_parallel")),
    # where PyTorch defines what torch.nn exports (pygcn: from torch.nn.parameter import Parameter,
    # from torch.nn.modules.module import Module); torch.nn.modules' layers are filled in below
    # sparse COO tensors (held dense, engine/ops/sparse.py): pygcn's torch.sparse.FloatTensor and spmm
    "torch.sparse": Module(host=_E + ".sparse", names=("DoubleTensor", "FloatTensor", "LongTensor", "mm", "sum")),
    "torch.nn.parameter": Module(host=_E + ".nn.parameter", names=("Parameter", "UninitializedParameter")),
    "torch.nn.modules.module": Module(host=_E + ".nn.modules.module", names=("Module",)),
    # annotations only: TorchScript compiles nothing here, the decorators return what they decorate
    "torch.jit": Module(host=_E + ".jit", names=(
        "Attribute", "Final", "ScriptModule", "annotate", "export", "ignore", "is_scripting", "is_tracing",
        "script", "script_method", "trace", "unused")),
    "torch.cuda": Module(host=_E + ".cuda", children={"amp": "torch.cuda.amp"}, names=(
        "device_count", "empty_cache", "get_device_name", "is_available", "is_bf16_supported", "manual_seed", "manual_seed_all",
        "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "synchronize")),
    "torch.cuda.amp": Module(host=_E + ".cuda_amp", names=("GradScaler", "autocast", "custom_bwd", "custom_fwd")),
    "torch.cpu": Module(host=_E + ".cpu", children={"amp": "torch.cpu.amp"}, names=(
        "current_device", "device_count", "is_available", "synchronize")),
    "torch.cpu.amp": Module(host=_E + ".cpu_amp", names=("GradScaler", "autocast")),
    "torch.amp": Module(host=_E + ".amp", names=("GradScaler", "autocast", "custom_bwd", "custom_fwd")),
    # the switches scripts flip: the flags are the session's own, the probes answer "not here"
    "torch.backends": Module(host=_E + ".backends", children={"cudnn": "torch.backends.cudnn",
                                                               "mps": "torch.backends.mps"}),
    "torch.backends.cudnn": Module(
        host=_E + ".backends.cudnn",
        names=("allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "version"),
        settable=("allow_tf32", "benchmark", "deterministic", "enabled")),
    # improved-diffusion's fp16 utilities import these two (engine/_utils.py); nothing else of torch._utils
    "torch._utils": Module(host=_E + "._utils", names=("_flatten_dense_tensors", "_unflatten_dense_tensors")),
    "torch.distributed": Module(   # one process, never initialized (engine/distributed.py)
        host=_E + ".distributed",
        names=("ReduceOp", "all_gather", "all_reduce", "barrier", "broadcast", "get_rank", "get_world_size",
               "is_available", "is_initialized")),
    "torch.backends.mps": Module(host=_E + ".backends.mps", names=("is_available", "is_built")),
    "torch.nn.init": Module(
        host=_E + ".nn.init",
        names=(
            "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_",
            "ones_", "orthogonal_", "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
            # PyTorch's deprecated spellings (a FutureWarning, then the same fill)
            "constant", "dirac", "eye", "kaiming_normal", "kaiming_uniform", "normal", "orthogonal", "uniform",
            "xavier_normal", "xavier_uniform",
        )),
    "torch.func": Module(host=_E + ".func", names=(
        "functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "stack_module_state", "vjp",
        "vmap")),
    "torch.nn.utils.stateless": Module(host=_E + ".nn.utils.stateless", names=("functional_call",)),
    # torch.func's earlier home, as PyTorch still ships it (functorch's MAML and ensembling examples)
    "functorch": Module(host=_E + ".functorch", names=(
        "combine_state_for_ensemble", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
        "make_functional", "make_functional_with_buffers", "vjp", "vmap")),
    "torch.nn.utils": Module(
        host=_E + ".nn.utils",
        children={"rnn": "torch.nn.utils.rnn", "stateless": "torch.nn.utils.stateless",
                  "parametrize": "torch.nn.utils.parametrize", "parametrizations": "torch.nn.utils.parametrizations",
                  "prune": "torch.nn.utils.prune"},
        names=("clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
               "remove_spectral_norm", "remove_weight_norm", "spectral_norm", "vector_to_parameters", "weight_norm")),
    "torch.nn.utils.parametrize": Module(
        host=_E + ".nn.utils.parametrize",
        names=("ParametrizationList", "cached", "is_parametrized", "register_parametrization", "remove_parametrizations",
               "transfer_parametrizations_and_params", "type_before_parametrizations")),
    "torch.nn.utils.prune": Module(
        host=_E + ".nn.utils.prune",
        names=("BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured", "LnStructured", "PruningContainer",
               "RandomStructured", "RandomUnstructured", "custom_from_mask", "global_unstructured", "identity",
               "is_pruned", "l1_unstructured", "ln_structured", "random_structured", "random_unstructured", "remove")),
    "torch.nn.utils.parametrizations": Module(host=_E + ".nn.utils.parametrizations", names=("spectral_norm", "weight_norm")),
    "torch.nn.utils.rnn": Module(
        host=_E + ".nn.utils.rnn",
        names=("PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence",
               "pad_sequence", "unpack_sequence", "unpad_sequence")),
    "torch.optim": Module(
        host=_E + ".optim",
        children={"lr_scheduler": "torch.optim.lr_scheduler", "optimizer": "torch.optim.optimizer",
                  "swa_utils": "torch.optim.swa_utils", **{m: "torch.optim." + m for m in _OPTIMIZER_MODULES}},
        names=("Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer", "RAdam", "RMSprop",
               "SGD")),
    # custom optimisers import their base from here (pytorch-optimizer, the spectral-norm GAN)
    "torch.optim.optimizer": Module(host=_E + ".optim.optimizer", names=("Optimizer", "required")),
    # each optimizer's own module (pytorch-gradual-warmup-lr: ``from torch.optim.sgd import SGD``)
    **{"torch.optim." + m: Module(host=_E + ".optim." + m, names=names) for m, names in _OPTIMIZER_MODULES.items()},
    "torch.optim.lr_scheduler": Module(
        host=_E + ".optim.lr_scheduler",
        names=("ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
               "ExponentialLR", "LRScheduler", "LambdaLR",
               "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR", "Optimizer", "PolynomialLR",
               "ReduceLROnPlateau", "SequentialLR", "StepLR", "_LRScheduler")),
    "torch.optim.swa_utils": Module(
        host=_E + ".optim.swa_utils",
        names=("AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
               "get_swa_multi_avg_fn", "update_bn")),
    "torch.autograd": Module(
        host=_E + ".autograd",
        children={"function": "torch.autograd.function", "functional": "torch.autograd.functional"},
        names=("Function", "FunctionCtx", "GradcheckError", "Variable", "backward", "detect_anomaly", "enable_grad",
               "grad", "gradcheck", "gradgradcheck", "inference_mode", "is_anomaly_enabled", "is_grad_enabled",
               "no_grad", "once_differentiable", "set_detect_anomaly", "set_grad_enabled")),
    "torch.autograd.functional": Module(host=_E + ".autograd.functional", names=(
        "hessian", "hvp", "jacobian", "jvp", "vhp", "vjp")),
    "torch.autograd.function": Module(
        host=_E + ".autograd.custom_function",
        names=("Function", "FunctionCtx", "InplaceFunction", "once_differentiable")),
    "torch.linalg": Module(host=_E + ".linalg", names=(
        "cholesky", "cholesky_ex", "cross", "det", "eigh", "eigvalsh", "inv", "inv_ex", "lstsq",
        "lu", "lu_factor", "lu_factor_ex", "lu_solve",
        "matrix_norm", "matrix_power", "matrix_rank", "norm", "pinv", "qr", "slogdet", "solve", "solve_triangular",
        "svd", "svdvals", "vector_norm")),
    "torch.special": Module(host=_E + ".special", names=(
        "digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p", "log_softmax",
        "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax",
        "xlog1py", "xlogy")),
    "torch.distributions": Module(
        host=_E + ".distributions",
        children={"categorical": "torch.distributions.categorical", "distribution": "torch.distributions.distribution",
                  "multivariate_normal": "torch.distributions.multivariate_normal",
                  "multinomial": "torch.distributions.multinomial",
                  "normal": "torch.distributions.normal", "kl": "torch.distributions.kl",
                  "bernoulli": "torch.distributions.bernoulli", "uniform": "torch.distributions.uniform",
                  "independent": "torch.distributions.independent", "gamma": "torch.distributions.gamma",
                  "beta": "torch.distributions.beta", "dirichlet": "torch.distributions.dirichlet",
                  "exponential": "torch.distributions.exponential", "laplace": "torch.distributions.laplace",
                  "poisson": "torch.distributions.poisson",
                  "one_hot_categorical": "torch.distributions.one_hot_categorical",
                  "transforms": "torch.distributions.transforms",
                  "transformed_distribution": "torch.distributions.transformed_distribution",
                  "log_normal": "torch.distributions.log_normal",
                  "mixture_same_family": "torch.distributions.mixture_same_family"},
        # kl_divergence, not register_kl: its registry is the process's, shared by every session
        names=("AffineTransform", "Bernoulli", "Beta", "Categorical", "ComposeTransform", "Dirichlet", "Distribution",
               "ExpTransform", "Exponential", "Gamma", "Independent", "Laplace", "LogNormal", "MixtureSameFamily",
               "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "PowerTransform",
               "SigmoidTransform", "SoftplusTransform", "TanhTransform", "Transform", "TransformedDistribution", "Uniform",
               "kl_divergence")),
    "torch.distributions.transforms": Module(host=_E + ".distributions.transforms", names=(
        "AffineTransform", "ComposeTransform", "ExpTransform", "PowerTransform", "SigmoidTransform",
        "SoftplusTransform", "TanhTransform", "Transform")),
    "torch.distributions.transformed_distribution": Module(host=_E + ".distributions.transformed_distribution",
                                                           names=("TransformedDistribution",)),
    "torch.distributions.log_normal": Module(host=_E + ".distributions.transformed_distribution",
                                             names=("LogNormal",)),
    "torch.distributions.mixture_same_family": Module(host=_E + ".distributions.mixture_same_family",
                                                      names=("MixtureSameFamily",)),
    "torch.distributions.dirichlet": Module(host=_E + ".distributions.dirichlet", names=("Dirichlet",)),
    "torch.distributions.exponential": Module(host=_E + ".distributions.exponential", names=("Exponential",)),
    "torch.distributions.laplace": Module(host=_E + ".distributions.exponential", names=("Laplace",)),
    "torch.distributions.poisson": Module(host=_E + ".distributions.poisson", names=("Poisson",)),
    "torch.distributions.one_hot_categorical": Module(host=_E + ".distributions.one_hot_categorical",
                                                      names=("OneHotCategorical",)),
    "torch.distributions.bernoulli": Module(host=_E + ".distributions.bernoulli", names=("Bernoulli",)),
    "torch.distributions.uniform": Module(host=_E + ".distributions.uniform", names=("Uniform",)),
    "torch.distributions.independent": Module(host=_E + ".distributions.independent", names=("Independent",)),
    "torch.distributions.gamma": Module(host=_E + ".distributions.gamma", names=("Gamma",)),
    "torch.distributions.beta": Module(host=_E + ".distributions.gamma", names=("Beta",)),
    "torch.distributions.kl": Module(host=_E + ".distributions.kl", names=("kl_divergence",)),
    "torch.distributions.categorical": Module(host=_E + ".distributions.categorical", names=("Categorical",)),
    "torch.distributions.distribution": Module(host=_E + ".distributions.distribution", names=("Distribution",)),
    "torch.distributions.multivariate_normal": Module(host=_E + ".distributions.multivariate_normal",
                                                      names=("MultivariateNormal",)),
    "torch.distributions.normal": Module(host=_E + ".distributions.normal", names=("Normal",)),
    "torch.distributions.multinomial": Module(host=_E + ".distributions.multinomial", names=("Multinomial",)),
    "torch.utils": Module(host=_E + ".utils", children={"data": "torch.utils.data",
                                                         "checkpoint": "torch.utils.checkpoint"}),
    "torch.utils.checkpoint": Module(host=_E + ".utils.checkpoint", names=("checkpoint", "checkpoint_sequential")),
    "torch.utils.data": Module(
        host=_E + ".utils.data",
        children={"dataloader": "torch.utils.data.dataloader", "dataset": "torch.utils.data.dataset",
                  "sampler": "torch.utils.data.sampler"},
        names=("BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset", "RandomSampler",
               "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
               "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info", "random_split")),
    "torch.utils.data.dataloader": Module(
        host=_E + ".utils.data.dataloader",
        names=("DataLoader", "default_collate", "default_convert", "get_worker_info")),
    "torch.utils.data.dataset": Module(
        host=_E + ".utils.data.dataset",
        names=("ConcatDataset", "Dataset", "IterableDataset", "StackDataset", "Subset", "TensorDataset",
               "random_split")),
    "torch.utils.data.sampler": Module(
        host=_E + ".utils.data.sampler",
        names=("BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
               "WeightedRandomSampler")),
    # ---- program-side standard modules (engine/program/stdlib/): the interpreter's own small
    # implementations, which hand programs only program values and loop through the interpreter
    "math": Module(host=_S + ".math", names=(
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "comb", "copysign", "cos",
        "cosh", "degrees", "dist", "e", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "factorial", "floor",
        "fmod", "frexp", "fsum", "gamma", "gcd", "hypot", "inf", "isclose", "isfinite", "isinf", "isnan",
        "isqrt", "lcm", "ldexp", "lgamma", "log", "log10", "log1p", "log2", "modf", "nan", "nextafter", "perm",
        "pi", "pow", "prod", "radians", "remainder", "sin", "sinh", "sqrt", "sumprod", "tan", "tanh", "tau",
        "trunc", "ulp",
    )),
    "random": Module(host=_S + ".random", names=(
        "Random", "betavariate", "binomialvariate", "choice", "choices", "expovariate", "gammavariate",
        "gauss", "getrandbits", "getstate", "lognormvariate", "normalvariate", "paretovariate", "randint",
        "random", "randrange", "sample", "seed", "setstate", "shuffle", "triangular", "uniform",
        "vonmisesvariate", "weibullvariate",
    )),
    "string": Module(host=_S + ".string", names=(
        "ascii_letters", "ascii_lowercase", "ascii_uppercase", "capwords", "digits", "hexdigits",
        "octdigits", "printable", "punctuation", "whitespace",
    )),
    # a beam search's heap of hypotheses, a concatenated dataset's bisect over its cumulative sizes
    "heapq": Module(host=_S + ".heapq", names=(
        "heapify", "heappop", "heappush", "heappushpop", "heapreplace", "nlargest", "nsmallest",
    )),
    "fnmatch": Module(host=_S + ".fnmatch", names=("filter", "fnmatch", "fnmatchcase", "translate")),
    "bisect": Module(host=_S + ".bisect", names=(
        "bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right",
    )),
    # the Unicode database's lookups (the NLP tutorials' unicodeToAscii)
    "unicodedata": Module(host=_S + ".unicodedata", names=(
        "bidirectional", "category", "combining", "decimal", "digit", "east_asian_width", "is_normalized", "lookup",
        "mirrored", "name", "normalize", "numeric", "unidata_version",
    )),
    "itertools": Module(host=_S + ".itertools", names=(
        "accumulate", "batched", "chain", "combinations", "combinations_with_replacement", "compress",
        "count", "cycle", "dropwhile", "filterfalse", "groupby", "islice", "pairwise", "permutations",
        "product", "repeat", "starmap", "takewhile", "tee", "zip_longest",
    )),
    "functools": Module(host=_S + ".functools", names=(
        "WRAPPER_ASSIGNMENTS", "WRAPPER_UPDATES", "cache", "cached_property", "cmp_to_key", "lru_cache",
        "partial", "reduce", "total_ordering", "update_wrapper", "wraps",
    )),
    "operator": Module(host=_S + ".operator", names=(
        "abs", "add", "and_", "attrgetter", "concat", "contains", "countOf", "delitem", "eq", "floordiv",
        "ge", "getitem", "gt", "iadd", "ifloordiv", "imatmul", "imod", "imul", "index", "indexOf", "inv",
        "invert", "ipow", "is_", "is_not", "isub", "itemgetter", "itruediv", "le", "length_hint", "lshift",
        "lt", "matmul", "methodcaller", "mod", "mul", "ne", "neg", "not_", "or_", "pos", "pow", "rshift",
        "setitem", "sub", "truediv", "truth", "xor",
    )),
    "collections": Module(host=_S + ".collections", names=(
        "ChainMap", "Counter", "OrderedDict", "defaultdict", "deque", "namedtuple",
    )),
    "dataclasses": Module(host=_S + ".dataclasses", names=(
        "Field", "FrozenInstanceError", "InitVar", "KW_ONLY", "MISSING", "asdict", "astuple", "dataclass",
        "field", "fields", "is_dataclass", "replace",
    )),
    "typing": Module(host=_S + ".typing", names=(
        "Annotated", "Any", "AnyStr", "AsyncIterator", "Awaitable", "Callable", "ClassVar", "Collection",
        "Concatenate", "Container", "Coroutine", "Counter", "DefaultDict", "Deque", "Dict", "Final",
        "FrozenSet", "Generator", "Generic", "Hashable", "Iterable", "Iterator", "List", "Literal",
        "Mapping", "MutableMapping", "MutableSequence", "NamedTuple", "Never", "NoReturn", "Optional",
        "OrderedDict", "ParamSpec", "Protocol", "Reversible", "Self", "Sequence", "Set", "Sized",
        "SupportsFloat", "SupportsInt", "TYPE_CHECKING", "Text", "Tuple", "Type", "TypeAlias", "TypeVar",
        "TypedDict", "Union", "cast", "final", "get_type_hints", "no_type_check", "overload",
        "runtime_checkable",
    )),
    "copy": Module(host=_S + ".copy", names=("Error", "copy", "deepcopy", "error")),
    "inspect": Module(host=_S + ".inspect", names=(
        "Parameter", "Signature", "cleandoc", "getdoc", "getmembers", "isabstract", "isbuiltin", "isclass",
        "iscoroutinefunction", "isfunction", "isgenerator", "isgeneratorfunction", "ismethod", "ismodule",
        "isroutine", "signature",
    )),
    "time": Module(host=_S + ".time", names=(
        "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "process_time", "process_time_ns",
        "sleep", "time", "time_ns",
    )),
    "warnings": Module(host=_S + ".warnings", names=(
        "catch_warnings", "filterwarnings", "resetwarnings", "showwarning", "simplefilter", "warn",
    )),
    "logging": Module(host=_S + ".logging", names=(
        "BASIC_FORMAT", "CRITICAL", "DEBUG", "ERROR", "FATAL", "Formatter", "Handler", "INFO", "Logger", "NOTSET",
        "NullHandler", "StreamHandler", "WARN", "WARNING", "basicConfig", "captureWarnings", "critical", "debug",
        "disable", "error", "exception", "fatal", "getLevelName", "getLogger", "info", "log", "root", "shutdown",
        "warn", "warning",
    )),
    "contextlib": Module(host=_S + ".contextlib", names=("contextmanager", "nullcontext", "suppress")),
    "enum": Module(host=_S + ".enum", names=("Enum", "EnumMeta", "EnumType", "IntEnum", "StrEnum", "auto", "unique")),
    "numpy": Module(host=_S + ".numpy", children={"random": "numpy.random", "linalg": "numpy.linalg"}, names=(
        "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "append", "arange",
        "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin",
        "argpartition", "argsort", "argwhere", "around", "array", "array_equal", "array_equiv",
        "array_split", "asanyarray", "asarray", "ascontiguousarray", "atleast_1d", "atleast_2d",
        "atleast_3d", "average", "bincount", "bitwise_and", "bitwise_or", "bitwise_xor", "bool_",
        "broadcast_to", "byte", "can_cast", "cbrt", "cdouble", "ceil", "clip", "column_stack", "complex128",
        "complex64", "complex_", "compress", "concat", "concatenate", "conj", "conjugate", "convolve",
        "copy", "copysign", "corrcoef", "correlate", "cos", "cosh", "count_nonzero", "cov", "cross",
        "csingle", "cumprod", "cumsum", "deg2rad", "degrees", "delete", "diag", "diagflat", "diagonal",
        "diff", "digitize", "divide", "divmod", "dot", "double", "dsplit", "dstack", "dtype", "e",
        "ediff1d", "einsum", "empty", "empty_like", "equal", "euler_gamma", "exp", "exp2", "expand_dims",
        "expm1", "extract", "eye", "fabs", "finfo", "fix", "flatnonzero", "flip", "fliplr", "flipud",
        "float16", "float32", "float64", "float_", "float_power", "floor", "floor_divide", "fmax", "fmin",
        "fmod", "full", "full_like", "geomspace", "get_printoptions", "gradient", "greater", "greater_equal", "half",
        "heaviside", "histogram", "histogram_bin_edges", "hsplit", "hstack", "hypot", "identity", "iinfo",
        "imag", "indices", "inf", "inner", "insert", "int16", "int32", "int64", "int8", "int_", "intc",
        "interp", "intersect1d", "intp", "isclose", "iscomplex", "iscomplexobj", "isfinite", "isin",
        "isinf", "isnan", "isreal", "isrealobj", "isscalar", "kron", "left_shift", "less", "less_equal",
        "lexsort", "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and",
        "logical_not", "logical_or", "logical_xor", "logspace", "long", "longlong", "matmul", "max", "maximum",
        "mean", "median", "meshgrid", "min", "minimum", "mod", "moveaxis", "multiply", "nan", "nan_to_num",
        "nanargmax", "nanargmin", "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin", "nanprod",
        "nanstd", "nansum", "nanvar", "ndarray", "ndim", "negative", "newaxis", "nonzero", "not_equal",
        "ones", "ones_like", "outer", "pad", "partition", "percentile", "pi", "piecewise", "place",
        "polyfit", "polyval", "positive", "power", "prod", "promote_types", "ptp", "put", "quantile",
        "rad2deg", "radians", "ravel", "ravel_multi_index", "real", "reciprocal", "remainder", "repeat",
        "reshape", "result_type", "right_shift", "rint", "roll", "rot90", "round", "row_stack",
        "searchsorted", "select", "set_printoptions", "setdiff1d", "seterr", "setxor1d", "shape", "short",
        "sign", "signbit", "sin", "sinc", "single", "sinh", "size", "sort", "split", "sqrt", "square",
        "squeeze", "stack", "std", "subtract", "sum", "swapaxes", "take", "take_along_axis", "tan", "tanh",
        "tensordot", "tile", "trace", "transpose", "trapezoid", "tri", "tril", "tril_indices",
        "tril_indices_from", "triu", "triu_indices", "triu_indices_from", "true_divide", "trunc", "ubyte",
        "uint", "uint16", "uint32", "uint64", "uint8", "uintc", "uintp", "ulong", "union1d", "unique", "unravel_index", "ushort",
        "var", "vdot", "vsplit", "vstack", "where", "zeros", "zeros_like",
    )),
    "numpy.random": Module(host=_S + ".numpy_random", names=(
        "Generator", "RandomState", "beta", "binomial", "chisquare", "choice", "default_rng", "dirichlet",
        "exponential", "gamma", "geometric", "get_state", "gumbel", "laplace", "logistic", "lognormal",
        "multinomial", "multivariate_normal", "normal", "permutation", "poisson", "rand", "randint",
        "randn", "random", "random_sample", "ranf", "sample", "seed", "set_state", "shuffle",
        "standard_normal", "standard_t", "triangular", "uniform",
    )),
    "numpy.linalg": Module(host=_S + ".numpy_linalg", names=(
        "LinAlgError", "cholesky", "cond", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq",
        "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd",
    )),
    "abc": Module(host=_S + ".abc", names=(
        "ABC", "ABCMeta", "abstractclassmethod", "abstractmethod", "abstractproperty", "abstractstaticmethod",
    )),
    # constants, exit and the output streams; nothing of the host's interpreter (no modules, path, frames)
    "sys": Module(host=_S + ".sys", names=(
        "argv", "byteorder", "exit", "float_info", "hexversion", "maxsize", "platform", "stderr", "stdout",
        "version", "version_info",
    )),
    # path strings and the session's own environment: no files, processes or host environment
    "os": Module(host=_S + ".os", children={"path": "os.path"}, names=(
        "altsep", "curdir", "devnull", "environ", "extsep", "fspath", "getenv", "linesep", "name", "pardir",
        "pathsep", "sep",
    )),
    # importable for scripts that import it beside os; no names (programs have no files)
    "shutil": Module(host=_S + ".shutil", names=()),
    "os.path": Module(host=_S + ".os_path", names=(
        "basename", "commonprefix", "curdir", "dirname", "exists", "extsep", "isabs", "isdir", "isfile", "join",
        "lexists", "normpath", "pardir", "sep", "split", "splitext",
    )),
    "types": Module(host=_S + ".types", names=("SimpleNamespace",)),
    "argparse": Module(host=_S + ".argparse", names=(
        "ArgumentDefaultsHelpFormatter", "ArgumentError", "ArgumentParser", "ArgumentTypeError",
        "BooleanOptionalAction", "HelpFormatter", "MetavarTypeHelpFormatter", "Namespace", "ONE_OR_MORE", "OPTIONAL",
        "REMAINDER", "RawDescriptionHelpFormatter", "RawTextHelpFormatter", "SUPPRESS", "ZERO_OR_MORE",
    )),
    "pprint": Module(host=_S + ".pprint", names=(
        "PrettyPrinter", "isreadable", "isrecursive", "pformat", "pp", "pprint", "saferepr",
    )),
    "struct": Module(host=_S + ".struct", names=("calcsize", "error", "iter_unpack", "pack", "unpack")),
    # text in and out only: no files (engine/program/stdlib/json.py)
    "json": Module(host=_S + ".json", names=("JSONDecodeError", "dumps", "loads")),
    # durations for elapsed-time lines (engine/program/stdlib/datetime.py): timedelta only, no clocks or calendars
    "datetime": Module(host=_S + ".datetime", names=("timedelta",)),
    # CPython's statistics on a program's plain numbers (engine/program/stdlib/statistics.py)
    "statistics": Module(host=_S + ".statistics", names=(
        "StatisticsError", "fmean", "geometric_mean", "harmonic_mean", "mean", "median", "median_high", "median_low",
        "mode", "multimode", "pstdev", "pvariance", "quantiles", "stdev", "variance")),
    # regular expressions on a Pike VM (engine/program/stdlib/re.py): no backtracking, every step counted
    "re": Module(host=_S + ".re", names=(
        "A", "ASCII", "DOTALL", "I", "IGNORECASE", "M", "MULTILINE", "Match", "NOFLAG", "Pattern", "S", "U",
        "UNICODE", "VERBOSE", "X", "compile", "error", "escape", "findall", "finditer", "fullmatch", "match",
        "purge", "search", "split", "sub", "subn",
    )),
    # the progress bar training loops are wrapped in (not standard, but everywhere): iterates, draws nothing
    "tqdm": Module(host=_S + ".tqdm", children={"auto": "tqdm.auto", "notebook": "tqdm.notebook"},
                   names=("tqdm", "trange")),
    "tqdm.auto": Module(host=_S + ".tqdm", names=("tqdm", "trange")),
    "tqdm.notebook": Module(host=_S + ".tqdm", names=("tqdm", "trange")),
}

MODULES["torch.nn.modules"] = Module(
    host=_E + ".nn.modules", children={"module": "torch.nn.modules.module", "loss": "torch.nn.modules.loss",
                                       "batchnorm": "torch.nn.modules.batchnorm", "utils": "torch.nn.modules.utils"},
    names=tuple(n for n in MODULES["torch.nn"].names if n not in ("Parameter", "UninitializedParameter")))
# The bases PyTorch code subclasses and checks against though their names begin with "_" (custom losses
# derive from _Loss, IBM's seq2seq checks issubclass(..., _Loss), SAM's bypass_bn isinstance(m, _BatchNorm),
# custom schedulers derive from _LRScheduler): named here, each is reachable as any listed name is
MODULES["torch.nn.modules.loss"] = Module(
    host=_E + ".nn.modules.loss",
    names=tuple(n for n in MODULES["torch.nn"].names if n.endswith("Loss")) + ("_Loss", "_WeightedLoss"))
# custom layers normalise their arguments as PyTorch's own do (torchbnn's BayesConv2d: _pair(kernel_size)),
# and old losses read the reduction through torch.nn._reduction
MODULES["torch.nn.modules.utils"] = Module(
    host=_E + ".nn.modules.utils", names=("_ntuple", "_pair", "_quadruple", "_reverse_repeat_tuple", "_single",
                                          "_triple"))
MODULES["torch.nn._reduction"] = Module(
    host=_E + ".nn._reduction", names=("get_enum", "legacy_get_enum", "legacy_get_string"))
MODULES["torch.nn.modules.batchnorm"] = Module(
    host=_E + ".nn.modules.batchnorm", names=("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d",
                                              "LazyBatchNorm2d", "SyncBatchNorm", "_BatchNorm"))

# --------------------------------------------------------------------------- types
_MODULE_API = (
    "add_module", "apply", "bfloat16", "buffers", "children", "cpu", "cuda", "double", "eval", "extra_repr", "float",
    "forward", "get_buffer", "get_parameter", "get_submodule", "half", "load_state_dict", "modules",
    "named_buffers", "named_children", "named_modules", "named_parameters", "parameters", "register_buffer",
    "register_backward_hook", "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_module", "register_parameter",
    "requires_grad_", "state_dict", "to", "train", "training", "type", "zero_grad",
)

_DICT_API = ("clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault", "update",
             "values")
_RANDOM_API = (
    "betavariate", "binomialvariate", "choice", "choices", "expovariate", "gammavariate", "gauss", "getrandbits",
    "getstate", "lognormvariate", "normalvariate", "paretovariate", "randint", "random", "randrange", "sample",
    "seed", "setstate", "shuffle", "triangular", "uniform", "vonmisesvariate", "weibullvariate")

_NP_RANDOM_API = (
    "beta", "binomial", "chisquare", "choice", "dirichlet", "exponential", "gamma", "geometric", "gumbel",
    "laplace", "logistic", "lognormal", "multinomial", "multivariate_normal", "normal", "permutation", "poisson",
    "random", "shuffle", "standard_normal", "standard_t", "triangular", "uniform")

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
            "bernoulli_", "bfloat16", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "bool",
            "broadcast_to", "byte", "ceil", "ceil_", "char", "chunk", "clamp", "clamp_", "clamp_max",
            "clamp_max_", "clamp_min", "clamp_min_", "clip", "clip_", "clone", "contiguous", "copy_", "cos",
            "cos_", "cosh", "cosh_", "count_nonzero", "cpu", "cuda", "cumprod", "cumsum", "data", "detach",
            "detach_", "device", "diag", "diag_embed", "diagonal", "diagonal_scatter", "diff", "nansum", "nanmean",
            "bincount", "cummax", "cummin", "sinc", "sinc_", "logaddexp2", "dim", "div", "div_",
            "quantile", "nanquantile", "aminmax", "heaviside", "histc", "index_copy", "index_copy_", "logcumsumexp",
            "lgamma", "lgamma_", "digamma", "digamma_", "polygamma", "polygamma_", "erfinv", "erfinv_", "mvlgamma",
            "mvlgamma_", "logit", "logit_",
            "divide", "divide_", "dot", "double", "dtype", "element_size", "eq", "equal", "erf", "erf_", "erfc",
            "erfc_", "exp", "exp2", "exp2_", "exp_", "expand", "expand_as", "expm1", "expm1_", "exponential_",
            "fill_", "fill_diagonal_", "fix", "fix_", "flatten", "flip", "fliplr", "flipud", "float", "floor", "floor_",
            "floor_divide", "floor_divide_", "fmax", "fmin", "fmod", "fmod_", "frac", "frac_", "gather", "ge",
            "ger", "get_device", "grad", "grad_fn", "greater", "greater_equal", "gt", "half", "hardshrink", "hypot",
            "hypot_",
            "index_add", "index_add_", "index_put", "index_put_", "index_select", "inner", "int", "is_complex",
            "is_contiguous", "is_cuda", "is_floating_point", "is_leaf", "is_meta", "is_mps", "is_quantized",
            "is_sparse", "is_xpu", "is_same_size", "is_signed", "isclose",
            "isfinite", "isinf", "isnan", "item", "itemsize", "le", "lerp", "lerp_", "less", "less_equal", "log",
            "log10", "log10_", "log1p", "log1p_", "log2", "log2_", "log_", "log_softmax", "logaddexp",
            "logical_and", "logical_not", "logical_not_", "logical_or", "logical_xor", "logsumexp", "long", "lt",
            "mH", "mT", "masked_fill", "masked_fill_", "masked_scatter", "masked_scatter_", "masked_select", "matmul",
            "max", "maximum", "maximum_",
            "mean", "median", "min", "minimum", "minimum_", "mm", "moveaxis", "movedim", "mul", "mul_",
            "multiply", "multiply_", "mv", "nan_to_num", "nan_to_num_", "narrow", "nbytes", "ndim",
            "ndimension", "ne", "neg", "neg_", "negative", "negative_", "nelement", "new", "new_empty", "new_full",
            "index_fill", "index_fill_", "matrix_power", "unique", "cholesky", "cholesky_inverse", "cholesky_solve",
            "det", "inverse", "logdet", "pinverse", "qr", "lu", "lu_solve", "slogdet", "svd", "triangular_solve", "cross", "dist", "kron", "unfold", "kthvalue", "float_power",
            "float_power_", "copysign", "copysign_", "mode", "ldexp", "ldexp_", "frexp", "nextafter", "nextafter_",
            "bitwise_left_shift", "bitwise_left_shift_", "bitwise_right_shift", "bitwise_right_shift_",
            "new_ones", "new_tensor", "new_zeros", "nonzero", "norm", "normal_", "not_equal", "numel", "numpy",
            "outer", "permute", "pow", "pow_", "prelu", "prod", "random_", "ravel", "reciprocal", "reciprocal_",
            "register_hook", "relu", "relu_", "remainder", "remainder_", "repeat", "repeat_interleave",
            "requires_grad", "requires_grad_", "reshape", "reshape_as", "resize_", "resize_as_", "retain_grad",
            "retains_grad", "roll",
            "rot90", "round", "round_", "rsqrt", "rsqrt_", "scatter", "scatter_", "scatter_add",
            "scatter_add_", "scatter_reduce", "scatter_reduce_", "select",
            "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "asinh_", "acosh_", "atanh_", "arcsinh_", "arccosh_", "arctanh_", "deg2rad", "rad2deg", "deg2rad_", "rad2deg_", "gcd", "lcm", "gcd_", "lcm_", "isneginf", "isposinf", "isreal", "positive", "unique_consecutive", "diagflat", "msort", "nanmedian", "renorm", "renorm_", "hsplit", "vsplit", "dsplit", "select_scatter", "slice_scatter", "is_same_size", "sgn", "sgn_", "shape", "short", "sigmoid", "sigmoid_", "sign", "sign_",
            "signbit", "sin", "sin_", "sinh", "sinh_", "size", "softmax", "sort", "split", "sqrt", "sqrt_",
            "square", "square_", "squeeze", "squeeze_", "std", "stride", "sub", "sub_", "subtract",
            "subtract_", "sum", "sum_to_size", "swapaxes", "swapdims", "t", "t_", "take", "take_along_dim",
            "tan", "tan_", "tanh", "tanh_", "tensor_split", "tile", "to", "to_sparse", "tolist", "topk", "trace",
            "transpose", "transpose_", "tril", "tril_", "triu", "triu_", "true_divide", "true_divide_", "trunc",
            "trunc_", "type", "type_as", "unbind", "unflatten", "uniform_", "unsqueeze", "unsqueeze_", "var",
            "vdot", "view", "view_as", "where", "xlogy", "xlogy_", "zero_",
        )),
    _E + ".tensor.Size": Type(attrs=("count", "index", "numel")),
    _E + ".dtypes.dtype": Type(subclasses=True, attrs=("is_floating_point", "is_signed", "itemsize")),
    _E + ".device.device": Type(attrs=("index", "type")),
    _E + ".accelerator": Type(attrs=("current_accelerator", "device_count", "is_available", "synchronize")),
    _E + ".finfo": Type(data=True),
    _E + ".memory_format": Type(),
    _E + ".distributed.ReduceOp": Type(attrs=("AVG", "BAND", "BOR", "BXOR", "MAX", "MIN", "PREMUL_SUM", "PRODUCT",
                                              "RedOpType", "SUM")),
    _E + ".distributed.RedOpType": Type(),
    _E + ".iinfo": Type(data=True),
    _E + ".ops.creation.Generator": Type(attrs=("device", "get_state", "initial_seed", "manual_seed", "seed",
                                                "set_state")),
    _E + ".ops.reduction.return_types": Type(attrs=("cummax", "cummin", "frexp", "kthvalue", "max", "median", "min",
                                                   "mode", "sort", "topk")),
    "torch.return_types.mode": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.frexp": Type(attrs=("count", "exponent", "index", "mantissa")),
    "torch.return_types.cummax": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.cummin": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.max": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.min": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.nanmedian": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.sort": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.topk": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.median": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.kthvalue": Type(attrs=("count", "index", "indices", "values")),
    "torch.return_types.slogdet": Type(attrs=("count", "index", "logabsdet", "sign")),
    "torch.return_types.aminmax": Type(attrs=("count", "index", "max", "min")),
    "torch.return_types.linalg_slogdet": Type(attrs=("count", "index", "logabsdet", "sign")),
    "torch.return_types.linalg_eigh": Type(attrs=("count", "eigenvalues", "eigenvectors", "index")),
    "torch.return_types.linalg_svd": Type(attrs=("S", "U", "Vh", "count", "index")),
    "torch.return_types.svd": Type(attrs=("S", "U", "V", "count", "index")),
    "torch.return_types.linalg_qr": Type(attrs=("Q", "R", "count", "index")),
    "torch.return_types.qr": Type(attrs=("Q", "R", "count", "index")),
    "torch.return_types.linalg_lstsq": Type(attrs=("count", "index", "rank", "residuals", "singular_values", "solution")),
    "torch.return_types.triangular_solve": Type(attrs=("cloned_coefficient", "count", "index", "solution")),
    "torch.return_types.linalg_inv_ex": Type(attrs=("count", "index", "info", "inverse")),
    "torch.return_types.linalg_cholesky_ex": Type(attrs=("L", "count", "index", "info")),
    "torch.return_types.linalg_lu_factor": Type(attrs=("LU", "count", "index", "pivots")),
    "torch.return_types.linalg_lu_factor_ex": Type(attrs=("LU", "count", "index", "info", "pivots")),
    "torch.return_types.linalg_lu": Type(attrs=("L", "P", "U", "count", "index")),
    "torch.return_types.lu_unpack": Type(attrs=("L", "P", "U", "count", "index")),
    "torch.return_types._lu_with_info": Type(attrs=("LU", "count", "index", "info", "pivots")),
    # ---- autograd
    _E + ".autograd.function.Node": Type(
        subclasses=True,
        attrs=("name", "next_functions", "register_hook", "register_prehook")),
    _E + ".autograd.function.AccumulateGrad": Type(attrs=("variable",)),
    _E + ".autograd.function._RemovableHandle": Type(attrs=("remove",)),
    _E + ".amp.autocast": Type(subclasses=True, data=True),   # data: device, fast_dtype
    _E + ".amp.GradScaler": Type(subclasses=True, attrs=(
        "get_backoff_factor", "get_growth_factor", "get_growth_interval", "get_scale", "is_enabled",
        "load_state_dict", "scale", "set_backoff_factor", "set_growth_factor", "set_growth_interval", "state_dict",
        "step", "unscale_", "update")),
    _E + ".autograd.grad_mode.no_grad": Type(),
    _E + ".autograd.grad_mode.enable_grad": Type(),
    _E + ".autograd.grad_mode.set_grad_enabled": Type(),
    _E + ".autograd.grad_mode.inference_mode": Type(),
    _E + ".autograd.grad_mode.detect_anomaly": Type(),
    _E + ".autograd.grad_mode.set_detect_anomaly": Type(),
    _E + ".autograd.finite_differences.GradcheckError": Type(),
    # custom functions: programs derive from Function and set what backward needs on ctx
    _E + ".autograd.custom_function.Function": Type(
        subclasses=True, base=True, attrs=("apply", "backward", "forward", "jvp", "setup_context", "vjp")),
    _E + ".autograd.custom_function.FunctionCtx": Type(
        data=True, settable=ANY,
        attrs=("mark_dirty", "mark_non_differentiable", "save_for_backward", "save_for_forward", "saved_tensors",
               "saved_variables", "set_materialize_grads")),
    # the legacy typed constructors (torch.LongTensor, ...): classes of this metaclass
    _E + ".tensor_types._TensorType": Type(),
    _E + ".tensor_types.TypedTensor": Type(subclasses=True),
    _E + ".sparse._SparseType": Type(),
    _E + ".sparse.SparseTypedTensor": Type(subclasses=True),
    _E + ".ops.sparse.SparseTensor": Type(attrs=("_indices", "_nnz", "_values", "coalesce", "dense_dim", "indices",
                                                 "is_coalesced", "sparse_dim",
                                                 "to_dense", "values")),
    # ---- modules
    _E + ".nn.module.Module": Type(subclasses=True, data=True, settable=ANY, base=True, attrs=_MODULE_API),
    _E + ".nn.module.RemovableHandle": Type(attrs=("remove",)),
    # m._parameters, m._buffers, m._modules (engine/nn/registries.py)
    _E + ".nn.registries.Registry": Type(attrs=("get", "items", "keys", "pop", "values")),
    # self.__dict__ of a program object with an engine base (engine/nn/registries.py)
    _E + ".nn.registries.InstanceDict": Type(attrs=("copy", "get", "items", "keys", "pop", "update", "values")),
    _E + ".nn.module._IncompatibleKeys": Type(attrs=("count", "index", "missing_keys", "unexpected_keys")),
    _E + ".nn.container.ModuleDict": Type(attrs=("clear", "items", "keys", "pop", "update", "values")),
    _E + ".nn.container.ModuleList": Type(attrs=("append", "extend", "insert", "pop")),
    _E + ".nn.container.ParameterDict": Type(attrs=("items", "keys", "update", "values")),
    _E + ".nn.container.ParameterList": Type(attrs=("append", "extend")),
    _E + ".nn.container.Sequential": Type(attrs=("append", "extend", "insert")),
    _E + ".nn.attention.NonDynamicallyQuantizableLinear": Type(attrs=("reset_parameters",)),
    _E + ".nn.conv._ConvNd": Type(attrs=("_conv_forward", "reset_parameters")),   # LoRA calls conv._conv_forward
    _E + ".nn.activation_extra.PReLU": Type(attrs=("reset_parameters",)),
    _E + ".nn.embedding_bag.EmbeddingBag": Type(attrs=("from_pretrained", "reset_parameters")),
    _E + ".nn.linear.Bilinear": Type(attrs=("reset_parameters",)),
    _E + ".nn.linear.Linear": Type(attrs=("reset_parameters",)),
    _E + ".nn.lazy._LazyModule": Type(subclasses=True, attrs=("has_uninitialized_params", "initialize_parameters")),
    _E + ".nn.transformer.Transformer": Type(attrs=("generate_square_subsequent_mask",)),
    _E + ".nn.normalization._BatchNorm": Type(attrs=("reset_parameters", "reset_running_stats")),
    _E + ".nn.normalization.SyncBatchNorm": Type(attrs=("convert_sync_batchnorm",)),
    _E + ".nn.normalization._TrailingNorm": Type(subclasses=True, attrs=("reset_parameters",)),
    _E + ".nn.utils.parametrize.cached": Type(),
    # pruning methods; a program's own (the pruning tutorial's FooBarPruningMethod) derives from the base
    _E + ".nn.utils.prune.BasePruningMethod": Type(
        subclasses=True, data=True, settable=ANY, base=True,
        attrs=("PRUNING_TYPE", "apply", "apply_mask", "compute_mask", "prune", "remove")),
    _E + ".nn.utils.prune.PruningContainer": Type(attrs=("add_pruning_method",)),
    _E + ".nn.utils.parametrize.ParametrizationList": Type(attrs=("originals", "right_inverse")),
    _E + ".nn.rnn.RNNBase": Type(attrs=("all_weights", "flatten_parameters", "reset_parameters")),
    _E + ".nn.rnn.RNNCellBase": Type(attrs=("reset_parameters",)),
    _E + ".nn.sparse.Embedding": Type(attrs=("from_pretrained", "reset_parameters")),
    _E + ".nn.utils.rnn.PackedSequence": Type(attrs=(
        "batch_sizes", "count", "cpu", "cuda", "data", "detach", "double", "float", "half", "index", "is_cuda",
        "is_pinned", "sorted_indices", "to", "unsorted_indices")),
    # ---- torch.distributions
    _E + ".distributions.distribution.Distribution": Type(subclasses=True, attrs=(
        "batch_shape", "entropy", "event_shape", "has_rsample", "log_prob", "mean", "mode", "perplexity", "rsample",
        "sample", "sample_n", "stddev", "variance")),   # not set_default_validate_args: process-wide state
    _E + ".distributions.categorical.Categorical": Type(attrs=(
        "enumerate_support", "has_enumerate_support", "logits", "param_shape", "probs")),
    _E + ".distributions.normal.Normal": Type(data=True, attrs=("cdf",)),   # data: loc, scale
    _E + ".distributions.bernoulli.Bernoulli": Type(attrs=(
        "enumerate_support", "has_enumerate_support", "logits", "param_shape", "probs")),
    _E + ".distributions.uniform.Uniform": Type(data=True, attrs=("cdf", "icdf")),   # data: low, high
    _E + ".distributions.independent.Independent": Type(data=True),   # data: base_dist, reinterpreted_batch_ndims
    _E + ".distributions.gamma.Gamma": Type(data=True, attrs=("cdf",)),   # data: concentration, rate
    _E + ".distributions.gamma.Beta": Type(data=True),   # data: concentration1, concentration0
    _E + ".distributions.dirichlet.Dirichlet": Type(data=True),   # data: concentration
    _E + ".distributions.exponential.Exponential": Type(data=True, attrs=("cdf", "icdf")),   # data: rate
    _E + ".distributions.exponential.Laplace": Type(data=True, attrs=("cdf", "icdf")),   # data: loc, scale
    _E + ".distributions.poisson.Poisson": Type(data=True),   # data: rate
    _E + ".distributions.multinomial.Multinomial": Type(data=True, attrs=(   # data: total_count
        "logits", "param_shape", "probs")),
    _E + ".distributions.one_hot_categorical.OneHotCategorical": Type(attrs=(
        "enumerate_support", "has_enumerate_support", "logits", "param_shape", "probs")),
    _E + ".distributions.multivariate_normal.MultivariateNormal": Type(data=True, attrs=(   # data: loc
        "covariance_matrix", "precision_matrix", "scale_tril")),
    _E + ".distributions.transformed_distribution.TransformedDistribution": Type(
        data=True),   # data: base_dist, transforms
    _E + ".distributions.transformed_distribution.LogNormal": Type(attrs=("loc", "scale")),
    _E + ".distributions.mixture_same_family.MixtureSameFamily": Type(attrs=(
        "component_distribution", "mixture_distribution")),
    _E + ".distributions.transforms.Transform": Type(subclasses=True, attrs=(   # called as t(x)
        "bijective", "event_dim", "forward_shape", "inv", "inverse_shape", "log_abs_det_jacobian", "sign",
        "with_cache")),
    _E + ".distributions.transforms.AffineTransform": Type(data=True),   # data: loc, scale, event_dim
    _E + ".distributions.transforms.PowerTransform": Type(data=True),    # data: exponent
    _E + ".distributions.transforms.ComposeTransform": Type(data=True),  # data: parts
    # ---- data loading: datasets and samplers a session builds (and programs derive from)
    _E + ".utils.data.Dataset": Type(subclasses=True, data=True, settable=ANY, base=True),
    _E + ".utils.data.Sampler": Type(subclasses=True, data=True, settable=ANY, base=True),
    _E + ".utils.data.DataLoader": Type(data=True),
    _E + ".utils.data.RandomSampler": Type(attrs=("num_samples",)),
    # ---- optimisers and schedulers
    _E + ".optim.optimizer.Optimizer": Type(
        subclasses=True, data=True, settable=ANY, base=True,
        attrs=("add_param_group", "load_state_dict", "state_dict", "step", "zero_grad")),
    _E + ".optim.optimizer._RequiredParameter": Type(),   # the ``required`` sentinel of optimizer defaults
    _E + ".optim.lr_scheduler.LRScheduler": Type(
        subclasses=True, data=True, settable=ANY, base=True,
        attrs=("get_last_lr", "get_lr", "load_state_dict", "state_dict", "step")),
    _E + ".optim.swa_utils.AveragedModel": Type(attrs=("update_parameters",)),
    # ---- program-side standard modules (engine/program/stdlib/)
    _S + ".random.Random": Type(attrs=_RANDOM_API),
    _S + ".datetime.timedelta": Type(attrs=("days", "max", "microseconds", "min", "resolution", "seconds",
                                            "total_seconds")),
    _S + ".itertools.chain": Type(attrs=("from_iterable",)),
    _S + ".functools.partial": Type(attrs=("args", "func", "keywords")),
    _S + ".contextlib.contextmanager": Type(),
    _S + ".contextlib._GeneratorContextManager": Type(),
    _S + ".contextlib.nullcontext": Type(),
    _S + ".contextlib.suppress": Type(),
    _S + ".functools._Cached": Type(attrs=("cache_clear", "cache_info")),
    _S + ".functools._CacheInfo": Type(attrs=("count", "currsize", "hits", "index", "maxsize", "misses")),
    _S + ".functools.cmp_to_key": Type(),
    _S + ".functools._Key": Type(),
    _S + ".functools.cached_property": Type(),
    _S + ".operator.itemgetter": Type(),
    _S + ".operator.attrgetter": Type(),
    _S + ".operator.methodcaller": Type(),
    _S + ".collections.OrderedDict": Type(attrs=_DICT_API + ("move_to_end",)),
    _S + ".collections.defaultdict": Type(attrs=_DICT_API + ("default_factory",)),
    _S + ".collections.Counter": Type(attrs=_DICT_API + ("elements", "most_common", "subtract", "total")),
    _S + ".collections.deque": Type(attrs=(
        "append", "appendleft", "clear", "copy", "count", "extend", "extendleft", "index", "insert", "maxlen",
        "pop", "popleft", "remove", "reverse", "rotate")),
    _S + ".collections.ChainMap": Type(attrs=("get", "items", "keys", "new_child", "parents", "values")),
    _S + ".dataclasses.Field": Type(attrs=("compare", "default", "default_factory", "hash", "init", "kw_only",
                                           "metadata", "name", "repr", "type")),
    _S + ".dataclasses._MissingType": Type(),
    _S + ".dataclasses.KW_ONLY": Type(),
    _S + ".dataclasses.InitVar": Type(attrs=("type",)),
    _S + ".typing._Form": Type(),
    _S + ".typing._BuiltinAlias": Type(),
    _S + ".typing.TypeVar": Type(subclasses=True),
    _S + ".typing.Generic": Type(base=True),
    _S + ".typing.Protocol": Type(base=True),
    _S + ".typing.NamedTuple": Type(base=True),
    _S + ".typing.TypedDict": Type(base=True),
    _S + ".inspect.Signature": Type(attrs=("bind", "empty", "parameters", "return_annotation")),
    _S + ".inspect.Parameter": Type(attrs=(
        "KEYWORD_ONLY", "POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_KEYWORD", "VAR_POSITIONAL", "annotation",
        "default", "empty", "kind", "name")),
    _S + ".inspect._Kind": Type(attrs=("description", "name")),
    _S + ".inspect._Empty": Type(),
    _S + ".inspect._Repr": Type(),
    _S + ".warnings.catch_warnings": Type(),
    _S + ".enum.Enum": Type(base=True, attrs=("name", "value")),
    _S + ".enum.IntEnum": Type(base=True),
    _S + ".enum.StrEnum": Type(base=True),
    _S + ".enum.EnumMeta": Type(),
    _S + ".enum.auto": Type(),
    _S + ".numpy.ndarray": Type(attrs=(
        "T", "all", "any", "argmax", "argmin", "argsort", "astype", "clip", "conj", "conjugate", "copy", "cumprod",
        "cumsum", "diagonal", "dot", "dtype", "fill", "flat", "flatten", "imag", "item", "itemsize", "max", "mean",
        "min", "nbytes", "ndim", "nonzero", "prod", "ptp", "ravel", "real", "repeat", "reshape", "resize", "round",
        "searchsorted", "shape", "size", "sort", "squeeze", "std", "sum", "swapaxes", "take", "tolist", "trace",
        "transpose", "var")),
    _S + ".numpy.dtype": Type(subclasses=True, attrs=("char", "itemsize", "kind", "name", "str", "type")),
    _S + ".numpy._Scalar": Type(subclasses=True, attrs=(
        "astype", "dtype", "item", "ndim", "round", "shape", "size", "tolist")),
    _S + ".numpy._Info": Type(attrs=("bits", "dtype", "eps", "max", "min", "resolution", "tiny")),
    _S + ".numpy_random.RandomState": Type(attrs=_NP_RANDOM_API + (
        "get_state", "rand", "randint", "randn", "random_sample", "ranf", "sample", "seed", "set_state")),
    _S + ".numpy_random.Generator": Type(attrs=_NP_RANDOM_API + ("integers",)),
    _S + ".abc.ABC": Type(base=True),
    _S + ".sys._Stream": Type(attrs=("encoding", "flush", "isatty", "write", "writelines")),
    _S + ".sys._VersionInfo": Type(attrs=("count", "index", "major", "micro", "minor", "releaselevel", "serial")),
    _S + ".sys._FloatInfo": Type(attrs=(
        "count", "dig", "epsilon", "index", "mant_dig", "max", "max_10_exp", "max_exp", "min", "min_10_exp",
        "min_exp", "radix", "rounds")),
    _S + ".os._Environ": Type(attrs=("copy", "get", "items", "keys", "pop", "setdefault", "update", "values")),
    _S + ".types.SimpleNamespace": Type(data=True, settable=ANY),
    _S + ".argparse.ArgumentParser": Type(attrs=(
        "add_argument", "add_argument_group", "add_mutually_exclusive_group", "description", "epilog", "error",
        "exit", "format_help", "format_usage", "get_default", "parse_args", "parse_known_args", "print_help",
        "print_usage", "prog", "set_defaults", "usage")),
    _S + ".argparse._Group": Type(attrs=(
        "add_argument", "add_argument_group", "add_mutually_exclusive_group", "set_defaults")),
    _S + ".argparse.Namespace": Type(data=True, settable=ANY),
    _S + ".argparse.HelpFormatter": Type(subclasses=True),
    _S + ".argparse.BooleanOptionalAction": Type(),
    _S + ".pprint.PrettyPrinter": Type(attrs=("isreadable", "isrecursive", "pformat", "pprint")),
    _S + ".re.Pattern": Type(data=True, attrs=(
        "findall", "finditer", "fullmatch", "match", "search", "split", "sub", "subn")),
    _S + ".re.Match": Type(data=True, attrs=(
        "end", "expand", "group", "groupdict", "groups", "lastgroup", "lastindex", "span", "start")),
    _S + ".re._MatchIterator": Type(),
    _S + ".json.JSONDecodeError": Type(data=True),   # msg, doc, pos, lineno, colno
    _S + ".tqdm.tqdm": Type(data=True, attrs=(
        "clear", "close", "refresh", "reset", "set_description", "set_description_str", "set_postfix",
        "set_postfix_str", "update", "write")),
    _S + ".logging.Logger": Type(data=True, settable=("disabled", "propagate"), attrs=(
        "addHandler", "critical", "debug", "error", "exception", "fatal", "getChild", "getEffectiveLevel",
        "hasHandlers", "info", "isEnabledFor", "log", "removeHandler", "setLevel", "warn", "warning")),
    _S + ".logging.Handler": Type(data=True, subclasses=True, attrs=(
        "close", "flush", "setFormatter", "setLevel")),
    _S + ".logging.Formatter": Type(data=True, attrs=("format",)),
    _S + ".abc.ABCMeta": Type(),
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
        for name in sorted(m.settable):
            out.append(f"  {name}: settable in the session")
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
