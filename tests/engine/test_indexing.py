"""Indexing and the index-driven ops: every index form read and written, against NumPy
and PyTorch, with first and second derivatives; and the errors for bad indices."""
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradserve.engine as gs
from gradserve.engine.autograd import gradcheck, gradgradcheck
from op_check import check_gradients, compare_devices, compare_with_torch, torch, values

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]

SHAPE = (3, 4, 5)
_MASK = np.random.default_rng(7).random(SHAPE) > 0.5

# (name, index builder for library T); T.tensor makes the tensor indices; the index as NumPy reads it
# is the same builder with T = numpy. Forms where PyTorch and NumPy differ say so and skip NumPy.
FORMS = [
    ("int", lambda T: 1),
    ("negative int", lambda T: -1),
    ("ints", lambda T: (1, 2)),
    ("three ints", lambda T: (2, -1, 0)),
    ("slice", lambda T: slice(1, 3)),
    ("slice with step", lambda T: slice(None, None, 2)),
    ("slice negative bounds", lambda T: (slice(None), slice(-3, -1))),
    ("slice past the end", lambda T: slice(1, 100)),
    ("empty slice", lambda T: slice(2, 1)),
    ("slices with steps", lambda T: (slice(None, None, 2), slice(1, None, 3), slice(None, 4, 2))),
    ("ellipsis", lambda T: (Ellipsis, 1)),
    ("ellipsis middle", lambda T: (0, Ellipsis, slice(1, 3))),
    ("none", lambda T: (None, 1)),
    ("none in the middle", lambda T: (slice(None), None, 2, None)),
    ("int list", lambda T: [0, 2]),
    ("int list repeated", lambda T: [2, 0, 2, 2]),
    ("int tensor 2-d", lambda T: T.tensor([[0, 1], [2, 2]])),
    ("negative int tensor", lambda T: T.tensor([-1, -3])),
    ("0-d int tensor", lambda T: T.tensor(2)),
    ("empty int list", lambda T: T.tensor([], dtype=T.int64)),
    ("bool mask full", lambda T: T.tensor(_MASK)),
    ("bool mask leading dim", lambda T: T.tensor([True, False, True])),
    ("bool mask two dims", lambda T: T.tensor(_MASK[:, :, 0])),
    ("bool mask after slice", lambda T: (slice(None), T.tensor([True, False, True, True]))),
    ("slice then array", lambda T: (slice(None), [0, 3, 3])),
    ("adjacent arrays", lambda T: (slice(1, None), [0, 1], [4, 2])),
    ("arrays split by slice", lambda T: ([0, 1], slice(None), [4, 2])),
    ("broadcast arrays", lambda T: (T.tensor([[0], [2]]), T.tensor([1, 3, 3]))),
    ("ellipsis and array", lambda T: (Ellipsis, [1, 1, 0])),
    ("none and array", lambda T: (None, [1, 2], slice(None, None, 2))),
    ("int and array", lambda T: (0, slice(None), [1, 2])),  # PyTorch: (4, 2); NumPy: (2, 4)
    ("int and arrays", lambda T: ([0, 2], 1, [3, 4])),
    ("python bool", lambda T: True),
]
NUMPY_DIFFERS = {"int and array"}


class _NumpyLib:
    """Stands in for a tensor library in the index builders: T.tensor gives a NumPy array."""
    int64 = np.int64

    @staticmethod
    def tensor(data, dtype=None):
        return np.asarray(data, dtype=dtype)


def _base():
    return np.arange(float(np.prod(SHAPE))).reshape(SHAPE) / 7.0


@pytest.mark.parametrize("build", [pytest.param(b, id=n) for n, b in FORMS if n not in NUMPY_DIFFERS])
def test_read_matches_numpy(build):
    a = _base()
    expected = a[build(_NumpyLib)]
    got = gs.tensor(a)[build(gs)]
    assert tuple(got.shape) == np.shape(expected)
    np.testing.assert_array_equal(values(got), expected)


