"""The allowlist (engine/program/allowlist.py): rendered whole against a checked-in golden
file, so every change to what programs reach shows in a diff; every row names something
that exists; and what it does not name is invisible to programs (default deny)."""
import importlib
import pathlib

import pytest

import gradserve.engine as engine
from gradserve.engine.nn.module import Module
from gradserve.engine.program import Namespace, access, allowlist, guards, run
from gradserve.engine.tensor import Tensor

GOLDEN = pathlib.Path(__file__).with_name("allowlist.golden.txt")
REGENERATE = ".venv/bin/python -m gradserve.engine.program.allowlist > tests/program/allowlist.golden.txt"


def test_the_allowlist_renders_as_the_checked_in_golden_file():
    rendered = allowlist.render()
    expected = GOLDEN.read_text()
    assert rendered == expected, (
        "the allowlist changed: review the change, then regenerate the golden file with\n    " + REGENERATE)


def test_every_module_row_names_what_its_host_module_has():
    missing = []
    for key, row in allowlist.MODULES.items():
        for child in row.children.values():
            assert child in allowlist.MODULES, f"{key}: child {child} has no row"
        if row.host is None:
            continue
        try:
            mod = importlib.import_module(row.host)
        except ImportError:
            assert not row.names, f"{key}: names listed for a host module that does not exist"
            continue
        # a module's SESSION_NAMES exist only while a session runs (logging.root: the session's root logger)
        missing += [f"{key}.{n}" for n in row.names if not hasattr(mod, n) and n not in getattr(mod, "SESSION_NAMES", ())]
    assert not missing, f"allowlisted names the engine does not define: {missing}"


def _engine_classes():
    import pkgutil
    found = {}
    mods = [engine] + [importlib.import_module(m.name) for m in pkgutil.walk_packages(engine.__path__, "gradserve.engine.")
                       if ".program" not in m.name or ".program.stdlib" in m.name]
    for mod in mods:
        for v in vars(mod).values():
            if isinstance(v, type):
                found[access._type_key(v)] = v
                for w in vars(v).values():   # torch.return_types.max lives on a class
                    if isinstance(w, type):
                        found[access._type_key(w)] = w
    return found


def test_every_type_row_names_an_engine_class_and_attributes_it_has():
    classes = _engine_classes()
    problems = []
    for key, row in allowlist.TYPES.items():
        cls = classes.get(key)
        if cls is None:
            problems.append(f"{key}: no such class")
            continue
        probe = None
        for name in row.attrs:
            if hasattr(cls, name):
                continue
            if probe is None and row.data:
                continue   # instance data, set by the constructor
            if name in ("data", "grad", "training", "values", "indices", "missing_keys", "unexpected_keys",
                        "device", "dtype"):
                continue   # instance fields
            problems.append(f"{key}.{name}")
    assert not problems, f"allowlisted types or attributes that do not exist: {problems}"


def test_every_guard_row_names_a_check_and_an_op_it_guards():
    for name, g in allowlist.GUARDS.items():
        assert callable(getattr(guards, g.check, None)), f"{name}: guards.{g.check} does not exist"
        assert g.on and set(g.on) <= {"torch", "Tensor", "F", "linalg"}
        where = {"torch": allowlist.MODULES["torch"].names, "F": allowlist.MODULES["torch.nn.functional"].names,
                 "Tensor": allowlist.TYPES["gradserve.engine.tensor.Tensor"].attrs,
                 "linalg": allowlist.MODULES["torch.linalg"].names}
        for site in g.on:
            assert name in where[site], f"guard {name} on {site}, which the allowlist does not name"


def test_every_class_a_module_row_names_can_be_held_by_programs():
    refused = []
    for key, row in allowlist.MODULES.items():
        if row.host is None or not access._engine_module(row.host):
            continue
        try:
            mod = importlib.import_module(row.host)
        except ImportError:
            continue
        for n in row.names:
            v = getattr(mod, n, None)
            if isinstance(v, type) and not access._class_ok(v):
                refused.append(f"{key}.{n}")
    assert not refused, f"classes named by a module row without a TYPES row: {refused}"


