"""Generator functions in programs (``yield``, ``yield from``, ``send``, ``throw``, ``close``): each
behaviour against CPython running the same text, then limits, errors with their lines, the debugger,
what a suspended generator holds, and what a program can (not) reach through one."""
import gc
import textwrap

import pytest

from gradserve.engine.program import Limits, Namespace, run
from gradserve.engine.program.debugger import Debugger

from python_oracle import assert_same_as_python, python_stdout
from test_program_debugger import Script

try:
    import torch as real_torch
except ImportError:  # the suite passes without PyTorch
    real_torch = None


SAME_AS_PYTHON = {
    "next_and_return_value": """
        def gen(n):
            for i in range(n):
                yield i * 2
            return "done"
        g = gen(3)
        print(next(g), next(g), next(g))
        try:
            next(g)
        except StopIteration as e:
            print("stop", repr(e.value), e.args)
        print(next(g, "default"), next(gen(0), None))
    """,
    "lazy_evaluation_interleaves": """
        def noisy(n):
            print("start")
            for i in range(n):
                print("make", i)
                yield i
            print("end")
        g = noisy(2)
        print("created")
        for x in g:
            print("got", x)
    """,
    "consumers": """
        def gen(n):
            for i in range(n):
                yield i
        print(list(gen(4)), tuple(gen(3)), set(gen(3)), sum(gen(5)), sum(gen(3), 10))
        print(sorted(gen(4), reverse=True), min(gen(4)), max(gen(4), key=lambda v: -v))
        print(any(x > 2 for x in gen(4)), all(gen(3)), any(gen(0)), all(gen(0)))
        print(list(zip(gen(3), "abc")), list(enumerate(gen(3), 1)), dict(zip("ab", gen(2))))
        print(list(map(str, gen(3))), list(filter(None, gen(4))), list(reversed(list(gen(3)))))
        a, b, *rest = gen(5)
        print(a, b, rest, [*gen(2), *gen(2)], (*gen(3),), {*gen(2)})
        print(*gen(3), sep="-")
        print(2 in gen(4), 7 in gen(4), "".join(str(v) for v in gen(3)))
        print([v * v for v in gen(4) if v % 2], {v: v for v in gen(2)})
        it = gen(3)
        print(iter(it) is it, next(iter(it)), list(it), list(it))
    """,
    "endless_generators": """
        import itertools
        def count(start=0):
            i = start
            while True:
                yield i
                i += 1
        print(list(zip(count(), "xyz")), next(count(5)), list(itertools.islice(count(3), 4)))
        for x in count():
            if x * x > 50:
                break
        print(x)
        c = count()
        print([next(c) for _ in range(3)], next(c))
    """,
    "send_and_bare_yield": """
        def echo():
            total = 0
            while True:
                x = yield total
                if x is None:
                    break
                total += x
            return total
        e = echo()
        print(next(e), e.send(3), e.send(4))
        try:
            e.send(None)
        except StopIteration as s:
            print("returned", s.value)
        def bare():
            got = yield
            print("bare got", got)
            yield
        b = bare()
        print(next(b), b.send("hello"))
        try:
            echo().send(1)
        except TypeError as err:
            print("TypeError", err)
    """,
    "yield_inside_expressions": """
        def exprs():
            y = 1 + (yield "a")
            z = [(yield "b"), (yield "c")]
            d = {(yield "k"): (yield "v")}
            s = f"<{(yield 'f')}>"
            t = (yield "t") if y > 100 else (yield "e")
            u = y > 0 and (yield "and")
            w = 0 < (yield "lt") < 10
            items = [10, 20, 30]
            print(y, z, d, s, t, u, w, items[(yield "idx")], str((yield "call")).upper())
            return (yield "last")
        g = exprs()
        sent = [next(g)]
        try:
            for v in [1, 2, 3, "key", "val", "F", "T", "A", 5, 2, "x", "ret"]:
                sent.append(g.send(v))
        except StopIteration as stop:
            print("value", stop.value)
        print(sent)
    """,
    "yield_in_conditions": """
        def cond():
            n = 0
            while (yield n):
                n += 1
            if (yield "if"):
                print("true branch")
            else:
                print("false branch")
            for ch in (yield "iter"):
                yield ch.upper()
        g = cond()
        print(next(g), g.send(True), g.send(True), g.send(False), g.send(0), g.send("ab"), next(g))
        print(next(g, "finished"))
    """,
    "yield_from": """
        def inner():
            got = yield "i1"
            print("inner got", got)
            yield "i2"
            return "inner result"
        def outer():
            r = yield from inner()
            print("r =", r)
            yield from [1, 2]
            yield from range(3, 5)
            yield from (c for c in "ab")
            return (yield from inner())
        g = outer()
        print(next(g), g.send("sent through"), list(g))
        def tree(node):
            if isinstance(node, list):
                for child in node:
                    yield from tree(child)
            else:
                yield node
        print(list(tree([1, [2, [3, 4], []], [[5]]])))
    """,
    "throw_and_except_inside": """
        def g():
            while True:
                try:
                    x = yield "ready"
                    print("got", x)
                except ValueError as e:
                    print("caught", e)
                    yield "recovered"
        it = g()
        print(next(it), it.send(1), it.throw(ValueError("bad")), next(it))
        try:
            it.throw(KeyError("k"))
        except KeyError as e:
            print("propagated", repr(e))
        print(next(it, "done"))
        def delegating():
            yield from g()
        d = delegating()
        print(next(d), d.throw(ValueError("through")), next(d))
        fresh = g()
        try:
            fresh.throw(RuntimeError("before start"))
        except RuntimeError as e:
            print("unstarted", e, next(fresh, "closed"))
    """,
    "close_and_finally": """
        def fin(tag):
            try:
                yield 1
                yield 2
            finally:
                print("cleanup", tag)
        f = fin("a")
        print(next(f))
        f.close()
        print("closed", next(f, "exhausted"))
        print(list(fin("b")))
        fin("c").close()
        done = fin("d")
        print(list(done))
        done.close()
        def catches():
            try:
                yield 1
            except GeneratorExit:
                print("GeneratorExit seen")
                raise
        c = catches()
        next(c)
        c.close()
        def stubborn():
            ignored = False
            while True:
                try:
                    yield 1
                except GeneratorExit:
                    if ignored:
                        raise
                    ignored = True
                    print("ignoring")
        s = stubborn()
        next(s)
        try:
            s.close()
        except RuntimeError as e:
            print("RuntimeError", e)
        def failing():
            try:
                yield 1
                raise ValueError("inside")
            finally:
                print("finally on error")
        try:
            list(failing())
        except ValueError as e:
            print("ValueError", e)
        def returning_in_finally():
            try:
                yield 1
                raise KeyError("swallowed")
            finally:
                return "from finally"
        r = returning_in_finally()
        next(r)
        try:
            next(r)
        except StopIteration as e:
            print("finally returned", e.value)
        def nested_close():
            try:
                yield from fin("inner")
            finally:
                print("outer cleanup")
        n = nested_close()
        next(n)
        n.close()
    """,
    "pep_479": """
        def raises():
            yield 1
            raise StopIteration("explicit")
        try:
            list(raises())
        except RuntimeError as e:
            print("RuntimeError", e)
        def exhausts():
            it = iter([1])
            while True:
                yield next(it)
        try:
            print(list(exhausts()))
        except RuntimeError as e:
            print("RuntimeError", e)
        def in_loop():
            for i in range(3):
                yield i
                if i == 1:
                    next(iter([]))
        try:
            list(in_loop())
        except RuntimeError as e:
            print("RuntimeError", e)
        def caught_inside():
            try:
                for i in range(2):
                    yield i
                next(iter([]))
            except StopIteration:
                yield "caught"
        print(list(caught_inside()))
        def thrown():
            yield 1
        t = thrown()
        next(t)
        try:
            t.throw(StopIteration())
        except RuntimeError as e:
            print("thrown in:", e)
    """,
    "exceptions_end_the_generator": """
        def g():
            yield 1
            1 / 0
            yield 2
        it = g()
        print(next(it))
        try:
            next(it)
        except ZeroDivisionError as e:
            print("error", e)
        print(next(it, "finished"), list(it))
    """,
    "methods_classes_and_closures": """
        class Batches:
            def __init__(self, data, size):
                self.data = data
                self.size = size
            def __iter__(self):
                for i in range(0, len(self.data), self.size):
                    yield self.data[i:i + self.size]
            def pairs(self):
                for b in self:
                    yield from zip(b, b[1:])
        b = Batches(list(range(7)), 3)
        print([x for x in b], list(b), list(b.pairs()), next(iter(b)))
        for i, batch in enumerate(b):
            print(i, batch)
        def counter_factory(step):
            def counter(n):
                for i in range(n):
                    yield i * step
            return counter
        print(list(counter_factory(5)(3)))
        def fib():
            a, b = 0, 1
            while True:
                yield a
                a, b = b, a + b
        import itertools
        print(list(itertools.islice(fib(), 10)))
        class Node:
            def __init__(self, v, kids=()):
                self.v, self.kids = v, kids
            def walk(self):
                yield self.v
                for k in self.kids:
                    yield from k.walk()
        print(list(Node(1, [Node(2, [Node(3)]), Node(4)]).walk()))
        class Base:
            def __iter__(self):
                yield 1
                yield 2
        class Child(Base):
            def __iter__(self):
                yield 0
                yield from super().__iter__()
                for v in super().__iter__():
                    yield v * 10
        print(list(Child()))
    """,
    "handled_exception_is_its_own": """
        def g():
            try:
                raise ValueError("inner")
            except ValueError:
                yield 1
                raise
        try:
            raise KeyError("outer")
        except KeyError:
            it = g()
            next(it)
            try:
                raise
            except KeyError as e:
                print("outer kept", repr(e))
        try:
            next(it)
        except ValueError as e:
            print("inner kept", repr(e))
    """,
    "with_statement": """
        class Ctx:
            def __init__(self, name):
                self.name = name
            def __enter__(self):
                print("enter", self.name)
                return self
            def __exit__(self, t, v, tb):
                print("exit", self.name, t.__name__ if t else None)
                return t is KeyError
        def g():
            with Ctx("a") as c:
                yield c.name
                yield "second"
            with Ctx("b"):
                yield "in b"
            yield "after"
        print(list(g()))
        it = g()
        next(it)
        print(it.throw(KeyError("suppressed")))
        it2 = g()
        next(it2)
        try:
            it2.throw(ValueError("propagates"))
        except ValueError as e:
            print("ValueError", e)
    """,
    "inspect": """
        import inspect
        def g():
            yield 1
        def f():
            return 1
        class C:
            def __iter__(self):
                yield 1
        print(inspect.isgeneratorfunction(g), inspect.isgeneratorfunction(f), inspect.isgeneratorfunction(C().__iter__))
        print(inspect.isgenerator(g()), inspect.isgenerator(f()), inspect.isgenerator([]))
    """,
    "generator_repr_and_errors": """
        def g():
            yield 1
        it = g()
        try:
            len(it)
        except TypeError as e:
            print(e)
        try:
            it[0]
        except TypeError as e:
            print(e)
        try:
            next([1])
        except TypeError as e:
            print(e)
    """,
    "nested_generators_and_loops": """
        def evens(limit):
            for i in range(limit):
                if i % 2:
                    continue
                if i > 6:
                    break
                yield i
            else:
                yield "no break"
        def product():
            for a in evens(10):
                for b in evens(3):
                    yield a, b
        print(list(evens(5)), list(evens(20)), list(product()))
        def interleave(*gens):
            gens = [iter(g) for g in gens]
            while gens:
                for g in list(gens):
                    try:
                        yield next(g)
                    except StopIteration:
                        gens.remove(g)
        print(list(interleave(evens(5), "xy", range(100, 103))))
    """,
    "already_executing": """
        def selfish():
            yield next(me)
        me = selfish()
        try:
            next(me)
        except ValueError as e:
            print("ValueError", e)
        def sends_to_itself():
            yield me2.send(1)
        me2 = sends_to_itself()
        try:
            next(me2)
        except ValueError as e:
            print("ValueError", e)
    """,
    "augmented_and_annotated_yields": """
        def acc():
            total = 0
            while True:
                total += yield total
                n: int = yield "annotated"
                print("n", n)
        a = acc()
        print(next(a), a.send(5), a.send(7), a.send(2), a.send(0))
    """,
}


