"""Program-side standard modules (SPEC section 2), each compared with CPython's own:
the same snippet runs as a program and in CPython, and prints the same."""
import pytest

from gradserve.engine.program import Limits, Namespace, run

from python_oracle import assert_same_as_python, program_stdout


# --------------------------------------------------------------------------- random
def test_random_draws_cpythons_numbers_from_a_seed():
    assert_same_as_python("""
    import random
    random.seed(0)
    print(random.random(), random.randint(1, 10), random.randrange(0, 100, 5), random.uniform(1, 2))
    print(random.gauss(0, 1), random.normalvariate(0, 1), random.choice("abcdef"))
    xs = list(range(20)); random.shuffle(xs); print(xs)
    print(random.sample(range(100), 5), random.choices([1, 2, 3], weights=[1, 0, 5], k=4))
    r = random.Random(42); print(r.random(), r.getrandbits(10))
    s = random.getstate(); a = random.random(); random.setstate(s); print(a == random.random())
    """)


def test_random_is_the_sessions_own_and_persists_between_runs():
    ns = Namespace()
    run("import random\nrandom.seed(7)\na = random.random()", ns)
    run("b = random.random()", ns)
    other = Namespace()
    run("import random\nrandom.seed(7)\nc = random.random()\nd = random.random()", other)
    assert (ns.get("a"), ns.get("b")) == (other.get("c"), other.get("d"))
    import random as host
    state = host.getstate()
    run("random.seed(1)\nx = random.random()", ns)
    assert host.getstate() == state   # the host's generator is never touched


def test_random_sizes_are_checked_before_drawing(run_err, small_limits):
    e = run_err("import random\nx = random.choices([1, 2], k=10**9)", limits=small_limits)
    assert e.type == "LimitExceeded"
    e = run_err("import random\nx = random.getrandbits(10**6)", limits=small_limits)
    assert e.type == "LimitExceeded" and e.limit == "integer_size"
    assert run_err("import random\nrandom.shuffle((1, 2))").type == "TypeError"


# --------------------------------------------------------------------------- math
def test_math_matches_cpython():
    assert_same_as_python("""
    import math
    print(math.factorial(20), math.comb(50, 25), math.perm(10, 3), math.prod([1, 2, 3, 4], start=2))
    print(math.lcm(4, 6, 10), math.gcd(12, 18), math.isqrt(99), math.fsum([0.1] * 10), math.pow(2, 10))
    print(math.sqrt(2), math.log(8, 2), math.pi, math.inf, math.isclose(0.1 + 0.2, 0.3))
    """)


@pytest.mark.parametrize("expr", [
    "math.perm(20000)", "math.factorial(100000)", "math.comb(10**6, 5 * 10**5)", "math.prod(range(1, 20000))",
    "math.lcm(*[2**60 + i for i in range(2000)])", "math.perm(10**5, 10**4)",
])
def test_math_functions_that_build_big_integers_check_the_cap_first(run_err, expr):
    e = run_err(f"import math\nx = {expr}\n")
    assert e.type == "LimitExceeded" and e.limit == "integer_size", e.to_dict()


def test_math_just_under_the_cap_still_works(run_ok):
    _, ns = run_ok("import math\nx = math.factorial(4000).bit_length()\ny = math.comb(2000, 1000) > 0")
    assert ns.get("x") > 40000 and ns.get("y") is True


# --------------------------------------------------------------------------- itertools, functools, operator
def test_itertools_matches_cpython():
    assert_same_as_python("""
    import itertools
    from itertools import count, product, permutations, combinations, chain, islice, groupby, accumulate
    c = count(3, 2); print(next(c), next(c))
    print(list(product("ab", repeat=2)), list(permutations([1, 2, 3], 2)), list(combinations(range(4), 3)))
    print(list(chain([1], (2, 3))), list(chain.from_iterable([[1], [2]])), list(islice(count(), 2, 10, 3)))
    print([(k, list(g)) for k, g in groupby("aabbbc")], list(accumulate([1, 2, 3])))
    print(list(accumulate([1, 2, 3], lambda a, b: a * b)), list(itertools.zip_longest([1, 2], [3], fillvalue=0)))
    print(list(itertools.takewhile(lambda x: x < 3, [1, 2, 5, 1])), list(itertools.repeat("x", 3)))
    print(list(itertools.starmap(pow, [(2, 3), (3, 2)])), list(itertools.pairwise([1, 2, 3])))
    print(list(itertools.combinations_with_replacement("ab", 2)), list(itertools.compress("abc", [1, 0, 1])))
    """)


