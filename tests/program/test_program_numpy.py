"""The program-side NumPy subset (SPEC section 2): NumPy's semantics, compared with NumPy
itself; arrays held as engine values; conversions with tensors; sizes checked first."""
import numpy as np
import pytest

from gradserve.engine.program import Limits, Namespace, run

from python_oracle import assert_same_as_python, program_stdout, python_stdout

try:
    import torch as real_torch
except ImportError:  # the suite passes without PyTorch
    real_torch = None


def test_creation_dtypes_and_printing_match_numpy():
    assert_same_as_python("""
    import numpy as np
    a = np.array([[1, 2], [3, 4]])
    b = np.array([1.0, 2.5])
    print(a, a.dtype, b.dtype, repr(b), a.shape, a.ndim, a.size, b.itemsize)
    print(np.zeros((2, 3)), np.ones(3, dtype=np.int64), np.full((2,), 7.0), np.arange(5), np.arange(0, 1, 0.25))
    print(np.linspace(0, 1, 5), np.eye(2), np.identity(3).sum(), np.zeros_like(a), np.ones_like(b))
    print(a.astype(np.float32).dtype, a.astype("float64").dtype, np.float32, np.dtype("int32"), b.dtype == np.float64)
    print(np.array([True, False]).dtype, np.array([1, 2], dtype=float), np.asarray([1, 2]).tolist())
    """)


def test_empty_is_zeroed_memory_as_torch_empty_in_programs(run_ok):
    _, ns = run_ok("import numpy as np\na = np.empty((2, 3)).tolist()\nb = np.empty_like(np.ones(2)).tolist()")
    assert ns.get("a") == [[0.0] * 3] * 2 and ns.get("b") == [0.0, 0.0]


def test_numpy_scalars_keep_their_type_as_numpy():
    assert_same_as_python("""
    import numpy as np
    a = np.arange(4.0)
    m = np.mean(a)
    print(m, repr(m), [m, np.sum(np.arange(3))], m.item(), m.round(1), m * 2, 2 + m, m.dtype, float(m) + 1)
    print(f"{m:.3f}", round(float(m), 1), int(np.argmax(a)), np.int64(3) + 1, np.float32(0.1), repr(np.float32(2)))
    """)


def test_numpy_scalar_results_of_every_type_and_scalar_loops_match_numpy():
    """Scalar results take their class by their NumPy type (not their dtype's name, which NumPy computes
    in Python each time): every integer and float type, and a sinusoid table's scalar loop."""
    assert_same_as_python("""
    import numpy as np
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, np.float32, np.float64):
        v = np.sum(np.ones(3, dtype=t))
        print(repr(v), v.dtype, repr(v * 2), repr(1 / v), repr(np.power(v, 2)))
    print(np.sum(np.array([1 + 2j])))
    table = np.array([[p / np.power(10000, 2 * (j // 2) / 8) for j in range(8)] for p in range(3)])
    table[:, 0::2] = np.sin(table[:, 0::2])
    print(table.round(6).tolist())
    """)


def test_elementwise_reductions_and_broadcasting_match_numpy():
    assert_same_as_python("""
    import numpy as np
    x = np.linspace(-1, 1, 7)
    print(np.sin(x), np.exp(x).round(4), np.abs(x), np.sqrt(np.abs(x)), np.clip(x, -0.5, 0.5), np.maximum(x, 0))
    a = np.arange(12).reshape(3, 4)
    print(a.sum(), a.sum(axis=0), a.mean(axis=1), np.mean(a), np.std(a), a.var(), a.max(), np.argmax(a, axis=1))
    print(a.min(axis=0), a.prod(axis=1), np.cumsum(a, axis=1), np.median(a), np.percentile(a, 50))
    print(a + np.arange(4), a * 2.5, a / 2, a // 3, a % 5, a ** 2, -a, a > 5, (a > 5).any(), np.all(a >= 0))
    print(np.where(a > 5, a, -1), np.sum(a, keepdims=True), a.T.shape, a.reshape(-1).shape, a.flatten()[:3])
    print(1 + a[0], 2.0 * a[0], 10 - a[0], 1 / (a[0] + 1))
    """)


