"""Property: whatever program comes in (random programs from a grammar of the
subset's statements and expressions, or random text), ``run`` returns an
Outcome that is ok or carries a ProgramError, never raises, and leaves the
engine's state and the session usable."""
import string

from hypothesis import HealthCheck, given, settings, strategies as st

from gradserve.engine.autograd.state import state
from gradserve.engine.program import Limits, Namespace, Outcome, ProgramError, run
from gradserve.engine.program.access import is_program_class, is_program_value

LIMITS = Limits(steps=20_000, wall_time_s=2.0, tensor_elements=1 << 16, session_bytes=16 << 20,
                graph_nodes=5_000, sequence_length=10_000, string_length=10_000, output_bytes=4096)

NAMES = ["a", "b", "x", "y", "lst", "d", "t", "f", "g", "obj"]
ATTRS = ["shape", "T", "sum()", "item()", "mean()", "append(1)", "keys()", "upper()", "__class__", "grad",
         "requires_grad", "relu()", "tolist()", "numel()", "real", "data", "_data", "__dict__", "count(1)"]

ints = st.integers(-5, 12).map(str)
floats = st.sampled_from(["0.5", "1.0", "-2.5", "1e3", "0.0"])
strings = st.sampled_from(["'a'", "'xy'", "''", "'{0}'", "\"%d\""])
atoms = st.one_of(ints, floats, strings, st.sampled_from(NAMES),
                  st.sampled_from(["None", "True", "False", "[]", "{}", "()", "torch.ones(3)",
                                   "torch.tensor([1.0, 2.0])", "torch.zeros(2, 2, requires_grad=True)",
                                   "torch.arange(4)", "range(3)", "math.pi", "nn.Linear(2, 2)"]))


