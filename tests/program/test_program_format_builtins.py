"""``str.format``, ``format()`` and the builtins SPEC section 2 adds, compared with CPython;
what they build is counted against the limits, and integers stay under the size cap."""
import pytest

from gradserve.engine.program import Namespace, run

from python_oracle import assert_same_as_python


def test_str_format_matches_cpython_for_every_kind_of_field_and_spec():
    assert_same_as_python("""
    w = -0.12345
    print('{:+.2f}'.format(w), '{:>10}|'.format('ab'), '{:<6}|{:^7}|'.format('l', 'c'), '{:08.3f}'.format(3.14159))
    print('{0[1]} {1} {0[0]}'.format([7, 8], 'x'), '{k} {k!r}'.format(k='v'), '{:,}'.format(1234567), '{:_x}'.format(2**20))
    print('{} and {}'.format(1, 2), '{0}{1}{0}'.format('a', 'b'), '{:e}'.format(12345.678), '{:%}'.format(0.25))
    print('{:{w}.{p}f}'.format(3.14159, w=9, p=3), '{d[key]}'.format(d={'key': 5}), '{:#b} {:#o} {:#x}'.format(5, 8, 255))
    print('{:*^11}'.format('mid'), '{:=+8}'.format(-3), '{!s:>5}'.format(1.5), '{:g}'.format(1e-7), '{{literal}}'.format())
    print('{x.real} {x.imag}'.format(x=3 + 4j), 'epoch {:3d} loss {:.4f}'.format(7, 0.123456), '{:.3}'.format('abcdef'))
    print('{name}-{n:02d}'.format_map({'name': 'run', 'n': 3}))
    print(format(3.14159, '.2f'), format(42, '08b'), format('x', '>4'), format(1234.5, ',.1f'), format(0.5), format(7))
    """)


def test_str_format_errors_match_python(run_err):
    assert run_err("s = '{} {}'.format(1)").type == "IndexError"
    assert run_err("s = '{a}'.format(b=1)").type == "KeyError"
    assert run_err("s = '{0} {}'.format(1, 2)").type == "ValueError"
    assert run_err("s = '{:d}'.format('x')").type == "ValueError"
    assert run_err("s = '{'.format(1)").type == "ValueError"


def test_format_fields_cannot_reach_host_internals(run_err, run_ok):
    for source in ("s = '{0.__class__.__bases__}'.format(1)", "s = '{0._data}'.format(torch.ones(1))",
                   "s = '{0.__globals__}'.format(len)", "s = '{x.__init__.__globals__}'.format(x=torch.nn.Linear(1, 1))",
                   "class A(torch.nn.Module):\n    pass\ns = '{0.__dict__._obj}'.format(A())"):
        e = run_err(source)
        assert e.type == "AttributeError", (source, e.to_dict())
    # a program object with no engine base holds only program values: its __dict__ is its own
    out, ns = run_ok("class B:\n    def __init__(self):\n        self.x = 1\ns = '{0.__dict__}'.format(B())")
    assert ns.get("s") == "{'x': 1}"
    # with an engine base, the view of the names a program may reach (never _parameters and the like)
    out, ns = run_ok("class A(torch.nn.Module):\n    pass\ns = '{0.__dict__}'.format(A())")
    assert ns.get("s") == "{'training': True}"


@pytest.mark.parametrize("source", [
    "s = '{:>100000000}'.format('x')", "s = '{:.100000000f}'.format(1.0)", "s = format(1.0, '99999999999')",
    "s = '{:{w}}'.format('x', w=10**9)", "s = ('{}' * 1000).format(*(['x' * 10000] * 1000))",
    "s = '{!r}'.format([[0] * 1000] * 1000)",
])
def test_what_format_builds_is_counted(run_err, small_limits, source):
    e = run_err(source, limits=small_limits)
    assert e.type == "LimitExceeded" and e.limit == "string_length", e.to_dict()


