"""The compiler's fast paths give what the general paths give: a condition that is one comparison
(compared and tested in one closure; plain numbers compared directly), slice subscripts built in
place, and calls of a module view's functions (torch.cat) read from the view's cache."""
import operator

import numpy as np
import pytest

from gradserve.engine.program import Limits, Namespace, run


def _values(source, names, limits=None):
    ns = Namespace()
    out = run(source, ns, limits)
    assert out.ok, out.error.to_dict()
    return [ns.get(n) for n in names]


NUMBERS = [0, 1, -2, 2.5, float("nan"), float("inf"), True, False, 10**30]


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_comparisons_of_plain_numbers_as_python_makes_them(op):
    pairs = [(a, b) for a in NUMBERS for b in NUMBERS]
    source = f"pairs = {pairs!r}".replace("nan", "float('nan')").replace("inf", "float('inf')")
    source += f"""
value = [a {op} b for a, b in pairs]
branch = [1 if a {op} b else 0 for a, b in pairs]
taken = []
for a, b in pairs:
    if a {op} b:
        taken.append(1)
    else:
        taken.append(0)
looped = []
for a, b in pairs:
    n = 0
    while a {op} b and n < 1:
        n += 1
    looped.append(n)
"""
    value, branch, taken, looped = _values(source, ["value", "branch", "taken", "looped"])
    host = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}[op]
    expect = [int(host(a, b)) for a, b in pairs]
    assert [int(v) for v in value] == expect
    assert branch == expect and taken == expect and looped == expect


def test_a_condition_on_a_tensor_comparison_tests_it_as_python_would():
    y, z = _values("x = torch.tensor([3.0])\ny = 1 if x > 2 else 0\nz = 1 if x.sum() < 2 else 0\n", ["y", "z"])
    assert (y, z) == (1, 0)
    for source, col in (("x = torch.ones(3)\nif x > 0:\n    y = 1\n", 4),
                        ("x = torch.ones(3)\ny = 1 if x > 0 else 2\n", 10),
                        ("x = torch.ones(3)\nwhile x == 1:\n    break\n", 7)):
        out = run(source, Namespace())
        assert not out.ok and out.error.type == "RuntimeError" and "ambiguous" in out.error.message
        assert (out.error.line, out.error.col) == (2, col)


def test_a_comparison_in_a_condition_keeps_the_broadcast_guard():
    out = run("a = torch.ones(4096, 1)\nb = torch.ones(1, 4096)\nif a < b:\n    pass\n", Namespace(),
              Limits(tensor_elements=1 << 20))
    assert not out.ok and out.error.limit == "tensor_elements" and out.error.line == 3


def test_slice_subscripts_on_every_kind_of_sequence():
    source = """
seq = [0, 1, 2, 3, 4, 5]
t = torch.arange(6)
p = nn.Parameter(torch.arange(6.0))
class Box:
    def __getitem__(self, i):
        return [i.start, i.stop, i.step]
n = 2
a = seq[1:n]
b = seq[::2]
c = seq[n:]
d = "abcdef"[:n]
e = t[1:5:2].tolist()
f = p[:n].tolist()
g = Box()[1:n:3]
h = (1, 2, 3)[-2:]
r = range(10)[n:4]
"""
    got = _values(source, ["a", "b", "c", "d", "e", "f", "g", "h", "r"])
    assert got == [[1], [0, 2, 4], [2, 3, 4, 5], "ab", [1, 3], [0.0, 1.0], [1, 2, 3], (2, 3), range(2, 4)]


def test_a_slice_subscript_error_is_located_at_the_subscript():
    out = run("x = 5\ny = 1\nz = y + x[1:2]\n", Namespace())
    assert not out.ok and out.error.type == "TypeError" and (out.error.line, out.error.col) == (3, 9)


