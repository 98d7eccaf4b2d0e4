"""Fixtures shared by the engine tests.

``lib`` runs a test once on gradserve.engine and, when PyTorch is installed,
once more on torch itself: the same assertions then check that the behaviour
under test is PyTorch's.
"""
import pytest

import gradserve.engine as gs

try:
    import torch
except ImportError:  # the suite passes without PyTorch
    torch = None


@pytest.fixture(params=[
    pytest.param("gradserve", id="gradserve"),
    pytest.param("torch", id="torch", marks=[
        pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]),
])
def lib(request):
    return gs if request.param == "gradserve" else torch

