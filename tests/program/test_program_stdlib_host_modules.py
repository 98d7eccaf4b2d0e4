"""Program-side ``sys``, ``os`` / ``os.path``, ``types``, ``pprint``, ``struct``, ``json`` and ``statistics`` (SPEC
section 2): what scripts use of them, compared with CPython where CPython's answer does not
depend on the host, and kept from the host where it would (files, environment, interpreter)."""
import io
import os as host_os
import textwrap

import pytest

from gradserve.engine.program import Namespace, run

from python_oracle import assert_same_as_python, program_stdout


# --------------------------------------------------------------------------- sys
def test_sys_constants_match_cpython():
    assert_same_as_python("""
    import sys
    print(sys.maxsize, sys.byteorder, sys.version_info >= (3, 6), sys.version_info < (3, 6))
    print(sys.version_info.major, sys.version_info[:2] == (sys.version_info.major, sys.version_info.minor))
    print(sys.float_info.epsilon, sys.float_info.max, sys.float_info.dig, sys.hexversion > 0x03000000)
    print(sys.version.startswith(f"{sys.version_info.major}.{sys.version_info.minor}"))
    """)


def test_sys_argv_is_the_interactive_interpreters_and_exit_raises_systemexit():
    out = program_stdout("""
    import sys
    print(sys.argv, len(sys.argv), sys.argv[1:])
    try:
        sys.exit(3)
    except SystemExit as e:
        print("caught", e.code if hasattr(e, "code") else e)
    try:
        sys.exit("bye")
    except BaseException as e:
        print(type(e).__name__, e)
    """)
    assert out.splitlines()[0] == "('',) 1 ()"
    assert out.splitlines()[2] == "SystemExit bye"


def test_sys_exit_uncaught_ends_the_program_with_systemexit(run_err):
    e = run_err("import sys\nx = 1\nsys.exit(2)\ny = 2\n")
    assert e.type == "SystemExit" and e.line == 3


def test_sys_streams_write_to_the_programs_output():
    out = program_stdout("""
    import sys
    n = sys.stdout.write("a\\n")
    sys.stderr.write("b\\n")
    print("c", file=sys.stdout)
    print("d", 1, file=sys.stderr, flush=True)
    sys.stdout.flush()
    sys.stdout.writelines(["e", "f\\n"])
    print(n, sys.stdout.isatty())
    """)
    assert out == "a\nb\nc\nd 1\nef\n2 False\n"


@pytest.mark.parametrize("src, kind", [
    ("import sys\nsys.stdout.write(5)", "TypeError"),
    ("import sys\nclass S(str): pass\nsys.stdout.write(S('x'))", "TypeError"),
    ("print('x', file=object())", "TypeError"),
    ("import sys\nx = sys.modules", "AttributeError"),
    ("import sys\nx = sys.path", "AttributeError"),
    ("import sys\nx = sys._getframe", "AttributeError"),
    ("import sys\nx = sys.settrace", "AttributeError"),
    ("import sys\nx = sys.setrecursionlimit", "AttributeError"),
    ("import sys\nsys.argv = ['a', 'b']", "AttributeError"),
    ("import sys\ntype(sys.version_info).major = 5", "AttributeError"),
    ("import sys\nsys.stdout.write = print", "AttributeError"),
    ("import sys\nx = sys.stdout.buffer", "AttributeError"),
])
def test_sys_refuses_the_host_interpreter(run_err, src, kind):
    assert run_err(src).type == kind


def test_sys_stdout_write_is_bounded_by_the_output_limit(run_err, small_limits):
    e = run_err("import sys\nfor i in range(10000):\n    sys.stdout.write('x' * 1000)\n", limits=small_limits)
    assert e.type == "LimitExceeded"


def test_sys_version_info_cannot_be_changed_for_other_sessions():
    run("import sys\ntry:\n    sys.version_info.major = 2\nexcept AttributeError:\n    pass\n", Namespace())
    assert program_stdout("import sys\nprint(sys.version_info.major)") == "3\n"


# --------------------------------------------------------------------------- os
def test_os_path_string_functions_match_cpython():
    assert_same_as_python("""
    import os
    import os.path
    from os.path import join, basename
    print(os.path.join("data", "cora", "cora.content"), join("/a", "/b", "c"), join("a/", "b"), join("a", ""))
    print(os.path.split("/x/y/z.txt"), os.path.splitext("a/b.tar.gz"), basename("/x/y.py"), os.path.dirname("/x/y"))
    print(os.path.normpath("a//b/../c/./d"), os.path.isabs("/a"), os.path.isabs("a"), os.sep, os.pathsep, os.name)
    print(os.path.commonprefix(["/usr/lib", "/usr/local"]), os.curdir, os.pardir, repr(os.linesep))
    """)


