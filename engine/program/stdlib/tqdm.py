"""Program-side ``tqdm`` (``tqdm``, ``tqdm.auto``, ``tqdm.notebook``): the progress bar real
training scripts wrap their loops in. It iterates what it wraps, through the interpreter, and reports
its progress as the run's ``log`` events (``step`` = ``n``, ``total``, ``desc`` and the postfix), which
the client, ``gradserve run`` and the viewer draw as their progress bar: at most one event per
``mininterval`` (0.1 s) and always the last. One bar reports at a time: one opened while another of the
run is still open (an inner loop's) stays silent. ``write`` prints to the program's output, as
tqdm.write does. ``file=sys.stdout`` or ``file=sys.stderr`` (the program's own streams, where tqdm
draws by default) is accepted and changes nothing; any other file is refused."""
from time import monotonic as _monotonic
from weakref import ref as _weakref

from ..builtin_functions import MAX_LOG_METRICS, MAX_LOG_NAME
from ..errors import PROGRAM_EXCEPTIONS as _P
from ...tensor import Tensor
from . import builtins, check_string, iterate, session_state
from .collections import OrderedDict as _OrderedDict

_NOT_SIZED = (TypeError, AttributeError, _P["TypeError"], _P["AttributeError"])
_NUMBER = (int, float, bool)
_DICTS = (dict, _OrderedDict)

__all__ = ["tqdm", "trange"]


def _reporter():
    """This run's reporting bar holder: ``{"run": the run's start, "bar": a weak reference to the bar that
    reports, or None}``."""
    started = builtins().rt.started
    holder = session_state("tqdm", dict)
    if holder.get("run") != started:
        holder.clear()
        holder["run"] = started
        holder["bar"] = None
    return holder


def _metric(value):
    """A postfix value as a log metric (numbers, strings, one-element tensors); None leaves it out."""
    if type(value) in _NUMBER or type(value) is str:
        return value
    if isinstance(value, Tensor) and value._data.size == 1:
        return value
    return None


def _is_std_stream(file):
    from .sys import stderr, stdout
    return file is stdout or file is stderr


class tqdm:
    """``tqdm(iterable=None, desc=None, total=None, ...)``: iterates ``iterable``, counting ``n``, and
    reports its progress as ``log(step=n, total=total, ...)`` events."""

    def __init__(self, iterable=None, desc=None, total=None, leave=True, file=None, ncols=None, mininterval=0.1,
                 maxinterval=10.0, miniters=None, ascii=None, disable=False, unit="it", unit_scale=False,
                 dynamic_ncols=False, smoothing=0.3, bar_format=None, initial=0, position=None, postfix=None,
                 unit_divisor=1000, write_bytes=False, lock_args=None, nrows=None, colour=None, delay=0,
                 **kwargs):
        if file is not None and not _is_std_stream(file):
            raise TypeError("tqdm(file=...) is not available in programs: the bar is drawn by the caller "
                            "(file=sys.stdout and file=sys.stderr are accepted and change nothing)")
        self.iterable = iterable
        self.desc = desc if type(desc) is str else ""
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except _NOT_SIZED:
                total = None
        self.total = total if type(total) in (int, float) else None
        self.n = initial if type(initial) in (int, float) else 0
        self.disable = bool(disable)
        self.postfix = None
        self._it = None
        self._yielded = False
        self._dirty = False
        self._metrics = {}           # the postfix as log metrics
        self._interval = mininterval if type(mininterval) in (int, float) else 0.1
        self._shown = None           # when it last reported (None: never)
        self._open = not self.disable
        if type(postfix) in _DICTS:
            self.set_postfix(postfix, refresh=False)
        self._report(force=True)

    # ------------------------------------------------------------------ reporting
    def _report(self, force=False):
        """Reports the bar's state if it changed, at most once per ``mininterval`` unless ``force``d or
        full."""
        self._dirty = True
        if not self._open:
            return
        now = _monotonic()
        if not force and self._shown is not None and now - self._shown < self._interval and (
                self.total is None or self.n < self.total):
            return
        holder = _reporter()
        bar = holder["bar"] and holder["bar"]()   # (a weak reference: the session keeps no bar, nor what it wraps)
        if bar is not self:
            if bar is not None and bar._open:
                return               # an outer bar reports; this one stays silent
            holder["bar"] = _weakref(self)
        self._shown = now
        self._dirty = False
        metrics = {"step": self.n}
        if self.total is not None:
            metrics["total"] = self.total
        if self.desc:
            metrics["desc"] = self.desc
        metrics.update(self._metrics)
        builtins().rt.log(metrics)

    def _finish(self):
        """Reports the last state (if it was not) and lets another bar report."""
        if self._open:
            if self._dirty:
                self._report(force=True)
            self._open = False

    # ------------------------------------------------------------------ iteration
    def __iter__(self):
        if self.iterable is None:
            raise TypeError("'tqdm' object is not iterable without an iterable")
        self._it = iterate(self.iterable)
        self._yielded = False
        return self

    def __next__(self):
        if self._it is None:
            self.__iter__()
        if self._yielded:            # as tqdm, ``n`` counts the items whose loop body has run
            self._yielded = False
            self.n += 1
            self._report()
        try:
            item = next(self._it)
        except StopIteration:
            self._finish()
            raise
        self._yielded = True
        return item

    def __len__(self):
        if self.total is None:
            raise TypeError("object of type 'tqdm' has no len()")
        return self.total

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def update(self, n=1):
        if type(n) not in (int, float):
            raise TypeError("tqdm.update takes a number")
        self.n += n
        self._report()
        return True

    def set_description(self, desc=None, refresh=True):
        self.desc = desc if type(desc) is str else ""
        if refresh:
            self._report()

    set_description_str = set_description

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        items = {}
        if type(ordered_dict) in _DICTS:
            items.update(dict.items(ordered_dict))
        for key in sorted(kwargs):
            items[key] = kwargs[key]
        metrics = {}
        for key, value in items.items():
            if len(metrics) >= MAX_LOG_METRICS - 3:    # (step, total and desc are the rest of one event)
                break
            value = _metric(value)
            if type(key) is str and len(key) <= MAX_LOG_NAME and key not in ("step", "total", "desc") \
                    and value is not None:
                metrics[key] = value
        self._metrics = metrics
        self.postfix = None
        if refresh:
            self._report()

    def set_postfix_str(self, s="", refresh=True):
        self._metrics = {"postfix": s} if type(s) is str and s else {}
        if refresh:
            self._report()

    def refresh(self, *args, **kwargs):
        self._report(force=True)

    def reset(self, total=None):
        self.n = 0
        if type(total) in (int, float):
            self.total = total
        self._open = not self.disable
        self._report(force=True)

    def close(self):
        self._finish()

    def clear(self, *args, **kwargs):
        return None

    @staticmethod
    def write(s, file=None, end="\n", nolock=False):
        """Prints ``s`` to the program's output."""
        if type(s) is not str or type(end) is not str:
            raise TypeError("tqdm.write takes a string")
        check_string(len(s) + len(end))
        builtins().rt.write(s + end)

    def __repr__(self):
        total = "?" if self.total is None else self.total
        return f"{self.desc}{': ' if self.desc else ''}{self.n}/{total}"


def trange(*args, **kwargs):
    """``tqdm(range(*args), **kwargs)``."""
    return tqdm(range(*args), **kwargs)