def test_endless_iterators_meet_the_step_limit(run_err, small_limits):
    e = run_err("import itertools\nfor x in itertools.count():\n    pass\n", limits=small_limits)
    assert e.type == "LimitExceeded" and e.limit == "steps"
    e = run_err("import itertools\nx = list(itertools.islice(range(10**12), 10**12 - 1, None))",
                limits=small_limits)
    assert e.type == "LimitExceeded"
    e = run_err("import itertools\nx = itertools.product(range(10), repeat=10**8)", limits=small_limits)
    assert e.type == "LimitExceeded"


def test_functools_matches_cpython():
    assert_same_as_python("""
    import functools
    from functools import partial, reduce, lru_cache, wraps, cmp_to_key
    print(reduce(lambda a, b: a * b, [1, 2, 3, 4]), reduce(lambda a, b: a + b, [], 10), partial(pow, 2)(10))
    p = partial(int, base=2); print(p("101"), p.args, p.keywords)
    @lru_cache(maxsize=None)
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)
    print(fib(40), fib.cache_info())
    @functools.cache
    def sq(x):
        return x * x
    print(sq(3), sq(3), sq.cache_info().hits)
    def deco(f):
        @wraps(f)
        def inner(*a):
            return f(*a) + 1
        return inner
    @deco
    def g(x):
        return x
    print(g(1), sorted([3, 1, 2], key=cmp_to_key(lambda a, b: b - a)))
    """)


def test_operator_matches_cpython():
    assert_same_as_python("""
    import operator
    from operator import itemgetter, attrgetter, methodcaller
    print(operator.add(1, 2), operator.mul("a", 3), operator.neg(3), operator.truediv(1, 4), operator.not_(0))
    rows = [(1, "b"), (0, "a"), (2, "c")]
    print(sorted(rows, key=itemgetter(1)), itemgetter(0, 1)(rows[0]), methodcaller("upper")("x"))
    class P:
        def __init__(self, v):
            self.v = v
    print(attrgetter("v")(P(5)), operator.getitem([1, 2, 3], 1), operator.contains([1, 2], 2))
    """)


def test_operator_keeps_the_interpreters_size_checks(run_err, small_limits):
    e = run_err("import operator\nx = operator.mul('a', 10**9)", limits=small_limits)
    assert e.type == "LimitExceeded"
    e = run_err("import operator\nx = operator.pow(3, 10**7)", limits=small_limits)
    assert e.type == "LimitExceeded" and e.limit == "integer_size"


# --------------------------------------------------------------------------- collections
def test_collections_match_cpython():
    assert_same_as_python("""
    from collections import OrderedDict, defaultdict, Counter, deque, namedtuple
    d = defaultdict(list); d["a"].append(1); d["b"]; print(d, dict(d))
    c = Counter("abracadabra"); print(c.most_common(2), c["z"], sorted(c.elements())[:3])
    c.update("aaa"); c.subtract({"a": 1}); print(c["a"], c.total())
    q = deque([1, 2, 3], maxlen=3); q.append(4); q.appendleft(0); q.rotate(1); print(q, q.popleft(), len(q))
    o = OrderedDict([("x", 1), ("y", 2)]); o.move_to_end("x"); print(list(o), o.popitem(last=False))
    P = namedtuple("P", "x y", defaults=[0]); p = P(1); print(p, p.x, p.y)
    print(isinstance(p, tuple), p == (1, 0), p[1])
    x, y = p; print(x + y)
    """)


def test_collections_count_steps_over_the_programs_data(run_err, small_limits):
    e = run_err("from collections import Counter\nc = Counter(range(10**9))", limits=small_limits)
    assert e.type == "LimitExceeded"
    e = run_err("from collections import deque\nq = deque(range(10**9))", limits=small_limits)
    assert e.type == "LimitExceeded"