def test_os_has_no_files_and_an_empty_environment():
    assert "PATH" in host_os.environ   # the host has an environment and these files; programs never see them
    out = program_stdout("""
    import os
    from os.path import exists
    print(exists("/"), exists("/etc/passwd"), os.path.isfile("/etc/passwd"), os.path.isdir("/tmp"), exists(__file__ if False else "."))
    print("PATH" in os.environ, os.environ.get("PATH"), os.environ.get("HOME", "none"), os.getenv("PATH", "d"))
    print(len(os.environ), list(os.environ), dict(os.environ.items()), os.environ.copy(), bool(os.environ))
    try:
        os.environ["PATH"]
    except KeyError as e:
        print("KeyError", e)
    """)
    assert out == ("False False False False False\nFalse None none d\n0 [] {} {} False\nKeyError 'PATH'\n")


def test_os_environ_is_the_sessions_own():
    """Scripts set variables at their top (vgae_pytorch's `os.environ['CUDA_VISIBLE_DEVICES'] = ""`):
    a session has its own environment, as CPython's mapping behaves, never the host's."""
    src = """
    import os
    os.environ['CUDA_VISIBLE_DEVICES'] = ""
    os.environ.setdefault('KMP_DUPLICATE_LIB_OK', 'TRUE')
    os.environ.update({'A': '1'}, B='2')
    print(sorted(os.environ.items()), len(os.environ), 'A' in os.environ, os.getenv('B'), os.environ.get('C', 'c'))
    print(os.environ.pop('A'), os.environ.pop('A', 'gone'), sorted(os.environ), bool(os.environ))
    del os.environ['B']
    print(sorted(os.environ.copy().items()), os.environ['CUDA_VISIBLE_DEVICES'] == '')
    """
    host_before = dict(host_os.environ)
    out = program_stdout(src)
    assert out == ("[('A', '1'), ('B', '2'), ('CUDA_VISIBLE_DEVICES', ''), ('KMP_DUPLICATE_LIB_OK', 'TRUE')] 4 True 2 c\n"
                   "1 gone ['B', 'CUDA_VISIBLE_DEVICES', 'KMP_DUPLICATE_LIB_OK'] True\n"
                   "[('CUDA_VISIBLE_DEVICES', ''), ('KMP_DUPLICATE_LIB_OK', 'TRUE')] True\n")
    assert dict(host_os.environ) == host_before
    ns1, ns2 = Namespace(), Namespace()
    assert run("import os\nos.environ['X'] = 'one'", ns1).ok
    assert run("import os\nseen = os.environ.get('X')\nn = len(os.environ)", ns2).ok
    assert ns2.get("seen") is None and ns2.get("n") == 0
    assert run("again = os.environ['X']", ns1).ok and ns1.get("again") == "one"


@pytest.mark.parametrize("src, kind", [
    ("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = 0", "TypeError"),
    ("import os\nos.environ[1] = 'b'", "TypeError"),
    ("import os\nos.environ.setdefault('A', None)", "TypeError"),
    ("import os\ndel os.environ['PATH']", "KeyError"),
    ("import os\nos.environ.pop('PATH')", "KeyError"),
    ("import os\nos.makedirs('images', exist_ok=True)", "AttributeError"),
    ("import os\nos.listdir('.')", "AttributeError"),
    ("import os\nos.system('true')", "AttributeError"),
    ("import os\nos.remove('x')", "AttributeError"),
    ("import os\nx = os.getcwd()", "AttributeError"),
    ("import os\nx = os.urandom(4)", "AttributeError"),
    ("import os\nx = os.path.abspath('.')", "AttributeError"),
    ("import os\nx = os.path.expanduser('~')", "AttributeError"),
    ("import os\nx = os.path.getsize('/etc/passwd')", "AttributeError"),
    ("import os\nos.path = None", "AttributeError"),
    ("import os\nx = os.path.join('a', 1)", "TypeError"),
    ("import os\nx = os.path.exists(3)", "TypeError"),
    ("import os\nx = os.getenv(3)", "TypeError"),
])
def test_os_refuses_files_processes_and_the_environment(run_err, src, kind):
    assert run_err(src).type == kind


def test_shutil_is_importable_and_has_no_files(run_err):
    # y0ast/Glow-PyTorch's train.py imports shutil beside os and json for its output folder, and never calls it
    assert program_stdout("import os, shutil\nprint(shutil)\n") == "<module 'shutil'>\n"
    for call in ("shutil.rmtree('/tmp')", "shutil.copy('/etc/passwd', 'x')", "shutil.which('sh')"):
        e = run_err(f"import shutil\n{call}\n")
        assert e.type == "AttributeError" and "programs cannot read or write files" in e.message
    assert run_err("import shutil\nx = shutil.os\n").type == "AttributeError"