@pytest.mark.parametrize("build", [pytest.param(b, id=n, marks=needs_torch) for n, b in FORMS])
def test_read_and_its_gradient_match_torch(build):
    compare_with_torch(lambda T, x: x[build(T)], [SHAPE])


@pytest.mark.parametrize("build", [pytest.param(b, id=n) for n, b in FORMS])
def test_read_gradients_match_finite_differences(build):
    check_gradients(lambda T, x: x[build(T)], [(3, 4, 5)])


SET_FORMS = [(n, b) for n, b in FORMS if "repeated" not in n and n != "int tensor 2-d"]


@pytest.mark.parametrize("build", [pytest.param(b, id=n) for n, b in SET_FORMS if n not in NUMPY_DIFFERS])
@pytest.mark.parametrize("value", ["number", "tensor"])
def test_write_matches_numpy(build, value):
    a = _base()
    target = a[build(_NumpyLib)]
    v = -1.5 if value == "number" else -np.arange(1.0, 1.0 + np.size(target)).reshape(np.shape(target))
    expected = a.copy()
    expected[build(_NumpyLib)] = v
    x = gs.tensor(a)
    x[build(gs)] = v if value == "number" else gs.tensor(v)
    np.testing.assert_array_equal(values(x), expected)


def _write(build):
    def fn(T, x, v):
        y = x * 1
        y[build(T)] = v
        return y
    return fn


def _value_shape(build):
    return tuple(gs.zeros(SHAPE)[build(gs)].shape)


@pytest.mark.parametrize("build", [pytest.param(b, id=n, marks=needs_torch) for n, b in SET_FORMS])
def test_write_and_its_gradient_match_torch(build):
    compare_with_torch(_write(build), [SHAPE, _value_shape(build)])


# a position written twice keeps the last value, so finite differences see only that one
WRITES_TWICE = {"slice then array", "broadcast arrays", "ellipsis and array"}


@pytest.mark.parametrize("build", [pytest.param(b, id=n) for n, b in SET_FORMS if n not in WRITES_TWICE])
def test_write_gradients_match_finite_differences(build):
    check_gradients(_write(build), [SHAPE, _value_shape(build)])


def test_write_broadcasts_value_over_the_region(lib):
    x = lib.zeros(3, 4)
    x[:, 1:3] = lib.tensor([1.0, 2.0])
    x[0] = lib.tensor([[5.0, 6.0, 7.0, 8.0]])  # leading unit dimensions of the value are dropped
    np.testing.assert_array_equal(values(x), [[5, 6, 7, 8], [0, 1, 2, 0], [0, 1, 2, 0]])


def test_repeated_indices_accumulate_in_backward(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 2, 2, 2]].sum().backward()
    np.testing.assert_array_equal(values(x.grad), [1.0, 0.0, 3.0])


def test_accumulating_index_put(lib):
    x = lib.zeros(3)
    x.index_put_((lib.tensor([0, 0, 2]),), lib.tensor([1.0, 2.0, 3.0]), accumulate=True)
    np.testing.assert_array_equal(values(x), [3.0, 0.0, 3.0])