def test_a_guard_serves_torch_tensor_and_functional_alike(run_err):
    for source in ("a = torch.ones(2**12, 1)\nb = torch.ones(1, 2**12)\nc = torch.matmul(a, b)",
                   "a = torch.ones(2**12, 1)\nb = torch.ones(1, 2**12)\nc = a.matmul(b)",
                   "p = torch.zeros(2**22).split(1)", "p = torch.split(torch.zeros(2**22), 1)",
                   "y = F.conv2d(torch.ones(1, 1, 10, 10), torch.ones(4, 1, 1, 1), padding=10**3)",
                   "y = torch.conv2d(torch.ones(1, 1, 10, 10), torch.ones(4, 1, 1, 1), padding=10**3)"):
        err = run_err(source, limits=engine.program.Limits(tensor_elements=1 << 22))
        assert err.type == "LimitExceeded", (source, err.to_dict())


# --------------------------------------------------------------------------- default deny
@pytest.fixture
def engine_grows(monkeypatch):
    """The engine gains a function, a module attribute, a Tensor method, a Module method and a
    class tomorrow, none of them in the allowlist."""
    class Tomorrow:
        def hello(self):
            return 1
    Tomorrow.__module__ = "gradserve.engine"
    monkeypatch.setattr(engine, "tomorrow_fn", lambda: 1, raising=False)
    monkeypatch.setattr(engine, "Tomorrow", Tomorrow, raising=False)
    monkeypatch.setattr(engine.nn, "TomorrowLayer", engine.nn.Linear, raising=False)
    monkeypatch.setattr(Tensor, "tomorrow_method", lambda self: self, raising=False)
    monkeypatch.setattr(Module, "tomorrow_method", lambda self: self, raising=False)
    monkeypatch.setattr(engine.nn.Linear, "tomorrow_method", lambda self: self, raising=False)
    return Tomorrow


@pytest.mark.parametrize("source", [
    "f = torch.tomorrow_fn",
    "c = torch.Tomorrow",
    "c = nn.TomorrowLayer",
    "m = torch.ones(2).tomorrow_method()",
    "m = torch.ones(2).tomorrow_method",
    "m = torch.Tensor.tomorrow_method",
    "m = nn.Linear(2, 2).tomorrow_method()",
    "m = nn.Module.tomorrow_method",
    "class Net(nn.Module):\n    def forward(self, x):\n        return self.tomorrow_method()\nNet()(1)",
    "m = getattr(nn.Linear(2, 2), 'tomorrow_method')",
])
def test_a_name_added_to_the_engine_is_invisible_until_the_allowlist_names_it(engine_grows, run_err, source):
    err = run_err(source)
    assert err.type == "AttributeError", err.to_dict()


def test_an_engine_object_of_a_class_the_allowlist_does_not_name_is_refused(engine_grows, monkeypatch):
    def make_tomorrow():
        return engine_grows()
    make_tomorrow.__module__ = "gradserve.engine"
    monkeypatch.setattr(engine, "make_tomorrow", make_tomorrow, raising=False)
    monkeypatch.setitem(allowlist.MODULES, "torch", allowlist.MODULES["torch"]._replace(
        names=allowlist.MODULES["torch"].names + ("make_tomorrow",)))
    monkeypatch.setattr(access, "_SOURCES", None)
    ns = Namespace()
    out = run("t = torch.make_tomorrow()", ns)
    assert not out.ok and out.error.type == "TypeError", out.error
    assert "not available in programs" in out.error.message
    assert "t" not in ns.names()


def test_engine_internals_the_old_default_allow_exposed_are_gone(run_err):
    for source in ("c = F.Function", "c = F.get_array_module", "c = F.Tensor", "c = F.Im2Col",
                   "c = nn.utils.zero_grads", "c = torch.nn.utils.get_array_module"):
        assert run_err(source).type == "AttributeError", source


def test_module_instance_data_and_registries_are_readable(run_ok):
    out, ns = run_ok("m = nn.Linear(3, 2)\nn_in = m.in_features\nw = m.weight\ntr = m.training\n"
                     "s = nn.Sequential(nn.Linear(2, 2))\nfirst = s[0].out_features\n"
                     "opt = optim.SGD(m.parameters(), lr=0.1)\nlr = opt.param_groups[0]['lr']")
    assert ns.get("n_in") == 3 and ns.get("first") == 2 and ns.get("lr") == 0.1
