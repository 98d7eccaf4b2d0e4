"""``gradserve run --debug FILE`` driven as a terminal program (pexpect over a pty) against a real
server: the prompt, c/s/n/r, p, !, l, w, b with a condition, q, stdout and log lines as they
come, readline history and a post-mortem stop."""
import os
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

PROGRAM = """\
def double(a):
    b = a * 2
    return b

total = 0
for i in range(4):
    total = total + double(i)
    print("iteration", i)
    log(step=i, total=total)
x = torch.ones(2) * total
"""


def _spawn(tmp_path, server_url, *args, program=PROGRAM):
    path = tmp_path / "train.py"
    path.write_text(program)
    env = {**os.environ, "HOME": str(tmp_path), "TERM": "dumb", "PYTHONUNBUFFERED": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "gradserve.client.cli_run", str(path), "--debug",
                                           "--url", server_url, *args],
                          env=env, encoding="utf-8", timeout=60, dimensions=(40, 200))
    return child


def _prompt(child):
    child.expect_exact("(gradserve) ")
    return child.before


def test_prompt_steps_prints_lists_and_continues(tmp_path, server_url):
    child = _spawn(tmp_path, server_url)
    try:
        before = _prompt(child)
        assert "> train.py(1)<module>()" in before and "-> def double(a):" in before
        child.sendline("b 2 a == 2")
        assert "Breakpoint 1 at train.py:2 if a == 2" in _prompt(child)
        child.sendline("c")
        before = _prompt(child)
        assert "iteration 0" in before and "iteration 1" in before and "log: step=1 total=2" in before
        assert "> train.py(2)double()" in before
        child.sendline("p a")
        assert "2" in _prompt(child).splitlines()[-1]
        child.sendline("w")
        before = _prompt(child)
        assert "  train.py(7)<module>()" in before and "> train.py(2)double()" in before
        child.sendline("l")
        before = _prompt(child)
        assert "   2 B-> " in before and "   1     def double(a):" in before
        child.sendline("n")
        assert "> train.py(3)double()" in _prompt(child)
        child.sendline("!b = 100")
        _prompt(child)
        child.sendline("r")
        assert "> train.py(8)<module>()" in _prompt(child)
        child.sendline("p total")
        assert _prompt(child).splitlines()[-1].strip() == "102"
        child.sendline("s")
        before = _prompt(child)
        assert "iteration 2" in before and "> train.py(9)<module>()" in before
        child.sendline("p undefined_name")
        assert "*** NameError: name 'undefined_name' is not defined" in _prompt(child)
        child.sendline("b 4")
        assert "*** line 4 has no code" in _prompt(child)
        child.sendline("cl")
        _prompt(child)
        child.sendline("c")
        child.expect_exact("iteration 3")
        child.expect_exact("x = [")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_history_and_quit(tmp_path, server_url):
    child = _spawn(tmp_path, server_url)
    try:
        _prompt(child)
        child.sendline("p 6 * 7")
        assert _prompt(child).splitlines()[-1].strip() == "42"
        child.send("\x1b[A")          # up arrow: readline brings the last line back
        child.sendline("")
        assert _prompt(child).splitlines()[-1].strip() == "42"
        child.sendline("q")
        child.expect("cancelled")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 1
    assert "p 6 * 7" in (tmp_path / ".gradserve_debug_history").read_text()


def test_post_mortem_then_the_error(tmp_path, server_url):
    program = "def f(a):\n    return a[10]\nv = [1, 2]\nr = f(v)\n"
    child = _spawn(tmp_path, server_url, program=program)
    try:
        _prompt(child)
        child.sendline("c")
        before = _prompt(child)
        assert "*** IndexError" in before and "> train.py(2)f()" in before
        child.sendline("p len(a)")
        assert _prompt(child).splitlines()[-1].strip() == "2"
        child.sendline("c")
        child.expect("train.py:2:[0-9]+: IndexError")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 1


def test_up_and_down_move_the_frame_that_p_bang_l_and_w_look_at(tmp_path, server_url):
    """Newcomer 1: at a post-mortem in a function, `u` (pdb's way to the caller's variables) answered
    "*** NameError: name 'u' is not defined"."""
    program = "def f(a):\n    b = a * 2\n    return b[10]\nv = [1, 2]\nr = f(v)\n"
    child = _spawn(tmp_path, server_url, program=program)
    try:
        _prompt(child)
        child.sendline("c")
        assert "> train.py(3)f()" in _prompt(child)
        child.sendline("u")
        before = _prompt(child)
        assert "> train.py(5)<module>()" in before and "-> r = f(v)" in before
        child.sendline("p len(v) * 10")
        assert _prompt(child).splitlines()[-1].strip() == "20"
        child.sendline("!v = [7]")
        _prompt(child)
        child.sendline("w")
        before = _prompt(child)
        assert "> train.py(5)<module>()" in before and "  train.py(3)f()" in before
        child.sendline("l")
        assert "   5  -> r = f(v)" in _prompt(child)
        child.sendline("u")
        assert "*** Oldest frame" in _prompt(child)
        child.sendline("d")
        assert "> train.py(3)f()" in _prompt(child)
        child.sendline("d")
        assert "*** Newest frame" in _prompt(child)
        child.sendline("p b")
        assert _prompt(child).splitlines()[-1].strip() == "[1, 2, 1, 2]"
        child.sendline("u")
        _prompt(child)
        child.sendline("p v")
        assert _prompt(child).splitlines()[-1].strip() == "[7]"    # the caller's assignment persisted
        child.sendline("q")
        child.expect(pexpect.EOF)
    finally:
        child.close()


def test_break_option_stops_there(tmp_path, server_url):
    child = _spawn(tmp_path, server_url, "--break", "9:i == 3")
    try:
        _prompt(child)
        child.sendline("c")
        before = _prompt(child)
        assert "> train.py(9)<module>()" in before and "iteration 3" in before
        child.sendline("p i")
        assert _prompt(child).splitlines()[-1].strip() == "3"
        child.sendline("c")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_ctrl_c_while_the_run_goes_on_cancels_it_and_exits_130(tmp_path, server_url):
    program = "a = torch.ones(800, 800)\nprint('started')\nfor k in range(1000):\n    b = a @ a\n"
    child = _spawn(tmp_path, server_url, program=program)
    try:
        _prompt(child)
        child.sendline("c")
        child.expect_exact("started")
        child.sendintr()
        child.expect_exact("interrupted; the run was cancelled")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in child.before