@pytest.mark.parametrize("source", SAME_AS_PYTHON.values(), ids=SAME_AS_PYTHON.keys())
def test_generators_behave_as_in_python(source):
    assert_same_as_python(source)


def _run(source, ns=None, limits=None, **kw):
    return run(textwrap.dedent(source), ns if ns is not None else Namespace(), limits, **kw)


def _ok(source, ns=None, limits=None):
    out = _run(source, ns, limits)
    assert out.ok, out.error.to_dict()
    return out


def _err(source, ns=None, limits=None):
    out = _run(source, ns, limits)
    assert not out.ok, out.stdout
    return out.error


# --------------------------------------------------------------------------- tensors
DATA_GEN = """
import torch
class Batch:
    def __init__(self, src, tgt):
        self.src = src
        self.tgt = tgt
def data_gen(V, batch_size, nbatches):
    for i in range(nbatches):
        data = torch.randint(1, V, size=(batch_size, 10))
        data[:, 0] = 1
        yield Batch(data.clone(), data.clone())
def get_batches(arr, batch_size, seq_length):
    per_batch = batch_size * seq_length
    arr = arr[:(len(arr) // per_batch) * per_batch].reshape((batch_size, -1))
    for n in range(0, arr.shape[1], seq_length):
        x = arr[:, n:n + seq_length]
        y = torch.zeros_like(x)
        y[:, :-1], y[:, -1] = x[:, 1:], arr[:, (n + seq_length) % arr.shape[1]]
        yield x, y
torch.manual_seed(0)
batches = list(data_gen(11, 4, 3))
print(len(batches), tuple(batches[0].src.shape), bool((batches[2].src[:, 0] == 1).all()))
arr = torch.arange(40)
for x, y in get_batches(arr, 2, 5):
    print(x.tolist(), y.tolist())
stacked = torch.stack(list(x.sum() for x, _ in get_batches(arr, 2, 5)))
print(stacked.tolist())
def squares(t):
    for row in t:
        yield row * row
w = torch.ones(3, requires_grad=True)
loss = sum(r.sum() for r in squares(torch.stack([w, 2 * w])))
loss.backward()
print(loss.item(), w.grad.tolist())
"""


