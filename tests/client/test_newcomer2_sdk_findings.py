"""Findings of the second newcomer pass (tests/newcomer2_log.md) on the client SDK, against a real server."""
from gradserve.client import Event, Module, Names, Node
from gradserve.client.events import parse_event

PROGRAM = """
head = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
y = head(torch.ones(1, 2)).sum()
y.backward()
"""


def test_c1_module_and_names_events_are_typed():
    module = parse_event({"type": "module", "run": "r", "seq": 1, "call": 2, "path": "0", "class": "Linear",
                          "parent": 1})
    assert isinstance(module, Module) and (module.call, module.path, module.class_name, module.parent,
                                           module.name) == (2, "0", "Linear", 1, None)
    assert module.type == "module"
    names = parse_event({"type": "names", "run": "r", "seq": 9, "names": {"4": "y", "0": "x"}})
    assert isinstance(names, Names) and names.names == {4: "y", 0: "x"}


def test_c1_a_traced_run_streams_no_event_of_an_unknown_type(session):
    """Every event this server sends in a traced run with modules is one the client knows (none is the
    catch-all ``Event``, whose content only ``.raw`` shows), and they say what the viewer draws."""
    events = list(session.stream(PROGRAM, outputs=["y"]))
    assert [e.type for e in events if type(e) is Event] == []
    modules = [e for e in events if isinstance(e, Module)]
    assert [(m.path, m.class_name, m.name) for m in modules] == [("", "Sequential", "head"), ("0", "Linear", None),
                                                               ("1", "ReLU", None)]
    assert modules[1].parent == modules[0].call
    (names,) = [e for e in events if isinstance(e, Names)]
    nodes = {e.node["id"]: e.node for e in events if isinstance(e, Node)}
    (y_id,) = [i for i, name in names.names.items() if name == "y"]
    assert nodes[y_id]["op"] == "sum"
    assert "class_name='Linear'" in repr(modules[1])
