"""Program-side ``string``: its constants and ``capwords``."""
import string as _s

from . import check_string

__all__ = ["ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits", "octdigits",
           "punctuation", "printable", "whitespace", "capwords"]

ascii_letters = _s.ascii_letters
ascii_lowercase = _s.ascii_lowercase
ascii_uppercase = _s.ascii_uppercase
digits = _s.digits
hexdigits = _s.hexdigits
octdigits = _s.octdigits
punctuation = _s.punctuation
printable = _s.printable
whitespace = _s.whitespace


def capwords(s, sep=None):
    if type(s) is not str or (sep is not None and type(sep) is not str):
        raise TypeError("capwords() takes strings")
    out = _s.capwords(s, sep)
    check_string(len(out))
    return out
