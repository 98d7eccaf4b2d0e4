"""What corpus10's public scripts needed from programs: torch.optim.optimizer (a custom Optimizer's base and
``required``), torch.distributed for one process, string constants interned as CPython's compiler interns
them (MAML's ``name is 'conv2d'``), isinstance with collections.abc's classes, module backward hooks,
masked_scatter, set_default_tensor_type and the memory formats."""


def test_custom_optimizer_from_torch_optim_optimizer(run_ok):
    out, _ = run_ok(
        "from torch.optim.optimizer import Optimizer, required\n"
        "class SGD2(Optimizer):\n"
        "    def __init__(self, params, lr=required):\n"
        "        super().__init__(params, dict(lr=lr))\n"
        "    def step(self, closure=None):\n"
        "        for group in self.param_groups:\n"
        "            for p in group['params']:\n"
        "                p.data.add_(p.grad, alpha=-group['lr'])\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "opt = SGD2([w], lr=0.5)\n"
        "(w * torch.tensor([1., 2.])).sum().backward()\n"
        "opt.step()\n"
        "print(w.tolist(), required)\n"
        "try:\n"
        "    SGD2([w])\n"
        "except ValueError as e:\n"
        "    print(e)\n")
    assert out.stdout == ("[0.5, 0.0] <required parameter>\n"
                          "parameter group didn't specify a value of required optimization parameter lr\n")


def test_distributed_is_one_uninitialized_process(run_ok):
    out, _ = run_ok(
        "from torch import distributed as dist\n"
        "def all_reduce(tensor, op=dist.ReduceOp.SUM):\n"
        "    if not dist.is_available() or not dist.is_initialized():\n"
        "        return tensor\n"
        "    dist.all_reduce(tensor, op=op)\n"
        "print(all_reduce(torch.ones(2)).tolist(), dist.ReduceOp.SUM, dist.ReduceOp.MAX == dist.ReduceOp.SUM)\n"
        "try:\n"
        "    dist.get_world_size()\n"
        "except ValueError as e:\n"
        "    print(e)\n")
    assert out.stdout == ("[1.0, 1.0] RedOpType.SUM False\n"
                          "Default process group has not been initialized, please make sure to call "
                          "init_process_group.\n")


def test_name_like_string_constants_are_identical_as_in_cpython(run_ok):
    out, ns = run_ok("config = [('conv2d', [1]), ('relu', [True])]\n")
    out, _ = run_ok("print([name is 'conv2d' for name, _ in config], ''.join(['co', 'nv2d']) is 'conv2d')\n", ns)
    # CPython: both name-like literals (in two runs, as in two cells) are interned by compile(); a string
    # built at run time is a new object
    assert out.stdout == "[True, False] False\n"


def test_isinstance_with_collections_abc_classes(run_ok):
    out, _ = run_ok(
        "from collections.abc import Sequence, Mapping, Iterable\n"
        "class It:\n"
        "    def __iter__(self):\n"
        "        return iter([])\n"
        "print(isinstance((3, 3), Sequence), isinstance(5, Sequence), isinstance({}, Mapping),\n"
        "      isinstance(It(), (int, Iterable)), isinstance(It(), Sequence), issubclass(list, Sequence))\n")
    assert out.stdout == "True False True True False True\n"


def test_module_backward_hooks_in_programs(run_ok):
    out, _ = run_ok(
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))\n"
        "seen = []\n"
        "def hook(module, grad_in, grad_out):\n"
        "    seen.append(type(module).__name__)\n"
        "    if isinstance(module, nn.ReLU):\n"
        "        return (F.relu(grad_in[0]),)\n"
        "hs = [mod.register_backward_hook(hook) for mod in m.modules()]\n"
        "hs.append(m[0].register_full_backward_hook(lambda mod, gi, go: seen.append(go[0].shape[1])))\n"
        "x = torch.ones(4, 2, requires_grad=True)\n"
        "m(x).sum().backward()\n"
        "for h in hs:\n"
        "    h.remove()\n"
        "print(seen, x.grad.shape)\n")
    assert out.stdout == "['Linear', 'ReLU', 'Linear', 3, 'Sequential'] torch.Size([4, 2])\n"


def test_masked_scatter_default_tensor_type_and_memory_formats(run_ok):
    out, _ = run_ok(
        "m = torch.tensor([[True, False], [False, True]])\n"
        "x = torch.zeros(2, 2)\n"
        "x.masked_scatter_(m, torch.tensor([5., 6., 7.]))\n"
        "torch.set_default_tensor_type('torch.DoubleTensor')\n"
        "d = torch.ones(1).dtype\n"
        "torch.set_default_dtype(torch.float32)\n"
        "print(x.tolist(), torch.masked_scatter(torch.zeros(2), m[0], torch.ones(1)).tolist(), d,\n"
        "      torch.zeros_like(x, memory_format=torch.preserve_format).shape, torch.channels_last)\n")
    assert out.stdout.splitlines()[-1] == "[[5.0, 0.0], [0.0, 6.0]] [1.0, 0.0] torch.float64 torch.Size([2, 2]) torch.channels_last"


def test_nn_init_deprecated_spellings_in_programs(run_ok):
    out, _ = run_ok("w = torch.empty(2, 2)\ntorch.nn.init.constant(w, 0.25)\nprint(w.sum().item())\n")
    assert out.stdout.splitlines()[-1] == "1.0"
