"""Program-side ``re``: Python's regular expressions run by a Pike VM (Thompson's construction,
as RE2 runs them), so a match costs at most (text length) x (pattern size) steps, each counted,
where CPython's backtracking engine can take exponential time inside C, out of reach of the
step count and the deadline (``re.match("(a*)*b", "a" * 30)``).

Patterns are parsed by CPython's own parser (its syntax, flags and error messages) and compiled
here. What a backtracking engine needs is refused with ``re.error``: backreferences
(``\\1`` in a pattern, ``(?P=name)``), lookahead and lookbehind, conditional groups, atomic
groups and possessive repeats. Among the matches that start leftmost, the one found is the one
Python's engine prefers (greedy and lazy repeats, alternatives in order), captures included.
"""
import re as _re
import re._constants as _c
import re._parser as _sp

from ..errors import PROGRAM_EXCEPTIONS as _P
from . import call, check_sequence, check_string, step

__all__ = ["compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer", "escape",
           "purge", "error", "Pattern", "Match", "I", "IGNORECASE", "M", "MULTILINE", "S", "DOTALL", "A", "ASCII",
           "X", "VERBOSE", "U", "UNICODE", "NOFLAG"]

I = IGNORECASE = int(_re.IGNORECASE)   # plain ints: programs combine them with | and &
M = MULTILINE = int(_re.MULTILINE)
S = DOTALL = int(_re.DOTALL)
A = ASCII = int(_re.ASCII)
X = VERBOSE = int(_re.VERBOSE)
U = UNICODE = int(_re.UNICODE)
NOFLAG = 0
_FLAGS = I | M | S | A | X | U

_MAX_PATTERN = 10_000      # characters of a pattern
_MAX_PARENS = 100          # groups nested or not: the parser and the compiler recurse on nesting
_MAX_PROGRAM = 20_000      # instructions after repeats are unrolled


class error(_P["Exception"]):
    """re.error: a pattern the parser rejects, or one that needs backtracking."""

    def __init__(self, msg, pattern=None, pos=None):
        self.msg, self.pattern, self.pos = msg, pattern, pos
        if pattern is not None and pos is not None:   # CPython's wording
            msg = f"{msg} at position {pos}"
            if "\n" in pattern:
                msg = f"{msg} (line {pattern.count(chr(10), 0, pos) + 1}, column {pos - pattern.rfind(chr(10), 0, pos)})"
        super().__init__(msg)


error.__module__ = "re"

# --------------------------------------------------------------------------- instructions
# (op, a, b): CHAR c | ANY dotall | SET (negate, items, ignorecase) | SPLIT x y (x preferred) |
# JMP x | SAVE slot | AT code | MATCH
_CHAR, _ANY, _SET, _SPLIT, _JMP, _SAVE, _AT, _MATCH, _NCHAR = range(9)
_REFUSED = {
    _c.GROUPREF: "backreferences", _c.GROUPREF_EXISTS: "conditional groups", _c.ASSERT: "lookahead and lookbehind",
    _c.ASSERT_NOT: "lookahead and lookbehind", _c.ATOMIC_GROUP: "atomic groups",
    _c.POSSESSIVE_REPEAT: "possessive repeats",
}


def _size(tree):
    """Instructions the compiled tree needs (before it is built)."""
    n = 0
    for op, av in tree:
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            lo, hi, sub = av
            k = _size(sub)
            n += k * lo + (k + 2) * ((hi - lo) if hi != _c.MAXREPEAT else 1) + 2
        elif op is _c.SUBPATTERN:
            n += _size(av[3]) + 2
        elif op is _c.BRANCH:
            n += sum(_size(b) + 2 for b in av[1])
        else:
            n += 1
        if n > _MAX_PROGRAM:
            return n
    return n