def test_os_path_takes_only_plain_strings(run_err):
    e = run_err("""
import os
called = []
class P:
    def __str__(self):
        called.append(1)
        return "x"
try:
    os.path.join(P(), "a")
except TypeError:
    pass
try:
    os.path.exists(P())
except TypeError:
    pass
try:
    os.path.join("a", P())
except TypeError:
    pass
assert not called
raise ValueError("end")
""")
    assert e.type == "ValueError" and "end" in e.message


def test_os_path_join_checks_the_string_limit_first(run_err, small_limits):
    e = run_err("import os\ns = 'x' * 600000\np = os.path.join(s, s)\n", limits=small_limits)
    assert e.type == "LimitExceeded"


# --------------------------------------------------------------------------- types
def test_simple_namespace_matches_cpython():
    assert_same_as_python("""
    import types
    ns = types.SimpleNamespace(a=1, b=[1, 2], c="x")
    ns.d = {"k": (1, 2)}
    ns.a += 1
    print(ns, ns.a, ns.d["k"], hasattr(ns, "e"), getattr(ns, "e", None))
    print(ns == types.SimpleNamespace(a=2, b=[1, 2], c="x", d={"k": (1, 2)}), ns == types.SimpleNamespace(a=2))
    print(types.SimpleNamespace(**{"x": 1}, y=2), types.SimpleNamespace())
    del ns.c
    print(ns)
    """)


def test_simple_namespace_repr_runs_program_repr_in_the_interpreter(run_err, small_limits):
    out = program_stdout("""
    import types
    class V:
        def __repr__(self):
            return "V!"
    ns = types.SimpleNamespace(v=V())
    ns.me = ns
    print(repr(ns))
    """)
    assert out == "namespace(v=V!, me=namespace(...))\n"
    e = run_err("""
import types
class V:
    def __repr__(self):
        while True:
            pass
x = repr(types.SimpleNamespace(v=V()))
""", limits=small_limits)
    assert e.type == "LimitExceeded"


def test_simple_namespace_takes_a_mapping_or_pairs_as_python_3_13_does():
    assert program_stdout("import types\nprint(types.SimpleNamespace({'x': 1}, y=2), types.SimpleNamespace([('p', 3)]))"
                          ) == "namespace(x=1, y=2) namespace(p=3)\n"


def test_simple_namespace_refuses_private_names(run_err):
    assert run_err("import types\nns = types.SimpleNamespace(**{'_x': 1})").type == "TypeError"
    assert run_err("import types\nns = types.SimpleNamespace()\nns._x = 1").type == "AttributeError"
    assert run_err("import types\nns = types.SimpleNamespace(**{'__class__': 1})").type == "TypeError"


# --------------------------------------------------------------------------- pprint
def test_pprint_lays_out_as_cpython():
    assert_same_as_python("""
    from pprint import pprint, pformat, pp
    import pprint as pprint_module
    from collections import OrderedDict
    data = {"weights": list(range(40)), "name": "x" * 70, "nested": {"b": (1, 2, 3) * 10, "a": [{"k": "v" * 30}] * 3},
            "set": set(range(30)), "empty": {}, "t1": (1,), "f": 1.5, "n": None}
    pprint(data)
    pprint(data, width=40, indent=4)
    pprint(data, depth=2)
    pprint(list(range(60)), compact=True)
    pp({"z": 1, "a": 2})
    print(pformat({"z": 1, "a": 2}, sort_dicts=False), pformat(10**8, underscore_numbers=True))
    pprint(OrderedDict([("weight", [0.5] * 20), ("bias", [0.25] * 10)]))
    pprint(OrderedDict())
    print(pprint_module.saferepr([1, {"b": 2, "a": 1}]), pprint_module.isreadable([1, 2]))
    printer = pprint_module.PrettyPrinter(width=20)
    print(printer.pformat(list(range(10))))
    """)


def test_pprint_recursion_and_program_reprs():
    out = program_stdout("""
    import pprint
    a = [1, 2]
    a.append(a)
    print(pprint.isrecursive(a))
    pprint.pprint(a)
    class P:
        def __repr__(self):
            return "P()"
    pprint.pprint({"p": [P()] * 30})
    """)
    lines = out.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("[1, 2, <Recursion on list with id=") and lines[1].endswith(">]")
    assert lines[2] == "{'p': [P(),"


def test_pprint_of_a_state_dict():
    out = program_stdout("""
    import torch
    from pprint import pprint
    torch.manual_seed(0)
    model = torch.nn.Linear(1, 1)
    with torch.no_grad():
        model.weight.fill_(0.5)
        model.bias.fill_(0.25)
    pprint(model.state_dict())
    """)
    assert out == "OrderedDict([('weight', tensor([[0.5000]])), ('bias', tensor([0.2500]))])\n"