def test_tensor_batching_generators():
    out = _ok(DATA_GEN)
    lines = out.stdout.splitlines()
    assert lines[0] == "3 (4, 10) True"
    assert lines[1] == "[[0, 1, 2, 3, 4], [20, 21, 22, 23, 24]] [[1, 2, 3, 4, 5], [21, 22, 23, 24, 25]]"
    assert lines[-1] == "15.0 [10.0, 10.0, 10.0]"
    if real_torch is not None:
        assert out.stdout.splitlines()[1:] == _python_lines(DATA_GEN)[1:]


def _python_lines(source):
    return python_stdout(source).splitlines()


# --------------------------------------------------------------------------- limits
def test_an_endless_generator_meets_the_wall_time_limit():
    e = _err("def forever():\n    while True:\n        yield 1\nfor x in forever():\n    pass\n",
             limits=Limits(steps=10 ** 12, wall_time_s=0.3))
    assert e.type == "LimitExceeded" and e.limit == "wall_time"
    assert e.line in (2, 3, 4, 5)   # in the generator or in the loop over it, wherever the clock struck


def test_an_endless_generator_in_an_endless_loop_meets_the_step_limit():
    e = _err("""
        def forever():
            while True:
                yield 1
        for x in forever():
            pass
    """, limits=Limits(steps=20_000))
    assert e.type == "LimitExceeded" and e.limit == "steps" and "steps" in e.message


