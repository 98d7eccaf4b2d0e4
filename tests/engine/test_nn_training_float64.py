"""Whole training steps against PyTorch in float64, where float32 summation noise cannot hide or fake
a difference: a Conv2d + BatchNorm2d + MaxPool + Linear net trained with Adam (the shape of
yunjey/convolutional_neural_network in the real-code corpus, whose float32 run is chaotic)."""
import numpy as np
import pytest

import gradserve.engine as gs

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _net(T):
    nn = T.nn
    return nn.Sequential(nn.Conv2d(1, 4, 3, 1, 1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Conv2d(4, 6, 3, 1, 1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Flatten(), nn.Linear(6 * 3 * 3, 5))


def test_conv_batchnorm_adam_training_matches_torch_in_float64():
    rng = np.random.default_rng(0)
    images, labels = rng.random((12, 1, 12, 12)), rng.integers(0, 5, 12)
    torch.manual_seed(0)
    theirs = _net(torch).double()
    ours = _net(gs).double()
    ours.load_state_dict({k: gs.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    runs = []
    for T, net in ((torch, theirs), (gs, ours)):
        opt = T.optim.Adam(net.parameters(), lr=1e-3)
        x, y = T.tensor(images), T.tensor(labels)
        for _ in range(3):
            loss = T.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        runs.append((float(loss), {k: v.detach().numpy() for k, v in net.state_dict().items()},
                     {k: p.grad.numpy() for k, p in net.named_parameters()}))
    (loss_t, state_t, grads_t), (loss_g, state_g, grads_g) = runs
    assert loss_g == pytest.approx(loss_t, rel=1e-12)
    for k in state_t:
        # atol 1e-9: the conv biases before BatchNorm have a true gradient of 0, and Adam moves them by
        # lr * noise / eps (noise ~1e-16 here, ~1e-7 in float32, where it decides the step's sign)
        np.testing.assert_allclose(state_g[k], state_t[k], rtol=1e-9, atol=1e-9, err_msg=k)
    for k in grads_t:
        np.testing.assert_allclose(grads_g[k], grads_t[k], rtol=1e-8, atol=1e-12, err_msg=k)