def _expr(children):
    binop = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "@", "<<", "&", "==", "<",
                                                 " and ", " or ", " in "]), children)
    return st.one_of(
        binop.map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
        children.map(lambda c: f"(-{c})"),
        children.map(lambda c: f"(not {c})"),
        st.tuples(children, st.sampled_from(ATTRS)).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(st.sampled_from(["len", "sum", "list", "abs", "min", "max", "sorted", "str", "int", "float",
                                   "bool", "tuple", "set", "print", "repr", "f", "g", "torch.tensor",
                                   "torch.ones", "getattr", "hasattr", "isinstance", "range", "enumerate",
                                   "zip", "iter", "next", "any", "all"]),
                  st.lists(children, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.lists(children, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(children, max_size=2).map(lambda xs: "(" + "".join(x + ", " for x in xs) + ")"),
        st.tuples(children, children).map(lambda t: "{" + f"{t[0]}: {t[1]}" + "}"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(children, children).map(lambda t: f"[{t[0]} for _i in range(3) if {t[1]}]"),
        st.tuples(children, children).map(lambda t: f"sum(1 for _ in {t[0]})"),
        children.map(lambda c: f"(lambda q: q * {c})"),
        st.tuples(st.sampled_from(NAMES + ["1", "2.5", "None"]), st.sampled_from(["", ":>4", ".2f", "!r", ":,"])).map(
            lambda t: "f'{" + t[0] + t[1] + "}'"),
    )


expressions = st.recursive(atoms, _expr, max_leaves=8)


def _indent(block):
    return "\n".join("    " + line for line in block.splitlines())


def _stmt(children):
    return st.one_of(
        st.tuples(expressions, children).map(lambda t: f"if {t[0]}:\n{_indent(t[1])}\nelse:\n    pass"),
        st.tuples(st.integers(0, 4), children).map(lambda t: f"for _k in range({t[0]}):\n{_indent(t[1])}"),
        st.tuples(expressions, children).map(lambda t: f"for _k in {t[0]}:\n{_indent(t[1])}"),
        children.map(lambda c: f"n_ = 0\nwhile n_ < 3:\n    n_ += 1\n{_indent(c)}"),
        st.tuples(st.sampled_from(["f", "g"]), children).map(
            lambda t: f"def {t[0]}(p=1, *rest, **kw):\n{_indent(t[1])}\n    return p"),
        st.tuples(children, st.sampled_from(["Exception", "ValueError", "RuntimeError", "TypeError", ""])).map(
            lambda t: f"try:\n{_indent(t[0])}\nexcept {t[1]}:\n    pass"),
        st.tuples(children, children).map(lambda t: f"try:\n{_indent(t[0])}\nfinally:\n{_indent(t[1])}"),
        children.map(lambda c: f"with torch.no_grad():\n{_indent(c)}"),
        children.map(lambda c: f"class K(nn.Module):\n    def forward(self, v):\n{_indent(_indent(c))}\n"
                               f"        return v\nobj = K()"),
        st.lists(children, min_size=2, max_size=3).map("\n".join),
    )


simple_statements = st.one_of(
    st.tuples(st.sampled_from(NAMES), expressions).map(lambda t: f"{t[0]} = {t[1]}"),
    st.tuples(st.sampled_from(NAMES), st.sampled_from(["+=", "-=", "*=", "//="]), expressions).map(
        lambda t: f"{t[0]} {t[1]} {t[2]}"),
    expressions.map(lambda e: f"print({e})"),
    expressions,
    st.sampled_from(["pass", "del a", "raise ValueError('v')", "assert x", "lst = [1, 2, 3]", "d = {'k': 1}",
                     "t = torch.ones(2, requires_grad=True)", "y = (t * 2).sum()", "y.backward()",
                     "log(step=1, loss=0.5)", "a, b = 1, 2", "x = lst[0]", "import torch", "import os",
                     "obj.w = nn.Parameter(torch.ones(1))", "break", "return 1", "global a", "x = 2 ** 100"]),
    expressions.map(lambda e: f"x = {e}.__class__"),
    st.sampled_from(["x = getattr(t, 'grad_fn')", "x = t.grad_fn.next_functions", "x = nn.Linear(2, 2).state_dict()",
                     "x = list(nn.Linear(2, 2).named_parameters())", "x = torch.max(torch.ones(2, 2), dim=0)",
                     "x = torch.ones(3).numpy()", "x = torch.Generator()", "x = torch.float32", "x = torch.device('cpu')",
                     "x = torch.ones(2).split(1)", "x = optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1).param_groups",
                     "x = math.sqrt", "x = torch.nn", "x = F.relu", "x = iter([1, 2])", "x = map(abs, [1])",
                     "x = super", "x = nn.Linear(1, 1).parameters()", "x = {}.keys()", "x = torch.autograd.grad",
                     "x = torch.no_grad()", "x = nn.Module", "x = ValueError('e')"]),
)
statements = st.recursive(simple_statements, _stmt, max_leaves=6)
programs = st.lists(statements, min_size=1, max_size=6).map(lambda xs: "\n".join(xs) + "\n")


def _check(source, ns):
    out = run(source, ns, LIMITS)
    assert isinstance(out, Outcome)
    assert out.ok == (out.error is None)
    if out.error is not None:
        assert isinstance(out.error, ProgramError)
        assert isinstance(out.error.type, str) and out.error.type
        d = out.error.to_dict()
        assert set(d) >= {"type", "message", "line", "col", "traceback"}
        for frame in d["traceback"]:
            assert set(frame) == {"line", "col", "function"}
    assert state.grad_enabled is True and state.observer is None and state.anomaly is False
    _assert_only_program_values(ns)
    return out


def _assert_only_program_values(ns):
    """Isolation: whatever the program did, its variables hold program values only."""
    stack = list(ns.globals.values())
    seen = set()
    while stack and len(seen) < 5000:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        assert is_program_value(v), f"host value {type(v)!r} reached a program"
        if isinstance(v, (list, tuple, set, frozenset)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif is_program_class(type(v)):
            stack.extend(vars(v).values())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(programs)
def test_random_programs_give_a_result_or_a_program_error(source):
    ns = Namespace()
    _check(source, ns)
    follow = run("z_ = 1 + 1", ns, LIMITS)
    assert follow.ok and ns.get("z_") == 2


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.printable + "([{}])\u00e9\u2603\x00", max_size=200))
def test_random_text_gives_a_result_or_a_program_error(source):
    _check(source, Namespace())


@settings(max_examples=100, deadline=None)
@given(st.lists(programs, min_size=2, max_size=4))
def test_a_session_survives_any_sequence_of_programs(sources):
    ns = Namespace()
    for source in sources:
        _check(source, ns)
    assert run("ok_ = True", ns, LIMITS).ok
