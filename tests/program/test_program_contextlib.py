"""Program-side ``contextlib`` (contextmanager, nullcontext, suppress): each behaviour against CPython
running the same text, then a method of a module, errors at their lines, and what it lets a program
reach."""
import pytest

from gradserve.engine.program import Limits, Namespace, run

from python_oracle import assert_same_as_python

SAME_AS_PYTHON = {
    "enter_value_and_cleanup_order": """
        from contextlib import contextmanager
        log = []
        @contextmanager
        def tag(name):
            log.append("enter " + name)
            try:
                yield name.upper()
            finally:
                log.append("exit " + name)
        with tag("a") as t:
            log.append(t)
        print(log)
    """,
    "exception_reaches_the_yield_and_propagates": """
        from contextlib import contextmanager
        @contextmanager
        def watch():
            try:
                yield
            except ValueError as e:
                print("saw", e)
                raise
            finally:
                print("finally")
        try:
            with watch():
                raise ValueError("boom")
        except ValueError as e:
            print("caught", e)
    """,
    "generator_handles_the_exception": """
        from contextlib import contextmanager
        @contextmanager
        def swallow():
            try:
                yield 1
            except KeyError as e:
                print("swallowed", repr(e))
        with swallow() as one:
            print(one)
            {}["x"]
        print("after")
    """,
    "generator_raises_another_exception": """
        from contextlib import contextmanager
        @contextmanager
        def convert():
            try:
                yield
            except KeyError:
                raise RuntimeError("converted")
        try:
            with convert():
                {}["k"]
        except RuntimeError as e:
            print(type(e).__name__, e)
    """,
    "generator_misbehaving": """
        from contextlib import contextmanager
        @contextmanager
        def none():
            if False:
                yield
        @contextmanager
        def twice():
            yield 1
            yield 2
        for cm in (none, twice):
            try:
                with cm():
                    print("body")
            except RuntimeError as e:
                print("RuntimeError", e)
    """,
    "arguments_and_reuse_of_the_factory": """
        from contextlib import contextmanager
        @contextmanager
        def scaled(x, *, by=2):
            yield x * by
        with scaled(3) as a, scaled(4, by=10) as b:
            print(a, b)
        with scaled(1) as c:
            print(c)
    """,
    "nullcontext_and_suppress": """
        from contextlib import nullcontext, suppress
        with nullcontext(5) as five:
            print(five)
        with nullcontext() as nothing:
            print(nothing)
        with suppress(ZeroDivisionError, KeyError):
            1 / 0
            print("not reached")
        print("suppressed")
        try:
            with suppress(KeyError):
                [][1]
        except IndexError as e:
            print("IndexError passes", e)
    """,
    "import_forms": """
        import contextlib
        from contextlib import contextmanager as cm
        @contextlib.contextmanager
        def a():
            yield "a"
        @cm
        def b():
            yield "b"
        with a() as x, b() as y:
            print(x + y)
    """,
}


@pytest.mark.parametrize("name", sorted(SAME_AS_PYTHON))
def test_same_as_python(name):
    assert_same_as_python(SAME_AS_PYTHON[name])


def test_a_method_of_a_module_binds_self():
    src = """
import torch
from contextlib import contextmanager, nullcontext

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)

    @contextmanager
    def evaluating(self):
        was = self.training
        self.eval()
        try:
            yield self
        finally:
            self.train(was)

net = Net()
with net.evaluating() as m:
    inside = (m is net, net.training)
after = net.training
use_amp = False
with torch.no_grad() if use_amp else nullcontext():
    y = net.fc(torch.ones(1, 2)).sum()
y.backward()
has_grad = net.fc.weight.grad is not None
"""
    ns = Namespace()
    out = run(src, ns, Limits())
    assert out.ok, out.error.to_dict()
    assert ns.globals["inside"] == (True, False)
    assert ns.globals["after"] is True
    assert ns.globals["has_grad"] is True


def test_errors_name_the_program_line():
    out = run("from contextlib import contextmanager\n@contextmanager\ndef f():\n    return 1\nwith f():\n    pass\n",
              Namespace(), Limits())
    assert not out.ok and out.error.type == "TypeError" and out.error.line == 5, out.error.to_dict()
    assert "generator function" in out.error.message
    out = run("from contextlib import suppress\nwith suppress(1):\n    pass\n", Namespace(), Limits())
    assert not out.ok and out.error.type == "TypeError" and out.error.line == 2, out.error.to_dict()


def test_an_endless_body_in_a_context_manager_meets_the_step_limit():
    src = """
from contextlib import contextmanager
@contextmanager
def spin():
    while True:
        pass
    yield
with spin():
    pass
"""
    out = run(src, Namespace(), Limits(steps=10_000))
    assert not out.ok and out.error.type == "LimitExceeded" and out.error.limit == "steps"


@pytest.mark.parametrize("expr", ["cm.func", "cm.__wrapped__", "cm.__call__.__globals__", "g.gen", "g.__exit__"])
def test_programs_reach_nothing_through_it(expr):
    src = f"""
from contextlib import contextmanager
@contextmanager
def f():
    yield
cm = f
g = f()
x = {expr}
"""
    out = run(src, Namespace(), Limits())
    assert not out.ok and out.error.type == "AttributeError", out.error.to_dict()