def test_indexing_views_and_assignment_match_numpy():
    assert_same_as_python("""
    import numpy as np
    a = np.arange(12).reshape(3, 4)
    print(a[0], a[0, 1], a[:, 1], a[1:, ::2], a[a > 6], a[[0, 2]], a[:, np.newaxis, :].shape, a[..., 0])
    row = a[1]
    row[0] = 100
    print(a)
    a[a > 50] = -1
    a[0, :] = [9, 8, 7, 6]
    a[2] += 1
    print(a, len(a), 7 in a)
    for r in a:
        print(r)
    """)


def test_shape_functions_and_linalg_match_numpy():
    assert_same_as_python("""
    import numpy as np
    a = np.arange(6).reshape(2, 3)
    print(np.concatenate([a, a]), np.stack([a, a]).shape, np.vstack([a, a]).shape, np.hstack([a, a]).shape)
    print(np.transpose(a), np.expand_dims(a, 0).shape, np.squeeze(np.ones((1, 3, 1))).shape, np.flip(a, 1))
    print(np.split(np.arange(6), 3), np.tile(a, 2).shape, np.repeat(a, 2).shape, np.roll(np.arange(4), 1))
    print(np.dot(a, a.T), a @ a.T, np.outer([1, 2], [3, 4]), np.unique([3, 1, 3, 2]), np.sort([3, 1, 2]))
    m = np.array([[2.0, 1.0], [1.0, 3.0]])
    print(np.linalg.inv(m), np.linalg.det(m).round(6), np.linalg.norm(m), np.linalg.solve(m, np.array([1.0, 2.0])))
    w, v = np.linalg.eigh(m)
    print(w.round(6), np.trace(m), np.diag([1, 2]), np.triu(np.ones((3, 3))), np.meshgrid([1, 2], [3, 4])[0])
    """)


def test_random_draws_numpys_numbers_from_the_sessions_generator():
    assert_same_as_python("""
    import numpy as np
    np.random.seed(0)
    print(np.random.rand(3), np.random.randn(2, 2), np.random.randint(0, 10, size=5), np.random.random((2,)))
    print(np.random.normal(0, 1, 3), np.random.uniform(-1, 1, 2), np.random.choice(5, 3, replace=False))
    print(np.random.permutation(6), np.random.choice([1, 2, 3], p=[0.1, 0.2, 0.7], size=4))
    a = np.arange(5); np.random.shuffle(a); print(a)
    rs = np.random.RandomState(1); print(rs.rand(2), rs.randint(5))
    g = np.random.default_rng(0); print(g.normal(size=2), g.integers(0, 10, size=3), g.random(2))
    """)


def test_numpy_generator_is_per_session():
    ns1, ns2 = Namespace(), Namespace()
    run("import numpy as np\nnp.random.seed(3)\na = np.random.rand()", ns1)
    run("import numpy as np\nnp.random.seed(3)\nb = np.random.rand()\nc = np.random.rand()", ns2)
    run("d = np.random.rand()", ns1)
    assert ns1.get("a") == ns2.get("b") and ns1.get("d") == ns2.get("c")
    state = np.random.get_state()[1].copy()
    run("np.random.seed(5)\nx = np.random.rand(10)", ns1)
    assert (np.random.get_state()[1] == state).all()   # the host's NumPy generator untouched


