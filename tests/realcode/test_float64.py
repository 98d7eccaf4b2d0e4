"""The corpus scripts whose float32 values are left to rounding (an xfail or a wider tolerance, their
headers say why) really are: run in float64 from the same recorded weights, the engine gives PyTorch's
values, so any op on their path that departed from PyTorch would show here."""
import pytest

import float64
import harness

pytest.importorskip("torch")

# script -> (the largest relative difference allowed, the magnitude below which a value is float64
# noise on both sides: a gradient that is zero in exact arithmetic, and what Adam moves by it)
DRIFT = {
    "akamaster/resnet_trainer": (1e-12, 0.0),
    "antixk/vanilla_vae": (1e-9, 1e-15),
}


@pytest.mark.parametrize("script_id", sorted(DRIFT))
def test_float64_runs_agree(script_id):
    rtol, noise = DRIFT[script_id]
    script = harness.load_script(harness.SCRIPTS / (script_id + ".py"))
    expected = harness.load_expected(script)
    runs = {lib: float64.run_float64(script, expected, lib) for lib in ("torch", "gradserve.engine")}
    assert all(r.ok for r in runs.values()), {lib: r.describe() for lib, r in runs.items()}
    rows = float64.differences(runs["gradserve.engine"], runs["torch"])
    assert len(rows) > 20
    apart = [(name, rel) for name, rel, scale in rows
             if rel > rtol and scale > noise and not harness.is_shape_only(script, name.removesuffix(".grad"))]
    assert not apart, apart[:5]


def test_a_difference_shows():
    got = harness.Result(True, values={"w": [1.0, 2.0]}, grads={"w": [0.5, 0.0]})
    want = harness.Result(True, values={"w": [1.0, 2.0 + 1e-3]}, grads={"w": [0.5, 0.0]})
    rows = float64.differences(got, want)
    assert rows[0][0] == "w" and rows[0][1] == pytest.approx(1e-3 / 2.001)
    assert rows[1] == ("w.grad", 0.0, 0.5)