def test_new_builtins_match_cpython():
    assert_same_as_python("""
    print(divmod(17, 5), divmod(-7.5, 2), pow(2, 10), pow(2, 10, 1000), chr(955), ord('λ'), bin(10), hex(-255), oct(64))
    print(min([3, 1, 2], key=lambda v: -v), max([], default=None), max('ab', 'cd', key=len), min((4, 'a'), (4, 'b')))
    print(sorted(['bb', 'a', 'ccc'], key=len, reverse=True), callable(len), callable(3), hash(7) == hash(7.0))
    it = iter([1, 2]); print(next(it), next(it), next(it, 'done'), repr('q'), ascii('é'), format(255, 'x'))
    class A:
        pass
    class B(A):
        pass
    a = A(); setattr(a, 'x', 1); print(a.x, getattr(a, 'y', 'no')); delattr(a, 'x'); print(hasattr(a, 'x'))
    print(issubclass(B, A), issubclass(A, B), issubclass(B, (int, A)), isinstance(B(), A), issubclass(bool, int))
    print(id(a) == id(a), id(a) != id(B()), int('ff', 16), int('0b101', 0), int(' 42 '), round(2.675, 2))
    class P:
        def __init__(self):
            self.v_ = 1
        @property
        def v(self):
            return self.v_
        @v.setter
        def v(self, x):
            self.v_ = x * 2
        @staticmethod
        def s(x):
            return x + 1
        @classmethod
        def c(cls):
            return cls.__name__ if False else 'P'
    p = P(); p.v = 5; print(p.v, P.s(1), p.s(2), P.c(), p.c(), isinstance(object(), object))
    """)


def test_remaining_exception_classes_behave_as_pythons():
    assert_same_as_python("""
    for cls in (ImportError, AttributeError, ArithmeticError, OverflowError, LookupError, FileNotFoundError,
                PermissionError, TimeoutError, IndentationError, FutureWarning, PendingDeprecationWarning,
                StopAsyncIteration, UnicodeError, RecursionError, NameError, UnboundLocalError, EnvironmentError,
                IOError, ModuleNotFoundError):
        try:
            raise cls('boom')
        except Exception as e:
            print(cls.__name__ if False else e, isinstance(e, Exception))
    try:
        raise FileNotFoundError('f')
    except OSError as e:
        print('OSError catches', e)
    try:
        1 / 0
    except ArithmeticError:
        print('arith')
    try:
        [][1]
    except LookupError:
        print('lookup')
    """)


def test_id_is_not_the_host_address():
    ns = Namespace()
    out = run("x = [1]\na = id(x)\nb = id(x)", ns)
    assert out.ok and ns.get("a") == ns.get("b") and ns.get("a") != id(ns.get("x"))
    assert ns.get("a") < 1 << 48


@pytest.mark.parametrize("expr", [
    "int('1' * 100000, 2)", "int('f' * 20000, 16)", "int('0x' + 'f' * 20000, 0)", "2 ** 70000", "1 << 70000",
    "pow(3, 50000)", "10 ** 20000", "(2 ** 40000) * (2 ** 40000)",
])
def test_every_way_to_build_a_big_integer_checks_the_cap(run_err, expr):
    e = run_err(f"x = {expr}\n")
    assert e.type == "LimitExceeded" and e.limit == "integer_size", e.to_dict()


def test_integers_under_the_cap_work(run_ok):
    _, ns = run_ok("a = int('1' * 60000, 2).bit_length()\nb = (2 ** 60000).bit_length()\nc = int('9' * 4000)")
    assert ns.get("a") == 60000 and ns.get("b") == 60001 and ns.get("c") == int("9" * 4000)


def test_type_names_and_dunder_name_match_cpython():
    assert_same_as_python("""
    class A:
        def __repr__(self):
            return f"{self.__class__.__name__}()"
    def f():
        pass
    print(type(3), type('s') is str, type(A()) is A, type(3).__name__, A(), f.__name__, A.__name__, A.__qualname__)
    print(isinstance(A, type), len.__name__, [].__class__.__name__, type(None).__name__, __name__)
    if __name__ == '__main__':
        print('main')
    """)


def test_type_is_not_a_class_factory_and_class_internals_stay_closed(run_err):
    e = run_err("X = type('X', (), {})")
    assert e.type == "TypeError" and "class" in e.message
    for source in ("x = type.__subclasses__", "x = (1).__class__.__bases__", "x = int.__mro__",
                   "x = type(len).__call__", "x = type.mro", "class M(type):\n    pass\n"):
        assert run_err(source).type in ("AttributeError", "TypeError"), source
