"""GPU tests: on a CUDA device through the real CuPy when there is one, otherwise on the fake.

The fake (tests/fakecupy, a NumPy-backed ``cupy`` that refuses implicit conversion to NumPy as
CuPy does) stands in only when CuPy is not installed, and has a device only inside tests marked
``gpu`` (the switch ``FAKECUPY_DEVICES=1``, inherited by servers those tests start): every other
test sees a machine without CUDA, as before. ``GRADSERVE_FAKE_CUPY=0`` turns the fake off, and the
gpu tests are skipped again without a real device.
"""
import contextlib
import importlib.util
import os
import sys
from pathlib import Path

import pytest

FAKE_CUPY_DIR = str(Path(__file__).resolve().parent / "fakecupy")
FAKE_CUPY = os.environ.get("GRADSERVE_FAKE_CUPY", "1") != "0" and importlib.util.find_spec("cupy") is None
if FAKE_CUPY:
    sys.path.insert(0, FAKE_CUPY_DIR)


def _cuda_available():
    if FAKE_CUPY:
        return True
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def pytest_report_header(config):
    if FAKE_CUPY:
        return "gpu tests: on the fake CuPy (tests/fakecupy), no CUDA device"
    return None


def pytest_collection_modifyitems(config, items):
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device and CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _forget_cuda():
    """The engine looks CuPy up once; make it look again after the switch changed."""
    device = sys.modules.get("gradserve.engine.device")
    if device is not None:
        device._cupy, device._cupy_checked = None, False


@contextlib.contextmanager
def _fake_device_on():
    saved = {k: os.environ.get(k) for k in ("FAKECUPY_DEVICES", "PYTHONPATH")}
    os.environ["FAKECUPY_DEVICES"] = "1"
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (FAKE_CUPY_DIR, saved["PYTHONPATH"]) if p)
    _forget_cuda()
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        _forget_cuda()


@pytest.fixture(autouse=True)
def _fake_cuda_device(request):
    if not FAKE_CUPY or request.node.get_closest_marker("gpu") is None:
        yield
        return
    with _fake_device_on():
        yield


@pytest.fixture(scope="module")
def cuda_device():
    """The CUDA device for a module-scoped fixture of gpu tests (a server they share): the fake's
    switch turned on for the module where the fake stands in, nothing to do on a real GPU."""
    if not FAKE_CUPY:
        yield
        return
    with _fake_device_on():
        yield


def pytest_configure(config):
    # Under xdist each worker is a process of its own: one BLAS thread each, so `-n 2` runs two
    # threads on the two cores instead of four contending for them (the session processes that test
    # servers start already run one BLAS thread each: worker_threads).
    if os.environ.get("PYTEST_XDIST_WORKER"):
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            return
        threadpool_limits(1)
