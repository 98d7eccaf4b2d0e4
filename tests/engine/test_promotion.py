"""Type promotion: engine.result_type and the dtypes ops produce, against torch.result_type.

The expected table below is torch 2.x's answer, so these tests run without
torch; where torch is installed they also ask it directly.
"""
import numpy as np
import pytest

import gradserve.engine as T

# operand name -> how to build it in either library (engine or torch)
OPERANDS = {
    "f32": lambda L: L.tensor([1.5, 2.0], dtype=L.float32),
    "f64": lambda L: L.tensor([1.5, 2.0], dtype=L.float64),
    "i64": lambda L: L.tensor([1, 2], dtype=L.int64),
    "i32": lambda L: L.tensor([1, 2], dtype=L.int32),
    "b": lambda L: L.tensor([True, False]),
    "f32_0d": lambda L: L.tensor(1.5, dtype=L.float32),
    "f64_0d": lambda L: L.tensor(1.5, dtype=L.float64),
    "i64_0d": lambda L: L.tensor(3, dtype=L.int64),
    "i32_0d": lambda L: L.tensor(3, dtype=L.int32),
    "b_0d": lambda L: L.tensor(True),
    "int": lambda L: 2,
    "float": lambda L: 2.5,
    "bool": lambda L: True,
}
NAMES = list(OPERANDS)
SCALARS = {"int", "float", "bool"}

# torch.result_type(row, column)
EXPECTED = """
         f32    f64    i64    i32      b f32_0d f64_0d i64_0d i32_0d   b_0d    int  float   bool
   f32   f32    f64    f32    f32    f32    f32    f32    f32    f32    f32    f32    f32    f32
   f64   f64    f64    f64    f64    f64    f64    f64    f64    f64    f64    f64    f64    f64
   i64   f32    f64    i64    i64    i64    f32    f64    i64    i64    i64    i64    f32    i64
   i32   f32    f64    i64    i32    i32    f32    f64    i32    i32    i32    i32    f32    i32
     b   f32    f64    i64    i32      b    f32    f64    i64    i32      b    i64    f32      b
f32_0d   f32    f64    f32    f32    f32    f32    f64    f32    f32    f32    f32    f32    f32
f64_0d   f32    f64    f64    f64    f64    f64    f64    f64    f64    f64    f64    f64    f64
i64_0d   f32    f64    i64    i32    i64    f32    f64    i64    i64    i64    i64    f32    i64
i32_0d   f32    f64    i64    i32    i32    f32    f64    i64    i32    i32    i32    f32    i32
  b_0d   f32    f64    i64    i32      b    f32    f64    i64    i32      b    i64    f32      b
   int   f32    f64    i64    i32    i64    f32    f64    i64    i32    i64    i64    f32    i64
 float   f32    f64    f32    f32    f32    f32    f64    f32    f32    f32    f32    f32    f32
  bool   f32    f64    i64    i32      b    f32    f64    i64    i32      b    i64    f32      b
"""


def _table():
    lines = EXPECTED.strip().splitlines()
    cols = lines[0].split()
    table = {}
    for line in lines[1:]:
        row, *cells = line.split()
        for col, cell in zip(cols, cells):
            table[row, col] = cell
    return table


TABLE = _table()
DTYPES = {"f32": T.float32, "f64": T.float64, "i64": T.int64, "i32": T.int32, "b": T.bool}
PAIRS = [(a, b) for a in NAMES for b in NAMES]
TENSOR_PAIRS = [(a, b) for a, b in PAIRS if not (a in SCALARS and b in SCALARS)]


def test_table_covers_every_pair():
    assert set(TABLE) == set(PAIRS)


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_result_type_matches_table(a, b):
    assert T.result_type(OPERANDS[a](T), OPERANDS[b](T)) is DTYPES[TABLE[a, b]]


# op -> (engine/torch call, expected dtype from the promoted one, or None where torch raises)
def _true_div(rt):
    return rt if rt in ("f32", "f64") else "f32"


OPS = {
    "add": (lambda L, x, y: x + y, lambda rt, a, b: rt),
    "mul": (lambda L, x, y: x * y, lambda rt, a, b: rt),
    "sub": (lambda L, x, y: x - y, lambda rt, a, b: None if "b" in (a[0], b[0]) else rt),
    "div": (lambda L, x, y: x / y, lambda rt, a, b: _true_div(rt)),
    "eq": (lambda L, x, y: x == y, lambda rt, a, b: "b"),
    "lt": (lambda L, x, y: x < y, lambda rt, a, b: "b"),
    "where": (lambda L, x, y: L.where(L.tensor([True, False]), x, y), lambda rt, a, b: rt),
    "maximum": (lambda L, x, y: L.maximum(x, y), lambda rt, a, b: rt),
}
TENSOR_ONLY = {"maximum"}


