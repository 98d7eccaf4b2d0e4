"""A program's own classes and objects are its own, as in Python (SPEC section 2): any
attribute name works on them, including private ones, while the engine's private names on
the host classes they derive from stay the engine's."""

import pytest

from gradserve.engine.program import Limits, Namespace, run

from python_oracle import assert_same_as_python


def test_private_methods_and_attributes_of_a_program_module(run_ok):
    out, ns = run_ok("""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
                self._hidden = 3
                self.apply(self._init_weights)
            def _init_weights(self, m):
                if isinstance(m, nn.Linear):
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)
            def _forward_alg(self, x):
                return self.fc(x) + self._hidden
            def forward(self, x):
                return self._forward_alg(x)
        net = Net()
        y = net(torch.ones(1, 2)).tolist()
        h = getattr(net, '_hidden')
        has = (hasattr(net, '_forward_alg'), hasattr(net, '_nothing'))
        missing = getattr(net, '_nothing', 'default')
    """)
    assert ns.get("y") == [[5.0, 5.0]] and ns.get("h") == 3
    assert ns.get("has") == (True, False) and ns.get("missing") == "default"


def test_private_names_of_a_plain_program_class(run_ok):
    out, ns = run_ok("""
        class A:
            _count = 0
            def __init__(self):
                self._x = 1
                self.__y = 2
                A._count += 1
            def _get(self):
                return self._x + self.__y
        a = A()
        A()
        v = (a._get(), A._count)
        a._x = 10
        setattr(a, '_z', 5)
        del a._x
        w = (hasattr(a, '_x'), a._z)
    """)
    assert ns.get("v") == (3, 2) and ns.get("w") == (False, 5)


def test_super_reaches_a_program_bases_private_method(run_ok):
    out, ns = run_ok("""
        class A(nn.Module):
            def _f(self):
                return 1
        class B(A):
            def _f(self):
                return super()._f() + 1
        v = B()._f()
    """)
    assert ns.get("v") == 2


def test_a_private_parameter_is_registered_under_its_name_as_in_pytorch(run_ok):
    out, ns = run_ok("""
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self._w = nn.Parameter(torch.ones(2))
                self.register_buffer('_mask', torch.zeros(2))
            def forward(self):
                return (self._w * 2 + self._mask).sum()
        net = Net()
        keys = list(net.state_dict().keys())
        names = [n for n, _ in net.named_parameters()]
        out = net().item()
    """)
    assert ns.get("keys") == ["_w", "_mask"] and ns.get("names") == ["_w"] and ns.get("out") == 4.0


def test_pickle_hooks_in_a_class_body_are_accepted_and_never_called(run_ok):
    # optimizers copied from PyTorch's template define __setstate__ (jettify/pytorch-optimizer's), michaelrzhang's
    # Lookahead __getstate__: only pickling calls them; copies of the object, the program's and the host's
    # (a deepcopy of the param groups load_state_dict is handed), go on without them
    out, ns = run_ok("""
        import copy
        import torch
        class Lookahead(torch.optim.Optimizer):
            def __init__(self, params, la_steps=5):
                super().__init__(params, dict(lr=0.1))
                self._la_step = 0
                self._total_la_steps = la_steps
            def __getstate__(self):
                raise RuntimeError("__getstate__ called")
            def __setstate__(self, state):
                raise RuntimeError("__setstate__ called")
            def step(self, closure=None):
                self._la_step += 1
        class Cfg:
            def __init__(self):
                self.k = 3
            def __setstate__(self, state):
                raise RuntimeError("__setstate__ called")
        opt = Lookahead([torch.nn.Parameter(torch.ones(2))])
        opt.step()
        c2 = copy.deepcopy(Cfg())
        opt.param_groups[0]["cfg"] = Cfg()
        opt.load_state_dict(opt.state_dict())
        r = (opt._la_step, c2.k, opt.param_groups[0]["cfg"].k)
    """)
    assert ns.get("r") == (1, 3, 3)


