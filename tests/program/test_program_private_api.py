"""Names beginning with "_" that PyTorch code uses as public API, reachable where the allowlist names
them: the bases ``_Loss``, ``_WeightedLoss``, ``_BatchNorm`` and ``_LRScheduler``, a module's
registries ``_parameters``, ``_buffers`` and ``_modules`` (checked on assignment), ``conv._conv_forward``,
a sparse tensor's ``_indices()``/``_values()``/``_nnz()``, ``Base.__init__(self, ...)`` of an engine base
class on a program object, and ``object.__setattr__`` on program objects. Everything else beginning with
"_" on host things stays out of reach."""
import pytest

try:
    import torch as real_torch
except ImportError:  # the suite passes without PyTorch
    real_torch = None


def test_underscore_bases_import_subclass_and_isinstance(run_ok):
    out, _ = run_ok(
        "import torch.nn as nn\n"
        "from torch.nn.modules.batchnorm import _BatchNorm\n"
        "from torch.nn.modules.loss import _Loss, _WeightedLoss\n"
        "class L1(_Loss):\n"
        "    def forward(self, a, b):\n"
        "        return (a - b).abs().mean() if self.reduction == 'mean' else (a - b).abs().sum()\n"
        "class W(_WeightedLoss):\n"
        "    def forward(self, a):\n"
        "        return (a * self.weight).sum()\n"
        "print(L1()(torch.ones(2), torch.zeros(2)).item(), L1(reduction='sum')(torch.ones(2), torch.zeros(2)).item())\n"
        "print(W(weight=torch.tensor([2., 3.]))(torch.ones(2)).item())\n"
        "print(isinstance(nn.BatchNorm2d(3), _BatchNorm), isinstance(nn.Linear(1, 1), _BatchNorm))\n"
        "print(issubclass(nn.MSELoss, nn.modules.loss._Loss), issubclass(nn.CrossEntropyLoss, _WeightedLoss))\n")
    assert out.stdout == "1.0 2.0\n5.0\nTrue False\nTrue True\n"


def test_custom_scheduler_from_underscore_lr_scheduler(run_ok):
    out, _ = run_ok(
        "class Warmup(torch.optim.lr_scheduler._LRScheduler):\n"
        "    def __init__(self, optimizer, warmup):\n"
        "        self.warmup = warmup\n"
        "        super().__init__(optimizer)\n"
        "    def get_lr(self):\n"
        "        f = min(1.0, (self.last_epoch + 1) / self.warmup)\n"
        "        return [base * f for base in self.base_lrs]\n"
        "w = torch.nn.Parameter(torch.ones(1))\n"
        "opt = torch.optim.SGD([w], lr=1.0)\n"
        "s = Warmup(opt, 4)\n"
        "lrs = []\n"
        "for _ in range(3):\n"
        "    opt.step()\n"
        "    s.step()\n"
        "    lrs.append(opt.param_groups[0]['lr'])\n"
        "print(lrs)\n")
    assert out.stdout == "[0.5, 0.75, 1.0]\n"


def test_star_import_leaves_underscore_bases_out(run_ok):
    out, ns = run_ok("from torch.nn.modules.loss import *\n")
    assert "_Loss" not in ns.globals and "MSELoss" in ns.globals


def test_module_registries_read_and_write(run_ok):
    out, _ = run_ok(
        "import torch.nn as nn\n"
        "net = nn.Sequential(nn.Linear(2, 3), nn.ReLU())\n"
        "print(list(net._modules.keys()), len(net._modules), '0' in net._modules)\n"
        "print(type(net._modules['0']).__name__, sorted(net[0]._parameters))\n"
        "del net[0]._parameters['bias']\n"
        "print(hasattr(net[0], 'bias'), [n for n, _ in net.named_parameters()])\n"
        "net[0]._parameters['bias'] = nn.Parameter(torch.zeros(3))\n"
        "net._modules['2'] = nn.Tanh()\n"
        "bn = nn.BatchNorm1d(3)\n"
        "bn._buffers['extra'] = torch.ones(1)\n"
        "print([n for n, _ in net.named_parameters()], len(net), sorted(bn._buffers))\n"
        "print(net(torch.ones(1, 2)).shape, net._modules.get('9'), net._parameters.items())\n")
    assert out.stdout == ("['0', '1'] 2 True\n"
                          "Linear ['bias', 'weight']\n"
                          "False ['0.weight']\n"
                          "['0.weight', '0.bias'] 3 ['extra', 'num_batches_tracked', 'running_mean', 'running_var']\n"
                          "torch.Size([1, 3]) None []\n")