def test_setitem_on_non_leaf_records_the_op(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = lib.tensor(10.0, requires_grad=True)
    y = w * 2
    y[1] = v * v
    assert y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_array_equal(values(w.grad), [2.0, 0.0, 2.0])
    assert v.grad.item() == 20.0


def test_setitem_into_plain_tensor_of_value_requiring_grad(lib):
    v = lib.tensor([1.0, 2.0], requires_grad=True)
    buf = lib.zeros(2, 2)
    buf[0] = v * 3
    assert buf.requires_grad and not buf.is_leaf
    buf.sum().backward()
    np.testing.assert_array_equal(values(v.grad), [3.0, 3.0])


def test_setitem_on_leaf_requiring_grad_raises(lib):
    x = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[0] = 2.0


def test_setitem_on_leaf_under_no_grad_writes(lib):
    x = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        x[0] = 2.0
        x[1:] *= 3
    np.testing.assert_array_equal(values(x), [2.0, 3.0, 3.0])
    assert x.is_leaf and x.requires_grad


def test_setitem_after_use_invalidates_saved_tensor(lib):
    x = lib.ones(3, requires_grad=True)
    y = x * 1
    z = (y * y).sum()
    y[0] = 5.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_element_view_writes_reach_base(lib):
    x = lib.zeros(2, 3)
    x[1, 2].add_(4)
    x[0][1] = 3
    np.testing.assert_array_equal(values(x), [[0, 3, 0], [0, 0, 4]])


def test_advanced_index_gives_a_copy(lib):
    x = lib.zeros(3)
    y = x[[0, 1]]
    y[0] = 1
    assert x[0].item() == 0


def test_iterating_a_tensor_gives_its_rows(lib):
    x = lib.arange(6.0).reshape(3, 2)
    assert [r.tolist() for r in x] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]


def test_getitem_in_a_loop_is_cheap():
    x = gs.randn(1000, 8, requires_grad=True)
    start = time.perf_counter()
    total = x[0]
    for i in range(1, 1000):
        total = total + x[i]
    elapsed = time.perf_counter() - start
    total.sum().backward()
    np.testing.assert_allclose(values(x.grad), np.ones((1000, 8)))
    assert elapsed < 1.0, f"1000 reads took {elapsed:.2f}s"