def test_summing_an_endless_generator_meets_the_step_limit():
    e = _err("def count():\n    i = 0\n    while True:\n        yield i\n        i += 1\ntotal = sum(count())\n",
             limits=Limits(steps=20_000))
    assert e.type == "LimitExceeded" and e.limit == "steps"


def test_an_endless_loop_inside_a_generator_meets_the_step_limit():
    e = _err("def stuck():\n    yield 1\n    while True:\n        pass\ng = stuck()\nnext(g)\nnext(g)\n",
             limits=Limits(steps=20_000))
    assert e.type == "LimitExceeded" and e.limit == "steps" and e.line in (3, 4)


def test_a_generator_that_allocates_meets_the_memory_limit():
    e = _err("""
        import torch
        def grow():
            keep = []
            while True:
                keep.append(torch.ones(1 << 20))
                yield len(keep)
        for n in grow():
            pass
    """, limits=Limits(session_bytes=64 << 20, steps=10 ** 7, wall_time_s=30))
    assert e.type == "LimitExceeded" and e.limit == "session_bytes"


def test_recursive_generators_meet_the_call_depth_limit():
    e = _err("def down(n):\n    yield n\n    yield from down(n + 1)\nlist(down(0))\n",
             limits=Limits(call_depth=50))
    assert e.type == "LimitExceeded" and e.limit == "call_depth"


