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