class _Compiler:
    def __init__(self, flags):
        self.code = []
        self.flags = flags

    def emit(self, op, a=None, b=None):
        self.code.append([op, a, b])
        return len(self.code) - 1

    def tree(self, tree, flags):
        for op, av in tree:
            self.node(op, av, flags)

    def node(self, op, av, flags):
        ic = bool(flags & I)
        if op is _c.LITERAL:
            self.emit(_CHAR, chr(av), ic)
        elif op is _c.NOT_LITERAL:
            self.emit(_NCHAR, chr(av), ic)
        elif op is _c.ANY:
            self.emit(_ANY, bool(flags & S))
        elif op is _c.IN:
            negate = bool(av) and av[0][0] is _c.NEGATE
            items = tuple(av[1:] if negate else av)
            self.emit(_SET, (negate, items, flags), ic)
        elif op is _c.AT:
            self.emit(_AT, av, flags)
        elif op is _c.SUBPATTERN:
            group, add, delete, sub = av
            inner = (flags | add) & ~delete
            if group is not None:
                self.emit(_SAVE, 2 * group)
            self.tree(sub, inner)
            if group is not None:
                self.emit(_SAVE, 2 * group + 1)
        elif op is _c.BRANCH:
            jumps = []
            branches = av[1]
            for k, b in enumerate(branches):
                if k < len(branches) - 1:
                    split = self.emit(_SPLIT)
                    self.code[split][1] = len(self.code)
                    self.tree(b, flags)
                    jumps.append(self.emit(_JMP))
                    self.code[split][2] = len(self.code)
                else:
                    self.tree(b, flags)
            for j in jumps:
                self.code[j][1] = len(self.code)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            lo, hi, sub = av
            greedy = op is _c.MAX_REPEAT
            for _ in range(lo):
                self.tree(sub, flags)
            if hi == _c.MAXREPEAT:
                split = self.emit(_SPLIT)
                body = len(self.code)
                self.tree(sub, flags)
                self.emit(_JMP, split)
                self._branch(split, body, len(self.code), greedy)
            else:
                ends = []
                for _ in range(hi - lo):
                    split = self.emit(_SPLIT)
                    body = len(self.code)
                    self.tree(sub, flags)
                    ends.append((split, body))
                for split, body in ends:
                    self._branch(split, body, len(self.code), greedy)
        elif op in _REFUSED:
            raise error(f"{_REFUSED[op]} are not available in programs: they need a backtracking engine, whose "
                        f"time no limit can bound")
        else:
            raise error(f"pattern element {op} is not available in programs")

    def _branch(self, split, body, after, greedy):
        self.code[split][1], self.code[split][2] = (body, after) if greedy else (after, body)


# --------------------------------------------------------------------------- character tests
def _is_word(ch, flags):
    if flags & A:
        return ch.isascii() and (ch.isalnum() or ch == "_")
    return ch.isalnum() or ch == "_"


def _category(cat, ch, flags):
    ascii_ = flags & A
    if cat is _c.CATEGORY_DIGIT:
        return ch.isdecimal() and (not ascii_ or ch.isascii())
    if cat is _c.CATEGORY_NOT_DIGIT:
        return not (ch.isdecimal() and (not ascii_ or ch.isascii()))
    if cat is _c.CATEGORY_SPACE:
        return ch in " \t\n\r\f\v" if ascii_ else ch.isspace()
    if cat is _c.CATEGORY_NOT_SPACE:
        return not (ch in " \t\n\r\f\v" if ascii_ else ch.isspace())
    if cat is _c.CATEGORY_WORD:
        return _is_word(ch, flags)
    if cat is _c.CATEGORY_NOT_WORD:
        return not _is_word(ch, flags)
    raise error(f"character category {cat} is not available in programs")


def _in_items(items, ch, flags):
    o = ord(ch)
    for op, av in items:
        if op is _c.LITERAL:
            if o == av:
                return True
        elif op is _c.RANGE:
            if av[0] <= o <= av[1]:
                return True
        elif op is _c.CATEGORY:
            if _category(av, ch, flags):
                return True
        elif op is _c.NOT_LITERAL:
            if o != av:
                return True
        else:
            raise error(f"set element {op} is not available in programs")
    return False


def _set_match(arg, ch, ignorecase):
    negate, items, flags = arg
    hit = _in_items(items, ch, flags)
    if not hit and ignorecase:
        lo, up = ch.lower(), ch.upper()
        hit = (lo != ch and _in_items(items, lo, flags)) or (up != ch and _in_items(items, up, flags))
    return hit != negate


