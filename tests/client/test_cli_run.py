"""``gradserve run FILE.py`` on a sample program, against the test server and embedded."""
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

SAMPLE = """\
w = torch.zeros(3, requires_grad=True)
for step in range(5):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad = None
    log(step=step + 1, total=5, loss=loss)
print("final loss", round(loss.item(), 4))
loss = ((x @ w - y) ** 2).mean()
loss.backward()
"""


@pytest.fixture
def sample(tmp_path):
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", x @ np.array([1.0, -2.0, 0.5], dtype=np.float32))
    (tmp_path / "train.py").write_text(SAMPLE)
    return tmp_path


def gradserve(*args, cwd):
    command = [str(Path(sys.executable).with_name("gradserve")), "run", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_run_prints_stdout_values_and_gradients(sample, server_url):
    out = gradserve("train.py", "--input", "x=x.npy", "--input", "y=y.npy", "-o", "w",
                    "-o", "loss", "--url", server_url, cwd=sample)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("final loss ")
    assert lines[1].startswith("w = [") and "float32, shape [3]" in lines[1]
    assert lines[2].startswith("loss = ") and lines[3].startswith("w.grad = [")
    assert "5/5" in out.stderr  # the progress bar followed log(step=..., total=...)


def test_a_pasted_scripts_tqdm_draws_the_progress_bar(tmp_path, server_url):
    # the tutorials' `for t in tqdm(range(epochs))` is the script's only progress report
    (tmp_path / "tq.py").write_text("from tqdm import tqdm\n"
                                    "for epoch in tqdm(range(4), desc='epochs'):\n"
                                    "    print('epoch', epoch)\n")
    out = gradserve("tq.py", "--url", server_url, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:4] == ["epoch 0", "epoch 1", "epoch 2", "epoch 3"]
    assert "epochs" in out.stderr and "4/4" in out.stderr, out.stderr


def test_a_program_error_points_at_the_file_line_and_column(tmp_path, server_url):
    (tmp_path / "bad.py").write_text("a = torch.ones(2)\nb = a + undefined\n")
    out = gradserve("bad.py", "--url", server_url, "--no-progress", cwd=tmp_path)
    assert out.returncode == 1
    assert out.stderr.startswith("bad.py:2:9: NameError:")
    assert "b = a + undefined" in out.stderr and "        ^" in out.stderr


def test_without_a_url_an_embedded_server_runs_the_program(sample):
    out = gradserve("train.py", "-i", "x=x.npy", "-i", "y=y.npy", "--no-progress", cwd=sample)
    assert out.returncode == 0, out.stderr
    assert "final loss" in out.stdout and "w.grad = " in out.stdout


def test_bad_input_spec_is_a_usage_error(tmp_path):
    (tmp_path / "p.py").write_text("a = 1\n")
    out = gradserve("p.py", "--input", "nonsense", cwd=tmp_path)
    assert out.returncode == 2 and "NAME=FILE.npy" in out.stderr


def test_inputs_from_npz_archives_and_clear_errors_for_other_files(tmp_path):
    """Newcomer 1: `--input x=data.npz` and `--input x=w.pt` (torch.save writes a zip, which np.load takes for
    an .npz) ended in a Python traceback, "cannot send an array of dtype <U1 as a tensor". A bare FILE.npz
    binds each array under its name; NAME=FILE.npz takes an archive of one array; other files say what to do."""
    from gradserve.client.cli_run import parse_inputs

    x, y = np.arange(3, dtype=np.float32), np.ones((2, 2), dtype=np.int64)
    np.savez(tmp_path / "xy.npz", x=x, y=y)
    np.savez(tmp_path / "one.npz", x)
    np.save(tmp_path / "s.npy", np.array(["a"]))
    (tmp_path / "junk.npy").write_text("not numpy\n")
    with zipfile.ZipFile(tmp_path / "w.pt", "w") as z:   # the layout of a torch.save file
        z.writestr("w/data.pkl", b"\x80\x02}q\x00.")
        z.writestr("w/data/0", b"\x00" * 12)
    inputs = parse_inputs([str(tmp_path / "xy.npz"), f"z={tmp_path / 'one.npz'}"])
    assert sorted(inputs) == ["x", "y", "z"] and np.array_equal(inputs["y"], y) and np.array_equal(inputs["z"], x)
    for spec, message in [(f"a={tmp_path / 'xy.npz'}", "holds 2 arrays (x, y): pass"),
                          (f"a={tmp_path / 'w.pt'}", "not a NumPy .npz archive"),
                          (f"a={tmp_path / 'junk.npy'}", "not a NumPy .npy or .npz file"),
                          (f"a={tmp_path / 's.npy'}", "an array of dtype <U1 is not a tensor"),
                          (str(tmp_path / "w.pt"), "--input takes NAME=FILE.npy (or FILE.npz")]:
        with pytest.raises(ValueError, match=re.escape(message)):
            parse_inputs([spec])


def test_run_binds_an_npz_archives_arrays_and_refuses_a_torch_file_in_a_line(tmp_path, server_url):
    np.savez(tmp_path / "data.npz", x=np.ones(3, dtype=np.float32), y=np.full(3, 2.0, dtype=np.float32))
    (tmp_path / "p.py").write_text("z = (x * y).sum()\n")
    out = gradserve("p.py", "-i", "data.npz", "--url", server_url, "--no-progress", cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("z = 6."), out.stderr
    with zipfile.ZipFile(tmp_path / "w.pt", "w") as z:
        z.writestr("w/data.pkl", b"\x80\x02}q\x00.")
    out = gradserve("p.py", "-i", "x=w.pt", "--url", server_url, "--no-progress", cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.startswith("gradserve run: ") and "Traceback" not in out.stderr