def test_defaultdict_factory_runs_as_program_code_with_its_line(run_err):
    e = run_err("""
    from collections import defaultdict
    def factory():
        return 1 / 0
    d = defaultdict(factory)
    x = d["missing"]
    """)
    assert e.type == "ZeroDivisionError" and e.line == 4


# --------------------------------------------------------------------------- dataclasses, typing, enum, abc
def test_dataclasses_match_cpython():
    assert_same_as_python("""
    from dataclasses import dataclass, field, asdict, astuple, fields, replace
    from typing import List, Optional
    @dataclass
    class Config:
        n_layer: int = 12
        n_head: int = 12
        dropout: float = 0.0
        bias: bool = True
        tags: List[str] = field(default_factory=list)
    c = Config(n_layer=4)
    print(c, asdict(c), astuple(c), [f.name for f in fields(c)])
    print(c == Config(n_layer=4), c == Config(), replace(c, bias=False))
    @dataclass(frozen=True, order=True)
    class P:
        x: int
        y: int = 0
    print(sorted([P(2, 1), P(1, 5)]), P(1) < P(2), hash(P(1, 2)) == hash(P(1, 2)))
    @dataclass
    class Q:
        a: int
        b: Optional[int] = None
        def __post_init__(self):
            self.b = self.a * 2 if self.b is None else self.b
    print(Q(3), Q(3, 1))
    """)


def test_frozen_dataclass_refuses_assignment(run_err):
    e = run_err("""
    from dataclasses import dataclass
    @dataclass(frozen=True)
    class P:
        x: int
    p = P(1)
    p.x = 2
    """)
    assert e.type == "FrozenInstanceError" and e.line == 7


def test_typing_annotations_work_and_named_tuples_match_cpython():
    assert_same_as_python("""
    from typing import Any, Callable, Dict, List, Optional, Tuple, Union, NamedTuple, TypeVar, Generic, cast
    T = TypeVar("T")
    def f(x: List[int], y: Optional[Dict[str, Any]] = None, *a: Tuple[int, ...], **k: Union[int, str]) -> int:
        return sum(x)
    class Box(Generic[T]):
        def __init__(self, v: T) -> None:
            self.v: T = v
    class Point(NamedTuple):
        x: int
        y: float = 0.5
        def norm(self) -> float:
            return (self.x ** 2 + self.y ** 2) ** 0.5
    g: Callable[[int], int] = lambda v: v + 1
    print(f([1, 2]), Box(3).v, Point(1), Point(3, 4).norm(), g(1), cast(int, "x"))
    """)


def test_enum_matches_cpython():
    assert_same_as_python("""
    from enum import Enum, IntEnum, auto
    class Color(Enum):
        RED = 1
        GREEN = auto()
        BLUE = auto()
        def describe(self):
            return self.name.lower()
    print(Color.RED, repr(Color.GREEN), Color(3), Color["RED"].value, list(Color), len(Color))
    print(Color.RED.describe(), Color.RED is Color(1), Color.RED == Color.GREEN, Color.BLUE in Color)
    class Level(IntEnum):
        LOW = 1
        HIGH = 2
    print(Level.HIGH > Level.LOW, Level.LOW + 1, int(Level.HIGH))
    """)


def test_abc_matches_cpython():
    assert_same_as_python("""
    from abc import ABC, abstractmethod
    class Base(ABC):
        @abstractmethod
        def go(self):
            pass
        def twice(self):
            return self.go() * 2
    class Impl(Base):
        def go(self):
            return 3
    print(Impl().twice())
    try:
        Base()
    except TypeError as e:
        print("TypeError", e)
    """)