def _at(code, flags, s, i):
    n = len(s)
    if code is _c.AT_BEGINNING:
        return i == 0 or (flags & M and s[i - 1] == "\n")
    if code is _c.AT_BEGINNING_STRING:
        return i == 0
    if code is _c.AT_END:
        if flags & M:
            return i == n or s[i] == "\n"
        return i == n or (i == n - 1 and s[i] == "\n")
    if code is _c.AT_END_STRING:
        return i == n
    if code in (_c.AT_BOUNDARY, _c.AT_NON_BOUNDARY):
        before = i > 0 and _is_word(s[i - 1], flags)
        after = i < n and _is_word(s[i], flags)
        return (before != after) == (code is _c.AT_BOUNDARY)
    raise error(f"anchor {code} is not available in programs")


def _char_match(op, a, b, ch):
    if op == _CHAR:
        return ch == a or (b and ch.lower() == a.lower())
    if op == _NCHAR:
        return not (ch == a or (b and ch.lower() == a.lower()))
    if op == _ANY:
        return a or ch != "\n"
    return _set_match(a, ch, b)


# --------------------------------------------------------------------------- the Pike VM
def _run(code, nslots, s, pos, endpos, anchored, full, forbid=-1):
    """The leftmost match starting in [pos, endpos] (at pos only when anchored), Python's preferred
    one among those, as its capture slots; None when there is none. ``forbid``: a position where an
    empty match does not count (the one just found there). Threads run in priority order, one per
    instruction and position, so the work is at most (characters + 1) x instructions, each a step."""
    gen = [0] * len(code)   # gen[pc] == i + 1: pc already has its thread at position i
    matched = None

    def add(lst, pc, slots, i):
        stack = [(pc, slots)]
        visited = 0
        while stack:
            pc, slots = stack.pop()
            if gen[pc] == i + 1:
                continue
            gen[pc] = i + 1
            visited += 1
            op, a, b = code[pc]
            if op == _JMP:
                stack.append((a, slots))
            elif op == _SPLIT:
                stack.append((b, slots))
                stack.append((a, slots))
            elif op == _SAVE:
                if a < nslots:
                    slots = slots[:a] + (i,) + slots[a + 1:]
                stack.append((pc + 1, slots))
            elif op == _AT:
                if _at(a, b, s, i):
                    stack.append((pc + 1, slots))
            else:
                lst.append((pc, slots))
        return visited

    empty = (None,) * nslots
    i = pos
    clist = []
    step(add(clist, 0, empty, i) + 1)
    while True:
        if not clist and (matched is not None or anchored or i >= endpos):
            break
        nlist = []
        ch = s[i] if i < endpos else None
        cost = 1
        for pc, slots in clist:
            op, a, b = code[pc]
            cost += 1
            if op == _MATCH:
                if (full and i != endpos) or (i == forbid and slots[0] == i):
                    continue
                matched = slots
                break   # the threads after this one have lower priority: cut
            if ch is not None and _char_match(op, a, b, ch):
                cost += add(nlist, pc + 1, slots, i + 1)
        step(cost)
        if ch is None:
            break
        i += 1
        clist = nlist
        if matched is None and not anchored:
            step(add(clist, 0, empty, i) + 1)   # a match starting here ranks below every running thread
    return matched


