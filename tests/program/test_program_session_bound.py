"""session_bytes under the process-size bound (memory.held_at_most): a run skips the walk of what its
session holds while the whole process's data size (private writable memory, resident or not) is
within session_bytes, since the session cannot hold more than the process. These programs try to
hold more than session_bytes where that bound might not see it (lazily zeroed pages, views, the
NumPy shim, closures, generators, hooks, memory freed to malloc) and the limit still fires, at the
run that crosses it; and the figures reported stay the walk's."""
import ctypes
import ctypes.util
import gc
import sys

import pytest

from gradserve.engine.program import Limits, Namespace, run
from gradserve.engine.program import memory

MB = 1 << 20


@pytest.fixture
def process_data(monkeypatch):
    """The process's data size now. A fake CuPy loaded by an earlier test would turn the bound off
    (a GPU array's memory is not the process's): these tests run as on a CPU-only host."""
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    gc.collect()
    data = memory.held_at_most()
    assert data is not None and data > 0
    return data


def release_free_heap():
    """Hands the heap's free pages back to the system (glibc's malloc_trim), so the next run's
    resident growth is what it allocates: memory an earlier test (or run) freed to malloc but not
    to the system is resident already, and reusing it does not grow the process (CI failed this
    way once glibc's mmap threshold had risen and 4 MB arrays came from the heap)."""
    name = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    if trim is None:
        pytest.skip("needs glibc's malloc_trim to make resident growth follow allocation")
    trim(0)


