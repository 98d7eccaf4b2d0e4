"""The CuPy behaviour the engine's device-agnostic code has to live with.

Marked ``gpu``: on a machine with CUDA these run on the real CuPy, elsewhere on the fake in
tests/fakecupy, so the fake's rules are checked against CuPy wherever a GPU is available.
"""
import pickle

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def cp():
    import cupy
    assert cupy.cuda.runtime.getDeviceCount() >= 1
    return cupy


def test_no_implicit_conversion_to_numpy(cp):
    a = cp.arange(3.0)
    for convert in (np.asarray, np.array, lambda x: np.ascontiguousarray(x), lambda x: np.zeros(3) + x):
        with pytest.raises(TypeError):
            convert(a)
    with pytest.raises(TypeError):
        cp.asarray([1.0, 2.0]) + np.ones(2)


def test_explicit_conversion(cp):
    a = cp.asarray(np.array([[1.5, 2.0], [3.0, 4.0]]))
    h = a.get()
    assert type(h) is np.ndarray and h.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    h[0, 0] = 9                                   # a copy: the device array keeps its value
    assert cp.asnumpy(a)[0, 0] == 1.5 and a.tolist()[0][0] == 1.5
    assert cp.asnumpy(np.ones(2)).tolist() == [1.0, 1.0]
    assert a[1, 1].item() == 4.0 and float(a[1, 1]) == 4.0 and int(a[0, 1]) == 2
    assert bool(a[0, 0] > 1) is True


def test_kernels_refuse_host_arrays_but_take_scalars(cp):
    a = cp.arange(3.0)
    with pytest.raises(TypeError):
        cp.add(a, np.ones(3))
    with pytest.raises(TypeError):
        cp.exp(np.ones(3))
    with pytest.raises(TypeError):
        cp.maximum(a, np.array(1.0))             # a 0-d host array is still a host array
    assert (a + np.float32(1)).tolist() == [1.0, 2.0, 3.0]
    assert (2 * a + 1).tolist() == [1.0, 3.0, 5.0]
    with pytest.raises(TypeError):
        cp.concatenate([a, np.ones(2)])


def test_numpy_functions_dispatch_to_cupy(cp):
    a = cp.arange(6.0).reshape(2, 3)
    assert isinstance(np.exp(a), cp.ndarray) and isinstance(np.sum(a, axis=0), cp.ndarray)
    assert isinstance(np.concatenate([a, a]), cp.ndarray)
    assert np.sum(a).item() == 15.0


def test_reductions_and_scalar_indexing_give_0d_device_arrays(cp):
    a = cp.arange(6.0).reshape(2, 3)
    for r in (a.sum(), cp.max(a), a[1, 2], a.mean(), cp.count_nonzero(a), cp.allclose(a, a)):
        assert isinstance(r, cp.ndarray) and r.shape == ()
    assert [x.shape for x in a[0]] == [(), (), ()]      # iteration yields 0-d arrays


def test_a_0d_device_array_is_not_an_index(cp):
    n = cp.asarray(3)
    with pytest.raises(TypeError):
        range(n)
    assert list(range(int(n))) == [0, 1, 2]


def test_dtypes_are_numpy_dtypes(cp):
    assert cp.float32 is np.float32 and cp.dtype is np.dtype
    assert cp.zeros(2, dtype=cp.float32).dtype == np.dtype("float32")
    assert cp.result_type(cp.zeros(1, np.float32), np.float64) == np.float64
    with pytest.raises((ValueError, TypeError)):
        cp.asarray(np.array(["a"], dtype=object))


def test_integer_array_indices_wrap_around(cp):
    a = cp.arange(3) * 10
    assert a[cp.asarray([1, 3, -4])].tolist() == [10, 0, 20]
    assert a[[4]].tolist() == [10]                      # host indices are copied over
    with pytest.raises(IndexError):
        a[5]


def test_assignment_rules(cp):
    a = cp.zeros(3)
    a[1:] = cp.asarray([1.0, 2.0])
    a[0] = np.float64(5)
    a[cp.asarray([0])] = np.array([7.0])          # advanced indexing copies host values over
    assert a.tolist() == [7.0, 1.0, 2.0]
    with pytest.raises(ValueError):
        a[:] = np.ones(3)                          # a basic slice is filled from scalars only
    with pytest.raises(ValueError):
        a[:] = [1.0, 2.0, 3.0]


def test_scatter_add_and_ufunc_at(cp):
    import cupyx
    a = cp.zeros(3)
    cupyx.scatter_add(a, cp.asarray([0, 0, 2]), cp.asarray([1.0, 2.0, 3.0]))
    cp.add.at(a, cp.asarray([1, 1]), 1.0)
    assert a.tolist() == [3.0, 2.0, 3.0]
    with pytest.raises(NotImplementedError):
        cp.multiply.at(a, cp.asarray([0]), 2.0)
    with pytest.raises(NotImplementedError):
        cp.maximum.reduce(a)


def test_reductions_take_cupy_signatures(cp):
    a = cp.arange(3.0)
    with pytest.raises(TypeError):
        a.max(initial=0)
    with pytest.raises(TypeError):
        cp.sum(a, where=a > 0)


def test_special_functions(cp):
    import math

    import cupyx.scipy.special
    x = cp.asarray([-1.0, 0.0, 0.5], dtype=cp.float32)
    y = cupyx.scipy.special.erf(x)
    assert y.dtype == np.float32 and isinstance(y, cp.ndarray)
    np.testing.assert_allclose(y.get(), [math.erf(v) for v in (-1.0, 0.0, 0.5)], rtol=1e-6)
    with pytest.raises(TypeError):
        cupyx.scipy.special.erfc(np.ones(2))


def test_get_array_module_and_pickle(cp):
    a = cp.arange(3)
    assert cp.get_array_module(a) is cp and cp.get_array_module(np.ones(1)) is np
    b = pickle.loads(pickle.dumps(a))
    assert isinstance(b, cp.ndarray) and b.tolist() == [0, 1, 2]
    assert repr(cp.asarray([1.0, 2.0])) == "array([1., 2.])"
    assert a.device.id == 0