@pytest.mark.parametrize("src", [
    "import pprint\na = []\nfor i in range(5000):\n    a = [a]\ns = pprint.pformat(a)\n",
    "import pprint\ns = pprint.pformat(['x' * 1000] * 2000)\n",
    "import pprint\nclass R:\n    def __repr__(self):\n        while True:\n            pass\npprint.pprint([R()])\n",
])
def test_pprint_is_bounded(run_err, small_limits, src):
    e = run_err(src, limits=small_limits)
    assert e.type == "LimitExceeded"


def test_pprint_refuses_streams_other_than_the_output(run_err):
    assert run_err("import pprint\npprint.pprint(1, stream=[])").type == "TypeError"
    assert run_err("import pprint\npprint.pprint(1, width=0)").type == "ValueError"


# --------------------------------------------------------------------------- struct
def test_struct_matches_cpython():
    assert_same_as_python("""
    import struct
    header = struct.pack("iiiiiii", 64, 172, 2, 4, 4, 320, 64)
    print(header, len(header), struct.calcsize("iiiiiii"), struct.calcsize("<3fq?"))
    print(struct.unpack("iiiiiii", header), struct.pack("<f", 0.1), struct.pack("3f", *[0.5, 1.5, 2.5]))
    print(struct.unpack("<2h", b"\\x01\\x00\\xff\\xff"), struct.pack("4s?", b"ab", True))
    print(list(struct.iter_unpack("<h", b"\\x01\\x00\\x02\\x00")))
    try:
        struct.pack("i", 2**40)
    except struct.error as e:
        print("error", e)
    try:
        struct.unpack("i", b"abc")
    except Exception as e:
        print(type(e).__name__, e)
    """)


def test_struct_sizes_are_checked_before_building(run_err, small_limits):
    e = run_err("import struct\nb = struct.pack('1000000000x')\n", limits=small_limits)
    assert e.type == "LimitExceeded"
    e = run_err("import struct\nb = struct.calcsize('99999999999999999999i')\n")
    assert e.type == "error" and "too long" in e.message


def test_struct_takes_numbers_and_bytes_only(run_err):
    out = program_stdout("""
    import struct
    import numpy as np
    class N:
        pass
    for fmt, v in (("i", N()), ("f", N()), ("f", "1.0"), ("i", [1])):
        try:
            struct.pack(fmt, v)
        except struct.error as e:
            print("error")
    print(struct.pack("<f", np.float32(0.5)) == struct.pack("<f", 0.5))
    """)
    assert out == "error\n" * 4 + "True\n"
    assert run_err("import struct\nstruct.unpack('i', [1, 2, 3, 4])").type == "TypeError"


# --------------------------------------------------------------------------- json
def test_json_dumps_and_loads_match_cpython():
    # uvadlc's notebooks import json for the configs their models keep (self.config dicts)
    assert_same_as_python("""
    import json
    import numpy as np
    from collections import OrderedDict
    cfg = {"act_fn": {"name": "ReLU", "alpha": 0.1}, "hidden_sizes": [512, 256], "n": None, "ok": True,
           3: 1.5, "t": (1, 2), 2.5: "x", False: 0}
    print(json.dumps(cfg))
    print(json.dumps(cfg, indent=2), json.dumps(cfg, indent="\t"))
    print(json.dumps([1.5, float("nan"), "é", -0.0], ensure_ascii=False), json.dumps({"a": [1, 2]}, separators=(",", ":")))
    print(json.dumps(OrderedDict(b=1, a=2), sort_keys=True), json.dumps(np.float64(2.5)))
    print(json.loads('{"a": [1, 2.5, null, true, 1e400], "b": {"c": "d\\u00e9"}}'), json.loads(b'[1]'))
    print(json.loads('[1, 2.5]', parse_float=lambda s: "F" + s, parse_int=lambda s: int(s) * 10))
    print(json.loads('{"a": 1, "b": 2, "a": 3}', object_pairs_hook=lambda p: list(reversed(p))))
    print(json.loads('{"a": {"x": 1}, "b": 2}', object_hook=lambda d: sorted(d)))
    print(json.loads('[NaN, -Infinity]', parse_constant=lambda c: c.lower()))
    print(json.dumps({"k": object()}, default=lambda o: ["obj"]), json.dumps({(1,): 1, "a": 2}, skipkeys=True))
    for bad in ('{"a": }', '[1,\\n 2', '', '{"a" 1}'):
        try:
            json.loads(bad)
        except json.JSONDecodeError as e:
            print(type(e).__name__, isinstance(e, ValueError), e.msg, e.pos, e.lineno, e.colno, str(e))
    for bad in ([np.float32(1.5)], {(1, 2): 3}, [np.int64(1)], {"a": {1, 2}}):
        try:
            print(json.dumps(bad))
        except TypeError as e:
            print("TypeError", e)
    x = []
    x.append(x)
    try:
        json.dumps(x)
    except ValueError as e:
        print("ValueError", e)
    """)