# --------------------------------------------------------------------------- patterns and matches
class Pattern:
    """A compiled regular expression (``re.compile``)."""

    def __init__(self, pattern, flags):
        if type(pattern) is not str:
            raise TypeError("re in programs takes str patterns" if type(pattern) is not bytes else
                            "bytes patterns are not available in programs")
        if type(flags) is not int and not isinstance(flags, _re.RegexFlag):
            raise TypeError("flags must be an int")
        flags = int(flags)
        if flags & ~_FLAGS:
            raise ValueError("unknown flags")
        if len(pattern) > _MAX_PATTERN:
            raise error(f"patterns of more than {_MAX_PATTERN} characters are not available in programs")
        if pattern.count("(") > _MAX_PARENS:
            raise error(f"patterns with more than {_MAX_PARENS} parentheses are not available in programs")
        step(len(pattern) // 16 + 1)
        try:
            tree = _sp.parse(pattern, flags)
        except _re.error as e:
            raise error(e.msg, pattern, e.pos) from None
        except (RecursionError, OverflowError):
            raise error("pattern too complex for programs", pattern) from None
        flags = tree.state.flags
        try:
            if _size(tree) > _MAX_PROGRAM:
                raise error(f"pattern too large for programs (more than {_MAX_PROGRAM} instructions once its "
                            f"repeats are unrolled)", pattern)
            comp = _Compiler(flags)
            comp.emit(_SAVE, 0)
            comp.tree(tree, flags)
            comp.emit(_SAVE, 1)
            comp.emit(_MATCH)
        except RecursionError:
            raise error("pattern too complex for programs", pattern) from None
        self._code = [tuple(x) for x in comp.code]
        self.pattern = pattern
        self.flags = flags
        self.groups = tree.state.groups - 1
        self.groupindex = dict(tree.state.groupdict)

    def _exec(self, string, pos, endpos, anchored, full, forbid=-1):
        if type(string) is not str:
            raise TypeError(f"expected string, got '{type(string).__name__}'" if type(string) is not bytes else
                            "cannot use a string pattern on a bytes-like object")
        n = len(string)
        pos = min(max(int(pos), 0), n)
        endpos = n if endpos is None else min(max(int(endpos), 0), n)
        s = string[:endpos] if endpos < n else string
        slots = _run(self._code, 2 * (self.groups + 1), s, pos, endpos, anchored, full, forbid)
        return None if slots is None else Match(self, string, slots, pos, endpos)

    def search(self, string, pos=0, endpos=None):
        return self._exec(string, pos, endpos, False, False)

    def match(self, string, pos=0, endpos=None):
        return self._exec(string, pos, endpos, True, False)

    def fullmatch(self, string, pos=0, endpos=None):
        return self._exec(string, pos, endpos, True, True)

    def finditer(self, string, pos=0, endpos=None):
        return _MatchIterator(self._matches(string, pos, endpos))

    def _matches(self, string, pos=0, endpos=None, count=0):
        """Non-overlapping matches left to right, as CPython finds them: an empty match may follow a
        non-empty one where it ends, but not another empty match at the same place."""
        if type(string) is not str:
            raise TypeError(f"expected string, got '{type(string).__name__}'")
        n = len(string) if endpos is None else min(max(int(endpos), 0), len(string))
        i, found, forbid = min(max(int(pos), 0), n), 0, -1
        while i <= n:
            m = self._exec(string, i, n, False, False, forbid)
            if m is None:
                return
            yield m
            found += 1
            if count and found >= count:
                return
            start, end = m.span()
            i = end
            forbid = end if start == end else -1

    def findall(self, string, pos=0, endpos=None):
        out = []
        for m in self._matches(string, pos, endpos):
            if self.groups == 0:
                out.append(m.group(0))
            elif self.groups == 1:
                out.append(m.group(1) or "")
            else:
                out.append(tuple(g or "" for g in m.groups()))
            check_sequence(len(out))
        return out

    def split(self, string, maxsplit=0):
        out, last = [], 0
        for m in self._matches(string, 0, None, maxsplit if maxsplit > 0 else 0):
            start, end = m.span()
            out.append(string[last:start])
            out.extend(m.groups())
            last = end
            check_sequence(len(out))
        out.append(string[last:])
        return out

    def subn(self, repl, string, count=0):
        if type(repl) is str:
            template = _parse_template(repl, self)
            expand = lambda m: _expand(template, m)   # noqa: E731
        elif callable(repl):
            def expand(m):
                r = call(repl, [m])
                if type(r) is not str:
                    raise TypeError(f"expected str instance, {type(r).__name__} found")
                return r
        else:
            raise TypeError("re.sub in programs takes a str or a function as the replacement")
        parts, last, n, size = [], 0, 0, 0
        for m in self._matches(string, 0, None, count if count > 0 else 0):
            start, end = m.span()
            piece = string[last:start]
            r = expand(m)
            size += len(piece) + len(r)
            check_string(size)
            parts.append(piece)
            parts.append(r)
            last = end
            n += 1
        parts.append(string[last:])
        check_string(size + len(string) - last)
        return "".join(parts), n

    def sub(self, repl, string, count=0):
        return self.subn(repl, string, count)[0]

    def __repr__(self):
        return f"re.compile({self.pattern!r})" if not self.flags & ~U else \
            f"re.compile({self.pattern!r}, {_flag_names(self.flags)})"

    def __eq__(self, other):
        return type(other) is Pattern and other.pattern == self.pattern and other.flags == self.flags

    def __hash__(self):
        return hash((self.pattern, self.flags))


def _flag_names(flags):
    names = [n for n, f in (("re.IGNORECASE", I), ("re.MULTILINE", M), ("re.DOTALL", S), ("re.ASCII", A),
                            ("re.VERBOSE", X)) if flags & f]
    return "|".join(names) or "0"


class _MatchIterator:
    """What finditer returns: an iterator of Match objects."""
    __slots__ = ("_gen",)

    def __init__(self, gen):
        self._gen = gen

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._gen)