def test_abcmeta_as_a_class_keyword_matches_cpython():
    # torchdiffeq's solvers: class AdaptiveStepsizeODESolver(metaclass=abc.ABCMeta)
    assert_same_as_python("""
    import abc
    class Solver(metaclass=abc.ABCMeta):
        @abc.abstractmethod
        def advance(self, t):
            raise NotImplementedError
        @classmethod
        def valid_callbacks(cls):
            return set()
    class Euler(Solver):
        def advance(self, t):
            return t + 1
    print(Euler().advance(1), Euler.valid_callbacks(), isinstance(Euler(), Solver), type(Euler) is abc.ABCMeta)
    try:
        Solver()
    except TypeError as e:
        print("TypeError", e)
    """)


def test_a_metaclass_other_than_abcmeta_is_refused(run_err):
    e = run_err("class Meta(type):\n    pass\n\nclass A(metaclass=Meta):\n    pass\n")
    assert e.type == "TypeError" and e.line in (1, 4)
    e = run_err("class A(metaclass=dict):\n    pass\n")
    assert e.type == "TypeError" and "ABCMeta" in e.message and e.line == 1


# --------------------------------------------------------------------------- copy, inspect, string
def test_copy_matches_cpython_on_program_values():
    assert_same_as_python("""
    import copy
    a = [[1, 2], {"k": [3]}, (4, [5])]
    b = copy.deepcopy(a); b[0].append(9); b[1]["k"].append(9); b[2][1].append(9)
    print(a, b, copy.copy(a)[0] is a[0], copy.deepcopy(a)[0] is a[0])
    shared = [1]; pair = [shared, shared]; c = copy.deepcopy(pair); print(c[0] is c[1], c[0] is shared)
    class Obj:
        def __init__(self):
            self.items = [1, 2]
    o = Obj(); o2 = copy.deepcopy(o); o2.items.append(3); print(o.items, o2.items, copy.copy(o).items is o.items)
    """)


def test_deepcopy_of_modules_and_tensors_as_pytorch(run_ok):
    _, ns = run_ok("""
    import copy
    import torch
    import torch.nn as nn
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    m2 = copy.deepcopy(m)
    same_values = all(torch.equal(a, b) for a, b in zip(m.parameters(), m2.parameters()))
    shared = any(a is b for a, b in zip(m.parameters(), m2.parameters()))
    with torch.no_grad():
        m2[0].weight.add_(1.0)
    untouched = not torch.equal(m[0].weight, m2[0].weight)
    is_param = isinstance(m2[0].weight, nn.Parameter) and m2[0].weight.requires_grad
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    try:
        copy.deepcopy(y)
        nonleaf = "copied"
    except RuntimeError:
        nonleaf = "RuntimeError"
    """)
    assert ns.get("same_values") and not ns.get("shared") and ns.get("untouched") and ns.get("is_param")
    assert ns.get("nonleaf") == "RuntimeError"   # as PyTorch: only graph leaves deep-copy


def test_deepcopy_of_a_tensor_copies_its_own_attributes_as_pytorch(run_ok):
    """PyTorch's Tensor.__deepcopy__ copies what a program kept on the tensor (deep: a tensor there is
    copied, shared ones stay shared); Parameter's does not."""
    out, _ = run_ok("""
    import copy
    import torch
    t = torch.ones(2)
    t.tag = 3
    t.g = torch.zeros(2)
    t.h = t.g
    u = copy.deepcopy(t)
    u.g.add_(1)
    print(u.tag, u.g.tolist(), t.g.tolist(), u.h is u.g, u.h is t.g)
    p = torch.nn.Parameter(torch.ones(1))
    p.tag = 1
    print(hasattr(copy.deepcopy(p), "tag"))
    """)
    assert out.stdout == "3 [1.0, 1.0] [0.0, 0.0] True False\nFalse\n"


def test_deepcopy_refuses_host_objects(run_err):
    e = run_err("import copy\nimport torch\nx = copy.deepcopy(torch.ones(2).grad_fn or iter([1]))")
    assert e.type == "TypeError"


def test_inspect_signatures_match_cpython():
    assert_same_as_python("""
    import inspect
    def g(a, b=2, *args, c, d=4, **kw):
        pass
    class K:
        def __init__(self, x, y=1):
            pass
        def m(self, z):
            pass
    sig = inspect.signature(g)
    print(sig, list(sig.parameters), sig.parameters["b"].default, inspect.signature(K), inspect.signature(K(1).m))
    print(inspect.isclass(K), inspect.isfunction(g), inspect.ismethod(K(1).m), inspect.isfunction(K))
    print([p.name for p in sig.parameters.values() if p.default is inspect.Parameter.empty])
    """)