def test_json_calls_a_programs_default_through_the_interpreter_and_nothing_else(run_err):
    # a program's object is never read by the host: its items/__iter__/__str__ are not called, only default()
    out = program_stdout("""
    import json
    class Config:
        def items(self):
            raise RuntimeError("items called")
        def __iter__(self):
            raise RuntimeError("iter called")
        def __str__(self):
            raise RuntimeError("str called")
    calls = []
    def default(o):
        calls.append(type(o).__name__)
        return {"made": 1}
    print(json.dumps({"c": Config(), "n": [Config()]}, default=default), calls)
    try:
        json.dumps(Config())
    except TypeError as e:
        print(e)
    """)
    assert out == ('{"c": {"made": 1}, "n": [{"made": 1}]} [\'Config\', \'Config\']\n'
                   "Object of type Config is not JSON serializable\n")
    e = run_err("import json\ndef default(o):\n    return [o]\njson.dumps(object(), default=default)")
    assert e.type == "LimitExceeded" or e.type == "RecursionError"
    assert run_err("import json\njson.dump({}, None)").type == "AttributeError"
    assert run_err("import json\njson.loads(3)").type == "TypeError"


def test_json_is_bounded(run_err, small_limits):
    deep = "[" * 100_000 + "]" * 100_000
    e = run_err(f"import json\nx = json.loads('{deep}')", limits=small_limits)
    assert e.type in ("LimitExceeded", "RecursionError")
    e = run_err("import json\ns = json.dumps(list(range(300000)))", limits=small_limits)
    assert e.type == "LimitExceeded"


# --------------------------------------------------------------------------- statistics
def test_statistics_match_cpython():
    # uvadlc's meta-learning notebook: from statistics import mean, stdev (of its test accuracies)
    assert_same_as_python("""
    import statistics
    from statistics import mean, stdev
    import numpy as np
    accs = [0.5, 0.75, 0.625, 0.8125]
    print(mean(accs), stdev(accs), statistics.pstdev(accs), statistics.variance(accs, 0.7), statistics.pvariance(accs))
    print(mean([1, 2, 4]), mean(x * 2 for x in range(5)), statistics.fmean([1, 2], weights=[1, 3]))
    print(statistics.median([3, 1, 2, 5]), statistics.median_low([3, 1, 2, 5]), statistics.median_high([3, 1, 2, 5]))
    print(statistics.mode(["a", "b", "a"]), statistics.multimode([1, 1, 2, 2, 3]), statistics.quantiles(range(1, 11), n=4))
    print(statistics.geometric_mean([1, 2, 4]), statistics.harmonic_mean([1, 2, 4]), mean([np.float64(1.5), 2.5]))
    for bad in ([], [1]):
        try:
            stdev(bad)
        except statistics.StatisticsError as e:
            print(type(e).__name__, isinstance(e, ValueError), e)
    try:
        mean([1, "a"])
    except TypeError as e:
        print("TypeError", e)
    """)


def test_statistics_never_reads_a_programs_objects(run_err):
    e = run_err("import statistics\nclass N:\n    def __float__(self):\n        return 1.0\nstatistics.mean([N(), N()])")
    assert e.type == "TypeError" and "N" in e.message


# --------------------------------------------------------------------------- tqdm
def test_tqdm_iterates_what_it_wraps():
    out = program_stdout("""
    from tqdm.auto import tqdm
    import tqdm as tq
    from tqdm import trange
    total = 0
    for i in tqdm(range(5), desc="epochs", leave=False):
        total += i
    bar = tq.tqdm(total=10)
    bar.update(3)
    bar.set_description("d")
    bar.set_postfix(loss=1.0)
    bar.close()
    with tqdm([1, 2]) as t:
        for v in t:
            total += v
    for j in trange(3):
        total += j
    def gen():
        yield 7
    tqdm.write("written")
    it = tqdm(range(4))
    print(total, bar.n, bar.total, len(it), list(tqdm(gen())), it.n, [x for x in it], it.n)
    """)
    assert out == "written\n16 3 10 4 [7] 0 [0, 1, 2, 3] 4\n"


def _logs(src):
    out = run(textwrap.dedent(src), Namespace())
    assert out.ok, out.error
    return out.logs


def test_tqdm_reports_its_progress_as_log_events():
    # a pasted script's tqdm is its only progress report: it reaches the caller as log(step, total, ...)
    # events (the client's bar, `gradserve run`, the viewer), the first state, then at most one per
    # mininterval, and always the last
    logs = _logs("""
    from tqdm import tqdm, trange
    for i in tqdm(range(5), desc="train"):
        pass
    bar = trange(3, mininterval=0)
    for i in bar:
        bar.set_description(f"epoch {i}")
        bar.set_postfix(loss=torch.tensor(0.5) / (i + 1), lr=0.1, note="ok", skipped=[1, 2])
    with tqdm(total=10) as t:
        t.update(4)
        t.update(6)
    """)
    assert logs[:2] == [{"step": 0, "total": 5, "desc": "train"}, {"step": 5, "total": 5, "desc": "train"}]
    assert logs[2] == {"step": 0, "total": 3}
    assert logs[3] == {"step": 0, "total": 3, "desc": "epoch 0"}
    assert logs[4] == {"step": 0, "total": 3, "desc": "epoch 0", "loss": 0.5, "lr": 0.1, "note": "ok"}
    assert logs[-3] == {"step": 3, "total": 3, "desc": "epoch 2", "loss": pytest.approx(0.5 / 3), "lr": 0.1,
                        "note": "ok"}
    assert logs[-2:] == [{"step": 0, "total": 10}, {"step": 10, "total": 10}]


