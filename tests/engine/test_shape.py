"""Shape ops: values, first and second derivatives, views and in-place changes through
them, and errors, each against PyTorch where it is installed."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradserve.engine as gs
from op_check import check_gradients, compare_devices, compare_with_torch, torch, values

def version(t):
    """A tensor's version counter in either library."""
    return t._version if isinstance(t._version, int) else t._version[0]


needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]

# one line per op: (name, fn(T, *inputs), input shapes)
OPS = [
    ("reshape", lambda T, x: x.reshape(4, 3), [(2, 6)]),
    ("reshape -1", lambda T, x: T.reshape(x, (-1, 2)), [(2, 3)]),
    ("reshape of transpose copies", lambda T, x: x.t().reshape(6), [(2, 3)]),
    ("view", lambda T, x: x.view(3, 2), [(2, 3)]),
    ("view of transpose splitting a dim", lambda T, x: x.t().view(2, 2, 3), [(3, 4)]),
    ("view_as", lambda T, x, y: x.view_as(y), [(2, 3), (6,)]),
    ("flatten", lambda T, x: T.flatten(x), [(2, 3, 2)]),
    ("flatten dims", lambda T, x: x.flatten(1, 2), [(2, 3, 2)]),
    ("flatten 0-d", lambda T, x: x.flatten(), [()]),
    ("ravel", lambda T, x: x.t().ravel(), [(2, 3)]),
    ("unflatten", lambda T, x: x.unflatten(1, (2, -1)), [(2, 6)]),
    ("squeeze all", lambda T, x: x.squeeze(), [(1, 3, 1)]),
    ("squeeze dim", lambda T, x: x.squeeze(-1), [(1, 3, 1)]),
    ("squeeze tuple", lambda T, x: T.squeeze(x, (0, 2)), [(1, 3, 1)]),
    ("unsqueeze", lambda T, x: x.unsqueeze(1), [(2, 3)]),
    ("unsqueeze negative", lambda T, x: T.unsqueeze(x, -1), [(2, 3)]),
    ("expand", lambda T, x: x.expand(2, 3, 4), [(3, 1)]),
    ("expand -1", lambda T, x: x.expand(-1, 4), [(3, 1)]),
    ("expand_as", lambda T, x, y: x.expand_as(y), [(1, 3), (2, 3)]),
    ("broadcast_to", lambda T, x: T.broadcast_to(x, (2, 3)), [(3,)]),
    ("broadcast_tensors", lambda T, x, y: T.broadcast_tensors(x, y), [(2, 1), (3,)]),
    ("permute", lambda T, x: x.permute(2, 0, 1), [(2, 3, 4)]),
    ("permute tuple", lambda T, x: T.permute(x, (1, 0, 2)), [(2, 3, 4)]),
    ("transpose", lambda T, x: x.transpose(0, 2), [(2, 3, 4)]),
    ("swapaxes", lambda T, x: T.swapaxes(x, 0, 1), [(2, 3)]),
    ("t", lambda T, x: x.t(), [(2, 3)]),
    ("T", lambda T, x: x.T, [(2, 3)]),
    ("mT", lambda T, x: x.mT, [(2, 2, 3)]),
    ("movedim", lambda T, x: T.movedim(x, 0, -1), [(2, 3, 4)]),
    ("movedim tuples", lambda T, x: x.movedim((0, 1), (2, 0)), [(2, 3, 4)]),
    ("contiguous", lambda T, x: x.t().contiguous(), [(2, 3)]),
    ("clone", lambda T, x: x.clone(), [(2, 3)]),
    ("narrow", lambda T, x: x.narrow(1, 1, 2), [(2, 4)]),
    ("narrow negative start", lambda T, x: T.narrow(x, 0, -2, 2), [(3, 2)]),
    ("select", lambda T, x: x.select(1, -1), [(2, 3)]),
    ("split int", lambda T, x: x.split(2, 1), [(2, 5)]),
    ("split sizes", lambda T, x: T.split(x, [1, 3], 1), [(2, 4)]),
    ("chunk", lambda T, x: x.chunk(3), [(5, 2)]),
    ("tensor_split", lambda T, x: T.tensor_split(x, 3, 1), [(2, 7)]),
    ("tensor_split indices", lambda T, x: x.tensor_split([1, 4], 0), [(6, 2)]),
    ("unbind", lambda T, x: x.unbind(1), [(2, 3)]),
    ("cat", lambda T, x, y: T.cat([x, y]), [(2, 3), (1, 3)]),
    ("cat dim", lambda T, x, y, z: T.cat((x, y, z), dim=-1), [(2, 1), (2, 3), (2, 2)]),
    ("cat skips empty 1-d", lambda T, x, y: T.cat([x, y[:0]], 1), [(2, 3), (4,)]),
    ("concat", lambda T, x, y: T.concat([x, y], 1), [(2, 2), (2, 3)]),
    ("concatenate", lambda T, x, y: T.concatenate([x, y]), [(2,), (3,)]),
    ("stack", lambda T, x, y: T.stack([x, y]), [(2, 3), (2, 3)]),
    ("stack last dim", lambda T, x, y: T.stack([x, y], dim=-1), [(2, 3), (2, 3)]),
    ("stack 0-d", lambda T, x, y: T.stack([x, y]), [(), ()]),
    ("hstack 1-d", lambda T, x, y: T.hstack([x, y]), [(2,), (3,)]),
    ("hstack 2-d", lambda T, x, y: T.hstack([x, y]), [(2, 1), (2, 3)]),
    ("vstack", lambda T, x, y: T.vstack([x, y]), [(3,), (2, 3)]),
    ("dstack", lambda T, x, y: T.dstack([x, y]), [(2, 3), (2, 3)]),
    ("column_stack", lambda T, x, y: T.column_stack([x, y]), [(3,), (3, 2)]),
    ("atleast_2d", lambda T, x: T.atleast_2d(x), [(3,)]),
    ("atleast_3d", lambda T, x: T.atleast_3d(x), [(2, 3)]),
    ("repeat", lambda T, x: x.repeat(2, 3), [(2, 3)]),
    ("repeat adds dims", lambda T, x: x.repeat(2, 1, 2), [(3,)]),
    ("tile", lambda T, x: T.tile(x, (2,)), [(2, 3)]),
    ("repeat_interleave int", lambda T, x: x.repeat_interleave(2, dim=1), [(2, 3)]),
    ("repeat_interleave flat", lambda T, x: T.repeat_interleave(x, 2), [(2, 2)]),
    ("repeat_interleave tensor", lambda T, x: x.repeat_interleave(T.tensor([1, 0, 3]), dim=0), [(3, 2)]),
    ("flip", lambda T, x: x.flip(0, 2), [(2, 3, 2)]),
    ("flip dims keyword", lambda T, x: T.flip(x, dims=[1]), [(2, 3)]),
    ("fliplr", lambda T, x: T.fliplr(x), [(2, 3)]),
    ("flipud", lambda T, x: x.flipud(), [(2, 3)]),
    ("roll", lambda T, x: x.roll(1, 1), [(2, 3)]),
    ("roll flattened", lambda T, x: T.roll(x, -2), [(2, 3)]),
    ("roll several dims", lambda T, x: x.roll((1, -1), (0, 1)), [(3, 4)]),
    ("rot90", lambda T, x: T.rot90(x), [(2, 3)]),
    ("rot90 k=-1", lambda T, x: x.rot90(-1, (0, 1)), [(2, 3)]),
    ("tril", lambda T, x: x.tril(), [(3, 4)]),
    ("tril offset batched", lambda T, x: T.tril(x, -1), [(2, 3, 3)]),
    ("triu", lambda T, x: T.triu(x, 1), [(3, 4)]),
    ("diag of vector", lambda T, x: T.diag(x), [(3,)]),
    ("diag of vector offset", lambda T, x: x.diag(-1), [(3,)]),
    ("diag of matrix", lambda T, x: T.diag(x, 1), [(3, 4)]),
    ("diag_embed", lambda T, x: T.diag_embed(x), [(2, 3)]),
    ("diagonal", lambda T, x: x.diagonal(), [(3, 4)]),
    ("diagonal offset dims", lambda T, x: T.diagonal(x, -1, 2, 0), [(3, 2, 4)]),
    ("diagonal_scatter", lambda T, x, y: T.diagonal_scatter(x, y, 1), [(3, 4), (3,)]),
    ("meshgrid ij", lambda T, x, y: T.meshgrid(x, y, indexing="ij"), [(3,), (2,)]),
    ("meshgrid xy", lambda T, x, y, z: T.meshgrid([x, y, z], indexing="xy"), [(3,), (2,), (2,)]),
    ("sum_to_size", lambda T, x: x.sum_to_size(1, 3), [(2, 3)]),
]


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_gradients_match_finite_differences(fn, shapes):
    check_gradients(fn, shapes)