def test_inspect_signature_of_engine_functions(run_ok):
    _, ns = run_ok("import inspect\nimport torch\ns = str(inspect.signature(torch.nn.Linear))\n"
                   "p = list(inspect.signature(torch.nn.functional.dropout).parameters)")
    assert ns.get("s").startswith("(in_features, out_features, bias=True")
    assert ns.get("p")[:2] == ["input", "p"]


def test_string_constants_match_cpython():
    assert_same_as_python("""
    import string
    print(string.ascii_letters, string.digits, string.punctuation, string.capwords("hello  world"))
    """)


# --------------------------------------------------------------------------- time, warnings
def test_time_gives_clocks(run_ok):
    _, ns = run_ok("import time\nt0 = time.time()\np = time.perf_counter()\ntime.sleep(0.01)\n"
                   "dt = time.perf_counter() - p\nm = time.monotonic()")
    assert ns.get("dt") >= 0.01 and ns.get("t0") > 1.6e9


def test_time_sleep_is_bounded_by_the_wall_time_limit(run_err):
    e = run_err("import time\ntime.sleep(60)", limits=Limits(wall_time_s=0.3))
    assert e.type == "LimitExceeded" and e.limit == "wall_time"


def test_warnings_print_to_stdout_once_per_line_and_follow_filters():
    out = program_stdout("""
    import warnings
    for i in range(3):
        warnings.warn("deprecated thing")
    warnings.warn("other", DeprecationWarning)
    warnings.simplefilter("ignore")
    warnings.warn("hidden")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("shown")
    """)
    assert out == ("<program>:4: UserWarning: deprecated thing\n"
                   "<program>:5: DeprecationWarning: other\n"
                   "<program>:10: UserWarning: shown\n")


def test_warnings_error_filter_raises(run_err):
    e = run_err("import warnings\nwarnings.simplefilter('error')\nwarnings.warn('boom', RuntimeWarning)")
    assert e.type == "RuntimeWarning" and e.message == "boom" and e.line == 3


def test_iter_with_a_sentinel_calls_until_it_is_returned():
    """iter(callable, sentinel) as CPython has it: program functions and callable objects,
    the sentinel compared with ==, and its errors."""
    assert_same_as_python("""
data = [3, 1, 4, 1, 5, 9, 2, 6]
pos = [0]
def reader():
    i = pos[0]
    pos[0] += 1
    return data[i] if i < len(data) else None
print(list(iter(reader, 9)))
class Counter:
    def __init__(self):
        self.n = 0
    def __call__(self):
        self.n += 1
        return self.n
print([x for x in iter(Counter(), 4)])
print(list(iter(reader, None)), next(iter(reader, None), "done"))
for bad in ((5, 1), (reader, 1, 2)):
    try:
        iter(*bad)
    except TypeError as e:
        print(e)
""")


def test_engine_warnings_in_a_run_reach_the_program_at_its_line(run_ok, run_err):
    # F.softmax without dim warns as PyTorch does: on the program's stdout at the program's line
    # (once per line, as Python's default filter), under the program's filters, never on the host's stderr
    import warnings as host_warnings
    filters = list(host_warnings.filters)
    out, _ = run_ok("import torch\nx = torch.ones(2, 3)\nfor i in range(3):\n    y = torch.nn.functional.softmax(x)\n"
                    "z = torch.nn.functional.softmax(x)\n")
    lines = out.stdout.splitlines()
    assert [l.split(": ")[0] for l in lines] == ["<program>:4", "<program>:5"], lines
    assert all("UserWarning: Implicit dimension choice for softmax" in l for l in lines)
    e = run_err("import warnings\nimport torch\nwarnings.simplefilter('error')\ny = torch.nn.functional.softmax(torch.ones(2))\n")
    assert e.type == "UserWarning" and e.line == 4
    out, _ = run_ok("import warnings\nimport torch\nwarnings.simplefilter('ignore')\n"
                    "y = torch.nn.functional.softmax(torch.ones(2))\n")
    assert out.stdout == ""
    assert list(host_warnings.filters) == filters   # the host's own filters are as they were


