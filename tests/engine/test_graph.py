"""Graph export (SPEC section 5) and the graph observer."""
import json
import math

import numpy as np
import pytest

import gradserve.engine as gs
from gradserve.engine import graph
from gradserve.engine.autograd.state import state


def _brief(doc):
    nodes = [(n["id"], n["kind"], n["op"], n["name"]) for n in doc["nodes"]]
    edges = [(e["from"], e["to"], e["input_index"]) for e in doc["edges"]]
    return nodes, edges


def _dumps(doc):
    return json.dumps(doc, allow_nan=False)


# ------------------------------------------------------------------ to_json
def test_small_graph_exact_nodes_and_edges():
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    w = gs.tensor([3.0, -4.0], requires_grad=True)
    y = (x * w).sum()
    doc = graph.to_json(y, names={"x": x, "w": w, "y": y})
    nodes, edges = _brief(doc)
    assert nodes == [(0, "leaf", None, "x"), (1, "leaf", None, "w"), (2, "op", "mul", None),
                     (3, "op", "sum", "y"), (4, "output", "sum", "y")]
    assert edges == [(0, 2, 0), (1, 2, 1), (2, 3, 0), (3, 4, 0)]
    leaf_x, _, mul, total, out = doc["nodes"]
    assert leaf_x["shape"] == [2] and leaf_x["dtype"] == "float32" and leaf_x["requires_grad"] is True
    assert leaf_x["value"] == {"min": 1.0, "max": 2.0, "mean": 1.5, "norm": math.sqrt(5), "head": [1.0, 2.0]}
    assert leaf_x["grad"] is None
    assert mul["shape"] == [2] and mul["grad_fn"] == "MulBackward0" and mul["value"] is None
    assert total["shape"] == [] and out["value"]["head"] == [-5.0]
    _dumps(doc)


def test_every_node_has_the_spec_fields():
    x = gs.tensor([1.0], requires_grad=True)
    doc = graph.to_json((x * 2).exp())
    for node in doc["nodes"]:
        assert {"id", "kind", "op", "name", "shape", "dtype", "requires_grad", "line", "value",
                "grad"} <= set(node)
    for edge in doc["edges"]:
        assert set(edge) == {"from", "to", "input_index"}


def test_constant_inputs_leave_a_gap_in_input_index():
    x = gs.tensor([1.0], requires_grad=True)
    y = gs.tensor([2.0]) * x
    nodes, edges = _brief(graph.to_json(y))
    assert nodes == [(0, "leaf", None, None), (1, "op", "mul", None), (2, "output", "mul", None)]
    assert edges == [(0, 1, 1), (1, 2, 0)]


def test_shared_subgraph_is_exported_once():
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    a, b = h * 2, h + 1
    nodes, edges = _brief(graph.to_json(a, b, names={"h": h, "a": a, "b": b}))
    assert [n for n in nodes if n[1] != "output"] == [
        (0, "leaf", None, None), (1, "op", "exp", "h"), (2, "op", "mul", "a"), (3, "op", "add", "b")]
    assert [n for n in nodes if n[1] == "output"] == [(4, "output", "mul", "a"), (5, "output", "add", "b")]
    assert edges == [(0, 1, 0), (1, 2, 0), (1, 3, 0), (2, 4, 0), (3, 5, 0)]


def test_leaf_and_constant_outputs():
    x = gs.tensor([1.0], requires_grad=True)
    c = gs.tensor([5])
    nodes, edges = _brief(graph.to_json(x, c, names={"x": x, "c": c}))
    assert nodes == [(0, "leaf", None, "x"), (1, "output", None, "x"), (2, "output", None, "c")]
    assert edges == [(0, 1, 0)]
    assert graph.to_json(c)["nodes"][0]["value"]["max"] == 5


def test_nodes_carry_the_program_line():
    x = gs.tensor([1.0], requires_grad=True)
    state.line = 3
    try:
        y = x * 2
    finally:
        state.line = None
    z = y + 1
    doc = graph.to_json(z)
    assert [n["line"] for n in doc["nodes"] if n["kind"] == "op"] == [3, None]


