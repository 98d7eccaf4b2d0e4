"""Conformance snippets: ordinary Python/PyTorch code of the SPEC's subset, each
with the output CPython prints when it runs the snippet with PyTorch.

The snippets print plain values (``.tolist()``, ``.item()``, rounded floats) so
the expected text does not depend on tensor formatting. test_program_conformance
runs each through the interpreter and compares with ``expected``; when PyTorch is
installed it also runs the same (trusted, test-only) text under CPython with
real torch and checks the expectations themselves.
"""

CASES = {}


def case(name, source, expected):
    CASES[name] = (source, expected)


# ---------------------------------------------------------------------------- control flow
case("if_elif_else", """
def grade(n):
    if n >= 90:
        return "A"
    elif n >= 80:
        return "B"
    elif n >= 70:
        return "C"
    else:
        return "F"
print([grade(n) for n in (95, 85, 75, 10)])
""", "['A', 'B', 'C', 'F']\n")

case("loops_break_continue_else", """
out = []
for i in range(10):
    if i % 2:
        continue
    if i > 6:
        break
    out.append(i)
else:
    out.append("never")
n = 0
while n < 5:
    n += 1
else:
    out.append("done")
print(out, n)
""", "[0, 2, 4, 6, 'done'] 5\n")

case("nested_loops_and_ranges", """
total = 0
for i in range(1, 4):
    for j in range(i, 10, 3):
        total += i * j
print(total, list(range(10, 0, -3)), len(range(0, 100, 7)))
""", "96 [10, 7, 4, 1] 15\n")

case("conditional_expressions_and_boolops", """
a, b = 3, 0
print(a if a > b else b, a and b, a or b, not a, b or "x", 0 < a < 5, a == 3 != b)
print([x for x in range(6) if x % 2 == 0 and x > 0 or x == 5])
""", "3 0 3 False x True True\n[2, 4, 5]\n")

case("tuple_unpacking_and_starred", """
a, (b, c) = 1, (2, 3)
first, *middle, last = range(6)
x = y = 7
a, b = b, a
print(a, b, c, first, middle, last, x, y)
for i, (k, v) in enumerate({"p": 1, "q": 2}.items()):
    print(i, k, v)
""", "2 1 3 0 [1, 2, 3, 4] 5 7 7\n0 p 1\n1 q 2\n")

case("augmented_assignment_targets", """
d = {"a": [1, 2]}
d["a"][0] += 10
d["b"] = d.get("b", 0) + 5
class Box:
    pass
box = Box()
box.n = 1
box.n *= 3
s = "ab"
s += "c"
lst = [1]
alias = lst
lst += [2]
print(d, box.n, s, alias)
""", "{'a': [11, 2], 'b': 5} 3 abc [1, 2]\n")

case("arithmetic_semantics", """
print(7 // 2, -7 // 2, 7 % -3, -7 % 3, 2 ** -1, 2 ** 10, 7 / 2, divmod(-7, 2), 1 << 5, 255 >> 4, 6 & 3, 6 | 3, 6 ^ 3, ~5)
print(round(2.5), round(3.5), round(2.675, 2), abs(-2.5), int(-3.9), float("1e3"), 0.1 + 0.2 == 0.3)
""", "3 -4 -2 2 0.5 1024 3.5 (-4, 1) 32 15 2 7 5 -6\n2 4 2.67 2.5 -3 1000.0 False\n")

case("strings_and_fstrings", """
name, value = "loss", 0.123456
print(f"{name}={value:.3f}", f"{name!r:>8}", f"{42:05d}", f"{1234567:,}", f"{0.5:%}", f"{255:x}", f"{3.0:e}")
w = 6
print(f"[{name:^{w}}]", "%s=%.2f" % (name, value), "-".join(["a", "b"]), "a,b".split(","), "Ab".lower(), " x ".strip())
print("abc"[::-1], "abc"[1:], "x" * 3, "b" in "abc", "abc".startswith("a"), "abc".find("c"), "a{}".replace("{}", "!"))
""", "loss=0.123   'loss' 00042 1,234,567 50.000000% ff 3.000000e+00\n[ loss ] loss=0.12 a-b ['a', 'b'] ab x\n"
     "cba bc xxx True True 2 a!\n")

