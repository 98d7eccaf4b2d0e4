"""The legacy and alias spellings real PyTorch code uses: typed constructors, Variable, NumPy-style
keyword aliases, ``size=`` on factories, the deprecated scale-first overloads, grad modes as bare
decorators, and shape functions that return a new view where PyTorch does. Each test runs on
gradserve and, where installed, on PyTorch (the ``lib`` fixture)."""
import warnings

import numpy as np
import pytest

import gradserve.engine as gs


@pytest.fixture(autouse=True)
def _quiet_deprecations():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("name, dtype", [("FloatTensor", "float32"), ("DoubleTensor", "float64"),
                                         ("LongTensor", "int64"), ("IntTensor", "int32"),
                                         ("BoolTensor", "bool"), ("ByteTensor", "uint8")])
def test_typed_constructors_build_from_data_and_from_sizes(lib, name, dtype):
    ctor = getattr(lib, name)
    t = ctor([1, 0, 2])
    assert t.dtype == getattr(lib, dtype) and t.shape == (3,)
    assert t.tolist() == ([True, False, True] if dtype == "bool" else [1, 0, 2])
    assert ctor(2, 3).shape == (2, 3) and ctor(2, 3).dtype == getattr(lib, dtype)
    assert ctor().shape == (0,)
    assert isinstance(t, ctor) and isinstance(t, lib.Tensor)


def test_long_tensor_truncates_floats_and_type_converts_to_a_typed_constructor(lib):
    assert lib.LongTensor([1.7, -2.5]).tolist() == [1, -2]
    x = lib.tensor([1.5, 2.0])
    assert x.type(lib.LongTensor).dtype == lib.int64
    assert x.type() == "torch.FloatTensor"
    assert not isinstance(x, lib.LongTensor)
    assert lib.FloatTensor(np.arange(3)).tolist() == [0.0, 1.0, 2.0]
    assert lib.Tensor([1, 2]).dtype == lib.float32


@pytest.mark.parametrize("name, source, want, got", [
    ("FloatTensor", "float64", "float", "double"), ("LongTensor", "float32", "long int", "float"),
    ("CharTensor", "bool", "signed char", "bool"), ("HalfTensor", "int16", "c10::Half", "short int")])
def test_typed_constructor_takes_a_tensor_only_of_its_own_dtype(lib, name, source, want, got):
    """pygcn's torch.FloatTensor(features) with float64 features: PyTorch's TypeError naming both
    TensorOptions, not a silent conversion (from data that is not a tensor it still converts)."""
    def options(dtype):
        return (rf"TensorOptions\(dtype={dtype}, device=cpu, layout=Strided, requires_grad=false \(default\), "
                rf"pinned_memory=false \(default\), memory_format=\(nullopt\)\)")
    with pytest.raises(TypeError, match=rf"^expected {options(want)} \(got {options(got)}\)$"):
        getattr(lib, name)(lib.ones(2, dtype=getattr(lib, source)))
    same = lib.ones(2, dtype=getattr(lib, source))
    assert getattr(lib, name)(np.ones(2, dtype=source)).dtype != same.dtype


def test_variable_returns_the_tensor_with_requires_grad(lib):
    x = lib.autograd.Variable(lib.ones(2), requires_grad=True)
    assert x.requires_grad and isinstance(x, lib.Tensor)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert not lib.autograd.Variable(lib.ones(2)).requires_grad


@pytest.mark.parametrize("expr", [
    "x.sum(axis=0, keepdims=True)", "lib.sum(x, axis=1)", "x.mean(axis=0, keepdims=True)",
    "x.max(axis=0).values", "x.max(axis=1, keepdims=True)[1]", "x.argmax(axis=1)", "x.std(axis=0)",
    "lib.cat([x, x], axis=0)", "x.softmax(axis=1)", "x.cumsum(axis=1)", "x.var(axis=1, keepdims=True)",
    "lib.amax(x, axis=0, keepdims=True)", "x.logsumexp(axis=1)",
    "x.squeeze(axis=0)", "x.unsqueeze(axis=0)", "lib.any(x > 0, axis=0)", "x.prod(axis=1)",
])
def test_numpy_keyword_aliases_are_accepted_with_pytorchs_result(lib, expr):
    x = lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    out = eval(expr)
    expected = eval(expr.replace("keepdims", "keepdim").replace("axis", "dim"))
    assert out.shape == expected.shape and out.tolist() == expected.tolist()