def test_module_view_functions_called_as_methods():
    c, s, m = _values("c = torch.cat([torch.ones(2), torch.zeros(1)], 0).tolist()\n"
                      "s = torch.stack([torch.ones(2), torch.ones(2)]).shape[0]\n"
                      "m = math.floor(2.5)\n", ["c", "s", "m"])
    assert (c, s, m) == ([1.0, 1.0, 0.0], 2, 2)
    out = run("torch.no_such_function(1)\n", Namespace())
    assert not out.ok and out.error.type == "AttributeError" and "no_such_function" in out.error.message


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**"])
def test_tensor_operators_with_tensors_of_their_shape_and_with_numbers(op):
    source = f"""
a = torch.tensor([[1.5, -2.0, 3.0], [4.0, 5.5, -6.0]])
b = torch.tensor([[2.0, 3.0, -1.5], [1.0, -2.0, 4.0]])
same = (a {op} b).tolist()
number = (a {op} 2).tolist()
fraction = (a {op} 0.5).tolist()
row = (a {op} b[0]).tolist()
"""
    same, number, fraction, row = _values(source, ["same", "number", "fraction", "row"])
    host = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "//": np.floor_divide,
            "%": np.mod, "**": np.power}[op]
    a = np.array([[1.5, -2.0, 3.0], [4.0, 5.5, -6.0]], dtype=np.float32)
    b = np.array([[2.0, 3.0, -1.5], [1.0, -2.0, 4.0]], dtype=np.float32)
    with np.errstate(all="ignore"):   # negative ** 0.5 is nan, as in the program
        expect = [host(a, b), host(a, np.float32(2)), host(a, np.float32(0.5)), host(a, b[0])]
    for got, want in zip((same, number, fraction, row), expect):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_tensor_operators_keep_the_broadcast_guard_and_locate_errors():
    out = run("a = torch.ones(4096, 1)\nb = torch.ones(1, 4096)\nc = a * b\n", Namespace(),
              Limits(tensor_elements=1 << 20))
    assert not out.ok and out.error.limit == "tensor_elements" and out.error.line == 3
    out = run("a = torch.ones(3)\nb = torch.ones(4)\nc = 1 + (a + b)\n", Namespace())
    assert not out.ok and out.error.type == "RuntimeError" and (out.error.line, out.error.col) == (3, 10)


def test_loop_variables_in_functions_at_top_level_and_in_targets():
    source = """
def f(n):
    total = 0
    for i in range(n):
        total = total + i
    seen = []
    for i, (j, k) in enumerate([(1, 2), (3, 4)]):
        seen.append(i + j + k)
    return total, i, seen

class Box:
    pass
box = Box()
got = f(5)
for top in range(3):
    pass
for box.last in range(4):
    pass
"""
    got, top, box = _values(source, ["got", "top", "box"])
    assert got == (10, 1, [3, 8]) and top == 2 and box.last == 3