# ------------------------------------------------------------------ errors
INDEX_ERRORS = [
    ("int past the end", lambda x: x[5], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    ("negative int past the start", lambda x: x[-4], IndexError,
     "index -4 is out of bounds for dimension 0 with size 3"),
    ("int in second dim", lambda x: x[:, 4], IndexError, "index 4 is out of bounds for dimension 1 with size 4"),
    ("too many indices", lambda x: x[0, 0, 0], IndexError, "too many indices for tensor of dimension 2"),
    ("tensor past the end", lambda x: x[gs_or_torch(x).tensor([5])], IndexError,
     "index 5 is out of bounds for dimension 0 with size 3"),
    ("list past the end", lambda x: x[[0, 3]], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    ("mask of wrong size", lambda x: x[gs_or_torch(x).tensor([True, False])], IndexError,
     "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0"),
    ("mask in second dim", lambda x: x[:, gs_or_torch(x).tensor([True, False, True])], IndexError,
     "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [3, 4] at index 1"),
    ("negative step", lambda x: x[::-1], ValueError, "step must be greater than zero"),
    ("zero step", lambda x: x[::0], ValueError, "slice step cannot be zero"),
    ("float tensor index", lambda x: x[gs_or_torch(x).tensor([0.5])], IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    ("float index", lambda x: x[1.5], IndexError, "only integers, slices (`:`), ellipsis (`...`), None"),
    ("index of 0-d", lambda x: x.sum()[0], IndexError, "invalid index of a 0-dim tensor"),
    ("write past the end", lambda x: x.__setitem__(7, 1.0), IndexError,
     "index 7 is out of bounds for dimension 0 with size 3"),
    ("write with negative step", lambda x: x.__setitem__(slice(None, None, -1), 1.0), ValueError,
     "step must be greater than zero"),
    ("write value of wrong shape", lambda x: x.__setitem__([0, 1], gs_or_torch(x).ones(3, 4)), RuntimeError,
     "shape mismatch"),
]


def gs_or_torch(x):
    return gs if isinstance(x, gs.Tensor) else torch


@pytest.mark.parametrize("fn, exc, message", [pytest.param(f, e, m, id=n) for n, f, e, m in INDEX_ERRORS])
def test_index_errors_match_torch(lib, fn, exc, message):
    x = lib.zeros(3, 4)
    with pytest.raises(exc) as info:
        fn(x)
    assert message in str(info.value)


# ------------------------------------------------------------------ index-driven ops
def _idx(T, data):
    return T.tensor(data)


OPS = [
    ("gather", lambda T, x: x.gather(1, _idx(T, [[0, 2], [1, 1], [3, 0]])), [(3, 4)]),
    ("gather dim 0 smaller index", lambda T, x: T.gather(x, 0, _idx(T, [[2, 0]])), [(3, 4)]),
    ("gather 3-d", lambda T, x: x.gather(-1, _idx(T, [[[1], [0]], [[2], [2]]])), [(2, 2, 3)]),
    ("scatter src", lambda T, x, s: x.scatter(1, _idx(T, [[0, 2], [1, 3]]), s), [(2, 4), (2, 2)]),
    ("scatter larger src", lambda T, x, s: T.scatter(x, 0, _idx(T, [[1, 0]]), s), [(2, 3), (2, 3)]),
    ("scatter value", lambda T, x: x.scatter(1, _idx(T, [[0], [2]]), 1.5), [(2, 3)]),
    ("scatter_add", lambda T, x, s: x.scatter_add(0, _idx(T, [[0, 1, 0], [0, 0, 1]]), s), [(2, 3), (2, 3)]),
    ("scatter_add repeated", lambda T, x, s: T.scatter_add(x, 1, _idx(T, [[0, 0, 0]]), s), [(2, 3), (1, 3)]),
    ("index_select", lambda T, x: x.index_select(1, _idx(T, [3, 0, 3])), [(2, 4)]),
    ("index_select 0-d index", lambda T, x: T.index_select(x, 0, _idx(T, 1)), [(2, 4)]),
    ("index_add", lambda T, x, s: x.index_add(0, _idx(T, [0, 2, 0]), s), [(3, 2), (3, 2)]),
    ("index_add alpha", lambda T, x, s: T.index_add(x, 1, _idx(T, [1]), s, alpha=-2.0), [(3, 2), (3, 1)]),
    ("masked_fill", lambda T, x: x.masked_fill(_idx(T, [[True, False, True]]), -1.0), [(2, 3)]),
    ("masked_fill tensor value", lambda T, x, v: T.masked_fill(x, _idx(T, [True, False, True]), v), [(2, 3), ()]),
    ("masked_fill broadcasting", lambda T, x: x.masked_fill(_idx(T, [[True], [False]]), 0.5), [(3,)]),
    ("masked_select", lambda T, x: x.masked_select(_idx(T, [[True, False, True], [False, False, True]])), [(2, 3)]),
    ("masked_select broadcast", lambda T, x: T.masked_select(x, _idx(T, [True, False, True])), [(2, 3)]),
    ("take", lambda T, x: T.take(x, _idx(T, [[0, 5], [-1, 2]])), [(2, 3)]),
    ("take_along_dim", lambda T, x: T.take_along_dim(x, _idx(T, [[0], [2]]), dim=1), [(2, 3)]),
    ("take_along_dim broadcast", lambda T, x: x.take_along_dim(_idx(T, [[0, 1, 1]]), dim=0), [(2, 3)]),
    ("take_along_dim flat", lambda T, x: T.take_along_dim(x, _idx(T, [5, 0, 0])), [(2, 3)]),
]


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_op_gradients_match_finite_differences(fn, shapes):
    check_gradients(fn, shapes)


# PyTorch's own backward fails here ("ScatterBackward0 returned an invalid gradient"): src larger than index
TORCH_FAILS = {"scatter larger src"}


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n, marks=needs_torch) for n, f, s in OPS
                                        if n not in TORCH_FAILS])
def test_op_values_and_gradients_match_torch(fn, shapes):
    compare_with_torch(fn, shapes)


@pytest.mark.gpu
@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_op_cuda_matches_cpu(fn, shapes):
    compare_devices(fn, shapes)


@pytest.mark.gpu
@pytest.mark.parametrize("build", [pytest.param(b, id=n) for n, b in FORMS])
def test_read_on_cuda_matches_cpu(build):
    compare_devices(lambda T, x: x[build(T)], [SHAPE])