case("containers", """
lst = [3, 1, 2]
lst.append(4)
lst.extend([0])
lst.insert(0, 9)
lst.remove(1)
popped = lst.pop()
lst.sort()
d = {"b": 2, "a": 1}
d.update(c=3)
keys = sorted(d)
s = {1, 2}
s.add(3)
s |= {4}
print(lst, popped, keys, list(d.values()), d.pop("a"), sorted(s), s & {2, 9}, (1, 2) + (3,), [1, 2] * 2)
print(lst.index(3), lst.count(2), 2 in s, {"x": 1}.items(), list(reversed(lst)), lst[-1], lst[1:3])
""", "[2, 3, 4, 9] 0 ['a', 'b', 'c'] [2, 1, 3] 1 [1, 2, 3, 4] {2} (1, 2, 3) [1, 2, 1, 2]\n"
     "1 1 True dict_items([('x', 1)]) [9, 4, 3, 2] 9 [3, 4]\n")

case("comprehensions", """
m = [[i * j for j in range(3)] for i in range(3)]
flat = [v for row in m for v in row if v]
sq = {i: i * i for i in range(4)}
odd = {i % 3 for i in range(10)}
gen = sum(x * x for x in range(5))
x = 10
same = [x for x in range(3)]
print(m, flat, sq, odd, gen, same, x)
""", "[[0, 0, 0], [0, 1, 2], [0, 2, 4]] [1, 2, 2, 4] {0: 0, 1: 1, 2: 4, 3: 9} {0, 1, 2} 30 [0, 1, 2] 10\n")

case("builtins_over_data", """
data = [5, 3, 8, 1]
print(sum(data), min(data), max(data), sorted(data), sorted(data, reverse=True), sorted(data, key=lambda v: -v))
print(list(enumerate(data, 1))[:2], list(zip(data, "abcd")), list(map(lambda v: v * 2, data)), list(filter(lambda v: v > 2, data)))
print(any(v > 7 for v in data), all(v > 0 for v in data), max(data, key=lambda v: v % 5), min([], default=-1), len(data))
print(isinstance(1, int), isinstance(1.0, (int, float)), isinstance("a", list), hasattr("a", "upper"), getattr(data, "count")(5))
it = iter(data)
print(next(it), next(it), list(it), next(iter([]), "empty"))
print(int("42"), float(3), bool([]), str(12), tuple(range(3)), list("ab"), dict(a=1), set([1, 1]), chr(65), ord("A"))
""", "17 1 8 [1, 3, 5, 8] [8, 5, 3, 1] [8, 5, 3, 1]\n[(1, 5), (2, 3)] [(5, 'a'), (3, 'b'), (8, 'c'), (1, 'd')] "
     "[10, 6, 16, 2] [5, 3, 8]\nTrue True 3 -1 4\nTrue True False True 1\n5 3 [8, 1] empty\n"
     "42 3.0 False 12 (0, 1, 2) ['a', 'b'] {'a': 1} {1} A 65\n")

# ---------------------------------------------------------------------------- functions
case("defaults_kwargs_varargs", """
def f(a, b=2, *args, c=3, **kwargs):
    return a, b, args, c, sorted(kwargs.items())
print(f(1))
print(f(1, 5, 6, 7, c=8, z=9))
print(f(*[1, 2], **{"c": 0, "y": 1}))
def g(x, *, scale=1.0):
    return x * scale
print(g(2, scale=3), g(x=4))
""", "(1, 2, (), 3, [])\n(1, 5, (6, 7), 8, [('z', 9)])\n(1, 2, (), 0, [('y', 1)])\n6 4.0\n")

case("closures_and_nonlocal", """
def counter():
    n = 0
    def inc(step=1):
        nonlocal n
        n += step
        return n
    return inc
c1, c2 = counter(), counter()
c1(); c1(5); c2()
adders = [lambda v, k=k: v + k for k in range(3)]
late = [lambda: k for k in range(3)]
def outer():
    x = "outer"
    def middle():
        def inner():
            return x
        return inner()
    return middle()
print(c1(), c2(), [a(10) for a in adders], [f() for f in late], outer())
""", "7 2 [10, 11, 12] [2, 2, 2] outer\n")

case("globals_and_shadowing", """
counter = 0
def bump():
    global counter
    counter += 1
def shadow():
    counter = 100
    return counter
bump(); bump()
print(counter, shadow(), counter)
""", "2 100 2\n")

case("recursion", """
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def hanoi(n, a, b, c, moves):
    if n:
        hanoi(n - 1, a, c, b, moves)
        moves.append((a, c))
        hanoi(n - 1, b, a, c, moves)
    return moves
def even(n):
    return True if n == 0 else odd(n - 1)
def odd(n):
    return False if n == 0 else even(n - 1)
print(fib(15), len(hanoi(6, "A", "B", "C", [])), even(50), odd(7))
""", "610 63 True True\n")

