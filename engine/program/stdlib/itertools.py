"""Program-side ``itertools``: lazy iterators whose every item costs a step. Inputs
are drawn through the interpreter (an endless or huge input meets the step limit);
the combinatoric ones take their (finite) inputs as lists first, sizes checked."""
import itertools as _it

from . import builtins, call, check_sequence, counted, materialize, step

__all__ = ["count", "cycle", "repeat", "accumulate", "chain", "compress", "dropwhile", "takewhile",
           "filterfalse", "groupby", "islice", "pairwise", "starmap", "zip_longest", "product",
           "permutations", "combinations", "combinations_with_replacement", "batched", "tee"]


def _out(it):
    from ..values import ProgramIterator
    return ProgramIterator(it, builtins().rt)


def count(start=0, step=1):
    return _out(_it.count(start, step))


def cycle(iterable):
    return _out(_it.cycle(counted(iterable)))


def repeat(object, times=None):
    return _out(_it.repeat(object) if times is None else _it.repeat(object, times))


def accumulate(iterable, func=None, *, initial=None):
    if func is None:
        from ..operators import BINARY
        add = BINARY["Add"]
        return _out(_it.accumulate(counted(iterable), add, initial=initial))
    return _out(_it.accumulate(counted(iterable), lambda a, b: call(func, (a, b)), initial=initial))


class chain:
    """``chain(*iterables)``; ``chain.from_iterable(iterables)``."""

    def __new__(cls, *iterables):
        return _out(_it.chain.from_iterable(counted(i) for i in iterables))

    @staticmethod
    def from_iterable(iterables):
        return _out(_it.chain.from_iterable(counted(i) for i in counted(iterables)))


def compress(data, selectors):
    return _out(_it.compress(counted(data), counted(selectors)))


def dropwhile(predicate, iterable):
    return _out(_it.dropwhile(lambda x: call(predicate, (x,)), counted(iterable)))


def takewhile(predicate, iterable):
    return _out(_it.takewhile(lambda x: call(predicate, (x,)), counted(iterable)))


def filterfalse(predicate, iterable):
    if predicate is None:
        return _out(_it.filterfalse(None, counted(iterable)))
    return _out(_it.filterfalse(lambda x: call(predicate, (x,)), counted(iterable)))


def _groups(iterable, key):
    k = None if key is None else (lambda x: call(key, (x,)))
    for value, group in _it.groupby(counted(iterable), k):
        yield value, _out(group)


def groupby(iterable, key=None):
    return _out(_groups(iterable, key))


def islice(iterable, *args):
    return _out(_it.islice(counted(iterable), *args))


def pairwise(iterable):
    return _out(_it.pairwise(counted(iterable)))


def starmap(function, iterable):
    return _out(call(function, tuple(materialize(args))) for args in counted(iterable))


def zip_longest(*iterables, fillvalue=None):
    return _out(_it.zip_longest(*[counted(i) for i in iterables], fillvalue=fillvalue))


def _pools(iterables, repeat=1):
    if type(repeat) is not int or repeat < 0:
        raise ValueError("repeat argument cannot be negative")
    pools = [tuple(materialize(i)) for i in iterables]
    check_sequence(sum(len(p) for p in pools) * repeat)
    return pools


def product(*iterables, repeat=1):
    pools = _pools(iterables, repeat)
    return _out(_it.product(*pools, repeat=repeat))


def _r(r, n):
    if r is None:
        return n
    if type(r) is not int:
        raise TypeError("r must be an integer")
    return r


def permutations(iterable, r=None):
    pool = materialize(iterable)
    return _out(_it.permutations(pool, _r(r, len(pool))))


def combinations(iterable, r):
    pool = materialize(iterable)
    return _out(_it.combinations(pool, _r(r, len(pool))))


def combinations_with_replacement(iterable, r):
    pool = materialize(iterable)
    r = _r(r, len(pool))
    if r > 0:
        check_sequence(r)
    return _out(_it.combinations_with_replacement(pool, r))


def _batches(iterable, n):
    it = counted(iterable)
    while True:
        batch = tuple(_it.islice(it, n))
        if not batch:
            return
        yield batch


def batched(iterable, n):
    if type(n) is not int or n < 1:
        raise ValueError("n must be at least one")
    check_sequence(n)
    return _out(_batches(iterable, n))


def tee(iterable, n=2):
    items = materialize(iterable)
    step(len(items) * n)
    return tuple(_out(iter(items)) for _ in range(n))