def test_library_deprecation_warnings_stay_hidden_as_python_hides_them(run_ok, monkeypatch):
    # Python shows a DeprecationWarning raised inside an imported library only with -W: the engine's
    # (a NumPy deprecation in its code) do not reach the program's stdout either
    import warnings as host_warnings
    from gradserve.engine.ops import creation
    real = creation.check_elements

    def check_elements(*args, **kwargs):   # engine code torch.ones runs
        host_warnings.warn("an internal API is deprecated", DeprecationWarning)
        host_warnings.warn("a user-facing note", UserWarning)
        return real(*args, **kwargs)
    monkeypatch.setattr(creation, "check_elements", check_elements)
    out, _ = run_ok("import torch\nx = torch.ones(2)\n")
    assert out.stdout == "<program>:2: UserWarning: a user-facing note\n", out.stdout


# --------------------------------------------------------------------------- logging
def test_logging_loggers_levels_and_formats_match_cpython():
    assert_same_as_python("""
import logging, sys
log = logging.getLogger("gradserve_test_logging")
log.propagate = False
h = logging.StreamHandler(sys.stdout)
h.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s [%(levelno)d]"))
log.addHandler(h)
log.setLevel(logging.INFO)
log.info("Iter: %d\\t%s", 3, [1, 2])
log.debug("hidden")
log.warning("w %r", "x")
log.info(f"loss {0.5:.2f}")
print(log.getEffectiveLevel(), logging.getLevelName(logging.WARNING), logging.getLevelName(25), log.isEnabledFor(logging.DEBUG))
log.setLevel("DEBUG")
log.debug("now %(a)s", {"a": 1})
log.removeHandler(h)
""")


def test_logging_basic_config_and_last_resort_as_cpython_prints_them():
    # CPython writes these to stderr; a program's only stream is its output
    out = program_stdout("""
    import logging
    logger = logging.getLogger(__name__)
    logger.info("before basicConfig: below WARNING, no handler, nothing")
    logger.warning("last resort %s", "bare")
    logging.basicConfig(level=logging.INFO)
    logger.info("Iter: %d", 0)
    logging.info("root")
    logging.basicConfig(level=logging.DEBUG)          # ignored: the root has a handler
    logger.debug("still hidden")
    logging.basicConfig(format="%(levelname)s - %(message)s", level=logging.DEBUG, force=True)
    logger.debug("shown")
    """)
    assert out == ("last resort bare\n"
                   "INFO:__main__:Iter: 0\n"
                   "INFO:root:root\n"
                   "DEBUG - shown\n")


def test_logging_root_is_the_sessions_root_logger():
    # toy_gradlogp's train_energy.py: logging.basicConfig(); logging.root.setLevel(logging.INFO)
    out = program_stdout("""
    import logging
    logging.basicConfig()
    logging.info("hidden: the root is at WARNING")
    logging.root.setLevel(logging.INFO)
    logging.info("shown")
    print(logging.root is logging.getLogger(), logging.root.name, logging.getLogger("x").parent is logging.root)
    """)
    assert out == "INFO:root:shown\nTrue root True\n"


def test_logging_loggers_are_the_sessions_own(run_ok):
    _, ns = run_ok("import logging\nlogging.getLogger('a').setLevel(logging.ERROR)\nlevel = logging.getLogger('a').level")
    assert ns.globals["level"] == 40
    _, other = run_ok("import logging\nlevel = logging.getLogger('a').level")
    assert other.globals["level"] == 0
    run_ok("import logging\nlogging.root.setLevel(logging.DEBUG)", ns)
    _, other = run_ok("import logging\nlevel = logging.root.level")
    assert other.globals["level"] == 30