def test_tensor_conversions_follow_pytorch():
    out = program_stdout("""
    import numpy as np
    import torch
    np.random.seed(0)
    x = np.linspace(0, 1, 4)
    t = torch.from_numpy(x)
    print(t.dtype, t.float().dtype, torch.tensor(x).dtype, torch.as_tensor(x.astype(np.float32)).dtype)
    x[0] = 5.0
    print(t[0].item())                      # from_numpy shares memory, as PyTorch's
    n = torch.ones(3).numpy()
    print(n, n.dtype, isinstance(n, np.ndarray), n.sum())
    y = torch.arange(4.0)
    z = y.numpy()
    z[1] = 10.0
    print(y)                               # Tensor.numpy() shares memory, as PyTorch's
    print(torch.tensor([np.float32(1.5), 2.0]), torch.ones(2) + np.ones(2))
    w = torch.ones(2, requires_grad=True)
    try:
        w.numpy()
    except RuntimeError as e:
        print("RuntimeError")
    print(np.mean(torch.arange(4.0).numpy()), np.array(torch.ones(2)).dtype)
    """)
    lines = out.splitlines()
    assert lines[0] == "torch.float64 torch.float32 torch.float64 torch.float32"
    assert lines[1] == "5.0"
    assert lines[2] == "[1. 1. 1.] float32 True 3.0"
    assert lines[3] == "tensor([ 0., 10.,  2.,  3.])"
    assert lines[-2] == "RuntimeError"
    assert lines[-1] == "1.5 float32"


def test_programs_never_hold_a_host_ndarray(run_ok, run_err):
    _, ns = run_ok("import numpy as np\na = np.ones(3)\nb = [a, a.T, a[1:]]")
    assert type(ns.get("a")).__module__.startswith("gradserve.engine.program.stdlib")
    for attr in ("ctypes", "tofile", "dump", "data", "base", "__array_interface__", "_a", "_t", "strides",
                 "view", "tobytes", "__reduce__"):
        e = run_err(f"import numpy as np\na = np.ones(3)\nx = a.{attr}")
        assert e.type == "AttributeError", (attr, e.to_dict())
    for name in ("save", "load", "fromfile", "memmap", "ctypeslib", "lib", "frombuffer"):   # (set_printoptions: the session's own, test_set_printoptions_is_the_sessions_own)
        e = run_err(f"import numpy as np\nx = np.{name}(1)")
        assert e.type in ("AttributeError", "TypeError"), (name, e.to_dict())
    assert run_err("import numpy as np\nx = np.array([object()])").type in ("NameError", "TypeError")
    assert run_err("import numpy as np\nx = np.array([b'a', b'b'])").type == "TypeError"   # bytes: no
    assert run_err("import numpy as np\nx = np.array(['a', 'b']).astype('S2')").type == "TypeError"


@pytest.mark.parametrize("expr", [
    "np.zeros((10**5, 10**5))", "np.ones(10**10)", "np.arange(10**11)", "np.linspace(0, 1, 10**10)",
    "np.eye(10**6)", "np.tile(np.ones(1000), 10**6)", "np.repeat(np.ones(1000), 10**6)",
    "np.outer(np.ones(10**5), np.ones(10**5))", "np.ones(10**4)[:, None] + np.ones(10**5)",
    "np.random.rand(10**5, 10**5)", "np.random.normal(size=(10**6, 10**6))", "np.concatenate([np.ones(10**6)] * 1000)",
    "np.ones((4000, 4000)) @ np.ones((4000, 4000))", "np.linalg.inv(np.ones((20000, 20000)))",
    "np.ones(10**4)[np.zeros(10**5, dtype=np.int64)][:, None] * np.ones(10**4)",
    "np.pad(np.ones(10), 10**10)", "np.bincount([10**12])",
])
def test_sizes_are_checked_before_numpy_builds_them(run_err, expr):
    limits = Limits(steps=1_000_000, wall_time_s=10.0, tensor_elements=1 << 22, session_bytes=256 << 20)
    e = run_err(f"import numpy as np\nx = {expr}\n", limits=limits)
    assert e.type == "LimitExceeded", e.to_dict()


def test_arrays_count_against_the_sessions_bytes():
    ns = Namespace()
    out = run("import numpy as np\na = np.ones((1000, 1000))\nb = [np.zeros(1000) for _ in range(10)]", ns)
    assert out.ok
    assert ns.nbytes() >= 8 * 1000 * 1000 + 10 * 8000


def test_numpy_errors_are_numpys_at_the_programs_line(run_err):
    e = run_err("import numpy as np\na = np.ones(3)\nb = a + np.ones(4)")
    assert e.type == "ValueError" and e.line == 3 and "broadcast" in e.message
    e = run_err("import numpy as np\na = np.ones((2, 2))\nb = a[5]")
    assert e.type == "IndexError" and e.line == 3