def test_a_program_classs_setattr_runs_for_its_assignments_as_in_python():
    # torchattacks' Attack.__setattr__ sets the attribute first, then registers sub-attacks
    assert_same_as_python("""
    class A:
        def __init__(self):
            self.log = []
            self.x = 1
        def __setattr__(self, name, value):
            super().__setattr__(name, value)
            if name != "log":
                self.log.append(name)
    class B(A):
        def __setattr__(self, name, value):
            super().__setattr__(name, value * 10 if name == "y" else value)
    b = B()
    b.y = 2
    setattr(b, "z", 3)
    b.y += 1
    print(b.log, b.y, b.x, b.z, hasattr(b, "log"))
    class Loud:
        def __setattr__(self, name, value):
            raise AttributeError(f"{name} is read-only")
    try:
        Loud().k = 1
    except AttributeError as e:
        print("AttributeError", e)
    """)


def test_a_program_modules_setattr_runs_for_the_programs_assignments_only(run_ok):
    # the engine's own assignments (Module.train setting .training) do not call program code from the host:
    # Python would call the override there too; the program's assignments and setattr() do
    out, ns = run_ok("""
        import torch.nn as nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.seen = []
                self.lin = nn.Linear(2, 2)
            def __setattr__(self, name, value):
                if name != "seen":
                    self.seen.append(name)
                super().__setattr__(name, value)
        m = M()
        m.train(False)
        m.scale = 2.0
        names = [n for n, _ in m.named_parameters()]
    """)
    assert ns.get("m").seen == ["lin", "scale"] and ns.get("names") == ["lin.weight", "lin.bias"]
    assert ns.get("m").training is False


def test_super_setattr_keeps_the_assignment_rules_and_object_setattr_stays_private(run_err):
    # super().__setattr__ is the plain assignment: the engine's private names stay out of reach; object.__setattr__
    # is a builtin's '_' name, which SPEC keeps from programs
    e = run_err("import torch.nn as nn\nclass M(nn.Module):\n    def __setattr__(self, name, value):\n"
                "        super().__setattr__(name, value)\nm = M()\nm._parameters = {}")
    assert e.type == "AttributeError" and "_parameters" in e.message
    e = run_err("object.__setattr__(nn.Linear(1, 1), 'x', 1)")   # on program objects only
    assert e.type == "TypeError" and "only on objects of program classes" in e.message


def test_dunders_a_program_class_defines_work(run_ok):
    out, ns = run_ok("""
        class V:
            def __init__(self, xs):
                self._xs = list(xs)
            def __len__(self):
                return len(self._xs)
            def __getitem__(self, i):
                return self._xs[i]
            def __add__(self, o):
                return V(a + b for a, b in zip(self._xs, o._xs))
            def __eq__(self, o):
                return self._xs == o._xs
            def __hash__(self):
                return len(self._xs)
            def __repr__(self):
                return f'V({self._xs})'
        v = V([1, 2]) + V([3, 4])
        r = (len(v), v[1], repr(v), v == V([4, 6]), len({v, V([4, 6])}), str([v]))
    """)
    assert ns.get("r") == (2, 6, "V([4, 6])", True, 1, "[V([4, 6])]")


def test_the_engines_private_names_stay_the_engines(run_err):
    # (reading m._parameters gives the guarded view of tests/program/test_program_private_api.py)
    for source in ("class M(nn.Module):\n    def f(self):\n        return self._forward_hooks\nM().f()",
                   "class M(nn.Module):\n    def __init__(self):\n        self._modules = {}\n        super().__init__()\nM()",
                   "m = nn.Linear(2, 2)\nm._parameters = {}"):
        assert run_err(source).type == "AttributeError", source
    assert run_err("class M(nn.Module):\n    _buffers = {}").type == "TypeError"