def test_logging_has_no_files_and_no_other_format_styles(run_err):
    assert run_err("import logging\nlogging.basicConfig(filename='x.log')").type == "TypeError"
    assert run_err("import logging\nlogging.Formatter('{message}', style='{')").type == "ValueError"
    assert run_err("import logging\nlogging.FileHandler('x.log')").type == "AttributeError"


def test_namedtuple_api_and_the_old_defaults_idiom_match_cpython():
    # lukemelas/EfficientNet-PyTorch: GlobalParams.__new__.__defaults__ = (None,) * len(GlobalParams._fields)
    assert_same_as_python("""
import collections
GlobalParams = collections.namedtuple('GlobalParams', ['a', 'b', 'c'])
GlobalParams.__new__.__defaults__ = (None,) * len(GlobalParams._fields)
print(GlobalParams(), GlobalParams(1), GlobalParams.__new__.__defaults__, GlobalParams._fields)
g = GlobalParams(1)._replace(b=2)
print(g, g._asdict(), GlobalParams._make([4, 5, 6]), GlobalParams._field_defaults)
P = collections.namedtuple('P', 'x y', defaults=[7])
print(P.__new__.__defaults__, P(1), P._field_defaults)
P.__new__.__defaults__ = None
try:
    P(1)
except TypeError as e:
    print("TypeError", e)
class Q(GlobalParams):
    def total(self):
        return len(self._fields) + len(self._asdict())
print(Q(1, 2, 3).total(), Q._fields)
""")


def test_namedtuple_defaults_are_checked(run_err):
    e = run_err("import collections\nP = collections.namedtuple('P', 'x')\nP.__new__.__defaults__ = (1, 2)")
    assert e.type == "TypeError" and "more default values" in e.message
    e = run_err("import collections\nP = collections.namedtuple('P', 'x')\nP.__new__.__defaults__ = [1]")
    assert e.type == "TypeError"
    # other private names of a namedtuple's tuple base stay out of reach
    assert run_err("import collections\nP = collections.namedtuple('P', 'x')\nP.__new__.__code__").type == "AttributeError"


# --------------------------------------------------------------------------- fnmatch
def test_fnmatch_matches_cpython():
    # noahgolmant/pytorch-hessian-eigenthings filters parameters with fnmatch.fnmatchcase(name, pattern)
    assert_same_as_python("""
    import fnmatch
    cases = [("encoder.layer1.weight", "encoder.*"), ("a.b", "*.?"), ("abc", "[!a]*"), ("xyz", "[a-z]y?"),
             ("a[b", "a[b"), ("ab", "a[]]"), ("a]", "a[]]"), ("A.py", "*.PY"), ("a-b", "a[--]b"), ("x\\ny", "x*y"),
             ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*a*a*a*c"), ("bias", "*[!s]")]
    print([(fnmatch.fnmatchcase(n, p), fnmatch.fnmatch(n, p)) for n, p in cases])
    print(fnmatch.filter(["fc1.weight", "fc1.bias", "bn.weight"], "*.weight"), fnmatch.translate("*.py"))
    """)


def test_fnmatch_refuses_what_is_not_a_string(run_err):
    e = run_err("import fnmatch\nfnmatch.fnmatchcase(3, '*')\n")
    assert e.type == "TypeError" and e.line == 2


# --------------------------------------------------------------------------- builtin generic aliases
def test_subscripted_builtin_containers_are_values_as_in_python():
    # hessian-eigenthings: q, _ = cast(tuple[torch.Tensor, torch.Tensor], torch.linalg.qr(mat, mode="reduced"))
    assert_same_as_python("""
    from typing import cast
    pair = cast(tuple[int, str], (1, "a"))
    alias = tuple[int, str]
    print(pair, alias, list[int]([1, 2]), dict[str, int](x=1), alias == tuple[int, str], set[int] == list[int])
    try:
        list[int][str]
    except TypeError as e:
        print("TypeError", e)
    """)


def test_subscripted_builtins_stay_out_of_class_checks_and_type_stays_out(run_err):
    assert run_err("isinstance([], list[int])\n").type == "TypeError"
    e = run_err("t = type[int]\n")   # type(...) as a class factory stays out of reach
    assert e.type == "TypeError" and e.line == 1