def test_typed_constructors_and_torch_tensor_take_program_arrays_alone_and_in_lists(run_ok):
    # graykode/nlp-tutorial builds its batches as torch.FloatTensor([np.eye(n)[ids], ...])
    _, ns = run_ok("""
import numpy as np
import torch
a = np.eye(5)[[1, 2]]
b = torch.FloatTensor(a)
c = torch.tensor(a)
d = torch.FloatTensor([a, a])
e = torch.LongTensor([np.array([1, 2]), np.array([3, 4])])
f = torch.Tensor([a])
g = torch.tensor([np.array([1, 2], dtype=np.int32), [3, 4]])
typed = isinstance(b, torch.FloatTensor) and isinstance(e, torch.LongTensor)
""")
    eye = np.eye(5)[[1, 2]]
    assert ns.get("b").dtype.name == "float32" and np.array_equal(ns.get("b").numpy(), eye)
    assert ns.get("c").dtype.name == "float64" and tuple(ns.get("d").shape) == (2, 2, 5)
    assert ns.get("e").dtype.name == "int64" and ns.get("e").numpy().tolist() == [[1, 2], [3, 4]]
    assert tuple(ns.get("f").shape) == (1, 2, 5) and ns.get("g").dtype.name == "int64" and ns.get("typed")


SCALAR_OPS = {   # program text -> the same with PyTorch, and the dtype PyTorch gives
    "t / np.sqrt(4.0)": (lambda T, t, ti, td: t / np.sqrt(4.0), "float32"),
    "t * np.float64(2.0)": (lambda T, t, ti, td: t * np.float64(2.0), "float32"),
    "np.float64(2.0) * t": (lambda T, t, ti, td: np.float64(2.0) * t, "float32"),
    "t + np.int64(3)": (lambda T, t, ti, td: t + np.int64(3), "float32"),
    "ti + np.int64(3)": (lambda T, t, ti, td: ti + np.int64(3), "int32"),
    "t - np.float32(0.5)": (lambda T, t, ti, td: t - np.float32(0.5), "float32"),
    "td * np.float32(2.0)": (lambda T, t, ti, td: td * np.float32(2.0), "float64"),
    "torch.tensor(3) * np.float32(2.0)": (lambda T, t, ti, td: T.tensor(3) * np.float32(2.0), "float32"),
}


@pytest.mark.parametrize("expr", SCALAR_OPS)
def test_numpy_scalars_in_tensor_arithmetic_take_the_tensor_dtype_as_in_pytorch(run_ok, expr):
    # a NumPy scalar is a Python number to PyTorch: float32 tensor / np.sqrt(d_k) stays float32
    # (graykode/nlp-tutorial's transformer divides attention scores so)
    _, ns = run_ok(f"import numpy as np\nimport torch\nt = torch.ones(2)\nti = torch.ones(2, dtype=torch.int32)\n"
                   f"td = torch.ones(2, dtype=torch.float64)\nr = {expr}\n")
    same, expected = SCALAR_OPS[expr]
    assert ns.get("r").dtype.name == expected
    if real_torch is not None:
        T = real_torch
        want = same(T, T.ones(2), T.ones(2, dtype=T.int32), T.ones(2, dtype=T.float64))
        assert str(want.dtype).removeprefix("torch.") == expected
        assert np.allclose(ns.get("r").numpy(), want.numpy())


