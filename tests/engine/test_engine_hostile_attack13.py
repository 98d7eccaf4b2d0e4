"""Hostile pass 13 (tests/hostile_attack13_log.md): engine-side findings, against PyTorch where
it is installed.

F1: ``tensor(a)`` of a list that holds itself walked its first elements without end.
"""
import pytest

import gradserve.engine as E


def _self_holding(kind=list):
    a = []
    a.append(a)
    return a if kind is list else (a,)


@pytest.mark.parametrize("make", [lambda d: E.tensor(d), lambda d: E.as_tensor(d),
                                  lambda d: E.ones(1).new_tensor(d)])
def test_a_list_that_holds_itself_is_a_value_error(make):
    with pytest.raises(ValueError, match="too many dimensions 'list'"):
        make(_self_holding())


def test_a_list_that_holds_itself_matches_pytorch():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as theirs:
        torch.tensor(_self_holding())
    with pytest.raises(ValueError) as ours:
        E.tensor(_self_holding())
    assert str(ours.value) == str(theirs.value)


# F6: ``dtype=float`` (Python's float) gave the default dtype, float32; PyTorch gives float64 always.
_PY_DTYPE_CALLS = [
    lambda t: t.zeros(2, dtype=float),
    lambda t: t.tensor([1.0], dtype=float),
    lambda t: t.ones(2).to(float),
    lambda t: t.ones(2).new_zeros(2, dtype=float),
    lambda t: t.full((2,), 1, dtype=float),
    lambda t: t.arange(3, dtype=float),
    lambda t: t.sum(t.ones(2), dtype=float),
    lambda t: t.zeros(2, dtype=int),
    lambda t: t.ones(2).to(bool),
]


@pytest.mark.parametrize("call", _PY_DTYPE_CALLS)
def test_python_types_as_dtypes_are_float64_int64_and_bool(call):
    want = {"float64", "int64", "bool"}
    assert str(call(E).dtype).removeprefix("torch.") in want


@pytest.mark.parametrize("call", _PY_DTYPE_CALLS)
def test_python_types_as_dtypes_match_pytorch_under_either_default(call):
    torch = pytest.importorskip("torch")
    for default in ("float32", "float64"):
        torch.set_default_dtype(getattr(torch, default))
        E.set_default_dtype(getattr(E, default))
        try:
            assert str(call(E).dtype) == str(call(torch).dtype)
        finally:
            torch.set_default_dtype(torch.float32)
            E.set_default_dtype(E.float32)


# F5: a zero stride or kernel divided the output size (ZeroDivisionError, or NumPy's "negative dimensions"
# for a negative stride) where PyTorch raises RuntimeError naming the argument.
_X2, _X1 = (1, 1, 10, 10), (1, 1, 10)
_WINDOW_CASES = {
    "conv2d stride 0": lambda t, F: F.conv2d(t.ones(*_X2), t.ones(1, 1, 3, 3), stride=0),
    "conv2d stride -1": lambda t, F: F.conv2d(t.ones(*_X2), t.ones(1, 1, 3, 3), stride=-1),
    "conv2d dilation 0": lambda t, F: F.conv2d(t.ones(*_X2), t.ones(1, 1, 3, 3), dilation=0),
    "conv2d groups 0": lambda t, F: F.conv2d(t.ones(*_X2), t.ones(1, 1, 3, 3), groups=0),
    "conv1d stride 0": lambda t, F: F.conv1d(t.ones(*_X1), t.ones(1, 1, 3), stride=0),
    "conv1d dilation 0": lambda t, F: F.conv1d(t.ones(*_X1), t.ones(1, 1, 3), dilation=0),
    "max_pool2d kernel 0": lambda t, F: F.max_pool2d(t.ones(*_X2), 0),
    "max_pool2d kernel 0 stride 1": lambda t, F: F.max_pool2d(t.ones(*_X2), 0, stride=1),
    "max_pool2d kernel (2, 0) stride 1": lambda t, F: F.max_pool2d(t.ones(*_X2), (2, 0), stride=1),
    "max_pool2d kernel -1": lambda t, F: F.max_pool2d(t.ones(*_X2), -1),
    "max_pool2d stride (1, 0)": lambda t, F: F.max_pool2d(t.ones(*_X2), 2, stride=(1, 0)),
    "max_pool2d stride -1": lambda t, F: F.max_pool2d(t.ones(*_X2), 2, stride=-1),
    "max_pool2d dilation 0": lambda t, F: F.max_pool2d(t.ones(*_X2), 2, dilation=0),
    "avg_pool2d stride 0": lambda t, F: F.avg_pool2d(t.ones(*_X2), 2, stride=0),
    "avg_pool2d stride -1": lambda t, F: F.avg_pool2d(t.ones(*_X2), 2, stride=-1),
    "avg_pool1d stride 0": lambda t, F: F.avg_pool1d(t.ones(*_X1), 2, stride=0),
    "avg_pool1d kernel 0 stride 1": lambda t, F: F.avg_pool1d(t.ones(*_X1), 0, stride=1),
    "avg_pool1d stride -1": lambda t, F: F.avg_pool1d(t.ones(*_X1), 2, stride=-1),
    "max_pool1d kernel 0": lambda t, F: F.max_pool1d(t.ones(*_X1), 0),
    "max_pool1d stride 0": lambda t, F: F.max_pool1d(t.ones(*_X1), 2, stride=0),
    "max_pool1d dilation 0": lambda t, F: F.max_pool1d(t.ones(*_X1), 2, dilation=0),
    "unfold stride 0": lambda t, F: F.unfold(t.ones(*_X2), 2, stride=0),
    "unfold stride (1, 0)": lambda t, F: F.unfold(t.ones(*_X2), 2, stride=(1, 0)),
    "unfold kernel 0": lambda t, F: F.unfold(t.ones(*_X2), 0),
    "unfold dilation 0": lambda t, F: F.unfold(t.ones(*_X2), 2, dilation=0),
    "fold stride 0": lambda t, F: F.fold(t.ones(1, 4, 9), (4, 4), 2, stride=0),
}