def test_registries_of_a_program_module(run_ok):
    """EGNN's ``self._modules["gcl_%d" % i](...)``, spectral norm's delete-and-register."""
    out, _ = run_ok(
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        for i in range(2):\n"
        "            self.add_module('gcl_%d' % i, nn.Linear(2, 2))\n"
        "        self.w = nn.Parameter(torch.ones(2))\n"
        "    def forward(self, h):\n"
        "        for i in range(2):\n"
        "            h = self._modules['gcl_%d' % i](h)\n"
        "        return h * self.w\n"
        "net = Net()\n"
        "w = net._parameters['w']\n"
        "del net._parameters['w']\n"
        "net.register_parameter('w_orig', w)\n"
        "net.w = w.detach() * 2\n"
        "print(net(torch.ones(1, 2)).shape, sorted(net._parameters), isinstance(net.w, nn.Parameter))\n")
    assert out.stdout == "torch.Size([1, 2]) ['w_orig'] False\n"


@pytest.mark.parametrize("source, kind, message", [
    ("m._parameters['w'] = torch.ones(2)", "TypeError",
     "cannot assign 'torch.FloatTensor' object to parameter 'w' (torch.nn.Parameter or None required)"),
    ("m._buffers['b'] = 3", "TypeError", "cannot assign 'int' object to buffer 'b' (torch Tensor or None required)"),
    ("m._modules['x'] = torch.ones(1)", "TypeError", "torch.FloatTensor is not a Module subclass"),
    ("m._modules[1] = nn.ReLU()", "TypeError", "module name should be a string. Got int"),
    ("m._parameters['a.b'] = None", "KeyError", "parameter name can"),
    ("m._parameters['nope']", "KeyError", "'nope'"),
    ("m._parameters._d", "AttributeError", "attribute '_d' is not accessible"),
    ("m._non_persistent_buffers_set", "AttributeError", "attribute '_non_persistent_buffers_set' is not accessible"),
    ("m._forward_hooks", "AttributeError", "attribute '_forward_hooks' is not accessible"),
    ("m._apply", "AttributeError", "attribute '_apply' is not accessible"),
    ("torch.nn.modules.loss._reduction", "AttributeError", "attribute '_reduction' is not accessible"),
])
def test_registries_check_what_they_store_and_nothing_else_opens(run_err, source, kind, message):
    err = run_err("import torch.nn as nn\nm = nn.Linear(2, 2)\n" + source + "\n")
    assert err.type == kind and message in err.message, err.to_dict()


def test_registry_before_module_init(run_err):
    err = run_err("import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n"
                  "        print(self._modules)\nM()\n")
    assert err.type == "AttributeError" and "_modules" in err.message


def test_engine_base_init_called_on_a_program_object(run_ok):
    """LoRA's ``nn.Embedding.__init__(self, n, d, **kwargs)`` then its own mixin's __init__."""
    out, _ = run_ok(
        "import torch.nn as nn\n"
        "class Mixin:\n"
        "    def __init__(self, r):\n"
        "        self.r = r\n"
        "class Emb(nn.Embedding, Mixin):\n"
        "    def __init__(self, n, d, r=2, **kwargs):\n"
        "        nn.Embedding.__init__(self, n, d, **kwargs)\n"
        "        Mixin.__init__(self, r)\n"
        "e = Emb(5, 3, padding_idx=0)\n"
        "print(e.weight.shape, e.r, e.padding_idx, e(torch.tensor([0, 1])).shape)\n"
        "class Plain(nn.Module):\n"
        "    def __init__(self):\n"
        "        nn.Module.__init__(self)\n"
        "        self.lin = nn.Linear(2, 1)\n"
        "print(len(list(Plain().parameters())))\n")
    assert out.stdout == "torch.Size([5, 3]) 2 0 torch.Size([2, 3])\n2\n"


@pytest.mark.parametrize("source, message", [
    ("nn.Linear.__init__(nn.Linear(1, 1), 3, 3)", "only on an object of a program class deriving from it"),
    ("nn.Linear.__init__(5, 3, 3)", "descriptor '__init__' requires a 'Linear' object but received a 'int'"),
    ("class P(nn.Module):\n    pass\nnn.Linear.__init__(P(), 2, 2)",
     "descriptor '__init__' requires a 'Linear' object but received a 'P'"),
    ("object.__setattr__(nn.Linear(1, 1), 'x', 1)", "only on objects of program classes"),
    ("object.__setattr__(3, 'x', 1)", "only on objects of program classes"),
])
def test_base_init_and_object_setattr_refuse_host_objects(run_err, source, message):
    err = run_err("import torch.nn as nn\n" + source + "\n")
    assert err.type == "TypeError" and message in err.message, err.to_dict()