def test_ndarray_resize_in_place_as_numpy(run_ok):
    # udacity's Simple_RNN: data.resize((seq_length + 1, 1))
    _, ns = run_ok("import numpy as np\na = np.arange(4.0)\na.resize((4, 1))\nb = np.arange(3)\nb.resize(2, 3)\n"
                   "c = np.ones(4)\nc.resize(2)\n")
    a, b, c = np.arange(4.0), np.arange(3), np.ones(4)
    a.resize((4, 1))
    b.resize(2, 3)
    c.resize(2)
    for name, want in (("a", a), ("b", b), ("c", c)):
        got = np.asarray(ns.get(name))
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_ufuncs_write_into_a_program_array_with_out(run_ok, run_err):
    # PyTorch's tensor tutorial: np.add(n, 1, out=n) shows in t = torch.from_numpy(n)
    _, ns = run_ok("import numpy as np\nimport torch\nn = np.ones(5)\nt = torch.from_numpy(n)\nr = np.add(n, 1, out=n)\n"
                   "same = r is n\nm = np.zeros(3, dtype=np.float32)\nnp.multiply(np.arange(3), 2, out=(m,))\n")
    assert ns.get("t").tolist() == [2.0] * 5 and ns.get("same") and np.asarray(ns.get("m")).tolist() == [0, 2, 4]
    for source, words in (("import numpy as np\nn = np.ones(2)\nnp.sum(n, out=n)\n", "np.sum(out=...) is not available"),
                          ("import numpy as np\nn = np.ones(2)\nnp.add(n, 1, out=[0, 0])\n", "out must be a NumPy array"),
                          ("import numpy as np\nnp.add(np.ones(2), 1.5, out=np.zeros(2, dtype=np.int64))\n", "Cannot cast")):
        e = run_err(source)
        assert e.type in ("TypeError", "UFuncTypeError") and words in e.message, e.to_dict()


SIZE_AS_ARRAY = """
import torch
import numpy as np
torch.manual_seed(0)
m = torch.nn.Linear(3, 4)
n = sum([np.prod(p.size()) for p in m.parameters()])
shape = np.array(torch.ones(2, 5).shape).tolist()
z = np.zeros(torch.ones(2, 3).size()).shape
print(int(n), shape, z, np.prod(torch.ones(2, 3, 4).shape) * 1.5)
"""


def test_a_torch_size_is_a_tuple_of_ints_to_numpy(run_ok):
    # karpathy/pytorch-made's run.py counts parameters with sum([np.prod(p.size()) ...]): a torch.Size
    # is a tuple subclass, which NumPy takes as a tuple in PyTorch
    out, _ = run_ok(SIZE_AS_ARRAY)
    assert out.stdout == "16 [2, 5] (2, 3) 36.0\n"
    if real_torch is not None:
        assert python_stdout(SIZE_AS_ARRAY) == out.stdout   # PyTorch and NumPy themselves


def test_set_printoptions_is_the_sessions_own(run_ok, run_err):
    # rasbt/machine-learning-book ch12: np.set_printoptions(precision=3) before printing arrays
    host_before = np.get_printoptions()
    out, ns = run_ok("""
    import numpy as np
    np.set_printoptions(precision=3, suppress=True)
    a = np.array([1 / 3, 2 / 3, 1e-9])
    print(a, repr(a), np.get_printoptions()["precision"])
    np.set_printoptions(threshold=np.inf)
    print(len(str(np.arange(2000))) > 7000, len(str(np.arange(200000))) < 100)
    """)
    with np.printoptions(precision=3, suppress=True):   # NumPy's own answer for the first line
        want = f"{np.array([1 / 3, 2 / 3, 1e-9])} {np.array([1 / 3, 2 / 3, 1e-9])!r} 3"
    assert out.stdout.splitlines() == [want, "True True"]
    out, _ = run_ok("import numpy as np\nprint(np.array([1 / 3]))", ns)        # the session keeps them
    assert out.stdout == "[0.333]\n"
    out, _ = run_ok("import numpy as np\nprint(np.array([1 / 3]))")            # another session does not see them
    assert out.stdout == "[0.33333333]\n"
    assert np.get_printoptions() == host_before                                 # nor does the host
    for bad, kind in [("np.set_printoptions(formatter={'float': str})", "TypeError"),
                      ("np.set_printoptions(precision=10 ** 6)", "ValueError"),
                      ("np.set_printoptions(precision='x')", "TypeError"),
                      ("np.set_printoptions(nanstr='n' * 100)", "ValueError")]:
        assert run_err("import numpy as np\n" + bad).type == kind, bad