def test_deep_but_allowed_delegation_works():
    out = _ok("def down(n):\n    if n:\n        yield from down(n - 1)\n    yield n\nprint(sum(down(30)))\n")
    assert out.stdout == "465\n"


# --------------------------------------------------------------------------- errors and their lines
def test_an_error_inside_a_generator_has_the_generators_line_and_the_callers():
    e = _err("def g():\n    yield 1\n    x = 1 / 0\n    yield x\nit = g()\nnext(it)\nnext(it)\n")
    assert (e.type, e.line) == ("ZeroDivisionError", 3)
    assert [(f["line"], f["function"]) for f in e.to_dict()["traceback"]] == [(7, "<module>"), (3, "g")]


def test_an_error_in_a_for_loop_over_a_generator_points_into_the_generator():
    e = _err("def g():\n    for i in range(3):\n        yield [1][i]\nfor v in g():\n    pass\n")
    assert (e.type, e.line) == ("IndexError", 3)
    assert [f["line"] for f in e.to_dict()["traceback"]] == [4, 3]


def test_pep_479_error_is_located_where_stop_iteration_was_raised():
    e = _err("def g():\n    yield 1\n    raise StopIteration\nlist(g())\n")
    assert (e.type, e.message, e.line) == ("RuntimeError", "generator raised StopIteration", 3)


def test_unsupported_yield_positions_are_refused_before_running():
    for source, line in [("def f():\n    return [(yield x) for x in range(3)]\n", 2),
                         ("f = lambda: (yield)\n", 1), ("yield 1\n", 1),
                         ("def f():\n    a = [1]\n    a[(yield)] = 2\n", 3)]:
        e = _err(source)
        assert (e.type, e.line) == ("SyntaxError", line), (source, e)


GENERATOR_OR_NOT = """
def outer():
    def inner():
        yield 1
    return inner
def with_lambda():
    f = lambda: 1
    return f
class C:
    def method(self):
        yield from range(2)
def has_genexp():
    return list(x for x in range(3))
def yields_in_a_loop(n):
    while n:
        n -= 1
        if n % 2:
            yield n
def plain_with_nested_class():
    class D:
        def g(self):
            yield 1
    return D
for f in (outer, outer(), with_lambda, C().method, has_genexp, yields_in_a_loop, plain_with_nested_class):
    r = f() if f is not yields_in_a_loop else f(5)
    print(f.__name__, list(r) if hasattr(r, 'send') else r.__name__ if callable(r) else r)
"""


def test_which_functions_are_generators_is_decided_as_python_does():
    """A function is a generator by a yield of its own (not of a nested def, lambda or class),
    as the scope analysis marks it while walking the program once."""
    assert_same_as_python(GENERATOR_OR_NOT)


def test_child_nodes_are_ast_iter_child_nodes():
    import ast
    import pathlib
    from gradserve.engine.program.scopes import child_nodes
    source = GENERATOR_OR_NOT + pathlib.Path(__file__).read_text()
    for node in ast.walk(ast.parse(source)):
        assert child_nodes(node) == list(ast.iter_child_nodes(node)), ast.dump(node)[:200]


# --------------------------------------------------------------------------- sessions and memory
def test_a_generator_lives_in_the_session_across_runs():
    ns = Namespace()
    _ok("def count():\n    i = 0\n    while True:\n        yield i\n        i += 1\nc = count()\nfirst = next(c)\n", ns)
    out = _ok("print(first, next(c), next(c))\n", ns)
    assert out.stdout == "0 1 2\n"