def test_an_alias_and_its_name_together_is_a_type_error(lib):
    with pytest.raises(TypeError):
        lib.ones(2, 3).sum(dim=0, axis=0)


@pytest.mark.parametrize("factory", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_take_size_as_a_keyword(lib, factory):
    t = getattr(lib, factory)(size=(2, 3))
    assert t.shape == (2, 3)
    assert getattr(lib, factory)(size=[4], dtype=lib.float64).dtype == lib.float64
    with pytest.raises(TypeError):
        getattr(lib, factory)(2, size=(2, 3))


def test_input_and_other_keywords(lib):
    x = lib.tensor([1.0, 2.0])
    assert lib.add(input=x, other=x).tolist() == [2.0, 4.0]
    assert lib.mul(x, other=x).tolist() == [1.0, 4.0]


def test_scale_first_overloads_of_add_sub_addcmul_addcdiv(lib):
    p = lib.tensor([1.0, 2.0, 3.0])
    g = lib.tensor([0.5, -1.0, 2.0])
    q = p.clone()
    q.add_(-0.1, g)
    assert np.allclose(q.numpy(), [0.95, 2.1, 2.8])
    assert np.allclose(p.add(2.0, g).numpy(), [2.0, 0.0, 7.0])
    assert np.allclose(lib.add(p, 2.0, g).numpy(), [2.0, 0.0, 7.0])
    assert np.allclose(p.clone().sub_(0.5, g).numpy(), [0.75, 2.5, 2.0])
    assert np.allclose(p.clone().addcmul_(0.5, g, g).numpy(), [1.125, 2.5, 5.0])
    assert np.allclose(p.clone().addcdiv_(2.0, g, p).numpy(), [2.0, 1.0, 13 / 3])
    assert np.allclose(lib.addcmul(p, 0.5, g, g).numpy(), [1.125, 2.5, 5.0])
    with pytest.raises(TypeError):
        p.add(g, g, g)


def test_the_old_sgd_loop_on_data_matches(lib):
    lib.manual_seed(0)
    w = lib.tensor([[0.5, -0.25], [1.0, 2.0]], requires_grad=True)
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    for _ in range(3):
        loss = (x.mm(w) ** 2).mean()
        loss.backward()
        w.data.add_(-0.01, w.grad.data)
        w.grad.data.zero_()
    assert np.allclose(w.detach().numpy(), [[0.25548, -0.57791], [0.65244, 1.52997]], atol=1e-5)


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad", "inference_mode"])
def test_grad_modes_work_as_bare_and_called_decorators(lib, mode):
    ctx = getattr(lib, mode)
    x = lib.ones(2, requires_grad=True)

    @ctx
    def bare(t):
        return (t * 2).requires_grad

    @ctx()
    def called(t):
        """doc"""
        return (t * 2).requires_grad

    expected = mode == "enable_grad"
    with lib.no_grad():
        assert bare(x) is expected and called(x) is expected
    assert called.__name__ == "called" and called.__doc__ == "doc"
    assert (x * 2).requires_grad


def test_set_grad_enabled_as_decorator_applies_to_calls_only(lib):
    x = lib.ones(2, requires_grad=True)

    @lib.set_grad_enabled(False)
    def f(t):
        return (t * 2).requires_grad

    assert lib.is_grad_enabled() and f(x) is False and (x * 2).requires_grad


@pytest.mark.parametrize("expr", [
    "x.squeeze(0)", "x.squeeze()", "x.squeeze(-1)", "x.expand(2, 3)", "x.expand_as(x)",
    "x.broadcast_to((2, 3))", "x.movedim(0, 0)", "s.transpose(0, 0)", "s.t()", "x.view(2, 3)",
    "x.reshape(2, 3)", "x.permute(0, 1)", "x.view_as(x)", "x.unflatten(1, (3,))",
])
def test_shape_functions_return_a_new_view_not_self(lib, expr):
    x = lib.randn(2, 3).requires_grad_()
    s = lib.tensor(1.0, requires_grad=True)
    y = eval(expr)
    assert y is not x and y is not s
    assert y.grad_fn is not None and y.grad is None and not y.is_leaf


@pytest.mark.parametrize("expr", ["x.flatten(1)", "x.contiguous()", "x.to(lib.float32)", "x.float()"])
def test_no_op_conversions_return_self_as_pytorch(lib, expr):
    x = lib.randn(2, 3)
    assert eval(expr) is x


def test_grad_read_through_a_squeeze_that_did_nothing_is_none(lib):
    w = lib.ones(2, 3, requires_grad=True)
    v = w.squeeze(0)
    (v * 2).sum().backward()
    assert v.grad is None and w.grad.tolist() == [[2.0] * 3] * 2
    assert v.grad_fn.name() == "SqueezeBackward1"


def test_a_python_range_is_a_sequence_of_data(lib):
    assert lib.LongTensor(range(3)).tolist() == [0, 1, 2]
    assert lib.tensor(range(2, 8, 3)).tolist() == [2, 5] and lib.tensor(range(2)).dtype == lib.int64
    assert lib.FloatTensor(range(2)).tolist() == [0.0, 1.0]
    assert lib.tensor(range(0)).shape == (0,)


def test_indexing_with_a_python_range(lib):
    x = lib.arange(12.0).reshape(3, 4)
    assert x[range(3), lib.tensor([0, 1, 2])].tolist() == [0.0, 5.0, 10.0]
    assert x[range(1, 3)].tolist() == [[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    assert x[:, range(0, 4, 2)].tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    assert x[range(0)].shape == (0, 4)


def test_accelerator_reports_the_cuda_device_or_none(lib):
    available = lib.accelerator.is_available()
    current = lib.accelerator.current_accelerator()
    assert (current is None) == (not available) or (current is not None and current.type == "cuda")


@pytest.mark.parametrize("name", ["foo", "torch.FooTensor", "float32"])
def test_type_of_an_unknown_name_is_pytorchs_value_error(lib, name):
    with pytest.raises(ValueError, match=f"invalid type: '{name}'"):
        lib.randn(2).type(name)


@pytest.mark.parametrize("name, dtype", [("torch.DoubleTensor", "float64"), ("torch.LongTensor", "int64"),
                                         ("torch.BoolTensor", "bool")])
def test_type_by_legacy_name_casts(lib, name, dtype):
    t = lib.tensor([1.5, 0.0]).type(name)
    assert str(t.dtype) == "torch." + dtype and t.type() == name


@pytest.mark.parametrize("weight, indices, kw, error, message", [
    ((5,), [0, 1], {}, RuntimeError, "'weight' must be 2-D"),
    ((2, 3, 4), [0], {}, RuntimeError, "'weight' must be 2-D"),
    ((5,), [0.5], {}, RuntimeError, "'weight' must be 2-D"),      # the weight is checked before the indices
    ((5, 2), [0.5], {}, RuntimeError, "Expected tensor for argument #1 'indices'"),
    ((5,), [0], {"padding_idx": 9}, AssertionError, "Padding_idx must be within num_embeddings"),
])
def test_embedding_refuses_what_pytorch_refuses_in_its_order(lib, weight, indices, kw, error, message):
    with pytest.raises(error, match=message):
        lib.nn.functional.embedding(lib.tensor(indices), lib.randn(*weight), **kw)