def test_tensor_operators_with_bools_and_across_dtypes_as_pytorch():
    """The operator fast path takes int and float operands only: True goes the general way (a bool
    operand), and an integer tensor with a float number promotes as PyTorch's does."""
    source = """
a = torch.tensor([1.5, -2.0])
i = torch.tensor([1, 2])
with_bool = (a + True).tolist()
halves = (i * 0.5).tolist()
halves_dtype = str((i * 0.5).dtype)
floored = (i // 2).tolist()
int_dtype = str((i + 3).dtype)
"""
    got = _values(source, ["with_bool", "halves", "halves_dtype", "floored", "int_dtype"])
    assert got == [[2.5, -1.0], [0.5, 1.0], "torch.float32", [0, 1], "torch.int64"]
    torch = pytest.importorskip("torch")
    a, i = torch.tensor([1.5, -2.0]), torch.tensor([1, 2])
    assert got == [(a + True).tolist(), (i * 0.5).tolist(), str((i * 0.5).dtype), (i // 2).tolist(),
                   str((i + 3).dtype)]


def test_methods_named_like_tensor_methods_on_other_objects():
    """t.sum() with no arguments is called on the tensor at once; anything else with such a method
    (a program's own object, a module, a number) goes through the attribute gate as before, and an
    error in the method is located at the call."""
    source = """
class Acc:
    def __init__(self):
        self.items = [1, 2, 3]
    def sum(self):
        return 'own sum ' + str(len(self.items))

own = Acc().sum()
t = torch.tensor([1.0, 2.0, 3.0])
total = t.sum().item()
chained = t.tanh().sum().item()
lin = nn.Linear(2, 2)
lin.zero_grad()
zeroed = lin.weight.grad is None
n = (3).numerator
"""
    own, total, zeroed = _values(source, ["own", "total", "zeroed"])
    assert (own, total, zeroed) == ("own sum 3", 6.0, True)
    out = run("t = torch.ones(2)\nx = 1 + t.item()\n", Namespace())
    assert not out.ok and out.error.type == "RuntimeError" and (out.error.line, out.error.col) == (2, 9)
    out = run("x = 5\ny = x.tanh()\n", Namespace())
    assert not out.ok and out.error.type == "AttributeError" and (out.error.line, out.error.col) == (2, 5)


# ------------------------------------------------------------------ loops count their simple statements
def _steps_needed(source):
    """The smallest step limit the program runs within (bisected)."""
    lo, hi = 1, 100_000
    while lo < hi:
        mid = (lo + hi) // 2
        if run(source, Namespace(), Limits(steps=mid)).ok:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _per_pass(template):
    """The steps 50 more passes of a loop count, over 50."""
    return (_steps_needed(template.format(n=100)) - _steps_needed(template.format(n=50))) / 50


def test_a_loop_counts_its_simple_statements_once_a_pass_as_one_by_one():
    # a body of two simple statements: the pass and its two statements, 3 steps a pass, whether
    # the loop counts them (an assignment to a name, an expression) or they count themselves
    # (an assignment to an item, an augmented assignment)
    counted = _per_pass("def f():\n    for i in range({n}):\n        a = i\n        len('x')\nf()\n")
    themselves = _per_pass("def f():\n    b = [0]\n    for i in range({n}):\n        b[0] = i\n        b[0] += 1\nf()\n")
    w = _per_pass("def f():\n    i = 0\n    while i < {n}:\n        i = i + 1\n        len('x')\nf()\n")
    assert counted == themselves == w == 3, (counted, themselves, w)


def test_an_endless_loop_of_simple_statements_meets_the_step_limit():
    for body in ("        a = 1\n", "        len('x')\n", "        a = 1\n        b = a\n"):
        out = run("def f():\n    while True:\n" + body + "f()\n", Namespace(), Limits(steps=5000))
        assert not out.ok and out.error.limit == "steps", out.error.to_dict()


def test_a_pass_left_early_counts_the_statements_it_skipped():
    # break after the first statement: the pass counted all three of its simple statements
    # (the pass, a = i, c = a: 3 steps; the if: 1 more, and 1 for its break on the last pass)
    full = _per_pass("def f():\n    for i in range({n}):\n        a = i\n        if a < 0:\n            break\n"
                     "        c = a\nf()\n")
    early = _steps_needed("def f():\n    for i in range(10):\n        a = i\n        if a == 0:\n            break\n"
                          "        c = a\nf()\n")
    once = _steps_needed("def f():\n    for i in range(10):\n        a = i\n        if a < 0:\n            break\n"
                         "        c = a\nf()\n")
    assert full == 4 and once - early == 9 * 4 - 1, (full, once, early)


def test_statements_counted_by_their_loop_still_locate_errors_and_record_lines():
    out = run("def f():\n    for i in range(3):\n        a = i\n        b = 1 / (a - 2)\nf()\n", Namespace())
    assert not out.ok and out.error.type == "ZeroDivisionError" and (out.error.line, out.error.col) == (4, 13)
    assert [f["line"] for f in out.error.to_dict()["traceback"]] == [5, 4]
    ns = Namespace()
    assert run("x = torch.ones(2, requires_grad=True)\ndef f():\n    for i in range(2):\n        y = x * 2\n"
               "        z = y.sum()\n    return z\nz = f()\n", ns).ok
    assert ns.get("z").grad_fn.line == 5 and ns.get("z").grad_fn.next_functions[0][0].line == 4


def test_a_loop_of_only_simple_statements_runs_them_as_python_does():
    # the body runs in the loop's own closure (no call per statement): its else, the loop variable
    # left after it, expression statements, and an unbound local at the statement that reads it
    total, last, seen, done = _values(
        "def f():\n    total = 0\n    seen = []\n    for i in range(4):\n        total = total + i\n"
        "        seen.append(total)\n    else:\n        done = 'else'\n    return total, i, seen, done\n"
        "total, last, seen, done = f()\n", ["total", "last", "seen", "done"])
    assert (total, last, seen, done) == (6, 3, [0, 1, 3, 6], "else")
    out = run("def f():\n    for i in range(2):\n        a = i\n        b = c\n        c = a\nf()\n", Namespace())
    assert not out.ok and out.error.type == "UnboundLocalError" and out.error.line == 4, out.error.to_dict()


# ------------------------------------------------------------------ obj.name(x), obj.name(x, y)
def test_positional_calls_give_what_keyword_calls_give():
    source = """
a = torch.arange(6.0).reshape(2, 3)
b = torch.ones(2, 3)
cat1 = torch.cat([a, b])
cat2 = torch.cat([a, b], 1)
cat_kw = torch.cat([a, b], dim=1)
viewed = a.view(3, 2)
summed = a.sum(0)
lst = []
lst.append(3)
got = {"k": 1}.get("z", 7)
yes = torch.is_tensor(a)
class Box:
    def put(self, x, y=0):
        return x + y
one = Box().put(1)
two = Box().put(1, 2)
"""
    cat1, cat2, cat_kw, viewed, summed, lst, got, yes, one, two = _values(
        source, ["cat1", "cat2", "cat_kw", "viewed", "summed", "lst", "got", "yes", "one", "two"])
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    assert np.array_equal(cat1.numpy(), np.concatenate([a, np.ones((2, 3), np.float32)]))
    assert np.array_equal(cat2.numpy(), cat_kw.numpy()) and cat2.shape == (2, 6)
    assert viewed.shape == (3, 2) and np.array_equal(summed.numpy(), a.sum(0))
    assert lst == [3] and got == 7 and yes is True and (one, two) == (1, 3)


def test_positional_calls_locate_their_errors():
    for source, where in (("a = torch.ones(2)\nb = torch.cat([a, a], 3)\n", (2, 5)),
                          ("a = torch.ones(2)\nb = a.view(3, 5)\n", (2, 5)),
                          ("a = torch.ones(2)\nb = torch.nope(a)\n", (2, 5)),
                          ("a = torch.ones(2)\nb = torch.cat([a, a], undefined)\n", (2, 23))):
        out = run(source, Namespace())
        assert not out.ok and (out.error.line, out.error.col) == where, (source, out.error.to_dict())


def test_a_module_function_called_positionally_is_held_to_the_element_limit():
    out = run("import numpy as np\nx = np.zeros(5000)\ny = torch.from_numpy(x)\n", Namespace(),
              Limits(tensor_elements=1000))
    assert not out.ok and out.error.limit == "tensor_elements" and out.error.line in (2, 3)


def test_a_positional_call_looks_its_method_up_before_its_arguments_as_python_does():
    for source in ("lst = []\nlst.nope(print('evaluated'))\n", "import torch\ntorch.nope(print('evaluated'))\n",
                   "x = torch.ones(2)\nx.nope(print('evaluated'))\n"):
        out = run(source, Namespace())
        assert not out.ok and out.error.type == "AttributeError" and out.stdout == "", (source, out)
    # a program object's property is read (its getter runs) before the arguments
    out = run("log = []\nclass A:\n    @property\n    def f(self):\n        log.append('attr')\n"
              "        return lambda v: v\nr = A().f(log.append('arg'))\n", Namespace())
    assert out.ok
    ns = Namespace()
    assert run("log = []\nclass A:\n    @property\n    def f(self):\n        log.append('attr')\n"
               "        return lambda v: v\nr = A().f(log.append('arg'))\n", ns).ok and ns.get("log") == ["attr", "arg"]


def test_positional_calls_of_host_and_program_methods_in_a_loop():
    lst, d, total = _values("""
lst = []
d = {}
class Acc:
    def __init__(self):
        self.n = 0
    def add(self, k, v=1):
        self.n += k * v
a = Acc()
for i in range(50):
    lst.append(i)
    d.setdefault(i % 5, 0)
    a.add(i)
    a.add(i, 2)
total = a.n
""", ["lst", "d", "total"])
    assert lst == list(range(50)) and d == {k: 0 for k in range(5)} and total == 3 * sum(range(50))