def test_grads_of_leaves_and_retained_non_leaves_are_exported():
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    loss = y.sum()
    loss.backward()
    doc = graph.to_json(loss, names={"x": x, "y": y})
    by_name = {n["name"]: n for n in doc["nodes"] if n["kind"] != "output"}
    assert by_name["x"]["grad"]["head"] == [3.0, 3.0]
    assert by_name["y"]["grad"]["head"] == [1.0, 1.0] and by_name["y"]["value"]["head"] == [3.0, 6.0]


def test_export_is_json_safe_with_nan_and_infinity():
    x = gs.tensor([float("nan"), float("inf"), -float("inf"), 1.0], requires_grad=True)
    y = x * 1
    doc = graph.to_json(y)
    text = _dumps(doc)
    assert '"NaN"' in text and '"Infinity"' in text and '"-Infinity"' in text


def test_ids_are_stable_within_a_run():
    x = gs.tensor([1.0], requires_grad=True)
    y = (x * 2).exp()
    ids = graph.NodeIds()
    first = graph.to_json(y, ids=ids)
    z = y + 1
    second = graph.to_json(z, ids=ids)
    assert _brief(first)[0][:3] == _brief(second)[0][:3]
    assert [n["id"] for n in second["nodes"] if n["kind"] == "op"] == [1, 2, 4]


def test_long_chains_export_without_recursion():
    x = gs.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0
    doc = graph.to_json(y)
    assert len(doc["nodes"]) == 10_002 and len(doc["edges"]) == 10_001


# ------------------------------------------------------------------ summary
def test_summary_of_floats():
    s = graph.summary(gs.tensor([3.0, -4.0]))
    assert s == {"min": -4.0, "max": 3.0, "mean": -0.5, "norm": 5.0, "head": [3.0, -4.0]}


def test_summary_of_integers_bools_and_empty():
    assert graph.summary(np.array([[1, 5], [2, 7]])) == {"min": 1, "max": 7, "mean": 3.75,
                                                          "norm": math.sqrt(79), "head": [1, 5, 2, 7]}
    s = graph.summary(gs.tensor([True, False, True]))
    assert s["min"] == 0.0 and s["max"] == 1.0 and s["head"] == [True, False, True]
    assert graph.summary(gs.zeros(0)) == {"min": None, "max": None, "mean": None, "norm": None, "head": []}


def test_summary_head_is_the_first_values():
    s = graph.summary(gs.arange(100.0).reshape(10, 10))
    assert s["head"] == [float(i) for i in range(graph.HEAD)]


def test_summary_of_nan_is_json_safe():
    s = graph.summary(gs.tensor([1.0, float("nan")]))
    assert s["mean"] == "NaN" and s["head"] == [1.0, "NaN"]
    _dumps(s)


# ------------------------------------------------------------------ observer
def _observed(build):
    events = []
    with graph.observe(graph.GraphObserver(events.append)) as observer:
        result = build()
    return events, observer, result


def test_observer_reports_nodes_in_creation_order():
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    w = gs.tensor([0.5, 0.5], requires_grad=True)

    def build():
        c = gs.tensor([1.0, 1.0])
        return ((x + c) * w).tanh().sum()

    events, observer, loss = _observed(build)
    assert all(e["type"] == "node" for e in events)
    got = [(e["node"]["id"], e["node"]["kind"], e["node"]["op"], e["node"]["inputs"]) for e in events]
    assert got == [(0, "leaf", None, []), (1, "leaf", None, []), (2, "op", "add", [0, 1]),
                   (3, "leaf", None, []), (4, "op", "mul", [2, 3]), (5, "op", "tanh", [4]),
                   (6, "op", "sum", [5])]
    assert events[1]["node"]["requires_grad"] is False  # the constant
    assert events[2]["node"]["value"]["head"] == [2.0, 3.0]
    for e in events:
        _dumps(e)


def test_observer_reports_backward_as_it_reaches_each_node():
    x = gs.tensor([1.0, 2.0], requires_grad=True)
    events, observer, loss = _observed(lambda: (x * 3).sum())
    with graph.observe(observer):
        loss.backward()
    backward = [e for e in events if e["type"] == "backward"]
    ids = {e["node"]["op"]: e["node"]["id"] for e in events if e["type"] == "node"}
    assert [e["node"] for e in backward] == [ids["sum"], ids["mul"], ids[None]]
    assert backward[0]["grad"]["head"] == [1.0]
    assert backward[-1]["grad"]["head"] == [3.0, 3.0]
    for e in backward:
        _dumps(e)