@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n, marks=needs_torch) for n, f, s in OPS])
def test_values_and_gradients_match_torch(fn, shapes):
    compare_with_torch(fn, shapes)


@pytest.mark.gpu
@pytest.mark.parametrize("fn, shapes", [pytest.param(f, s, id=n) for n, f, s in OPS])
def test_cuda_matches_cpu(fn, shapes):
    compare_devices(fn, shapes)


# ------------------------------------------------------------------ views
def test_view_of_non_contiguous_tensor_raises(lib):
    x = lib.zeros(3, 4).t()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(-1)


def test_reshape_of_non_contiguous_tensor_copies(lib):
    x = lib.arange(12.0).reshape(3, 4)
    y = x.t().reshape(-1)
    y[0] = 100.0
    assert x[0, 0].item() == 0.0


@pytest.mark.parametrize("make", [
    pytest.param(lambda x: x.view(-1), id="view"),
    pytest.param(lambda x: x.reshape(2, 6), id="reshape"),
    pytest.param(lambda x: x.flatten(), id="flatten"),
    pytest.param(lambda x: x.unsqueeze(0), id="unsqueeze"),
    pytest.param(lambda x: x[None].squeeze(0), id="squeeze"),
    pytest.param(lambda x: x.narrow(1, 1, 2), id="narrow"),
    pytest.param(lambda x: x.select(0, 1), id="select"),
    pytest.param(lambda x: x[1:, ::2], id="basic index"),
    pytest.param(lambda x: x.t(), id="t"),
    pytest.param(lambda x: x.permute(1, 0), id="permute"),
    pytest.param(lambda x: x.diagonal(), id="diagonal"),
    pytest.param(lambda x: x.split(2, 1)[1], id="split"),
    pytest.param(lambda x: x.chunk(2)[0], id="chunk"),
    pytest.param(lambda x: x.unbind(1)[2], id="unbind"),
    pytest.param(lambda x: x.t().view(2, 2, 3), id="view of transpose"),
    pytest.param(lambda x: x.movedim(0, 1), id="movedim"),
    pytest.param(lambda x: x.unflatten(1, (2, 2)), id="unflatten"),
])
def test_writes_through_views_reach_the_base(lib, make):
    x = lib.arange(12.0).reshape(3, 4)
    v = make(x)
    v.mul_(-1)
    expected = -np.arange(12.0).reshape(3, 4)
    mask = values(x) < 0
    np.testing.assert_array_equal(values(x)[mask], expected[mask])
    np.testing.assert_array_equal(values(v), -np.abs(values(v)))
    assert (values(x) <= 0).sum() >= v.numel()
    assert version(x) == version(v) == 1


