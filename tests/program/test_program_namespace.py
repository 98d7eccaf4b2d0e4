"""A session's Namespace: variables that persist between runs, dotted paths into
the program's objects, checkpoints of every tensor and parameter."""
import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine.program import Limits, Namespace, run

MODEL = """
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer("count", torch.zeros(1))

    def forward(self, x):
        return self.fc(x)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 1)])

    def forward(self, x):
        x = self.block(x)
        for layer in self.layers:
            x = layer(x)
        return x

model = Net()
opt = optim.SGD(model.parameters(), lr=0.1)
w = torch.ones(2, 2)
pairs = [torch.zeros(1), 3]
"""


def test_get_set_delete_names():
    ns = Namespace()
    ns.set("x", gs.ones(3))
    assert run("y = x * 2", ns).ok
    assert ns.get("y").tolist() == [2.0, 2.0, 2.0]
    assert ns.names() == ["x", "y"]
    ns.delete("x")
    with pytest.raises(KeyError):
        ns.get("x")
    assert run("z = x", ns).error.type == "NameError"


def test_set_refuses_host_objects_that_are_not_program_values():
    ns = Namespace()
    with pytest.raises(Exception):
        ns.set("np", np)
    with pytest.raises(ValueError):
        ns.set("not a name", 1)
    ns.set("arr", np.arange(3.0))   # arrays become tensors
    assert isinstance(ns.get("arr"), gs.Tensor)


def test_variables_persist_between_runs_like_a_notebook(run_ok):
    _, ns = run_ok("a = 1\ndef f(v):\n    return v + a\nclass C:\n    k = 5")
    out, _ = run_ok("a = 10\nb = f(1) + C.k\nprint(b)", ns)
    assert out.stdout == "16\n"


def test_functions_defined_earlier_count_against_the_current_run(run_ok):
    from gradserve.engine.program import Limits
    _, ns = run_ok("def spin():\n    while True:\n        pass")
    out = run("spin()", ns, Limits(steps=1000))
    assert (out.error.limit, out.error.traceback[-1]["function"]) == ("steps", "spin")


def test_resolve_dotted_paths(run_ok):
    _, ns = run_ok(MODEL)
    assert ns.resolve("model.block.fc.weight").shape == (2, 3)
    assert ns.resolve("model.layers.1.bias").shape == (1,)
    assert ns.resolve("pairs.0").tolist() == [0.0]
    assert ns.resolve("w") is ns.get("w")
    for missing in ("nope", "model.nope", "model.block.fc.nope", "model._parameters", "pairs.9",
                    "model.__class__", "w.__dict__"):
        with pytest.raises(KeyError) as info:
            ns.resolve(missing)
        assert missing in str(info.value)


def test_tensors_lists_top_level_tensors_and_module_state(run_ok):
    _, ns = run_ok(MODEL)
    names = set(ns.tensors())
    assert names == {"w", "model.block.fc.weight", "model.block.fc.bias", "model.block.count",
                     "model.layers.0.weight", "model.layers.0.bias", "model.layers.1.weight",
                     "model.layers.1.bias"}


def test_load_tensors_restores_in_place_so_optimizers_keep_their_parameters(run_ok):
    _, ns = run_ok(MODEL)
    before = ns.resolve("model.block.fc.weight")
    saved = {k: v.detach().clone() for k, v in ns.tensors().items()}
    run_ok("""
    loss = model(torch.ones(4, 3)).sum()
    loss.backward()
    opt.step()
    w.add_(1)
    """, ns)
    assert not np.array_equal(before.detach().numpy(), saved["model.block.fc.weight"].numpy())
    ns.load_tensors(saved)
    assert ns.resolve("model.block.fc.weight") is before
    for k, v in saved.items():
        assert np.array_equal(ns.resolve(k).detach().numpy(), v.numpy()), k
    run_ok("opt.zero_grad()\nmodel(torch.ones(1, 3)).sum().backward()\nopt.step()", ns)
    assert not np.array_equal(before.detach().numpy(), saved["model.block.fc.weight"].numpy())


def test_state_dict_names_of_a_sequential_with_named_entries_resolve_to_those_modules(run_ok):
    # CLIP's Bottleneck: nn.Sequential(OrderedDict([("-1", AvgPool2d), ("0", Conv2d), ("1", BatchNorm2d)])):
    # its state_dict's "0" is the module registered as "0" (the second), as in PyTorch, not the first
    _, ns = run_ok("""
    from collections import OrderedDict
    down = nn.Sequential(OrderedDict([("-1", nn.AvgPool2d(2)), ("0", nn.Conv2d(2, 3, 1, bias=False)),
                                      ("1", nn.BatchNorm2d(3))]))
    names = list(down.state_dict())
    """)
    assert ns.get("names") == ["0.weight", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                               "1.num_batches_tracked"]
    saved = {f"down.{k}": v.detach().clone() + 1 for k, v in
             ((n[len("down."):], t) for n, t in ns.tensors().items())}
    assert sorted(saved) == sorted(f"down.{n}" for n in ns.get("names"))
    ns.load_tensors(saved)
    assert ns.resolve("down.0.weight") is ns.resolve("down").__dict__["_modules"]["0"].weight
    assert np.array_equal(ns.resolve("down.1.running_var").numpy(), np.full(3, 2.0, dtype=np.float32))
    assert ns.resolve("down.-1") is ns.resolve("down").__dict__["_modules"]["-1"]