def test_observer_ids_carry_into_export():
    x = gs.tensor([1.0, 2.0], requires_grad=True)

    def build():
        c = gs.tensor([10.0, 20.0])
        return (x * c).exp().sum()

    events, observer, loss = _observed(build)
    with graph.observe(observer):
        loss.backward()
    doc = graph.to_json(loss, names={"x": x}, ids=observer.ids)
    streamed = {e["node"]["id"]: e["node"]["op"] for e in events if e["type"] == "node"}
    exported = {n["id"]: n["op"] for n in doc["nodes"] if n["kind"] != "output"}
    assert exported == streamed  # the constant too: the observer saw it
    mul = next(n for n in doc["nodes"] if n["op"] == "mul")
    assert mul["value"]["head"] == [10.0, 40.0]            # recorded when it was made
    assert mul["grad"] is not None                          # recorded when backward reached it
    assert (1, mul["id"], 1) in _brief(doc)[1]              # the constant is input 1 of mul


def test_observer_reports_nodes_made_before_it_was_installed():
    x = gs.tensor([1.0], requires_grad=True)
    h = x * 2
    events, observer, y = _observed(lambda: h + 1)
    kinds = [(e["node"]["kind"], e["node"]["op"]) for e in events]
    assert kinds == [("op", "mul"), ("op", "add")]


def test_no_observer_is_installed_by_default_and_observe_restores():
    assert state.observer is None
    with pytest.raises(ValueError):
        with graph.observe(graph.GraphObserver(lambda e: None)):
            assert state.observer is not None
            raise ValueError
    assert state.observer is None


def test_observer_sees_no_nodes_under_no_grad():
    x = gs.tensor([1.0], requires_grad=True)

    def build():
        with gs.no_grad():
            return x * 2

    events, _, _ = _observed(build)
    assert events == []


def test_observer_keeps_nothing_alive_and_bounds_what_it_records(monkeypatch):
    import gc
    import weakref
    monkeypatch.setattr(graph.NodeIds, "max_records", 50)
    x = gs.tensor([1.0], requires_grad=True)

    def build():
        y = x
        for _ in range(200):
            y = y * gs.tensor([1.0])   # a constant each time
        return y

    events, observer, y = _observed(build)
    assert len(events) == 1 + 200 * 2   # the leaf, then a constant and an op per step
    ids = observer.ids
    assert max(len(ids.values), len(ids.constants), len(ids.inputs)) <= 50
    node = weakref.ref(y.grad_fn)
    gc.disable()
    try:
        del y
        assert node() is None   # ids live on the nodes, not in the observer
    finally:
        gc.enable()


@pytest.mark.parametrize("n", [5, 64, 65, 1000])
def test_summary_agrees_with_numpy_for_small_and_large_arrays(n):
    a = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    s = graph.summary(a)
    wide = a.astype(np.float64)
    assert s["min"] == float(wide.min()) and s["max"] == float(wide.max())
    assert math.isclose(s["mean"], wide.mean(), rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(s["norm"], np.sqrt((wide * wide).sum()), rel_tol=1e-9)
    assert s["head"] == [float(v) for v in a[:graph.HEAD]]


@pytest.mark.parametrize("n", [3, 300])
def test_summary_of_infinities(n):
    a = np.zeros(n)
    a[:3] = [1.0, -np.inf, np.inf]
    s = graph.summary(a)
    assert (s["min"], s["max"], s["mean"], s["norm"]) == ("-Infinity", "Infinity", "NaN", "Infinity")


def test_a_large_tensors_summary_widens_a_block_at_a_time():
    # a debug pause's locals and a graph's node values are summarised in float64: for a large tensor a
    # whole float64 copy and its square (4x a float32 tensor) ran a session near its limit out of memory
    import tracemalloc
    import numpy as np
    from gradserve.engine.graph import summary
    a = np.random.default_rng(0).standard_normal(8_000_000).astype(np.float32)   # 32 MB
    tracemalloc.start()
    try:
        s = summary(a)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 24 << 20, peak
    w = a.astype(np.float64)
    assert s["min"] == float(a.min()) and s["max"] == float(a.max())
    assert abs(s["mean"] - w.mean()) < 1e-12 and abs(s["norm"] - np.sqrt((w * w).sum())) < 1e-9 * s["norm"]