def test_object_setattr_in_a_program_setattr(run_ok):
    """torchattacks' Attack.__setattr__ calls object.__setattr__, then looks at what it set."""
    out, _ = run_ok(
        "class Attack:\n"
        "    def __init__(self):\n"
        "        self.log = []\n"
        "    def __setattr__(self, name, value):\n"
        "        object.__setattr__(self, name, value)\n"
        "        if name != 'log':\n"
        "            self.log.append(name)\n"
        "a = Attack()\n"
        "a.eps = 0.1\n"
        "a.steps = 3\n"
        "print(a.log, a.eps)\n")
    assert out.stdout == "['eps', 'steps'] 0.1\n"


def test_conv_forward_on_engine_and_program_convs(run_ok):
    out, ns = run_ok(
        "import torch.nn as nn\n"
        "torch.manual_seed(0)\n"
        "class WSConv(nn.Conv2d):\n"
        "    def forward(self, x):\n"
        "        w = self.weight - self.weight.mean(dim=(1, 2, 3), keepdim=True)\n"
        "        return self._conv_forward(x, w, self.bias)\n"
        "c = nn.Conv2d(1, 2, 3)\n"
        "x = torch.randn(1, 1, 5, 5)\n"
        "same = torch.equal(c._conv_forward(x, c.weight, c.bias), c(x))\n"
        "ws = WSConv(1, 2, 3)\n"
        "y = ws(x)\n"
        "ref = torch.nn.functional.conv2d(x, ws.weight - ws.weight.mean(dim=(1, 2, 3), keepdim=True), ws.bias)\n"
        "print(same, torch.allclose(y, ref), y.shape)\n")
    assert out.stdout == "True True torch.Size([1, 2, 3, 3])\n"


def test_sparse_private_accessors(run_ok):
    out, _ = run_ok(
        "s = torch.sparse_coo_tensor(torch.tensor([[0, 1, 0], [1, 0, 1]]), torch.tensor([1., 2., 3.]), (2, 2))\n"
        "print(s._indices().tolist(), s._values().tolist(), s._nnz())\n")
    assert out.stdout == "[[0, 1, 0], [1, 0, 1]] [1.0, 2.0, 3.0] 3\n"


@pytest.mark.skipif(real_torch is None, reason="PyTorch is not installed")
def test_registry_contents_match_pytorch():
    """What the registries hold, and PyTorch's messages for the checks they share with register_*."""
    nn = real_torch.nn
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    assert list(net._modules) == ["0", "1"]
    assert sorted(net[1]._buffers) == ["num_batches_tracked", "running_mean", "running_var"]
    with pytest.raises(TypeError, match="module name should be a string. Got int"):
        net.add_module(1, nn.ReLU())
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' object to parameter 'w' "
                                        r"\(torch.nn.Parameter or None required\)"):
        net.register_parameter("w", real_torch.ones(2))
    from torch.nn.modules.loss import _Loss, _WeightedLoss
    from torch.nn.modules.batchnorm import _BatchNorm
    assert issubclass(nn.MSELoss, _Loss) and issubclass(nn.CrossEntropyLoss, _WeightedLoss)
    assert isinstance(nn.BatchNorm2d(3), _BatchNorm)
    assert hasattr(real_torch.optim.lr_scheduler, "_LRScheduler")


def test_torch_utils_flatten_and_unflatten_dense_tensors(run_ok):
    """improved-diffusion's fp16 master weights: one flat copy of the parameters, and views of it back."""
    out, ns = run_ok(
        "from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors\n"
        "import torch._utils\n"
        "a = torch.ones(2, 3, requires_grad=True)\n"
        "b = torch.arange(4.)\n"
        "flat = _flatten_dense_tensors([a, b])\n"
        "parts = torch._utils._unflatten_dense_tensors(flat, (a, b))\n"
        "(flat * torch.arange(10.)).sum().backward()\n"
        "print(flat.shape, type(parts).__name__, [tuple(p.shape) for p in parts], parts[1].tolist())\n"
        "print(a.grad.tolist(), _flatten_dense_tensors([b]).tolist())\n")
    assert out.stdout == ("torch.Size([10]) tuple [(2, 3), (4,)] [0.0, 1.0, 2.0, 3.0]\n"
                          "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] [0.0, 1.0, 2.0, 3.0]\n")


def test_torch_utils_offers_only_those_two(run_err):
    assert run_err("from torch._utils import _rebuild_tensor").type == "ImportError"
    assert run_err("import torch\nf = torch._C").type == "AttributeError"
    assert run_err("from torch._utils import _flatten_dense_tensors\n_flatten_dense_tensors([])").type == "ValueError"


