"""Program-side ``tqdm`` (``tqdm``, ``tqdm.auto``, ``tqdm.notebook``): the progress bar real
training scripts wrap their loops in. It iterates what it wraps, through the interpreter, and
draws nothing (its bar is terminal output; a program reports progress with ``log(step=...)``);
``write`` prints to the program's output, as tqdm.write does. ``file=sys.stdout`` or
``file=sys.stderr`` (the program's own streams, where tqdm draws by default) is accepted and
changes nothing; any other file is refused."""
from ..errors import PROGRAM_EXCEPTIONS as _P
from . import builtins, check_string, iterate

_NOT_SIZED = (TypeError, AttributeError, _P["TypeError"], _P["AttributeError"])

__all__ = ["tqdm", "trange"]


def _is_std_stream(file):
    from .sys import stderr, stdout
    return file is stdout or file is stderr


class tqdm:
    """``tqdm(iterable=None, desc=None, total=None, ...)``: iterates ``iterable``, counting ``n``."""

    def __init__(self, iterable=None, desc=None, total=None, leave=True, file=None, ncols=None, mininterval=0.1,
                 maxinterval=10.0, miniters=None, ascii=None, disable=False, unit="it", unit_scale=False,
                 dynamic_ncols=False, smoothing=0.3, bar_format=None, initial=0, position=None, postfix=None,
                 unit_divisor=1000, write_bytes=False, lock_args=None, nrows=None, colour=None, delay=0,
                 **kwargs):
        if file is not None and not _is_std_stream(file):
            raise TypeError("tqdm(file=...) is not available in programs: the bar is not drawn (file=sys.stdout "
                            "and file=sys.stderr are accepted and change nothing)")
        self.iterable = iterable
        self.desc = desc if type(desc) is str else ""
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except _NOT_SIZED:
                total = None
        self.total = total
        self.n = initial if type(initial) in (int, float) else 0
        self.disable = bool(disable)
        self.postfix = None
        self._it = None

    def __iter__(self):
        if self.iterable is None:
            raise TypeError("'tqdm' object is not iterable without an iterable")
        self._it = iterate(self.iterable)
        return self

    def __next__(self):
        if self._it is None:
            self.__iter__()
        item = next(self._it)
        self.n += 1
        return item

    def __len__(self):
        if self.total is None:
            raise TypeError("object of type 'tqdm' has no len()")
        return self.total

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        if type(n) not in (int, float):
            raise TypeError("tqdm.update takes a number")
        self.n += n
        return True

    def set_description(self, desc=None, refresh=True):
        self.desc = desc if type(desc) is str else ""

    set_description_str = set_description

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        self.postfix = None

    set_postfix_str = set_postfix

    def refresh(self, *args, **kwargs):
        return None

    def reset(self, total=None):
        self.n = 0
        if total is not None:
            self.total = total

    def close(self):
        return None

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
