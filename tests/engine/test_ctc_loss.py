"""F.ctc_loss and nn.CTCLoss (engine/nn/ctc_loss.py, from the real-code corpus: GitYCC/crnn-pytorch's
CRNN trained with CTCLoss(reduction='sum', zero_infinity=True)): gradients by finite differences
through the log_softmax that makes the log-probabilities (ATen's gradient is the one through it),
values and gradients against PyTorch for padded and concatenated targets, every reduction, a blank
other than 0, unbatched input and impossible alignments, and PyTorch's errors."""
import numpy as np
import pytest

import gradserve.engine as gs
from op_check import check_gradients, compare_devices, compare_with_torch, torch

needs_torch = [pytest.mark.torch, pytest.mark.skipif(torch is None, reason="PyTorch is not installed")]


def _ctc(targets, input_lengths, target_lengths, **kwargs):
    def fn(T, x):
        t = T.tensor(targets)
        return T.nn.functional.ctc_loss(x.log_softmax(-1), t, T.tensor(input_lengths), T.tensor(target_lengths),
                                        **kwargs)
    return fn


CASES = {
    "padded none": (_ctc([[1, 2, 2], [3, 1, 0], [2, 0, 0]], [6, 5, 4], [3, 2, 1], reduction="none"), [(6, 3, 4)]),
    "padded mean": (_ctc([[1, 2, 2], [3, 1, 0], [2, 0, 0]], [6, 5, 4], [3, 2, 0]), [(6, 3, 4)]),
    "concatenated sum": (_ctc([1, 2, 3, 3, 1], [5, 4], [3, 2], reduction="sum"), [(5, 2, 4)]),
    "blank last": (_ctc([[0, 1], [2, 2]], [4, 4], [2, 2], blank=3, reduction="sum"), [(4, 2, 4)]),
    "repeats need a blank": (_ctc([[1, 1, 1]], [5], [3], reduction="none"), [(5, 1, 3)]),
    "unbatched": (_ctc([1, 2], 4, 2), [(4, 3)]),
    "zero_infinity": (_ctc([[1, 1, 1], [1, 2, 0]], [2, 5], [3, 2], reduction="sum", zero_infinity=True),
                      [(5, 2, 3)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_match_finite_differences(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes, second_order=False)   # ATen's CTC gradient is not differentiable either


@pytest.mark.parametrize("name", [pytest.param(n, marks=needs_torch) for n in CASES])
def test_values_and_gradients_match_torch(name):
    fn, shapes = CASES[name]
    compare_with_torch(fn, shapes, rtol=1e-10, atol=1e-12)


def test_impossible_alignments_and_the_module(lib):
    lp = lib.zeros(3, 2, 4).log_softmax(-1)
    loss = lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 1, 1], [1, 2, 3]]), [2, 3], [3, 3], reduction="none")
    assert loss[0].item() == float("inf") and abs(loss[1].item() - 3 * np.log(4)) < 1e-6
    crit = lib.nn.CTCLoss(reduction="sum", zero_infinity=True)
    x = lib.zeros(3, 2, 4, requires_grad=True)
    out = crit(x.log_softmax(2), lib.tensor([1, 1, 1, 1, 2, 3], dtype=lib.int32), lib.tensor([2, 3]),
               lib.tensor([3, 3]))
    out.backward()
    assert abs(out.item() - 3 * np.log(4)) < 1e-5
    assert x.grad[:, 0].abs().sum().item() == 0 and x.grad[:, 1].abs().sum().item() > 0
    assert crit.blank == 0 and crit.zero_infinity is True


ERRORS = [
    (lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), T.tensor([6, 5]), T.tensor([2, 2])),
     RuntimeError, "Expected input_lengths to have value at most 5, but got value 6 (while checking arguments for "
     "ctc_loss_allocate_outputs)"),
    (lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), T.tensor([5, 5]), T.tensor([3, 2])),
     RuntimeError, "Expected tensor to have size at least 3 at dimension 1, but got size 2 for argument #2 'targets' "
     "(while checking arguments for ctc_loss_allocate_outputs)"),
    (lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], blank=4),
     RuntimeError, "blank must be in label range"),
    (lambda T, lp: T.nn.functional.ctc_loss(lp[0, 0], T.tensor([1]), [1], [1]), RuntimeError,
     "Expected 3-dimensional tensor, but got 2-dimensional tensor for argument #1 'log_probs' (while checking "
     "arguments for ctc_loss_allocate_outputs)"),
    (lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5], [2, 2]), RuntimeError,
     "input_lengths must be of size batch_size"),
    (lambda T, lp: T.nn.functional.ctc_loss(lp.long(), T.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2]),
     NotImplementedError, "\"ctc_loss_cpu\" not implemented for 'Long'"),
    (lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, 5], [-1, 2]), RuntimeError,
     "Expected target_lengths to have value at least 0, but got value -1 (while checking arguments for "
     "ctc_loss_allocate_outputs)"),
]


@pytest.mark.parametrize("fn, kind, message", [pytest.param(f, k, m, id=m[:50]) for f, k, m in ERRORS])
def test_errors_match_torch(lib, fn, kind, message):
    with pytest.raises(kind) as info:
        fn(lib, lib.zeros(5, 2, 4).log_softmax(2))
    assert str(info.value) == message


def test_a_label_out_of_range_is_refused_not_read():
    # PyTorch's CPU kernel reads past the class dimension here; the engine refuses it
    with pytest.raises(RuntimeError, match=r"target label 7 is out of the label range \[0, 4\)"):
        gs.nn.functional.ctc_loss(gs.zeros(5, 2, 4), gs.tensor([[1, 7], [1, 1]]), [5, 5], [2, 2])


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(CASES))
def test_on_cuda_matches_the_cpu(name):
    # the recursions run on the host; the loss and its gradient come back on the log-probabilities' device
    fn, shapes = CASES[name]
    compare_devices(fn, shapes)


def test_samples_and_time_steps_count_as_program_steps():
    from gradserve.engine.autograd.state import state
    charged = []
    prev = state.charge
    state.charge = charged.append
    try:
        x = gs.zeros(5, 3, 4, requires_grad=True)
        loss = gs.nn.functional.ctc_loss(x.log_softmax(2), gs.tensor([[1], [2], [3]]), [5, 5, 5], [1, 1, 1])
        forward = sum(charged)
        loss.backward()
    finally:
        state.charge = prev
    assert forward == 3 + 4          # a step a sample, then one a time step past the first
    assert sum(charged) - forward == 5   # the backward recursion: one a time step