@pytest.mark.gpu
@pytest.mark.parametrize("build", [pytest.param(b, id=n) for n, b in SET_FORMS if n not in WRITES_TWICE])
def test_write_on_cuda_matches_cpu(build):
    compare_devices(_write(build), [SHAPE, _value_shape(build)])


def test_in_place_index_ops(lib):
    x = lib.zeros(2, 3)
    x.scatter_(1, lib.tensor([[2], [0]]), 1.0)
    x.scatter_add_(0, lib.tensor([[1, 1, 1]]), lib.ones(1, 3))
    x.index_add_(1, lib.tensor([0]), lib.ones(2, 1), alpha=2)
    x.masked_fill_(lib.tensor([False, True, False]), -1.0)
    np.testing.assert_array_equal(values(x), [[2, -1, 1], [4, -1, 1]])


def test_masked_fill_in_place_cannot_broadcast_self(lib):
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        lib.zeros(3).masked_fill_(lib.tensor([[True, False, True]] * 2), 2.0)


def test_nonzero_and_where(lib):
    x = lib.tensor([[0.0, 1.0], [2.0, 0.0]])
    np.testing.assert_array_equal(values(x.nonzero()), [[0, 1], [1, 0]])
    rows, cols = lib.nonzero(x, as_tuple=True)
    np.testing.assert_array_equal(values(rows), [0, 1])
    np.testing.assert_array_equal(values(cols), [1, 0])
    assert tuple(lib.tensor(3.0).nonzero().shape) == (1, 0)