class Match:
    """The result of a successful match."""

    def __init__(self, pattern, string, slots, pos, endpos):
        self.re, self.string, self.pos, self.endpos = pattern, string, pos, endpos
        self._slots = slots

    def _index(self, g):
        if type(g) is str:
            if g not in self.re.groupindex:
                raise IndexError("no such group")
            return self.re.groupindex[g]
        if type(g) is not int or g < 0 or g > self.re.groups:
            raise IndexError("no such group")
        return g

    def span(self, group=0):
        k = self._index(group)
        a, b = self._slots[2 * k], self._slots[2 * k + 1]
        return (-1, -1) if a is None or b is None else (a, b)

    def start(self, group=0):
        return self.span(group)[0]

    def end(self, group=0):
        return self.span(group)[1]

    def group(self, *groups):
        if not groups:
            groups = (0,)
        out = []
        for g in groups:
            a, b = self.span(g)
            out.append(None if a < 0 else self.string[a:b])
        return out[0] if len(out) == 1 else tuple(out)

    def __getitem__(self, g):
        return self.group(g)

    def groups(self, default=None):
        return tuple(default if v is None else v for v in (self.group(k) for k in range(1, self.re.groups + 1)))

    def groupdict(self, default=None):
        return {name: (default if self.group(k) is None else self.group(k)) for name, k in self.re.groupindex.items()}

    @property
    def lastindex(self):
        best, best_end = None, -1
        for k in range(1, self.re.groups + 1):
            a, b = self.span(k)
            if a >= 0 and b >= best_end:
                best, best_end = k, b
        return best

    @property
    def lastgroup(self):
        k = self.lastindex
        for name, idx in self.re.groupindex.items():
            if idx == k:
                return name
        return None

    def expand(self, template):
        if type(template) is not str:
            raise TypeError("expand takes a str template")
        return _expand(_parse_template(template, self.re), self)

    def __bool__(self):
        return True

    def __repr__(self):
        return f"<re.Match object; span={self.span()!r}, match={self.group(0)!r}>"