def view_program(T):
    """In-place changes through chains of views, then a backward through all of them."""
    x = T.tensor(np.arange(1.0, 13.0).reshape(3, 4), requires_grad=True)
    w = T.tensor(np.linspace(-1, 1, 12).reshape(3, 4))
    y = x * 1
    y[:, 0].mul_(2)
    y.t()[1].add_(1)
    y.view(-1)[3] = 7.0
    y.diagonal().mul_(y[0, 1].clone())
    y.narrow(1, 1, 2).unsqueeze(0).squeeze(0).mul_(x[2, 3])
    y[1:, ::2] *= 2
    y.T[0] = y.T[1] + 3
    y.select(0, 2).sub_(x[0])
    (y * w).sum().backward()
    return y, x.grad


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_in_place_on_views_matches_torch():
    ours, theirs = view_program(gs), view_program(torch)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(values(a), values(b), rtol=1e-6)


def strided_base_program(T):
    """Views of a base laid out like a transpose: the region is found by strides, not by copy."""
    x = T.tensor(np.arange(1.0, 13.0).reshape(4, 3), requires_grad=True)
    y = x.t() * 2
    v = y.t().view(12)
    v[3] = x[0, 0] * 5
    v.view(2, 6)[1].mul_(x[1, 1])
    (y * T.tensor(np.linspace(-1, 1, 12).reshape(3, 4))).sum().backward()
    return y, x.grad


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_in_place_on_views_of_strided_base_matches_torch():
    for a, b in zip(strided_base_program(gs), strided_base_program(torch)):
        np.testing.assert_allclose(values(a), values(b))