# --------------------------------------------------------------------------- string arrays
def test_string_arrays_as_real_code_uses_them_match_numpy():
    """rasbt's char-RNN (a vocabulary array indexed by codes) and pytorch/examples' GCN/GAT (a table read as
    strings, cut into numbers and labels)."""
    assert_same_as_python("""
    import numpy as np
    text = "the quick brown fox jumps over the lazy dog"
    chars_sorted = sorted(set(text))
    char2int = {ch: i for i, ch in enumerate(chars_sorted)}
    char_array = np.array(chars_sorted)
    encoded = np.array([char2int[ch] for ch in text], dtype=np.int32)
    print(char_array, char_array.dtype, repr(char_array[:4]), len(char_array), char_array.shape, char_array.itemsize)
    print(''.join(char_array[encoded[4:9]]), repr(''.join(char_array[encoded])), str(char_array[encoded[1]]))
    for ex in encoded[:3]:
        print('{} -> {}'.format(ex, char_array[ex]))
    table = np.array([[1000, 1, 0, 3], [1002, 0, 1, 5], [1001, 1, 1, 3]])
    content = table.astype(np.dtype(str))
    print(content, content.dtype, content[:, 1:-1].astype(np.int32), content[:, 0].astype(np.int32))
    classes, labels = np.unique(content[:, -1], return_inverse=True)
    print(classes, labels, classes.dtype, np.sort(content[:, 0]), np.argsort(content[:, 0]))
    print(char_array == 'o', (char_array != 'o').sum(), 'z' in char_array, 'A' in char_array, content.T.shape)
    print(np.array(['b', 'a']) < np.array(['a', 'b']), np.array(['x', 'yz']).dtype, np.array(['a', 1.5]))
    s = np.array(['ab', 'cd'])
    s[0] = 'zz'
    print(s, s.tolist(), s.reshape(2, 1).shape, np.array(s).dtype, np.dtype(str), np.dtype('U3'), s.dtype.kind)
    """)