def test_load_tensors_binds_new_top_level_tensors_and_refuses_unknown_paths():
    ns = Namespace()
    ns.load_tensors({"fresh": gs.ones(2)})
    assert ns.get("fresh").tolist() == [1.0, 1.0]
    with pytest.raises(KeyError):
        ns.load_tensors({"nothing.here": gs.ones(1)})


def test_load_tensors_is_all_or_nothing_and_refuses_a_size_mismatch(run_ok):
    _, ns = run_ok("keep = torch.tensor([3.0])\nm = nn.Linear(2, 2)")
    weight = ns.resolve("m.weight").detach().numpy().copy()
    with pytest.raises(KeyError):
        ns.load_tensors({"keep": gs.tensor([9.0]), "m.nope": gs.ones(1)})
    with pytest.raises(RuntimeError, match=r"size mismatch for m.weight: copying a param with shape "
                                           r"torch.Size\(\[3\]\) from checkpoint, the shape in current model "
                                           r"is torch.Size\(\[2, 2\]\)"):
        ns.load_tensors({"keep": gs.tensor([9.0]), "m.weight": gs.zeros(3)})
    assert ns.get("keep").tolist() == [3.0]
    assert np.array_equal(ns.resolve("m.weight").detach().numpy(), weight)


def test_nbytes_counts_each_array_once(run_ok):
    _, ns = run_ok("""
    a = torch.zeros(1000)
    b = a
    c = a[10:20]
    d = [a, torch.zeros(10, dtype=torch.float64)]
    g = torch.ones(5, requires_grad=True)
    (g * 2).sum().backward()
    """)
    assert ns.nbytes() == 4000 + 80 + 20 + 20


def test_nbytes_sees_optimizer_state_and_closures(run_ok):
    _, ns = run_ok("""
    p = nn.Parameter(torch.ones(100))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    p.sum().backward()
    opt.step()
    def make():
        hidden = torch.zeros(1000)
        return lambda: hidden
    get = make()
    """)
    # p (400) + grad (400) + momentum buffer (400) + the closure's tensor (4000)
    assert ns.nbytes() == 400 * 3 + 4000


def test_compiled_programs_are_reused_per_session(run_ok):
    ns = Namespace()
    for _ in range(3):
        assert run("x = 1", ns).ok
    assert len(ns.compiled) == 1


def test_nbytes_counts_graphs_kept_alive_by_variables(run_ok):
    _, ns = run_ok("""
    x = torch.ones(1000, requires_grad=True)
    total = 0
    for i in range(10):
        total = total + (x * i).exp().sum()
    """)
    held = ns.nbytes()
    assert held >= 4000 + 10 * 4000   # exp keeps its output for backward
    run_ok("del total", ns)
    assert ns.nbytes() == 4000


def test_nbytes_walks_program_objects_and_keeps_no_program_class_alive(run_ok):
    """The walk remembers how to read host types, never program classes (they come and go: a class
    redefined by a later run is read afresh, and the walk's memory holds none alive)."""
    from gradserve.engine.program import memory
    _, ns = run_ok("""
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.kept = torch.zeros(250)
            self.fc = nn.Linear(10, 10)

    class Plain:
        def __init__(self):
            self.items = {"a": torch.zeros(50, dtype=torch.float64)}

    h = Holder()
    p = Plain()
    """)
    assert ns.nbytes() == 1000 + (100 + 10) * 4 + 400
    assert type(ns.get("h")) not in memory._WALK_KINDS and type(ns.get("p")) not in memory._WALK_KINDS
    run_ok("class Plain:\n    def __init__(self):\n        self.t = torch.zeros(10)\np = Plain()", ns)
    assert ns.nbytes() == 1000 + (100 + 10) * 4 + 40
    assert type(ns.get("p")) not in memory._WALK_KINDS