def test_instance_dict_of_a_program_object_with_an_engine_base(run_ok):
    """focal_loss's __repr__ reads ``self.__dict__[k]``; configs do ``self.__dict__.update(kwargs)``. The view
    holds the instance's public names and the program's own private ones, never the engine's state. A write
    is the plain assignment, so a Parameter written through it is registered (in PyTorch it would sit in
    __dict__ unregistered, seen by no parameters()); everything else reads as in PyTorch."""
    out, _ = run_ok(
        "import torch.nn as nn\n"
        "class FocalLoss(nn.Module):\n"
        "    def __init__(self, gamma=2.0):\n"
        "        super().__init__()\n"
        "        self.gamma = gamma\n"
        "        self._seen = 0\n"
        "        self.lin = nn.Linear(1, 1)\n"
        "    def __repr__(self):\n"
        "        return f'FocalLoss(gamma={self.__dict__[\"gamma\"]!r})'\n"
        "f = FocalLoss()\n"
        "print(repr(f), sorted(f.__dict__), '_parameters' in f.__dict__, 'lin' in f.__dict__)\n"
        "f.__dict__.update({'gamma': 3.0}, extra=5)\n"
        "f.__dict__['w'] = nn.Parameter(torch.ones(1))\n"
        "del f.__dict__['extra']\n"
        "print(f.gamma, hasattr(f, 'extra'), len(f.__dict__), f.__dict__.get('nope', 7))\n"
        "print(sorted(n for n, _ in f.named_parameters()))\n")
    assert out.stdout == ("FocalLoss(gamma=2.0) ['_seen', 'gamma', 'training'] False False\n"
                          "3.0 False 3 7\n"
                          "['lin.bias', 'lin.weight', 'w']\n")


@pytest.mark.parametrize("source, kind", [
    ("m.__dict__['_parameters']", "KeyError"),
    ("m.__dict__['_parameters'] = {}", "AttributeError"),
    ("del m.__dict__['_modules']", "KeyError"),
    ("m.__dict__._obj", "AttributeError"),
    ("nn.Linear(1, 1).__dict__", "AttributeError"),
])
def test_instance_dict_keeps_the_engines_state_out(run_err, source, kind):
    err = run_err("import torch.nn as nn\nclass M(nn.Module):\n    pass\nm = M()\n" + source + "\n")
    assert err.type == kind, err.to_dict()


@pytest.mark.parametrize("source, kind, message", [
    ("R = type(nn.Linear(1, 1)._modules)\nr = R(nn.Linear(1, 1), '_parameters', {})", "TypeError",
     "cannot create 'Registry' instances"),
    ("class M(nn.Module):\n    pass\nD = type(M().__dict__)\nd = D(1, 2, 3, 4, 5)", "TypeError",
     "cannot create 'InstanceDict' instances"),
    ("class M(nn.Module):\n    pass\nD = type(M().__dict__)\nd = D.of", "AttributeError", "not available in programs"),
    ("torch.nn.modules.loss._Loss.__subclasses__()", "AttributeError", "is not accessible"),
    ("torch.optim.lr_scheduler._LRScheduler.__init__.__globals__", "AttributeError", "is not accessible"),
    ("torch._x = 1", "AttributeError", "is not accessible"),
])
def test_the_views_are_made_by_the_gate_only(run_err, source, kind, message):
    err = run_err("import torch.nn as nn\n" + source + "\n")
    assert err.type == kind and message in err.message, err.to_dict()


def test_argument_helpers_of_torch_nn_modules_utils_and_reduction(run_ok):
    """torchbnn's Bayesian conv layers normalise their arguments with _pair; old losses read the reduction
    through torch.nn._reduction."""
    out, _ = run_ok(
        "from torch.nn.modules.utils import _single, _pair, _triple\n"
        "from torch.nn import _reduction as _Reduction\n"
        "import torch.nn as nn\n"
        "print(_pair(3), _pair((1, 2)), _single(2), _triple(1), nn.modules.utils._quadruple(0))\n"
        "print(_Reduction.get_enum('sum'), _Reduction.legacy_get_string(None, None, emit_warning=False), nn._reduction.get_enum('none'))\n")
    assert out.stdout == "(3, 3) (1, 2) (2,) (1, 1, 1) (0, 0, 0, 0)\n2 mean 0\n"


def test_vars_of_a_program_module_is_the_same_view(run_ok):
    out, _ = run_ok("import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.k = 3\nprint(sorted(vars(M())))\n")
    assert out.stdout == "['k', 'training']\n"