def test_host_code_cannot_run_a_generator_outside_a_run():
    ns = Namespace()
    _ok("def g():\n    yield 1\nit = g()\n", ns)
    with pytest.raises(RuntimeError, match="only run while"):
        next(ns.globals["it"])


@pytest.mark.parametrize("source", [
    # an argument held by the frame of a generator not started yet
    "def g(t):\n    yield t.sum()\nit = g(torch.zeros(1000000))\n",
    # a local of a suspended generator
    "def g():\n    big = torch.zeros(1000000)\n    yield 1\n    yield big\nit = g()\nnext(it)\n",
    # the iterator of a loop suspended at a yield (held only by the host generator)
    "def g():\n    for t in [torch.zeros(1000000)]:\n        yield 1\nit = g()\nnext(it)\n",
    # an operand evaluated before a yield inside an expression
    "def g():\n    x = [torch.zeros(1000000), (yield 1)]\nit = g()\nnext(it)\n",
    # a generator it delegates to
    "def inner():\n    t = torch.zeros(1000000)\n    yield 1\ndef outer():\n    yield from inner()\n"
    "it = outer()\nnext(it)\n",
    # a method generator holding its object
    "class Holder:\n    def __init__(self):\n        self.t = torch.zeros(1000000)\n    def __iter__(self):\n"
    "        yield 1\nit = iter(Holder())\nnext(it)\n",
], ids=["argument", "local", "loop_iterator", "operand", "delegate", "method"])
def test_session_bytes_see_what_a_suspended_generator_holds(source):
    ns = Namespace()
    _ok("import torch\n" + source, ns)
    gc.collect()
    assert 4_000_000 <= ns.nbytes() < 4_001_000


def test_generators_holding_tensors_meet_the_session_limit():
    limits = Limits(session_bytes=50 << 20)
    ns = Namespace()
    source = "import torch\ndef hold(t):\n    yield t\n    yield t\nit{i} = hold(torch.zeros(5000000))\nnext(it{i})\n"
    outcomes = [run(source.format(i=i), ns, limits) for i in range(3)]
    assert outcomes[0].ok and outcomes[1].ok
    assert not outcomes[2].ok and outcomes[2].error.limit == "session_bytes"


# --------------------------------------------------------------------------- the debugger
GEN_DEBUG = """\
def g(n):
    for i in range(n):
        x = i * 10
        yield x
total = 0
for v in g(2):
    total += v
"""


def test_a_breakpoint_inside_a_generator_pauses_there():
    script = Script([{"command": "eval", "expr": "i + n"}, {"command": "continue"}])
    out = run(GEN_DEBUG, Namespace(), debugger=Debugger(script.wait, script.emit, breakpoints=[{"line": 3}]))
    assert out.ok, out.error.to_dict()
    pauses = script.pauses
    assert [(p["line"], p["stack"][-1]["function"]) for p in pauses] == [(3, "g"), (3, "g")]
    assert [f["function"] for f in pauses[0]["stack"]] == ["<module>", "g"]
    assert script.answers[0]["value"]["value"] == 2   # i + n evaluated in the generator's frame


def test_a_breakpoint_on_a_yield_line_and_stepping_through_a_generator():
    script = Script([{"command": "step"}] * 30)
    out = run(GEN_DEBUG, Namespace(), debugger=Debugger(script.wait, script.emit, breakpoints=[{"line": 4}]))
    assert out.ok, out.error.to_dict()
    visited = [(p["line"], p["stack"][-1]["function"]) for p in script.pauses]
    assert visited[0] == (4, "g")
    assert (7, "<module>") in visited and (3, "g") in visited


def test_post_mortem_inside_a_generator():
    script = Script([])
    source = "def g():\n    yield 1\n    yield 1 / 0\nfor v in g():\n    pass\n"
    out = run(source, Namespace(), debugger=Debugger(script.wait, script.emit))
    assert not out.ok and out.error.type == "ZeroDivisionError"
    assert script.pauses and script.pauses[-1]["reason"] == "exception" and script.pauses[-1]["line"] == 3