_CLOSURE = "def make():\n    big = torch.zeros(1000000)\n    return lambda *args: big\n"
HIDING_PLACES = {
    "tensor_hook": _CLOSURE + "x = torch.ones(3, requires_grad=True)\nh = x.register_hook(make())\n",
    "hook_handle": _CLOSURE + "def f():\n    x = torch.ones(3, requires_grad=True)\n    return x.register_hook(make())\n"
                   "h = f()\n",
    "node_prehook": _CLOSURE + "x = torch.ones(3, requires_grad=True)\ny = x * 2\n"
                    "h = y.grad_fn.register_prehook(make())\n",
    "graph_leaf": "def f():\n    w = torch.zeros(1000000, requires_grad=True)\n    return (w * 2).sum()\nloss = f()\n",
    "iter": "it = iter([torch.zeros(1000000)])\n",
    "iter_of_a_set": "it = iter({torch.zeros(1000000)})\n",
    "reversed": "it = reversed([torch.zeros(1000000)])\n",
    "map": "it = map(lambda t: t, [torch.zeros(1000000)])\n",
    "filter": "it = filter(None, [torch.zeros(1000000)])\n",
    "zip": "it = zip([torch.zeros(1000000)], [1])\n",
    "enumerate": "it = enumerate([torch.zeros(1000000)])\n",
    "generator_expression": "it = (t for t in [torch.zeros(1000000)])\n",
    "dict_values": "v = {'a': torch.zeros(1000000)}.values()\n",
    "dict_items": "v = {'a': torch.zeros(1000000)}.items()\n",
    "method_class": "def f():\n    class C:\n        big = torch.zeros(1000000)\n        def m(self):\n            return 1\n"
                    "    return C.m\ng = f()\n",
    "staticmethod": _CLOSURE + "s = staticmethod(make())\n",
    "classmethod": _CLOSURE + "s = classmethod(make())\n",
    "property": _CLOSURE + "p = property(make())\n",
    "super": "class C:\n    pass\ndef make():\n    o = C()\n    o.big = torch.zeros(1000000)\n    return super(C, o)\n"
             "s = make()\n",
    "custom_function_ctx": "class Keep(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                           "        ctx.big = torch.zeros(1000000)\n        return x * 2\n    @staticmethod\n"
                           "    def backward(ctx, g):\n        return g * 2\n"
                           "def f():\n    return Keep.apply(torch.ones(3, requires_grad=True))\ny = f()\n",
    "index_kept_by_a_graph": "def f():\n    x = torch.ones(10, requires_grad=True)\n"
                             "    return x[torch.zeros(500000, dtype=torch.int64)].sum()\ny = f()\n",
}


@pytest.mark.parametrize("source", HIDING_PLACES.values(), ids=HIDING_PLACES.keys())
def test_nbytes_sees_tensors_held_by_hooks_iterators_and_wrappers(run_ok, source):
    _, ns = run_ok(source)
    assert 4_000_000 <= ns.nbytes() < 4_001_000


@pytest.mark.parametrize("place", ["iter", "tensor_hook", "generator_expression"])
def test_memory_kept_where_the_walk_used_not_to_look_still_meets_the_session_limit(place):
    """Each run keeps 20 MB more (below the run's own RSS allowance); the third goes past 50 MB."""
    limits = Limits(session_bytes=50 << 20)
    ns = Namespace()
    source = HIDING_PLACES[place].replace("1000000", "5000000")
    outcomes = []
    for i in range(3):
        outcomes.append(run(source.replace("it =", f"it{i} =").replace("h =", f"h{i} =")
                            .replace("make", f"make{i}"), ns, limits))
    assert outcomes[0].ok and outcomes[1].ok
    assert not outcomes[2].ok and outcomes[2].error.limit == "session_bytes"
    assert ns.nbytes() == 40_000_000 + (12 if place == "tensor_hook" else 0)   # and the last x


PRIVATE_MODEL = """
class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self._conv = nn.Linear(2, 3)
        self.register_buffer('_size', torch.zeros(3))
        self._note = torch.ones(1)

class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self._enc = Inner()

model = Outer()
"""


def test_a_modules_private_state_dict_names_resolve_and_load(run_ok):
    # zalandoresearch/pytorch-vq-vae: self._encoder, self._vq_vae._embedding, buffer _ema_cluster_size
    _, ns = run_ok(PRIVATE_MODEL)
    names = set(ns.tensors())
    assert names == {"model._enc._conv.weight", "model._enc._conv.bias", "model._enc._size"}
    weight = ns.resolve("model._enc._conv.weight")
    ns.load_tensors({"model._enc._conv.weight": gs.full((3, 2), 0.5), "model._enc._size": gs.ones(3)})
    assert ns.resolve("model._enc._conv.weight") is weight and weight.tolist() == [[0.5, 0.5]] * 3
    assert ns.resolve("model._enc._size").tolist() == [1.0, 1.0, 1.0]
    # only the registries: a plain private attribute, the registries themselves and dunders stay out
    for missing in ("model._enc._note", "model._modules", "model._enc._parameters", "model.__dict__",
                    "model._enc.__class__"):
        with pytest.raises(KeyError):
            ns.resolve(missing)
        with pytest.raises(KeyError):
            ns.load_tensors({missing + ".x": gs.ones(1)})
