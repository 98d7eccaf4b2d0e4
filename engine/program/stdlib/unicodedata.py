"""Program-side ``unicodedata``: the Unicode database's lookups on program strings, as CPython's
(the NLP tutorials' ``unicodeToAscii``: ``unicodedata.normalize('NFD', s)`` and
``unicodedata.category(c) != 'Mn'``). ``normalize`` is sized before it runs: a form can
lengthen a string (NFKD up to 18 times), and what it could build is checked first."""
import unicodedata as _u

from . import check_string

__all__ = ["bidirectional", "category", "combining", "decimal", "digit", "east_asian_width", "is_normalized",
           "lookup", "mirrored", "name", "normalize", "numeric", "unidata_version"]

unidata_version = _u.unidata_version
_GROWTH = {"NFC": 3, "NFD": 4, "NFKC": 18, "NFKD": 18}   # the most a form lengthens a string, per character


def _char(fn, c):
    if type(c) is not str:
        raise TypeError(f"{fn}() argument must be a unicode character, not {type(c).__name__}")
    if len(c) != 1:
        raise TypeError(f"{fn}() argument must be a unicode character, not str")
    return c


def _str(fn, s, what="argument 2"):
    if type(s) is not str:
        raise TypeError(f"{fn}() {what} must be str, not {type(s).__name__}")
    return s


def normalize(form, unistr):
    _str("normalize", form, "argument 1")
    _str("normalize", unistr)
    if form not in _GROWTH:
        raise ValueError("invalid normalization form")
    if unistr.isascii():
        return unistr   # every form leaves ASCII as it is
    check_string(len(unistr) * _GROWTH[form])
    return _u.normalize(form, unistr)


def is_normalized(form, unistr):
    _str("is_normalized", form, "argument 1")
    _str("is_normalized", unistr)
    if form not in _GROWTH:
        raise ValueError("invalid normalization form")
    return _u.is_normalized(form, unistr)


def category(c):
    return _u.category(_char("category", c))


def bidirectional(c):
    return _u.bidirectional(_char("bidirectional", c))


def combining(c):
    return _u.combining(_char("combining", c))


def east_asian_width(c):
    return _u.east_asian_width(_char("east_asian_width", c))


def mirrored(c):
    return _u.mirrored(_char("mirrored", c))


def decimal(c, *default):
    return _u.decimal(_char("decimal", c), *default[:1]) if default else _u.decimal(_char("decimal", c))


def digit(c, *default):
    return _u.digit(_char("digit", c), *default[:1]) if default else _u.digit(_char("digit", c))


def numeric(c, *default):
    return _u.numeric(_char("numeric", c), *default[:1]) if default else _u.numeric(_char("numeric", c))


def name(c, *default):
    return _u.name(_char("name", c), *default[:1]) if default else _u.name(_char("name", c))


def lookup(name):
    _str("lookup", name, "argument")
    if len(name) > 256:
        raise KeyError("name too long")
    return _u.lookup(name)