def test_tqdm_counts_as_tqdm_does_and_one_bar_reports_at_a_time():
    tqdm_host = pytest.importorskip("tqdm")
    seen = []
    bar = tqdm_host.tqdm(range(3), file=io.StringIO(), mininterval=0, miniters=1)   # (else its n lags)
    for i in bar:
        seen.append(bar.n)
    seen.append(bar.n)
    out = program_stdout("""
    from tqdm import tqdm
    bar = tqdm(range(3))
    seen = []
    for i in bar:
        seen.append(bar.n)
    seen.append(bar.n)
    print(seen)
    """)
    assert out == f"{seen}\n"
    logs = _logs("""
    from tqdm import tqdm
    for epoch in tqdm(range(2), desc="epochs", mininterval=0):
        for batch in tqdm(range(4), desc="batches", leave=False, mininterval=0):
            pass
    for batch in tqdm(range(2), desc="after", mininterval=0):
        pass
    for batch in tqdm(range(2), disable=True):
        pass
    """)
    assert {entry["desc"] for entry in logs} == {"epochs", "after"}     # the inner bar stays silent
    assert [e["step"] for e in logs if e["desc"] == "epochs"] == [0, 1, 2]
    assert [e["step"] for e in logs if e["desc"] == "after"] == [0, 1, 2]


def test_tqdm_the_session_keeps_no_bar_between_runs():
    import gc
    import weakref

    from gradserve.engine.program.stdlib.tqdm import tqdm as host_tqdm

    ns = Namespace()
    assert run("from tqdm import tqdm\nbar = tqdm(range(3))\nfor i in bar:\n    break\n", ns).ok
    ref = weakref.ref(ns.get("bar"))
    assert type(ref()) is host_tqdm
    assert run("del bar\n", ns).ok
    gc.collect()
    assert ref() is None          # the open bar (what it wraps with it) went with the program's last name of it


def test_tqdm_takes_the_programs_own_streams_as_its_file():
    # dredwardhyde/crnn-ctc-loss-pytorch: tqdm(train_loader, position=0, leave=True, file=sys.stdout, bar_format=...)
    out = program_stdout("""
    import sys
    from tqdm import tqdm
    total = 0
    for v in tqdm([1, 2, 3], position=0, leave=True, file=sys.stdout, bar_format="{l_bar}%s{bar}%s{r_bar}" % ("", "")):
        total += v
    for v in tqdm([4], file=sys.stderr):
        total += v
    print(total)
    """)
    assert out == "10\n"


def test_tqdm_counts_steps_and_refuses_files(run_err, small_limits):
    e = run_err("from tqdm import tqdm\nfor i in tqdm(range(10**9)):\n    pass\n", limits=small_limits)
    assert e.type == "LimitExceeded"
    assert run_err("from tqdm import tqdm\nclass F:\n    def write(self, s): pass\nt = tqdm(range(2), file=F())").type == "TypeError"
    assert run_err("from tqdm import tqdm\nx = tqdm(range(2))._it").type == "AttributeError"
    assert run_err("import tqdm\ntqdm.tqdm = None").type == "AttributeError"