def test_private_methods_the_engine_calls_only_on_its_own_classes_are_the_programs(run_ok, run_err):
    # detr's Transformer(nn.Module) has its own _reset_parameters, as nn.Transformer does: Module never
    # calls it, so it is the program's (the engine's nn.MultiheadAttention calls its own on itself)
    _, ns = run_ok("""
    class Transformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self._reset_parameters()
        def _reset_parameters(self):
            for p in self.parameters():
                nn.init.constant_(p, 0.5)
        def _sa_block(self, x):
            return self.fc(x)
        def _validate_args(self, x):
            # IBM's pytorch-seq2seq DecoderRNN: the engine's distributions keep their own _validate_args
            return x
        def forward(self, x):
            return self._sa_block(self._validate_args(x))
    y = Transformer()(torch.ones(1, 2))
    """)
    assert ns.get("y").tolist() == [[1.5, 1.5]]
    # a name an engine base defines or uses stays the engine's
    for source in ("class A(nn.MultiheadAttention):\n    def _reset_parameters(self):\n        pass",
                   "class B(nn.Module):\n    def _named_members(self):\n        pass",
                   "class C(nn.Module):\n    def _apply(self, fn):\n        pass",
                   "class D(nn.BatchNorm2d):\n    def _check_input_dim(self, x):\n        pass",
                   "from torch.distributions import Normal\nclass E(Normal):\n    _validate_args = False",
                   "class F(nn.Module):\n    _version = 1"):
        assert run_err(source).type == "TypeError", source


def test_a_module_class_with_its_own_make_classmethod(run_ok):
    # rtdl's FTTransformer(nn.Module) builds itself through cls._make(...): the engine's tensors are made
    # by Tensor._adopt_array, so no engine base of a program module owns a private _make
    _, ns = run_ok("""
    class Net(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, 1)

        @classmethod
        def _make(cls, d):
            return cls(d)

        @classmethod
        def make_baseline(cls, *, d):
            return cls._make(d)

    net = Net.make_baseline(d=3)
    n = sum(p.numel() for p in net.parameters())
    """)
    assert ns.get("n") == 4


@pytest.mark.parametrize("source, kind, words", [
    ("d = vars(nn.Linear(2, 2))", "TypeError", "engine's own state"),
    ("class A:\n    pass\nd = vars(A)", "TypeError", "of a class"),
    ("d = vars(3)", "TypeError", "must have __dict__ attribute"),
    ("d = vars()", "TypeError", "inside a function or class body"),
    ("d = vars(1, 2)", "TypeError", "at most 1 argument"),
])
def test_vars_refuses_what_would_hold_the_engines_state(run_err, source, kind, words):
    e = run_err(source)
    assert e.type == kind and words in e.message, e.message


def test_vars_of_an_argparse_namespace_is_a_new_dict_of_its_arguments(run_ok):
    _, ns = run_ok("""
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument('--lr', type=float, default=0.1)
    args = p.parse_args([])
    d = vars(args)
    d['lr'] = 5.0
    """)
    assert ns.get("d") == {"lr": 5.0} and ns.get("args").lr == 0.1


def test_dunder_dict_of_program_objects_as_python_and_a_view_with_an_engine_base():
    # minGPT's CfgNode: self.__dict__.update(kwargs); {k: ... for k, v in self.__dict__.items()}
    from gradserve.engine.program import Namespace, run
    ns = Namespace()
    out = run("""
import torch
class CfgNode:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
    def to_dict(self):
        return {k: v.to_dict() if isinstance(v, CfgNode) else v for k, v in self.__dict__.items()}
C = CfgNode(a=1, sub=CfgNode(b=2))
C.__dict__.update({"lr": 3e-4})
d = C.to_dict()
lr = C.lr
class M(torch.nn.Module):
    pass
""", ns)
    assert out.ok, out.error.to_dict()
    assert ns.get("d") == {"a": 1, "sub": {"b": 2}, "lr": 3e-4} and ns.get("lr") == 3e-4
    out = run("v = M().__dict__\nkeys = sorted(v)\n", ns)   # with an engine base: the reachable names only
    assert out.ok and ns.get("keys") == ["training"], out.error and out.error.to_dict()
    for source, words in (("class E(Exception):\n    pass\nE().__dict__\n", "not available in programs"),
                          ("torch.ones(1).__dict__\n", "private to the host")):
        out = run(source, ns)
        assert not out.ok and out.error.type == "AttributeError" and words in out.error.message, out.error.to_dict()