# --------------------------------------------------------------------------- replacement templates
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _parse_template(repl, pattern):
    """A replacement string as a list of literal strings and group numbers (Python's rules)."""
    out, lit, i, n = [], [], 0, len(repl)
    step(n // 16 + 1)
    while i < n:
        ch = repl[i]
        if ch != "\\":
            lit.append(ch)
            i += 1
            continue
        i += 1
        if i >= n:
            raise error("bad escape (end of pattern)", repl, i - 1)
        c = repl[i]
        if c == "g":
            if i + 1 >= n or repl[i + 1] != "<":
                raise error("missing <", repl, i + 1)
            close = repl.find(">", i + 2)
            if close < 0:
                raise error("missing >, unterminated name", repl, i + 2)
            name = repl[i + 2:close]
            if not name:
                raise error("missing group name", repl, i + 2)
            if name.isdigit() and name.isascii():
                k = int(name)
            elif name in pattern.groupindex:
                k = pattern.groupindex[name]
            elif name.isidentifier():
                raise IndexError(f"unknown group name '{name}'")
            else:
                raise error(f"bad character in group name '{name}'", repl, i + 2)
            if k > pattern.groups:
                raise error(f"invalid group reference {k}", repl, i + 2)
            out.append("".join(lit))
            lit = []
            out.append(k)
            i = close + 1
        elif c == "0":   # \0 and up to two more octal digits: a character
            j = i + 1
            while j < n and j < i + 3 and repl[j] in "01234567":
                j += 1
            lit.append(chr(int(repl[i:j], 8)))
            i = j
        elif c.isdigit() and c.isascii():
            if i + 2 < n and c in "01234567" and repl[i + 1] in "01234567" and repl[i + 2] in "01234567":
                lit.append(chr(int(repl[i:i + 3], 8)))   # three octal digits: a character
                i += 3
                continue
            j = i + 2 if i + 1 < n and repl[i + 1].isdigit() and repl[i + 1].isascii() else i + 1
            k = int(repl[i:j])
            if k > pattern.groups:
                raise error(f"invalid group reference {k}", repl, i)
            out.append("".join(lit))
            lit = []
            out.append(k)
            i = j
        elif c in _ESCAPES:
            lit.append(_ESCAPES[c])
            i += 1
        elif c.isascii() and c.isalpha():
            raise error(f"bad escape \\{c}", repl, i - 1)
        else:
            lit.append("\\" + c)
            i += 1
    out.append("".join(lit))
    return out


def _expand(template, m):
    pieces = []
    for part in template:
        if type(part) is int:
            g = m.group(part)
            pieces.append(g or "")
        else:
            pieces.append(part)
    return "".join(pieces)


# --------------------------------------------------------------------------- module functions
def _pattern(pattern, flags):
    if type(pattern) is Pattern:
        if flags:
            raise ValueError("cannot process flags argument with a compiled pattern")
        return pattern
    return _compile_cached(pattern, int(flags))


_CACHE_MAX = 64


def _compile_cached(pattern, flags):
    from . import session_state
    cache = session_state("re.cache", dict)
    key = (type(pattern), pattern, flags)
    p = cache.get(key)
    if p is None:
        p = Pattern(pattern, flags)
        if len(cache) >= _CACHE_MAX:
            cache.pop(next(iter(cache)))
        cache[key] = p
    return p


def compile(pattern, flags=0):
    """Compile a regular expression pattern, returning a Pattern object."""
    return _pattern(pattern, flags)


def search(pattern, string, flags=0):
    """Scan through string looking for a match to the pattern, returning a Match object, or None."""
    return _pattern(pattern, flags).search(string)


def match(pattern, string, flags=0):
    """Try to apply the pattern at the start of the string, returning a Match object, or None."""
    return _pattern(pattern, flags).match(string)


def fullmatch(pattern, string, flags=0):
    """Try to apply the pattern to all of the string, returning a Match object, or None."""
    return _pattern(pattern, flags).fullmatch(string)


def sub(pattern, repl, string, count=0, flags=0):
    """Return the string obtained by replacing the leftmost non-overlapping occurrences of the pattern."""
    return _pattern(pattern, flags).sub(repl, string, count)


def subn(pattern, repl, string, count=0, flags=0):
    """Return a 2-tuple containing (new_string, number)."""
    return _pattern(pattern, flags).subn(repl, string, count)


def split(pattern, string, maxsplit=0, flags=0):
    """Split the source string by the occurrences of the pattern, returning a list of substrings."""
    return _pattern(pattern, flags).split(string, maxsplit)


def findall(pattern, string, flags=0):
    """Return a list of all non-overlapping matches in the string."""
    return _pattern(pattern, flags).findall(string)


def finditer(pattern, string, flags=0):
    """Return an iterator over all non-overlapping matches in the string."""
    return _pattern(pattern, flags).finditer(string)


def escape(pattern):
    """Escape special characters in a string."""
    if type(pattern) is not str:
        raise TypeError("re.escape in programs takes a str")
    out = _re.escape(pattern)
    check_string(len(out))
    return out


def purge():
    """Clear the regular expression cache."""
    from . import session_state
    session_state("re.cache", dict).clear()