# --------------------------------------------------------------------------- re
def test_re_matches_cpython():
    assert_same_as_python(r"""
    import re
    text = "Hello, how are you? I am Romeo.\nHello, Romeo My name is Juliet. Nice to meet you!"
    print(re.sub("[.,!?\\-]", '', text.lower()).split('\n'))
    print(re.sub('x*', '-', 'abxd'), re.findall(r'\w+', 'ab cd, ef'), re.split(r'\s*,\s*', 'a , b,c'))
    print(re.findall(r'(\w)(\d)', 'a1 b2 c'), re.split(r'(,)', 'a,b'), re.sub(r'(\w+)@(\w+)', r'\2 at \1', 'me@h x@y'))
    m = re.search(r'(?P<word>[a-z]+)(\d*)', '12 abc34 x')
    print(m.group(), m.group(1), m.group('word'), m.groups(), m.span(), m.span(2), m.start(1), m.end(), m.groupdict())
    print(m.lastindex, m.lastgroup, m[0], m.group(1, 2), m.expand(r'<\g<word>|\2>'), m.string, m.re.pattern, m)
    print(re.match('a', 'ba'), re.fullmatch('a+', 'aaa') is not None, re.fullmatch('a+', 'aab'), re.match('(a*)*b', 'aaa'))
    print(re.findall('', 'ab'), re.sub('', '-', 'ab'), re.findall('a|ab', 'ab'), re.findall('a*?', 'aa'), re.findall('(a|)', 'aab'))
    print(re.sub(r'^\s+|\s+$', '', '  x y  '), re.findall('^a', 'a\na', re.M), re.findall('a$', 'a\na\n'), re.findall('(?i)AB', 'ab Ab'))
    print(re.escape('a.b*c'), re.compile(r'\d+').findall('1 22 333'), re.sub(r'\d', lambda m: str(int(m.group()) * 2), 'a1b2'))
    print(re.findall(r'\bcat\b', 'cat concat cat.'), re.findall(r'[^\W\d]+', 'ab1cd_2'), re.findall('a{2,3}', 'a' * 7), re.findall('a{2,3}?', 'a' * 5))
    print(re.split(r'\b', 'a b'), re.subn('a', 'b', 'aaa', count=2), re.findall('.', 'a\nb', re.S), re.findall('(a)|b', 'ab'))
    print([m.span() for m in re.finditer(r'\d*', 'a12b')], re.sub('(a)(b)?', r'[\1\2]', 'ac ab'), re.sub('a', r'\n\\\101\060', 'a'))
    print(re.findall('[a-c]+', 'ABCabc', re.I), re.findall(r'\d', '1٣x', re.A), re.findall(r'\d', '1٣x'), re.split('x', 'axbxc', maxsplit=1))
    print(re.compile(r'\d+', re.I | re.M), re.compile('x') == re.compile('x'), re.search('b', 'abc'), re.compile('a').pattern)
    print(re.findall(r'''(?x) \d+  # digits
                       [a-z]''', '12a 3b'), re.compile('(a)(?P<n>b)').groupindex, re.compile('(a)(b)').groups)
    p = re.compile('o')
    print(p.search('foo', 2), p.match('foo', 1), p.findall('foooo', 1, 3), re.findall('(?:ab)+', 'ababx ab'))
    for bad in ('[', 'a{3,2}', '(?P<1>a)', r'\q'):
        try:
            re.compile(bad)
        except re.error as e:
            print("error", e)
    for bad_repl in (r'\9', r'\g<x>', '\\'):
        try:
            re.sub('(a)', bad_repl, 'a')
        except (re.error, IndexError) as e:
            print(type(e).__name__, e)
    """)


@pytest.mark.parametrize("pattern", [
    r"(?<=a)b", r"(?<!a)b", r"(?=a)a", r"(?!a)b", r"(a)\1", r"(?P<x>a)(?P=x)", r"(?>a+)", r"a*+", r"a++", r"(a)?(?(1)b|c)",
])
def test_re_refuses_what_needs_backtracking(run_err, pattern):
    e = run_err(f"import re\nx = re.compile({pattern!r})\n")
    assert e.type == "error" and "not available in programs" in e.message


@pytest.mark.parametrize("pattern, text", [
    ("(a*)*b", "a" * 3000), ("(a|aa)+$", "a" * 3000 + "b"), ("(x+x+)+y", "x" * 3000), ("^(\\w+\\s?)*$", "ab " * 1000 + "!"),
    ("(.*a){12}", "a" * 500),
])
def test_re_has_no_catastrophic_backtracking(pattern, text):
    """Patterns that take CPython's engine exponential time (minutes at these sizes) answer in linear time."""
    import time
    started = time.monotonic()
    out = program_stdout(f"import re\nprint(re.search({pattern!r}, {text!r}))\n")
    assert out.startswith(("None", "<re.Match")) and time.monotonic() - started < 20


def test_re_counts_its_steps(run_err, small_limits):
    e = run_err("import re\nx = re.findall('(a|b|c|d)*e', 'abcd' * 100000)\n", limits=small_limits)
    assert e.type == "LimitExceeded"
    e = run_err("import re\ndef f(m):\n    while True:\n        pass\nx = re.sub('a', f, 'a')\n", limits=small_limits)
    assert e.type == "LimitExceeded"


@pytest.mark.parametrize("src, kind", [
    ("re.compile('a{100000}')", "error"),
    ("re.compile('(' * 150 + ')' * 150)", "error"),
    ("re.compile('a' * 20000)", "error"),
    ("re.compile(b'a')", "TypeError"),
    ("re.search('a', b'a')", "TypeError"),
    ("re.sub('a', 3, 'a')", "TypeError"),
    ("re.sub('a', lambda m: 3, 'a')", "TypeError"),
    ("re.compile('a', 1 << 20)", "ValueError"),
    ("re.compile('a')._code", "AttributeError"),
    ("re.search('a', 'a')._slots", "AttributeError"),
])
def test_re_refusals(run_err, src, kind):
    assert run_err("import re\nx = " + src + "\n").type == kind