def test_a_run_within_the_bound_skips_the_walk_and_the_figure_is_still_the_walks(process_data):
    ns = Namespace()
    out = run("import torch\nx = torch.ones(1000)", ns, Limits(session_bytes=process_data + 256 * MB))
    assert out.ok, out.error.to_dict()
    assert ns.runtime.bytes_known is None   # no count left: the bound held
    assert ns.nbytes() == 4000
    # a limit under the process's size: the walk runs, and the next run starts from its figure
    out = run("y = torch.ones(500)", ns, Limits(session_bytes=process_data // 2))
    assert out.ok, out.error.to_dict()
    assert ns.runtime.bytes_known == 6000


def test_the_server_budget_uses_the_bound_only_where_it_leaves_room(process_data):
    from server import runtime
    ns = Namespace()
    assert run("import torch\nx = torch.ones(1000)", ns, Limits(session_bytes=process_data + 256 * MB)).ok
    assert ns.runtime.bytes_known is None
    bound = runtime.session_bytes(ns, room=process_data + 256 * MB)
    assert bound >= 4000 and bound > process_data // 2
    assert runtime.session_bytes(ns, room=1000) == 4000   # no room under the bound: counted
    assert runtime.session_bytes(ns) == 4000


HOLD = {
    # pages calloc leaves untouched: no resident growth at all
    "a lazily zeroed tensor in a list": ("keep = []", "keep.append(torch.zeros(CHUNK, dtype=torch.float64))"),
    "a NumPy shim array": ("import numpy as np\nkeep = []", "keep.append(np.zeros(CHUNK))"),
    "a diagonal view of a big tensor": ("keep = []",
                                        "keep.append(torch.zeros(SIDE, SIDE, dtype=torch.float64).diagonal())"),
    "a closure cell": ("def hold(prev, t):\n    return lambda: (prev, t)\nf = None",
                       "f = hold(f, torch.zeros(CHUNK, dtype=torch.float64))"),
    "a generator expression": ("gens = []",
                               "gens.append(t for t in [torch.zeros(CHUNK, dtype=torch.float64)])"),
    "a tensor hook": ("anchor = torch.ones(1, requires_grad=True)\nhandles = []",
                      "handles.append(anchor.register_hook(lambda g, t=torch.zeros(CHUNK, dtype=torch.float64): g))"),
    "a saved tensor of a kept graph": ("w = torch.ones(1, requires_grad=True)\nouts = []",
                                       "outs.append((w * torch.zeros(CHUNK, dtype=torch.float64)).sum())"),
}


@pytest.mark.parametrize("place", sorted(HOLD))
def test_holding_past_the_limit_fails_at_the_run_that_crosses_it(process_data, place):
    """Each run keeps another 128 MB (untouched pages) somewhere; session_bytes is the process's data
    size now + 64 MB, so early runs are judged by the bound alone. The run that takes the session
    past the limit fails with session_bytes (what it appended to a container stays there, as before)."""
    setup, hold = HOLD[place]
    chunk = 128 * MB
    hold = hold.replace("CHUNK", str(chunk // 8)).replace("SIDE", str(int((chunk // 8) ** 0.5)))
    side = int((chunk // 8) ** 0.5)
    per_run = side * side * 8 if "SIDE" in HOLD[place][1] else chunk
    limit = process_data + 64 * MB
    ns = Namespace()
    limits = Limits(session_bytes=limit)
    out = run("import torch\n" + setup, ns, limits)
    assert out.ok, out.error.to_dict()
    assert ns.runtime.bytes_known is None   # judged by the bound
    crossing = limit // per_run + 1
    try:
        for k in range(1, crossing + 1):
            out = run(hold, ns, limits)
            if k < crossing:
                assert out.ok, (k, out.error.to_dict())
                assert ns.nbytes() >= k * per_run
            else:
                assert not out.ok and out.error.limit == "session_bytes", (k, out)
        assert run("z = 1", ns, limits).ok   # the session stays usable
    finally:
        ns.globals.clear()
        gc.collect()


def test_memory_freed_to_malloc_does_not_make_room(process_data):
    """A big tensor freed leaves its pages to the process (the data size need not fall); small
    tensors held in its place are still counted one by one."""
    ns = Namespace()
    limit = process_data + 32 * MB
    limits = Limits(session_bytes=limit)
    assert run("import torch\nbig = torch.ones(4 * 1024 * 1024)\ndel big\nkeep = []", ns, limits).ok
    n = limit // (64 * 1024 * 8) + 1   # 512 KB tensors, past the limit in all
    out = run(f"for i in range({n}):\n    keep.append(torch.ones(64 * 1024, dtype=torch.float64))", ns,
              Limits(session_bytes=limit, steps=10**7))
    assert not out.ok and out.error.limit == "session_bytes"
    ns.globals.clear()
    gc.collect()


def test_transient_growth_is_judged_by_what_the_session_held(process_data):
    """Within the bound a run starts without the session's figure; when its resident growth reads
    over the bound + growth allowance, the walk stands in: a run that only passes through memory
    (held by a function's locals, freed when it returns) is not failed for the process's own size,
    and one whose growth passes session_bytes + the slack by itself still fails."""
    from gradserve.engine.program.runtime import RSS_SLACK
    limit = process_data + 16 * MB
    over_bound = 16 * MB + RSS_SLACK + 64 * MB   # over bound + slack, far under limit + slack
    # resident memory is sampled every 20 ms: f holds its arrays for 0.2 s, so a sample sees the peak
    fn = ("def f(n):\n    xs = [torch.ones(1024 * 1024) for _ in range(n)]\n    t = time.monotonic()\n"
          "    while time.monotonic() - t < 0.2:\n        pass\n    return len(xs)\n")
    ns = Namespace()
    out = run("import time\nimport torch\n" + fn + f"r = f({over_bound // (4 * MB)})", ns, Limits(session_bytes=limit))
    assert out.ok, out.error.to_dict()
    gc.collect()
    release_free_heap()
    too_much = limit + RSS_SLACK + 64 * MB
    out = run(f"r = f({too_much // (4 * MB)})", ns, Limits(session_bytes=limit))
    assert not out.ok and out.error.limit == "session_bytes"


def test_a_diagonal_view_counts_the_memory_it_keeps_alive():
    """NumPy's strided views sit on a DummyArray whose base is the array they view: the walk follows
    it (it stopped there and counted the view: 16 KB for the 64 MB a diagonal keeps alive)."""
    from gradserve.engine.program.memory import tensor_bytes
    import gradserve.engine as engine
    d = engine.zeros(4096, 4096).diagonal()
    assert tensor_bytes([d]) == 4096 * 4096 * 4
    out = run("import torch\nd = torch.zeros(4096, 4096).diagonal()", Namespace(), Limits(session_bytes=32 * MB))
    assert not out.ok and out.error.limit == "session_bytes"


def test_an_expanded_view_reshaped_counts_its_storage_once():
    """A strided reshape of an expanded tensor holds the expanded tensor's storage, as PyTorch's:
    4 bytes, not the 4 MB of its elements (the walk counted the view and failed such a session)."""
    from gradserve.engine.program.memory import tensor_bytes
    import gradserve.engine as engine
    y = engine.ones(1, 1).expand(1000, 1000).reshape(1_000_000)
    assert tensor_bytes([y]) == 4
    torch = pytest.importorskip("torch")
    ty = torch.ones(1, 1).expand(1000, 1000).reshape(1_000_000)
    assert ty.untyped_storage().nbytes() == 4
    out = run("import torch\ny = torch.ones(1, 1).expand(1000, 1000).reshape(1_000_000)", Namespace(),
              Limits(session_bytes=1 * MB))
    assert out.ok, out.error.to_dict()


# places an outside tester kept tensors (or plain Python memory) in that the walk did not read:
# each holds about 8 MB, which the session's figure must count
HIDDEN = {
    "a deque": "import collections\nkeep = collections.deque([torch.ones(2_000_000)])",
    "a namedtuple": "import collections\nP = collections.namedtuple('P', 'a b')\nkeep = P(torch.ones(2_000_000), 1)",
    "a slotted dataclass": ("import dataclasses\n@dataclasses.dataclass(slots=True)\nclass D:\n    t: object\n"
                            "keep = D(torch.ones(2_000_000))"),
    "a partial": "import functools\nkeep = functools.partial(max, torch.ones(2_000_000))",
    "an exception's context": ("try:\n    try:\n        raise ValueError(torch.ones(2_000_000))\n    except ValueError:\n"
                               "        raise KeyError(1)\nexcept KeyError as e:\n    keep = e"),
    "an exception's cause": ("try:\n    try:\n        raise ValueError(torch.ones(2_000_000))\n    except ValueError as v:\n"
                             "        raise KeyError(1) from v\nexcept KeyError as e:\n    keep = [e]"),
    "a dict key": "class K:\n    pass\nk = K()\nk.t = torch.ones(2_000_000)\nkeep = {k: 1}",
    "a methodcaller": "import operator\nkeep = operator.methodcaller('add', torch.ones(2_000_000))",
    "an itemgetter": "import operator\nkeep = operator.itemgetter(torch.ones(2_000_000))",
    "big integers": "keep = [(1 << 65_000) + i for i in range(1_000)]",
    "a list of a million references": "keep = [0.0] * 1_000_000",
    "a long string": "keep = 'x' * 8_000_000",
}


@pytest.mark.parametrize("place", list(HIDDEN))
def test_what_a_session_holds_in_hidden_places_is_counted(place):
    ns = Namespace()
    out = run("import torch\n" + HIDDEN[place], ns, Limits())
    assert out.ok, out.error.to_dict()
    assert ns.nbytes() >= 7_900_000, ns.nbytes()


def test_a_list_of_references_past_the_limit_fails_and_leaves_the_session_usable():
    """An outside tester filled a session with lists of floats ([0.0] * 10_000_000: 80 MB of
    references, no tensor) up to the process's address-space limit, after which every request
    answered MemoryError. The lists count now: the limit fires, the run's bindings are released,
    and the session goes on."""
    ns = Namespace()
    limits = Limits(session_bytes=50 * MB)
    assert run("a = [0.0] * 4_000_000", ns, limits).ok            # 32 MB
    out = run("b = [0.0] * 4_000_000", ns, limits)               # 64 MB in all
    assert not out.ok and out.error.limit == "session_bytes"
    assert run("y = len(a) + 1", ns, limits).ok and ns.get("y") == 4_000_001


def test_a_list_of_numbers_does_not_hide_what_comes_after_it():
    """Numbers and short strings cost the walk nothing: a list of a million of them before a tensor
    (the walk once stopped after 200,000 objects) leaves the tensor counted."""
    ns = Namespace()
    assert run("import torch\nkeep = [torch.ones(2_000_000)] + [0] * 1_000_000 + ['ab'] * 10", ns, Limits()).ok
    assert ns.nbytes() >= 8_000_000 + 8_000_000


def test_a_walk_out_of_budget_answers_at_least_the_process_size(process_data, monkeypatch):
    """Objects the walk has no budget left to read may hold anything: it answers the sound bound."""
    monkeypatch.setattr(memory, "_WALK_BUDGET", 50)
    ns = Namespace()
    assert run("import torch\nkeep = [torch.ones(1) for _ in range(200)]", ns, Limits(session_bytes=1 << 40)).ok
    assert ns.nbytes() >= process_data // 2


def test_a_container_grown_past_the_limit_is_released_and_the_session_stays_within_it():
    """An outside tester appended a 44 MB tensor to a deque in each of eight runs under a 50 MB
    limit: each run after the first failed with session_bytes, but an append cannot be undone by
    releasing the run's own bindings, so the session kept all eight (396 MB). Now a session still
    over its limit after a failed run releases its variables, those holding the most first."""
    ns = Namespace()
    limits = Limits(session_bytes=50 * MB)
    assert run("import torch, collections\nD = collections.deque()\nsmall = torch.ones(10)", ns, limits).ok
    assert run("D.append(torch.ones(11_000_000))", ns, limits).ok          # 44 MB: within
    out = run("D.append(torch.ones(11_000_000))", ns, limits)               # 88 MB
    assert not out.ok and out.error.limit == "session_bytes"
    assert "D were released too" in out.error.message
    assert "D" not in ns.names() and ns.nbytes() <= 50 * MB
    assert run("y = small.sum().item()", ns, limits).ok and ns.get("y") == 10.0


def test_modules_and_the_engine_objects_that_keep_them_count_nothing_of_the_library():
    """The walk reads slots and dict keys now: an optimizer's flat layout keeps NumPy in a slot, and
    a program can keep modules in a list; neither counts the library's own docstrings and tables."""
    ns = Namespace()
    program = ("import torch\nimport numpy as np\nimport collections\nw = torch.nn.Parameter(torch.ones(10))\n"
               "opt = torch.optim.Adam([w])\nw.grad = torch.ones(10)\nopt.step()\n"
               "keep = collections.deque([np, torch, torch.nn, opt])")
    assert run(program, ns, Limits()).ok
    assert ns.nbytes() < 1000, ns.nbytes()


def test_a_module_or_string_reached_on_its_own_is_not_walked():
    """Items pushed one by one (a wrapper's function, a node's slot, a bound method's object) go
    through the same leaf rule as a container's items: a module there is not walked into, a long
    string is counted once."""
    import numpy as np
    from gradserve.engine.program.memory import tensor_bytes
    text = "x" * 2000
    assert tensor_bytes([staticmethod(np), staticmethod(text), [text]]) == sys.getsizeof(text)