def _cases():
    out = []
    for op in OPS:
        for a, b in TENSOR_PAIRS:
            if op in TENSOR_ONLY and (a in SCALARS or b in SCALARS):
                continue
            out.append(pytest.param(op, a, b, id=f"{op}-{a}-{b}"))
    return out


@pytest.mark.parametrize("op,a,b", _cases())
def test_op_result_dtype_matches_table(op, a, b):
    call, expect = OPS[op]
    want = expect(TABLE[a, b], a, b)
    x, y = OPERANDS[a](T), OPERANDS[b](T)
    if want is None:
        with pytest.raises(RuntimeError):
            call(T, x, y)
        return
    assert call(T, x, y).dtype is DTYPES[want]


TORCH_OPS = {
    **{name: call for name, (call, _) in OPS.items()},
    "floor_divide": lambda L, x, y: x // y,
    "remainder": lambda L, x, y: x % y,
    "pow": lambda L, x, y: x ** y,
    "clamp_min": lambda L, x, y: L.clamp(x, min=y) if hasattr(x, "dtype") else L.clamp(y, min=x),
    "atan2": lambda L, x, y: L.atan2(x, y),
}


def _torch_cases():
    out = []
    for op in TORCH_OPS:
        for a, b in TENSOR_PAIRS:
            if op in TENSOR_ONLY | {"atan2"} and (a in SCALARS or b in SCALARS):
                continue
            out.append(pytest.param(op, a, b, id=f"{op}-{a}-{b}"))
    return out


@pytest.mark.torch
@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_result_type_matches_torch(a, b):
    torch = pytest.importorskip("torch")
    want = torch.result_type(OPERANDS[a](torch), OPERANDS[b](torch))
    assert T.result_type(OPERANDS[a](T), OPERANDS[b](T)).name == str(want).removeprefix("torch.")


@pytest.mark.torch
@pytest.mark.parametrize("op,a,b", _torch_cases())
def test_op_result_matches_torch(op, a, b):
    torch = pytest.importorskip("torch")
    call = TORCH_OPS[op]
    try:
        want = call(torch, OPERANDS[a](torch), OPERANDS[b](torch))
    except (RuntimeError, TypeError) as e:
        with pytest.raises(type(e)):
            call(T, OPERANDS[a](T), OPERANDS[b](T))
        return
    got = call(T, OPERANDS[a](T), OPERANDS[b](T))
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-6)


@pytest.mark.parametrize("expr, expected", [
    (lambda u: u + (-3), [254, 255]), (lambda u: u - 3, [254, 255]), (lambda u: u * 300, [44, 88]),
    (lambda u: (-3) - u, [252, 251]), (lambda u: u.add(-3), [254, 255]), (lambda u: u < -3, [True, True]),
    (lambda u: u == 257, [True, False]), (lambda u: u // -3, [0, 0]),
])
def test_integer_scalars_past_a_dtype_range_wrap_as_pytorch(lib, expr, expected):
    assert expr(lib.tensor([1, 2], dtype=lib.uint8)).tolist() == expected


def test_int32_with_a_scalar_past_its_range_wraps(lib):
    assert (lib.tensor([1, 2], dtype=lib.int32) + 2 ** 40).tolist() == [1, 2]
    assert (lib.tensor([1, 2], dtype=lib.int32) * 2 ** 33).dtype == lib.int32


@pytest.mark.parametrize("call", [
    lambda T: T.full((2,), 300, dtype=T.uint8), lambda T: T.full((2,), -256, dtype=T.uint8),
    lambda T: T.tensor([1, 2], dtype=T.uint8).fill_(300), lambda T: T.tensor([1, 2], dtype=T.int32).fill_(2 ** 31),
    lambda T: T.tensor([1, 2], dtype=T.uint8).masked_fill(T.tensor([True, False]), 256),
])
def test_filling_an_integer_tensor_past_its_range_raises(lib, call):
    with pytest.raises(RuntimeError, match="without overflow"):
        call(lib)


def test_filling_an_unsigned_tensor_with_a_negative_wraps(lib):
    assert lib.full((2,), -1, dtype=lib.uint8).tolist() == [255, 255]
    assert lib.tensor([1, 2], dtype=lib.uint8).masked_fill(lib.tensor([True, False]), -2).tolist() == [254, 2]