@pytest.mark.parametrize("case", sorted(_WINDOW_CASES))
def test_windows_that_are_not_positive_are_runtime_errors(case):
    with pytest.raises(RuntimeError, match="zero|non-positive"):
        _WINDOW_CASES[case](E, E.nn.functional)


@pytest.mark.parametrize("case", sorted(_WINDOW_CASES))
def test_windows_that_are_not_positive_match_pytorch(case):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        _WINDOW_CASES[case](torch, torch.nn.functional)
    with pytest.raises(RuntimeError) as ours:
        _WINDOW_CASES[case](E, E.nn.functional)
    assert str(ours.value) == str(theirs.value)


# F3: a tensor operator given an object it cannot take raised from inside the op (NumPy's "unsupported
# dtype object", AttributeError on '_data') instead of answering NotImplemented, as PyTorch's do, so a
# program object's reflected method (``__radd__``, ``__rmatmul__``, ``__eq__``) never ran.
class _Reflecting:
    def __radd__(self, other):
        return "radd"

    def __rsub__(self, other):
        return "rsub"

    def __rmul__(self, other):
        return "rmul"

    def __rtruediv__(self, other):
        return "rtruediv"

    def __rpow__(self, other):
        return "rpow"

    def __rmatmul__(self, other):
        return "rmatmul"

    def __eq__(self, other):
        return "eq"

    def __gt__(self, other):
        return "gt"

    __hash__ = object.__hash__


_REFLECTED = {
    "add": lambda x, o: x + o, "sub": lambda x, o: x - o, "mul": lambda x, o: x * o,
    "truediv": lambda x, o: x / o, "pow": lambda x, o: x ** o, "matmul": lambda x, o: x @ o,
    "eq": lambda x, o: x == o, "lt": lambda x, o: x < o,
}
_UNTAKEN = {
    "add str": lambda x: x + "a", "add None": lambda x: x + None, "add object": lambda x: x + object(),
    "matmul list": lambda x: x @ [1.0, 2.0], "lt object": lambda x: x < object(), "rsub object": lambda x: object() - x,
    "and str": lambda x: x.bool() & "a",
}


@pytest.mark.parametrize("op", sorted(_REFLECTED))
def test_a_tensor_operator_defers_to_the_other_operands_reflected_method(op):
    got = _REFLECTED[op](E.ones(2), _Reflecting())
    assert got == {"truediv": "rtruediv", "eq": "eq", "lt": "gt"}.get(op, "r" + op)


@pytest.mark.parametrize("op", sorted(_REFLECTED))
def test_a_tensor_operator_defers_as_pytorchs_does(op):
    torch = pytest.importorskip("torch")
    assert _REFLECTED[op](E.ones(2), _Reflecting()) == _REFLECTED[op](torch.ones(2), _Reflecting())


@pytest.mark.parametrize("case", sorted(_UNTAKEN))
def test_an_operand_no_operator_takes_is_pythons_type_error_as_pytorchs(case):
    with pytest.raises(TypeError) as ours:
        _UNTAKEN[case](E.ones(2))
    assert "unsupported operand" in str(ours.value) or "not supported between" in str(ours.value)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        _UNTAKEN[case](torch.ones(2))
    assert str(ours.value) == str(theirs.value)


def test_equality_with_what_no_operator_takes_is_false_not_elementwise():
    x = E.ones(2)
    assert (x == None) is False and (x != None) is True   # noqa: E711
    assert (x == "a") is False and (x == object()) is False and (x != object()) is True
    assert (x == E.ones(2)).tolist() == [True, True] and (x == 1).tolist() == [True, True]


# F4: ``lr=torch.tensor(0.1)`` (PyTorch takes a one-element tensor learning rate) failed in step() with
# NumPy's "operand 'Tensor' does not support ufuncs".
_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]


def _three_steps(lib, name, lr, foreach=None):
    lib.manual_seed(0)
    ps = [lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0])), lib.nn.Parameter(lib.tensor([0.5, 0.25]))]
    kw = {"momentum": 0.9} if name == "SGD" else {}
    opt = getattr(lib.optim, name)(ps, lr=lr, foreach=foreach, **kw)
    for _ in range(3):
        opt.zero_grad()
        sum((p ** 2).sum() for p in ps).backward()
        opt.step()
    return [v for p in ps for v in p.tolist()]


@pytest.mark.parametrize("foreach", [None, False])
@pytest.mark.parametrize("name", _OPTIMIZERS)
def test_a_tensor_learning_rate_steps_as_its_number(name, foreach):
    assert _three_steps(E, name, E.tensor(0.1), foreach) == _three_steps(E, name, 0.1, foreach)


@pytest.mark.parametrize("name", _OPTIMIZERS)
def test_a_tensor_learning_rate_steps_as_pytorchs(name):
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    np.testing.assert_allclose(_three_steps(E, name, E.tensor(0.1)), _three_steps(torch, name, torch.tensor(0.1)),
                               rtol=1e-5, atol=1e-6)