case("lambdas_and_higher_order", """
compose = lambda f, g: lambda x: f(g(x))
inc = lambda x: x + 1
dbl = lambda x: x * 2
apply_n = lambda f, n: (lambda x: x) if n == 0 else compose(f, apply_n(f, n - 1))
print(compose(inc, dbl)(5), apply_n(dbl, 4)(1), sorted(["bb", "a", "ccc"], key=len))
""", "11 16 ['a', 'bb', 'ccc']\n")

case("exceptions", """
def risky(k):
    if k == 0:
        raise ValueError("zero")
    if k == 1:
        return {}["missing"]
    if k == 2:
        return [1][5]
    if k == 3:
        return 1 / 0
    return "ok"
for k in range(5):
    try:
        print(risky(k))
    except (KeyError, IndexError) as e:
        print("lookup", e)
    except ValueError as e:
        print("value", e.args)
    except Exception as e:
        print("other", str(e))
    else:
        print("else")
    finally:
        print("finally", k)
class MyError(Exception):
    def __init__(self, code):
        super().__init__(f"code {code}")
        self.code = code
try:
    raise MyError(7)
except MyError as e:
    print(e.code, e, isinstance(e, Exception))
def reraise():
    try:
        raise RuntimeError("inner")
    except RuntimeError:
        raise
try:
    reraise()
except RuntimeError as e:
    print("reraised", e)
try:
    assert 1 > 2, "math"
except AssertionError as e:
    print("assert", e)
""", "value ('zero',)\nfinally 0\nlookup 'missing'\nfinally 1\nlookup list index out of range\nfinally 2\n"
     "other division by zero\nfinally 3\nok\nelse\nfinally 4\n7 code 7 True\nreraised inner\nassert math\n")

case("finally_and_return", """
def f():
    try:
        return "try"
    finally:
        print("cleanup")
def g():
    for i in range(3):
        try:
            if i == 1:
                break
        finally:
            print("f", i)
    return i
print(f(), g())
""", "cleanup\nf 0\nf 1\ntry 1\n")

# ---------------------------------------------------------------------------- classes
case("plain_classes", """
class Vec:
    dims = 2
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)
    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)
    def __eq__(self, other):
        return (self.x, self.y) == (other.x, other.y)
    def __repr__(self):
        return f"Vec({self.x}, {self.y})"
    def __len__(self):
        return self.dims
    def norm2(self):
        return self.x ** 2 + self.y ** 2
class Vec3(Vec):
    dims = 3
    def __init__(self, x, y, z):
        super().__init__(x, y)
        self.z = z
    def norm2(self):
        return super().norm2() + self.z ** 2
v = Vec(1, 2) + Vec(3, 4) * 2
w = Vec3(1, 2, 2)
print(v, v == Vec(7, 10), len(v), len(w), w.norm2(), isinstance(w, Vec), Vec.dims, str(v))
""", "Vec(7, 10) True 2 3 9 True 2 Vec(7, 10)\n")

case("class_protocols", """
class Seq:
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * i
    def __contains__(self, v):
        return v == 4
    def __call__(self, k):
        return k + self.n
    def __bool__(self):
        return self.n > 0
class Ctx:
    def __enter__(self):
        print("enter")
        return self
    def __exit__(self, kind, value, tb):
        print("exit", kind is None)
        return False
s = Seq(4)
with Ctx() as c:
    print(list(s), 4 in s, 5 in s, s(10), bool(Seq(0)), sum(s))
""", "enter\n[0, 1, 4, 9] True False 14 False 14\nexit True\n")

# ---------------------------------------------------------------------------- tensors and autograd
case("tensor_basics", """
import torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(x.shape, x.dtype, x.sum().item(), x.mean(dim=0).tolist(), x.T.tolist(), (x @ x).tolist())
print(x[0].tolist(), x[:, 1].tolist(), x[x > 2].tolist(), x.reshape(4).tolist(), x.unsqueeze(0).shape)
y = torch.zeros(3, dtype=torch.int64)
y[1] = 5
y += 1
print(y.tolist(), torch.arange(5).tolist(), torch.ones(2, 3).numel(), torch.cat([x, x]).shape, torch.stack([x, x]).shape)
print(torch.empty(3).shape, torch.full((2,), 7).tolist(), torch.eye(2).tolist(), x.max().item(), x.argmax().item())
""", "torch.Size([2, 2]) torch.float32 10.0 [2.0, 3.0] [[1.0, 3.0], [2.0, 4.0]] [[7.0, 10.0], [15.0, 22.0]]\n"
     "[1.0, 2.0] [2.0, 4.0] [3.0, 4.0] [1.0, 2.0, 3.0, 4.0] torch.Size([1, 2, 2])\n"
     "[1, 6, 1] [0, 1, 2, 3, 4] 6 torch.Size([4, 2]) torch.Size([2, 2, 2])\n"
     "torch.Size([3]) [7, 7] [[1.0, 0.0], [0.0, 1.0]] 4.0 3\n")