OP_ERRORS = [
    ("gather ndim", lambda T: T.zeros(3, 4).gather(1, T.tensor([1])), RuntimeError,
     "Index tensor must have the same number of dimensions as input tensor"),
    ("gather index too big", lambda T: T.zeros(3, 4).gather(1, T.tensor([[1]] * 4)), RuntimeError,
     "Size does not match at dimension 0 expected index [4, 1] to be no larger than self [3, 4] apart from "
     "dimension 1"),
    ("gather out of range", lambda T: T.zeros(3, 4).gather(1, T.tensor([[5]])), RuntimeError,
     "index 5 is out of bounds for dimension 1 with size 4"),
    ("gather negative", lambda T: T.zeros(3, 4).gather(0, T.tensor([[-1, 1]])), RuntimeError,
     "index -1 is out of bounds for dimension 0 with size 3"),
    ("scatter_add out of range", lambda T: T.zeros(3, 4).scatter_add(1, T.tensor([[7]]), T.zeros(1, 1)),
     RuntimeError, "index 7 is out of bounds for dimension 1 with size 4"),
    ("scatter_add src too small", lambda T: T.zeros(3, 4).scatter_add(0, T.tensor([[0, 1]]), T.ones(1, 1)),
     RuntimeError, "Expected index [1, 2] to be no larger than self [3, 4] apart from dimension 0 and to be no "
     "larger size than src [1, 1]"),
    ("scatter dtype", lambda T: T.zeros(3, 4).scatter(1, T.tensor([[1]]), T.tensor([[7]])), RuntimeError,
     "scatter(): Expected self.dtype to be equal to src.dtype"),
    ("index_select matrix index", lambda T: T.zeros(3, 4).index_select(1, T.tensor([[1]])), IndexError,
     "index_select(): Index is supposed to be a vector"),
    ("index_select float index", lambda T: T.zeros(3, 4).index_select(1, T.tensor([1.0])), RuntimeError,
     "index_select(): Expected dtype int32 or int64 for index"),
    ("index_add shapes", lambda T: T.zeros(3, 4).index_add(0, T.tensor([0, 0]), T.ones(2, 3)), RuntimeError,
     "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
     "[3, 4] source.shape = [2, 3]"),
    ("masked_fill long mask", lambda T: T.zeros(3, 4).masked_fill(T.tensor([1, 0, 0, 1]), 1.0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
    ("masked_fill vector value", lambda T: T.zeros(3, 4).masked_fill(T.tensor([True] * 4), T.tensor([1.0, 2.0])),
     RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    ("masked_fill broadcast", lambda T: T.zeros(3, 4).masked_fill(T.tensor([True, False]), 1.0), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 1"),
]


@pytest.mark.parametrize("fn, exc, message", [pytest.param(f, e, m, id=n) for n, f, e, m in OP_ERRORS])
def test_op_errors_match_torch(lib, fn, exc, message):
    with pytest.raises(exc) as info:
        fn(lib)
    assert message in str(info.value)


# ------------------------------------------------------------------ random basic indices
def _basic_index(shape, data):
    index = []
    for n in shape:
        kind = data.draw(st.sampled_from(["int", "slice", "all"]))
        if kind == "int":
            index.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start = data.draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            stop = data.draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            index.append(slice(start, stop, data.draw(st.one_of(st.none(), st.integers(1, 3)))))
        else:
            index.append(slice(None))
    return tuple(index[:data.draw(st.integers(0, len(index)))])


@settings(max_examples=80, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), data=st.data())
def test_random_basic_index_read_and_write_match_numpy(shape, data):
    index = _basic_index(shape, data)
    a = np.random.default_rng(0).standard_normal(shape)
    x = gs.tensor(a, requires_grad=True)
    y = x[index]
    np.testing.assert_array_equal(values(y), a[index])
    y.sum().backward()
    hit = np.zeros(shape)
    hit[index] = 1
    np.testing.assert_array_equal(values(x.grad), hit)
    b = a.copy()
    b[index] = -7
    z = gs.tensor(a)
    z[index] = -7
    np.testing.assert_array_equal(values(z), b)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 6), data=st.data())
def test_random_integer_index_accumulates_like_add_at(n, data):
    idx = data.draw(st.lists(st.integers(-n, n - 1), min_size=0, max_size=8))
    a = np.arange(float(n))
    x = gs.tensor(a, requires_grad=True)
    y = x[gs.tensor(idx, dtype=gs.int64)]
    np.testing.assert_array_equal(values(y), a[np.asarray(idx, dtype=np.int64)])
    w = np.arange(1.0, len(idx) + 1)
    (y * gs.tensor(w)).sum().backward()
    expected = np.zeros(n)
    np.add.at(expected, np.asarray(idx, dtype=np.int64), w)
    np.testing.assert_array_equal(values(x.grad), expected)


def test_second_order_through_index_and_setitem():
    x = gs.tensor(np.linspace(0.5, 2.0, 6).reshape(2, 3), dtype=gs.float64, requires_grad=True)

    def f(x):
        y = x * x
        y[0, [0, 2]] = x[1, :2] ** 3
        return y[:, 1:] * x[[1, 0]][:, :2]

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_a_slice_step_past_int64_raises_runtime_error():
    # PyTorch's size computation overflows there: an error, or, depending on the build, an empty result
    x = gs.arange(6.0)
    with pytest.raises(RuntimeError, match="64-bit"):
        x[::10 ** 20]
    assert x[::2 ** 62].tolist() == [0.0]
    assert x[1:10 ** 20].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("index, shape", [
    ([[0, 1], [1, 2]], (2,)), ([0, [1, 2]], (2,)), ([[0, 1]], (2, 5)), ([0, slice(None)], (5,)), ([None, 0], (1, 5)),
    ([0, 1], (2, 5)), ([Ellipsis, 1], (4,)),
])
def test_a_short_list_of_sequences_indexes_as_a_tuple(lib, index, shape):
    assert tuple(lib.arange(20.0).reshape(4, 5)[index].shape) == shape


def test_writing_an_integer_past_the_dtype_range_raises(lib):
    u = lib.zeros(3, dtype=lib.uint8)
    u[0] = -1
    assert u.tolist() == [255, 0, 0]
    with pytest.raises(RuntimeError, match="without overflow"):
        u[1] = 300