def test_in_place_on_views_gives_right_gradient(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    y[:, 0].mul_(2)
    y.t()[1].add_(1)
    y.sum().backward()
    np.testing.assert_array_equal(values(x.grad), [[2.0, 1.0], [2.0, 1.0]])


def test_view_assignment_without_grad_updates_base(lib):
    x = lib.zeros(2, 3)
    x.view(-1)[0] = 5
    x.t()[2, 1] = 7
    x.diagonal().add_(1)
    np.testing.assert_array_equal(values(x), [[6.0, 0.0, 0.0], [0.0, 1.0, 7.0]])


def test_in_place_on_view_of_leaf_requiring_grad_raises(lib):
    x = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[:2].mul_(2)


def test_modifying_base_after_view_was_saved_raises_at_backward(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = x * 1
    v = y[0]
    z = (v * v).sum()
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_in_place_on_expanded_tensor_raises(lib):
    x = lib.zeros(3, requires_grad=True)
    y = (x * 1).expand(2, 3)
    with pytest.raises(RuntimeError):
        y.add_(1)


def test_views_share_version_counter(lib):
    x = lib.zeros(2, 3)
    v = x.t()
    before = version(v)
    x.add_(1)
    assert version(v) == before + 1


def test_transpose_in_place_metadata_ops(lib):
    x = lib.arange(6.0).reshape(2, 3)
    x.t_()
    assert tuple(x.shape) == (3, 2)
    x.unsqueeze_(0)
    assert tuple(x.shape) == (1, 3, 2)
    x.squeeze_()
    np.testing.assert_array_equal(values(x), np.arange(6.0).reshape(2, 3).T)


# ------------------------------------------------------------------ errors
ERRORS = [
    ("view bad size", lambda T: T.zeros(3, 4).view(5), RuntimeError, "shape '[5]' is invalid for input of size 12"),
    ("view two -1", lambda T: T.zeros(3, 4).view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    ("squeeze dim out of range", lambda T: T.zeros(3, 4).squeeze(2), IndexError, "Dimension out of range"),
    ("unsqueeze dim out of range", lambda T: T.zeros(3, 4).unsqueeze(3), IndexError, "Dimension out of range"),
    ("flatten start after end", lambda T: T.zeros(3, 4).flatten(1, 0), RuntimeError,
     "flatten() has invalid args: start_dim cannot come after end_dim"),
    ("unflatten bad sizes", lambda T: T.zeros(3, 4).unflatten(1, (3, 2)), RuntimeError,
     "unflatten: Provided sizes [3, 2] don't multiply up to the size of dim 1 (4) in the input tensor"),
    ("expand bad size", lambda T: T.zeros(3, 4).expand(2, 3), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (4) at non-singleton dimension 1"),
    ("permute duplicate", lambda T: T.zeros(3, 4).permute(0, 0), RuntimeError,
     "permute(): duplicate dims are not allowed."),
    ("permute wrong length", lambda T: T.zeros(3, 4).permute(0), RuntimeError, "number of dimensions"),
    ("t of 3-d", lambda T: T.zeros(2, 3, 4).t(), RuntimeError, "t() expects a tensor with <= 2 dimensions"),
    ("mT of 1-d", lambda T: T.zeros(3).mT, RuntimeError, "tensor.mT is only supported on matrices"),
    ("movedim repeated", lambda T: T.zeros(3, 4).movedim((0, 1), (0, 0)), RuntimeError,
     "movedim: repeated dim in `destination` ([0, 0])"),
    ("movedim lengths", lambda T: T.zeros(3, 4).movedim((0, 1), (0,)), RuntimeError,
     "movedim: Invalid source or destination dims"),
    ("narrow past end", lambda T: T.zeros(3, 4).narrow(1, 2, 3), RuntimeError,
     "start (2) + length (3) exceeds dimension size (4)."),
    ("select out of range", lambda T: T.zeros(3, 4).select(0, 5), IndexError,
     "select(): index 5 out of range for tensor of size [3, 4] at dimension 0"),
    ("split size 0", lambda T: T.zeros(3, 4).split(0), RuntimeError,
     "split_size can only be 0 if dimension size is 0"),
    ("split sizes wrong sum", lambda T: T.zeros(3, 4).split([1, 1]), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 3"),
    ("chunk 0", lambda T: T.zeros(3, 4).chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    ("cat empty list", lambda T: T.cat([]), ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    ("cat sizes", lambda T: T.cat([T.zeros(3, 4), T.zeros(3, 3)]), RuntimeError,
     "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 3 for tensor number 1 "
     "in the list."),
    ("cat ndims", lambda T: T.cat([T.zeros(3, 4), T.zeros(3)]), RuntimeError,
     "Tensors must have same number of dimensions: got 2 and 1"),
    ("cat dim out of range", lambda T: T.cat([T.zeros(3, 4)], dim=2), IndexError, "Dimension out of range"),
    ("stack sizes", lambda T: T.stack([T.zeros(3, 4), T.zeros(3, 3)]), RuntimeError,
     "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [3, 3] at entry 1"),
    ("stack empty", lambda T: T.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    ("repeat too few", lambda T: T.zeros(3, 4).repeat(2), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"),
    ("roll misaligned", lambda T: T.zeros(3, 4).roll((1, 2), (0,)), RuntimeError,
     "shifts and dimensions must align. shifts: 2, dims:1"),
    ("flip repeated dim", lambda T: T.zeros(3, 4).flip(0, 0), RuntimeError,
     "dim 0 appears multiple times in the list of dims"),
    ("tril of 1-d", lambda T: T.tril(T.zeros(3)), RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    ("diag of 3-d", lambda T: T.diag(T.zeros(2, 2, 2)), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
    ("diagonal same dims", lambda T: T.zeros(3, 4).diagonal(0, 1, 1), RuntimeError,
     "diagonal dimensions cannot be identical 1, 1"),
    ("repeat_interleave sizes", lambda T: T.repeat_interleave(T.tensor([1, 2]), T.tensor([1, 2, 3])), RuntimeError,
     "repeats must have the same size as input along dim"),
    ("broadcast_tensors", lambda T: T.broadcast_tensors(T.zeros(2, 1), T.zeros(3, 3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
]


@pytest.mark.parametrize("fn, exc, message", [pytest.param(f, e, m, id=n) for n, f, e, m in ERRORS])
def test_errors_match_torch(lib, fn, exc, message):
    with pytest.raises(exc) as info:
        fn(lib)
    assert message in str(info.value)


# ------------------------------------------------------------------ values on random shapes
shapes = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, data=st.data())
def test_reshape_matches_numpy(shape, data):
    n = int(np.prod(shape))
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    new, rest = [], n
    for _ in range(data.draw(st.integers(0, 3))):
        d = data.draw(st.sampled_from([d for d in divisors if rest % d == 0]))
        new.append(d)
        rest //= d
    new.append(rest)
    a = np.arange(float(n)).reshape(shape)
    x = gs.tensor(a, requires_grad=True)
    y = x.reshape(new)
    np.testing.assert_array_equal(values(y), a.reshape(new))
    y.sum().backward()
    np.testing.assert_array_equal(values(x.grad), np.ones(shape))


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple), data=st.data())
def test_permute_matches_numpy(shape, data):
    perm = data.draw(st.permutations(range(len(shape))))
    a = np.random.default_rng(0).standard_normal(shape)
    w = np.random.default_rng(1).standard_normal(tuple(shape[p] for p in perm))
    x = gs.tensor(a, requires_grad=True)
    y = x.permute(*perm)
    np.testing.assert_array_equal(values(y), a.transpose(perm))
    (y * gs.tensor(w)).sum().backward()
    np.testing.assert_allclose(values(x.grad), w.transpose(np.argsort(perm)))
    # a view of a permuted tensor can be flattened only through reshape (a copy) unless contiguous
    np.testing.assert_array_equal(values(y.reshape(-1)), a.transpose(perm).reshape(-1))


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), data=st.data())
def test_cat_matches_numpy(shape, data):
    dim = data.draw(st.integers(0, len(shape) - 1))
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    rng = np.random.default_rng(0)
    parts = [rng.standard_normal(shape[:dim] + (s,) + shape[dim + 1:]) for s in sizes]
    xs = [gs.tensor(p, requires_grad=True) for p in parts]
    y = gs.cat(xs, dim)
    np.testing.assert_array_equal(values(y), np.concatenate(parts, dim))
    w = rng.standard_normal(y.shape)
    (y * gs.tensor(w)).sum().backward()
    for x, piece in zip(xs, np.split(w, np.cumsum(sizes)[:-1], axis=dim)):
        np.testing.assert_array_equal(values(x.grad), piece)


# ------------------------------------------------------------------ odds and ends
def test_split_and_chunk_give_views(lib):
    x = lib.arange(10.0)
    a, b = x.split([3, 7])
    b[0] = -1
    assert x[3].item() == -1
    assert [tuple(c.shape) for c in x.chunk(4)] == [(3,), (3,), (3,), (1,)]


def test_cat_promotes_dtypes(lib):
    assert lib.cat([lib.zeros(2, dtype=lib.int64), lib.zeros(2)]).dtype == lib.float32
    assert lib.cat([lib.zeros(2), lib.zeros(2, dtype=lib.float64)]).dtype == lib.float64


def test_repeat_interleave_of_counts_gives_indices(lib):
    np.testing.assert_array_equal(values(lib.repeat_interleave(lib.tensor([1, 2]))), [0, 1, 1])


@pytest.mark.parametrize("make, name", [
    pytest.param(lambda T, x: x.view(6, 4), "ViewBackward0", id="view"),
    pytest.param(lambda T, x: x.transpose(0, 1).reshape(-1), "UnsafeViewBackward0", id="reshape copying"),
    pytest.param(lambda T, x: x.unsqueeze(0), "UnsqueezeBackward0", id="unsqueeze"),
    pytest.param(lambda T, x: x[0], "SelectBackward0", id="int index"),
    pytest.param(lambda T, x: x[1:, 0], "SelectBackward0", id="slice then int"),
    pytest.param(lambda T, x: x[0, 1:], "SliceBackward0", id="int then slice"),
    pytest.param(lambda T, x: x[:, None], "UnsqueezeBackward0", id="None index"),
    pytest.param(lambda T, x: x.narrow(1, 0, 2), "SliceBackward0", id="narrow"),
    pytest.param(lambda T, x: x.transpose(0, 2), "TransposeBackward0", id="transpose"),
    pytest.param(lambda T, x: x.permute(2, 0, 1), "PermuteBackward0", id="permute"),
    pytest.param(lambda T, x: x.expand(2, 2, 3, 4), "ExpandBackward0", id="expand"),
    pytest.param(lambda T, x: x.diagonal(), "DiagonalBackward0", id="diagonal"),
    pytest.param(lambda T, x: T.cat([x, x]), "CatBackward0", id="cat"),
    pytest.param(lambda T, x: T.stack([x, x]), "StackBackward0", id="stack"),
    pytest.param(lambda T, x: x.flip(0), "FlipBackward0", id="flip"),
    pytest.param(lambda T, x: x.repeat(1, 2, 1), "RepeatBackward0", id="repeat"),
    pytest.param(lambda T, x: x[[0, 1]], "IndexBackward0", id="advanced index"),
])
def test_grad_fn_names(lib, make, name):
    assert make(lib, lib.zeros(2, 3, 4, requires_grad=True)).grad_fn.name() == name


def test_writes_through_views_are_copy_slices(lib):
    y = lib.zeros(2, 3, requires_grad=True) * 1
    y[0].mul_(2)
    assert y.grad_fn.name().endswith("CopySlices")
    y = lib.zeros(2, 3, requires_grad=True) * 1
    y[0] = 1.0
    assert y.grad_fn.name().endswith("CopySlices")


def test_a_write_through_a_view_of_a_view_gives_the_middle_view_the_new_history(lib):
    # v = y[:, ::2]; v.diagonal().fill_(3): v's gradient must skip the overwritten elements
    # (v kept its old SliceBackward0 and sent 2 to them)
    x = lib.ones(4, 4, dtype=lib.float64, requires_grad=True)
    y = x * 1
    v = y[:, ::2]
    v.diagonal().fill_(3)
    (v * 2).sum().backward()
    assert x.grad.tolist() == [[0, 0, 2, 0], [2, 0, 0, 0], [2, 0, 2, 0], [2, 0, 2, 0]]
    assert v.tolist() == [[3, 1], [1, 3], [1, 1], [1, 1]]
    x.grad = None
    y = x * 1
    w = y[1:][:, 1:]
    w[0].mul_(5)
    (w.sum() + y.sum()).backward()
    assert x.grad.tolist() == [[1, 1, 1, 1], [1, 10, 10, 10], [1, 2, 2, 2], [1, 2, 2, 2]]


def test_view_as_a_dtype_reinterprets_the_bytes(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    bits = x.view(lib.int32)
    assert bits.dtype == lib.int32 and bits[0].tolist() == [1065353216, 1073741824] and not bits.requires_grad
    assert lib.tensor([1.0, 2.0]).view(lib.uint8).shape == (8,)
    assert lib.tensor([-1], dtype=lib.int32).view(lib.uint8).tolist() == [255] * 4
    assert lib.ones(3, 2).t().view(lib.int32).shape == (2, 3)


@pytest.mark.parametrize("call", [lambda T: T.ones(3).view(T.float64), lambda T: T.ones(()).view(T.float64),
                                  lambda T: T.ones(4, 2).t().view(T.float64)])
def test_view_as_a_wider_dtype_needs_a_divisible_contiguous_last_dim(lib, call):
    with pytest.raises(RuntimeError):
        call(lib)


def test_cat_skips_legacy_empty_tensors_but_promotes_with_them(lib):
    out = lib.cat([lib.ones(2, 3, dtype=lib.int64), lib.zeros(0)])
    assert out.dtype == lib.float32 and tuple(out.shape) == (2, 3)