case("autograd_api", """
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x + 2 * x).sum()
y.backward()
print(x.grad.tolist(), y.grad_fn.name(), x.is_leaf, y.is_leaf, y.requires_grad)
x.grad = None
z = x.pow(3).sum()
g, = torch.autograd.grad(z, x, create_graph=True)
h, = torch.autograd.grad(g.sum(), x)
print(g.tolist(), h.tolist())
with torch.no_grad():
    w = x * 2
print(w.requires_grad, torch.is_grad_enabled())
a = torch.tensor(2.0, requires_grad=True)
b = a * a
b.retain_grad()
c = b * 3
c.backward()
print(a.grad.item(), b.grad.item())
seen = []
d = torch.tensor([1.0, 1.0], requires_grad=True)
d.register_hook(lambda grad: seen.append(grad.tolist()))
(d * torch.tensor([2.0, 5.0])).sum().backward()
print(seen, d.detach().requires_grad)
""", "[4.0, 6.0, 8.0] SumBackward0 True False True\n[3.0, 12.0, 27.0] [6.0, 12.0, 18.0]\nFalse True\n"
     "12.0 3.0\n[[2.0, 5.0]] False\n")

case("grad_accumulates_and_zero", """
import torch
w = torch.tensor([1.0, -1.0], requires_grad=True)
for _ in range(3):
    (w * 2).sum().backward()
acc = w.grad.tolist()
w.grad.zero_()
(w ** 2).sum().backward()
print(acc, w.grad.tolist())
""", "[6.0, 6.0] [2.0, -2.0]\n")

# ---------------------------------------------------------------------------- models and training
case("module_subclass_training", """
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

class Net(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, 1)
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x))) * self.scale

model = Net(3, 5)
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.mul_(0).add_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + i).reshape(p.shape) * 0.5)
x = torch.sin(torch.arange(24, dtype=torch.float32)).reshape(8, 3)
y = torch.cos(torch.arange(8, dtype=torch.float32)).reshape(8, 1)
opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
losses = []
for step in range(20):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    losses.append(round(loss.item(), 4))
print(len(list(model.parameters())), [name for name, _ in model.named_parameters()])
print(losses[0], losses[-1], losses[-1] < losses[0])
""", "5 ['scale', 'fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']\n0.5554 0.5107 True\n")

# ---------------------------------------------------------------------------- locals()
# rtdl's FTTransformer.make_baseline copies its keyword arguments with `locals()[arg_name]`
case("locals_in_functions_and_class_bodies", """
def make(*, n_blocks, d_token, dropout=0.0):
    config = {'kind': 'baseline'}
    for arg_name in ['n_blocks', 'd_token', 'dropout']:
        config[arg_name] = locals()[arg_name]
    snap = locals()
    snap['n_blocks'] = 99
    return config, n_blocks, sorted(snap)
class K:
    a = 1
    names = [n for n in sorted(locals()) if not n.startswith('__')]
def shadow():
    locals = lambda: 'mine'
    return locals()
print(make(n_blocks=2, d_token=8))
print(K.names, shadow(), (lambda x: locals())(1))
""", "({'kind': 'baseline', 'n_blocks': 2, 'd_token': 8, 'dropout': 0.0}, 2, "
     "['arg_name', 'config', 'd_token', 'dropout', 'n_blocks'])\n['a'] mine {'x': 1}\n")

# vars(): argparse's arguments as a dict (gordicaleksa's training_config, Lightning's hparams.update(vars(args)))
case("vars_of_namespaces_and_program_objects", """
import argparse
import types
parser = argparse.ArgumentParser()
parser.add_argument('--lr', type=float, default=0.1)
parser.add_argument('--epochs', type=int, default=3)
args = parser.parse_args([])
training_config = dict()
for arg in vars(args):
    training_config[arg] = getattr(args, arg)
class Config:
    def __init__(self, **kw):
        vars(self).update(kw)
c = Config(n_layer=2, n_head=4)
vars(c)['dropout'] = 0.1
def f(a, b=2):
    total = a + b
    return sorted(vars().items())
print(training_config, sorted(vars(args).items()), vars(types.SimpleNamespace(x=1)))
print(c.n_layer, c.dropout, vars(c), f(1))
""", "{'lr': 0.1, 'epochs': 3} [('epochs', 3), ('lr', 0.1)] {'x': 1}\n"
     "2 0.1 {'n_layer': 2, 'n_head': 4, 'dropout': 0.1} [('a', 1), ('b', 2), ('total', 3)]\n")