# --------------------------------------------------------------------------- what a program reaches
@pytest.mark.parametrize("attribute", ["gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "gi_suspended",
                                       "_gen", "_frame", "_rt", "__next__", "__iter__", "program_close",
                                       "__dict__", "__self__", "f_globals", "__reduce__"])
def test_a_generator_exposes_no_frame_code_or_host_object(attribute):
    e = _err(f"def g():\n    yield 1\nit = g()\nv = it.{attribute}\n")
    assert e.type == "AttributeError" and e.line == 4


@pytest.mark.parametrize("source", [
    "m = it.send.__self__", "m = it.send.__func__", "m = it.close.__self__", "m = getattr(it, 'gi_frame')",
    "m = type(it).__dict__", "m = it.__class__.__dict__",
])
def test_a_generators_methods_reach_nothing_further(source):
    e = _err(f"def g():\n    yield 1\nit = g()\n{source}\n")
    assert e.type in ("AttributeError", "TypeError"), e


def test_a_copy_of_a_generator_is_refused():
    e = _err("import copy\ndef g():\n    yield 1\nc = copy.deepcopy(g())\n")
    assert e.type == "TypeError" and e.line == 4


def test_the_programs_generator_methods_work():
    out = _ok("def g():\n    x = yield 1\n    yield x\nit = g()\nprint(next(it), it.send(5), it.close(), list(it))\n")
    assert out.stdout == "1 5 None []\n"


def test_an_abandoned_generator_runs_no_program_code_when_collected():
    """The host's garbage collector finalizing a generator runs none of the program's finally blocks
    (program code only runs inside a run, through the interpreter); close() does."""
    ns = Namespace()
    out = _ok("log = []\ndef g():\n    try:\n        yield 1\n    finally:\n        log.append('finally')\n"
              "it = g()\nnext(it)\n", ns)
    del ns.globals["it"]
    gc.collect()
    assert ns.globals["log"] == []
    out = _ok("it = g()\nnext(it)\nit.close()\nprint(log)\n", ns)
    assert out.stdout == "['finally']\n"


def test_grad_mode_set_by_an_abandoned_generator_is_restored():
    out = _ok("""
        import torch
        def g():
            with torch.no_grad():
                yield torch.is_grad_enabled()
        it = g()
        print(next(it))
        del it
        print(torch.is_grad_enabled())
    """)
    assert out.stdout == "False\nTrue\n"


def test_a_grad_mode_decorator_applies_to_every_resumption():
    """PyTorch's @torch.no_grad() on a generator function runs each step of the generator under it
    (and leaves the caller's mode alone between steps)."""
    out = _ok("""
        import torch
        @torch.no_grad()
        def gen(x):
            yield torch.is_grad_enabled()
            yield (x * 2).requires_grad
        x = torch.ones(2, requires_grad=True)
        g = gen(x)
        print(torch.is_grad_enabled(), next(g), torch.is_grad_enabled(), next(g), torch.is_grad_enabled())
        @torch.enable_grad()
        def gen2():
            yield torch.is_grad_enabled()
        with torch.no_grad():
            print(list(gen2()), torch.is_grad_enabled())
        class M:
            @torch.no_grad()
            def __iter__(self):
                yield torch.is_grad_enabled()
        print(list(M()), torch.is_grad_enabled())
    """)
    assert out.stdout == "True False True False True\n[True] False\n[False] True\n"


def test_engine_functions_take_program_generators():
    """nn.ModuleList, nn.Sequential(*g), an optimizer's params and ModuleList.extend read a program
    generator through the interpreter (each item a resumption)."""
    out = _ok("""
        import torch
        import torch.nn as nn
        def layers(n):
            for i in range(n):
                yield nn.Linear(2, 2)
        ml = nn.ModuleList(layers(3))
        seq = nn.Sequential(*layers(2))
        def params(m):
            for p in m.parameters():
                yield p
        opt = torch.optim.SGD(params(seq), lr=0.1)
        ml.extend(layers(2))
        print(len(ml), len(seq), len(opt.param_groups[0]["params"]))
    """)
    assert out.stdout == "5 2 4\n"