# --------------------------------------------------------------------------- a program's own values on tensors
def test_a_program_marks_parameters_with_attributes_of_its_own(run_ok):
    """mamba.py: ``self.A_log._no_weight_decay = True``, read back by an optimizer's grouping."""
    out, ns = run_ok("""
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.A_log = nn.Parameter(torch.zeros(3))
                self.A_log._no_weight_decay = True
                self.w = nn.Parameter(torch.ones(3))
                self.w.tag = 2
        b = Block()
        decay = [n for n, p in b.named_parameters() if not hasattr(p, "_no_weight_decay")]
        print(decay, b.A_log._no_weight_decay, getattr(b.w, "tag"), getattr(b.w, "_other", 5))
        b.w.tag = None
        del b.A_log._no_weight_decay
        print(hasattr(b.A_log, "_no_weight_decay"), b.w.tag, hasattr(torch.ones(1), "tag"))
    """)
    assert out.stdout == "['w'] True 2 5\nFalse None False\n"


def test_a_program_keeps_gradients_as_attributes_of_its_tensors(run_ok):
    """fast.ai course-v3's from-scratch backward: each layer's gradient kept as ``inp.g``, read back
    by the layer before it, then compared with autograd's."""
    out, ns = run_ok("""
        torch.manual_seed(0)
        x, w = torch.randn(4, 3), torch.randn(3, 2)
        def lin_grad(inp, out, w):
            inp.g = out.g @ w.t()
            w.g = inp.t() @ out.g
        out = x @ w
        out.g = 2 * out / out.numel()
        lin_grad(x, out, w)
        w2 = w.clone().requires_grad_()
        (x @ w2).pow(2).mean().backward()
        print(torch.allclose(w.g, w2.grad), x.g.shape, hasattr(w2, "g"))
        out.g = None
        print(out.g)
    """)
    assert out.stdout == "True torch.Size([4, 3]) False\nNone\n"


def test_the_session_walk_counts_tensors_kept_as_a_tensors_attributes():
    ns = Namespace()
    out = run("import torch\nx = torch.ones(1)\nx.g = torch.zeros(1000000)\nx.g.h = torch.zeros(500000)\n"
              "x.g.h.x = x\n", ns)
    assert out.ok, out.error.to_dict()
    assert 6_000_000 <= ns.nbytes() < 6_001_000
    limits = Limits(session_bytes=20 << 20)
    out = run("y = torch.ones(1)\ny.g = torch.zeros(4000000)\ny.g.g = torch.zeros(2000000)\n", ns, limits)
    assert not out.ok and out.error.limit == "session_bytes", out.error.to_dict()


@pytest.mark.parametrize("statement, kind", [
    ("p._data = 1", "AttributeError"), ("p._version = 0", "AttributeError"), ("p._base = p", "AttributeError"),
    ("x = p._hooks", "AttributeError"), ("x = p._grad_fn_missing", "AttributeError"),
    ("p.__foo__ = 1", "AttributeError"), ("x = p.__dict__", "AttributeError"), ("p.shape = (1,)", "AttributeError"),
    ("p.add_ = 1", "AttributeError"), ("p.grad_fn = None", "AttributeError"), ("p.T = 1", "AttributeError"),
    ("p.numpy = 1", "AttributeError"), ("del p._data", "AttributeError"), ("del p.nothing", "AttributeError"),
    ("p.x = [1, 2]", "TypeError"), ("p.x = (torch.ones(2),)", "TypeError"), ("p.x = 'a'", "TypeError"),
    ("p.x = 2 ** 100", "TypeError"), ("p.x = lambda: 1", "TypeError"),
    ("for i in range(9):\n    setattr(p, f'a{i}', i)", "AttributeError"),
])
def test_a_tensors_own_attributes_never_reach_the_engines(run_err, statement, kind):
    e = run_err("p = nn.Parameter(torch.ones(2))\n" + statement + "\n")
    assert e.type == kind, e.message