def test_re_results_are_bounded(run_err, small_limits):
    e = run_err("import re\ns = 'a' * 900000\nx = re.sub('a', 'bb', s)\n", limits=small_limits)
    assert e.type == "LimitExceeded"


# --------------------------------------------------------------------------- unicodedata
def test_unicodedata_matches_cpython():
    # the PyTorch NLP tutorials' unicodeToAscii (char-rnn classification, seq2seq translation)
    assert_same_as_python("""
    import string
    import unicodedata
    all_letters = string.ascii_letters + " .,;'-"
    def unicodeToAscii(s):
        return ''.join(
            c for c in unicodedata.normalize('NFD', s)
            if unicodedata.category(c) != 'Mn'
            and c in all_letters
        )
    print(unicodeToAscii('Ślusàrski'), unicodeToAscii("O'Néàl"), len(unicodedata.normalize('NFKD', 'ﬁ½')))
    print(unicodedata.category('A'), unicodedata.combining('\\u0301'), unicodedata.name('é'), unicodedata.numeric('½'))
    print(unicodedata.decimal('7'), unicodedata.digit('x', -1), unicodedata.lookup('GREEK SMALL LETTER ALPHA'))
    print(unicodedata.east_asian_width('あ'), unicodedata.bidirectional('a'), unicodedata.mirrored('('))
    print(unicodedata.is_normalized('NFC', 'é'), unicodedata.normalize('NFC', 'e\\u0301') == 'é')
    """)


@pytest.mark.parametrize("src, kind", [
    ("import unicodedata\nunicodedata.normalize('NFX', 'a')", "ValueError"),
    ("import unicodedata\nunicodedata.normalize('NFD', 3)", "TypeError"),
    ("import unicodedata\nunicodedata.category('ab')", "TypeError"),
    ("import unicodedata\nunicodedata.name('\\x00')", "ValueError"),
    ("import unicodedata\nunicodedata.lookup('NO SUCH CHARACTER')", "KeyError"),
])
def test_unicodedata_errors_are_cpythons(run_err, src, kind):
    assert run_err(src).type == kind


def test_unicodedata_normalize_is_sized_before_it_runs():
    from gradserve.engine.program import Limits
    out = run("import unicodedata\ns = unicodedata.normalize('NFKD', 'ﬁ' * 1000)", Namespace(),
              Limits(string_length=5000))
    assert not out.ok and out.error.limit == "string_length"
    ok = run("import unicodedata\ns = unicodedata.normalize('NFKD', 'a' * 4000)", Namespace(), Limits(string_length=5000))
    assert ok.ok


# --------------------------------------------------------------------------- heapq and bisect
def test_heapq_and_bisect_match_cpython():
    # a beam search keeps its hypotheses in a heap of (score, node) with the node's own __lt__;
    # a concatenated dataset finds an index's part with bisect_right over the cumulative sizes
    assert_same_as_python("""
    import bisect
    import heapq

    class Node:
        def __init__(self, logp, words):
            self.logp, self.words = logp, words
        def __lt__(self, other):
            return self.logp < other.logp
        def __repr__(self):
            return f"Node({self.logp}, {self.words})"

    heap = []
    for i, logp in enumerate([-1.5, -0.2, -3.0, -0.7, -2.2]):
        heapq.heappush(heap, (-logp, Node(logp, [i])))
    best = [heapq.heappop(heap)[1] for _ in range(2)]
    nums = [5, 1, 8, 3, 9, 2]
    heapq.heapify(nums)
    print(best, len(heap), nums[0], heapq.heappushpop(nums, 0), heapq.heapreplace(nums, 7), sorted(nums))
    print(heapq.nlargest(3, [4, 1, 7, 3]), heapq.nsmallest(2, ['bb', 'a', 'ccc'], key=len))
    cumulative_sizes = [10, 25, 40]
    print(bisect.bisect_right(cumulative_sizes, 10), bisect.bisect_left(cumulative_sizes, 10), bisect.bisect(cumulative_sizes, 39))
    a = [1, 3, 5]
    bisect.insort(a, 4)
    bisect.insort_left(a, 0)
    print(a, bisect.bisect_left([('a', 1), ('c', 3)], 'b', key=lambda p: p[0]))
    """)


@pytest.mark.parametrize("src, kind", [
    ("import heapq\nheapq.heappush((1, 2), 3)", "TypeError"),
    ("import heapq\nheapq.heappop([])", "IndexError"),
    ("import bisect\nbisect.insort((1, 2), 3)", "TypeError"),
    ("import heapq\nheapq.heappush([1], 'a')", "TypeError"),
])
def test_heapq_and_bisect_errors_are_cpythons(run_err, src, kind):
    assert run_err(src).type == kind
