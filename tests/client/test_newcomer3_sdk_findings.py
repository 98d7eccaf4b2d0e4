"""Findings of the newcomer3 pass (tests/newcomer3_log.md) on the client SDK, against a real server."""
import numpy as np
import pytest

from gradserve.client.encoding import encode_tensor

SEQS = """
n = len(seqs)
total = sum(s.sum() for s in seqs)
"""


def test_f2_a_list_of_equal_shape_arrays_is_one_tensor_of_their_dtype(session):
    """``inputs={"x": [a, b]}`` with NumPy arrays is what ``torch.tensor([a, b])`` makes (json could not
    write the arrays: it raised its own ``Object of type ndarray is not JSON serializable``)."""
    a, b = np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)
    r = session.run("y = x * 2", inputs={"x": [a, b]}, outputs=["y"])
    assert r.values["y"].dtype == np.float32 and np.array_equal(r.values["y"], np.stack([a, b]) * 2)
    r = session.run("y = x", inputs={"x": (np.zeros(2), np.ones(2))}, outputs=["y"])
    assert r.values["y"].dtype == np.float64 and r.values["y"].shape == (2, 2)
    session.put("w", [a, b])
    assert np.array_equal(session.get("w"), np.stack([a, b]))


def test_f2_a_list_of_torch_tensors_is_stacked_too(session):
    torch = pytest.importorskip("torch")
    r = session.run("y = x.sum(1)", inputs={"x": [torch.ones(2), torch.zeros(2)]}, outputs=["y"])
    assert np.array_equal(r.values["y"], np.array([2.0, 0.0], dtype=np.float32))


def test_f2_a_ragged_list_of_arrays_says_which_input_and_what_to_send(session):
    seqs = [np.ones((n, 4), dtype=np.float32) for n in (3, 7, 5)]
    with pytest.raises(ValueError) as info:
        session.run(SEQS, inputs={"seqs": seqs}, outputs=["n"])
    message = str(info.value)
    assert message.startswith("input 'seqs': a list of arrays of different shapes ((3, 4), (7, 4), (5, 4))")
    assert "an input of its own" in message and "JSON" not in message
    with pytest.raises(ValueError, match="different shapes"):
        encode_tensor([np.ones(2), np.ones(3)])
    # what the message says to do works
    inputs = {f"s{i}": s for i, s in enumerate(seqs)}
    r = session.run("seqs = [s0, s1, s2]\n" + SEQS, inputs=inputs, outputs=["n", "total"])
    assert r.values["n"] == 3 and float(r.values["total"]) == 60.0


def test_f2_a_list_holding_a_remote_tensor_says_to_use_its_name(session):
    x = session.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="holds a RemoteTensor: use its .name"):
        session.run("y = x", inputs={"x": [x, x]})