@pytest.mark.parametrize("src, kind", [
    ("a = np.array(['x' * 65])", "TypeError"),
    ("a = np.array(['ab'], dtype='U1000')", "TypeError"),
    ("a = np.array(['ab']).astype('U100')", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = a + a", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = a * 3", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = np.add(a, a)", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = np.multiply(a, 10 ** 6)", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = a.cumsum()", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = a.sum()", "TypeError"),
    ("a = np.array(['a', 'b'])\na += 'x'", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = np.concatenate([a, a])", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = np.tile(a, 2)", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = a.repeat(2)", "TypeError"),
    ("a = np.array(['a', 'b'])\na.resize((4,))", "TypeError"),
    ("a = np.array(['1', '2'])\nt = torch.tensor(a)", "TypeError"),
    ("a = np.array(['1', '2'])\nt = torch.from_numpy(a)", "TypeError"),
    ("a = np.array(['a', 'b'])\nb = np.where(a == 'a', a, a)", "TypeError"),
])
def test_string_arrays_refuse_what_would_grow_them(run_err, src, kind):
    e = run_err("import numpy as np\nimport torch\n" + src + "\n")
    assert e.type == kind, e.message


@pytest.mark.parametrize("src", [
    "a = np.array(['x' * 64] * 300000)",                      # 300,000 references to one string: 77 MB as '<U64'
    "a = np.zeros(500000).astype(str)",                        # numbers become up-to-32-character strings
    "a = np.array(['x' * 64])\nb = a[np.zeros(300000, dtype=np.int64)]",
    "a = np.array([['x' * 64] * 1000] * 300)",
])
def test_string_arrays_are_sized_by_their_bytes_before_they_are_built(run_err, src):
    limits = Limits(tensor_elements=1 << 22, session_bytes=256 << 20)
    e = run_err("import numpy as np\n" + src + "\n", limits=limits)
    assert e.type == "LimitExceeded", e.message


@pytest.mark.skipif(real_torch is None, reason="compares with PyTorch")
def test_numpy_arrays_and_scalars_index_tensors_as_in_pytorch():
    """locuslab/TCN's data generator: positions = np.random.choice(...); X_mask[i, 0, positions[0]] = 1."""
    assert_same_as_python("""
    import numpy as np
    import torch
    x = torch.zeros(3, 4)
    i = np.array([0, 2])
    x[i] = 1
    x[np.int64(1), np.int32(3)] = 5
    positions = np.array([3, 1])
    x[2, positions[0]] = 7
    print(x, x[i].shape, x[np.int64(1)], x[0, np.int64(1)], x[np.array([True, False, True])].sum())
    try:
        x[np.float64(1.0)]
    except IndexError as e:
        print("IndexError")
    """)


def test_weight_norm_in_a_program(run_ok):
    out, _ = run_ok("""
        from torch.nn.utils import weight_norm
        torch.manual_seed(0)
        conv = weight_norm(nn.Conv1d(2, 3, 3, padding=2, dilation=2))
        y = conv(torch.ones(1, 2, 5))
        y.sum().backward()
        print([n for n, _ in conv.named_parameters()], tuple(conv.weight_g.grad.shape), tuple(y.shape))
        print(conv.weight_v.grad is not None)
    """)
    assert out.stdout == ("<program>:4: FutureWarning: `torch.nn.utils.weight_norm` is deprecated in favor of "
                          "`torch.nn.utils.parametrizations.weight_norm`.\n"
                          "['bias', 'weight_g', 'weight_v'] (3, 1, 1) (1, 3, 5)\nTrue\n")


@pytest.mark.skipif(real_torch is None, reason="needs PyTorch as the oracle")
def test_dataloader_collates_a_programs_numpy_arrays_and_scalars_as_pytorch():
    # intro_dgm's Digits dataset returns rows of a float32 NumPy array; a label array's items are NumPy scalars
    assert_same_as_python("""
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, Dataset

    class Rows(Dataset):
        def __init__(self):
            self.x = np.arange(12, dtype=np.float32).reshape(4, 3)
            self.y = np.array([1, 2, 3, 4], dtype=np.int32)
            self.w = np.linspace(0, 1, 4)
            self.f = np.array([0.5, 1.5, 2.5, 3.5], dtype=np.float32)

        def __len__(self):
            return 4

        def __getitem__(self, i):
            return self.x[i], self.y[i], self.w[i], {"x": self.x[i], "f": self.f[i]}

    for xb, yb, wb, d in DataLoader(Rows(), batch_size=3):
        print(xb.dtype, tuple(xb.shape), xb.sum().item(), yb.dtype, yb.tolist(), wb.dtype, wb.tolist())
        print(d["x"].shape, d["f"].dtype, d["f"].tolist())
    for xb in DataLoader(Rows().x, batch_size=None):
        print(xb.dtype, xb.tolist())
    """)


@pytest.mark.skipif(real_torch is None, reason="needs PyTorch as the oracle")
def test_torch_tensor_of_numpy_scalars_takes_their_dtype_as_pytorch():
    assert_same_as_python("""
    import numpy as np
    import torch
    print(torch.tensor(np.float64(2.0)).dtype, torch.tensor(np.float32(2.0)).dtype, torch.tensor(np.int32(3)).dtype)
    print(torch.tensor([np.int32(1), np.int32(2)]).dtype, torch.tensor(np.arange(3).sum()).dtype)
    print(torch.tensor([np.float64(1.0), 2.0]).dtype, torch.tensor([np.float32(1.5), 2.0]).dtype)
    print(torch.tensor(np.mean(np.ones(3, dtype=np.float32))).dtype, torch.tensor(np.mean(np.ones(3))).dtype)
    """)


def test_numpy_2_c_type_names_match_numpy():
    # pytorch-fm's layers build their offsets with dtype=np.long (NumPy 2 names it again)
    assert_same_as_python("""
    import numpy as np
    offsets = np.array((0, *np.cumsum([3, 4, 5])[:-1]), dtype=np.long)
    print(offsets, offsets.dtype, np.long, np.ulong, np.uintc, np.uintp)
    print(np.zeros(2, dtype=np.uintc).dtype, np.ones(2, dtype=np.ulong).dtype, np.long(7) + 1)
    """)
