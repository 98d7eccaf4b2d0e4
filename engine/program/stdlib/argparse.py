"""Program-side ``argparse``: a script builds its parser as written, and ``parse_args()`` answers the
defaults, since a program has no command line (``sys.argv`` is ``("",)``). An explicit list
(``parse_args([])``, ``parse_args(["--lr", "0.1"])``, as notebooks write it) is parsed for the usual
forms: ``--opt value``, ``--opt=value``, ``-o value``, a unique prefix of a long option, the
``store_true``/``store_false``/``store_const``/``count``/``append``/``append_const`` actions,
``BooleanOptionalAction``, ``nargs`` (``?``, ``*``, ``+``, a number) and positionals in order.
``type`` runs through the interpreter (a program's function works) on string defaults and on what is
parsed, as argparse applies it. A missing required argument, an unknown option or a value outside
``choices`` writes the usage and the error to the program's output and raises ``SystemExit(2)`` (the
run's error), as argparse does; ``-h`` and ``version`` print and exit 0."""
from ..errors import PROGRAM_EXCEPTIONS
from . import builtins, call, check_sequence, check_string, iterate, runtime, step
from .types import SimpleNamespace

__all__ = ["ArgumentParser", "Namespace", "SUPPRESS", "OPTIONAL", "ZERO_OR_MORE", "ONE_OR_MORE", "REMAINDER",
           "BooleanOptionalAction", "ArgumentTypeError", "ArgumentError", "HelpFormatter",
           "RawDescriptionHelpFormatter", "RawTextHelpFormatter", "ArgumentDefaultsHelpFormatter",
           "MetavarTypeHelpFormatter"]

SUPPRESS = "==SUPPRESS=="
OPTIONAL, ZERO_OR_MORE, ONE_OR_MORE, REMAINDER = "?", "*", "+", "..."
_MAX_ARGUMENTS = 1000
_ACTIONS = ("store", "store_const", "store_true", "store_false", "append", "append_const", "extend", "count",
            "help", "version")
_FLAGS = frozenset(("store_true", "store_false", "store_const", "append_const", "count", "boolean_optional"))
_ValueError = PROGRAM_EXCEPTIONS["ValueError"]
_TypeError = PROGRAM_EXCEPTIONS["TypeError"]

ArgumentTypeError = type("ArgumentTypeError", (PROGRAM_EXCEPTIONS["Exception"],), {"__module__": "argparse"})
ArgumentError = type("ArgumentError", (PROGRAM_EXCEPTIONS["Exception"],), {"__module__": "argparse"})


class HelpFormatter:
    """The help formatters are accepted (``formatter_class=``); help text is laid out one way."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        self.prog = prog


class RawDescriptionHelpFormatter(HelpFormatter):
    pass


class RawTextHelpFormatter(RawDescriptionHelpFormatter):
    pass


class ArgumentDefaultsHelpFormatter(HelpFormatter):
    pass


class MetavarTypeHelpFormatter(HelpFormatter):
    pass


class BooleanOptionalAction:
    """``action=argparse.BooleanOptionalAction``: ``--flag`` sets True and ``--no-flag`` False."""


class Namespace(SimpleNamespace):
    """``argparse.Namespace(**kwargs)``: what ``parse_args`` answers."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def __repr__(self):
        return "Namespace" + super().__repr__()[len("namespace"):]

    def __contains__(self, key):
        return key in self.__dict__


class _Argument:
    __slots__ = ("options", "dest", "action", "nargs", "const", "default", "type", "choices", "required", "help",
                 "metavar", "version")

    def __repr__(self):
        return f"_StoreAction(option_strings={self.options!r}, dest={self.dest!r})"


def _check_dest(dest):
    """Where a value goes on the namespace: a name a program could set."""
    if type(dest) is not str:
        raise _TypeError(f"dest must be a string, not {type(dest).__name__}")
    if dest.startswith("_"):
        raise _ValueError(f"dest {dest!r}: names starting with '_' are private in programs")


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def _callable_name(f):
    return getattr(f, "name", None) or getattr(f, "__name__", None) or "value"


class _Container:
    """What parsers and their argument groups share: ``add_argument`` into the parser."""

    def add_argument(self, *names, **kwargs):
        return self._parser._add(names, kwargs)

    def add_argument_group(self, title=None, description=None, **kwargs):
        return _Group(self._parser)

    def add_mutually_exclusive_group(self, required=False):
        return _Group(self._parser)

    def set_defaults(self, **kwargs):
        self._parser._set_defaults(kwargs)


class _Group(_Container):
    """An argument group (``add_argument_group``, ``add_mutually_exclusive_group``): its arguments are
    the parser's."""

    def __init__(self, parser):
        self._parser = parser


class ArgumentParser(_Container):
    """``ArgumentParser(prog=None, usage=None, description=None, epilog=None, parents=[], formatter_class=...,
    prefix_chars='-', argument_default=None, add_help=True, allow_abbrev=True, exit_on_error=True, ...)``."""

    prog = usage = description = epilog = None   # (set by __init__; programs read them)

    def __init__(self, prog=None, usage=None, description=None, epilog=None, parents=(), formatter_class=None,
                 prefix_chars="-", fromfile_prefix_chars=None, argument_default=None, conflict_handler="error",
                 add_help=True, allow_abbrev=True, exit_on_error=True):
        if prefix_chars != "-":
            raise _ValueError("argparse in programs takes prefix_chars='-' only")
        self._parser = self
        self.prog = "" if prog is None else str(prog)   # argparse's basename of sys.argv[0], which is ""
        self.usage = usage
        self.description = description
        self.epilog = epilog
        self.allow_abbrev = bool(allow_abbrev)
        self._argument_default = argument_default
        self._arguments = []
        self._defaults = {}
        if add_help:
            self._add(("-h", "--help"), {"action": "help", "help": "show this help message and exit"})
        for parent in iterate(parents):
            if not isinstance(parent, ArgumentParser):
                raise _TypeError("parents must be ArgumentParser objects")
            for a in parent._arguments:
                if a.action != "help":
                    self._check_count()
                    self._arguments.append(a)
            self._defaults.update(parent._defaults)

    # ---------------------------------------------------------------- building
    def _check_count(self):
        step()
        if len(self._arguments) >= _MAX_ARGUMENTS:
            raise _ValueError(f"a parser takes at most {_MAX_ARGUMENTS} arguments in programs")

    def _add(self, names, kwargs):
        self._check_count()
        names = list(names)
        if not names or any(type(n) is not str for n in names):
            raise _TypeError("add_argument() takes the argument's name or its option strings, as strings")
        a = _Argument()
        a.options = [n for n in names if n.startswith("-")]
        if a.options and len(a.options) != len(names):
            raise _ValueError(f"invalid option string {names[0]!r}: must start with a character '-'")
        if not a.options and len(names) > 1:
            raise _ValueError("a positional argument takes one name")
        unknown = set(kwargs) - {"action", "nargs", "const", "default", "type", "choices", "required", "help",
                                 "metavar", "dest", "version"}
        if unknown:
            raise _TypeError(f"add_argument() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        action = kwargs.get("action", "store")
        if action is BooleanOptionalAction:
            if not a.options:
                raise _ValueError("BooleanOptionalAction takes options, not a positional")
            action = "boolean_optional"
        elif action not in _ACTIONS:
            raise _ValueError(f"unknown action {action!r}")
        a.action = action
        if "dest" in kwargs:
            a.dest = kwargs["dest"]
        elif a.options:
            longs = [o for o in a.options if o.startswith("--")]
            a.dest = (longs[0] if longs else a.options[0]).lstrip("-").replace("-", "_")
        else:
            a.dest = names[0]
        _check_dest(a.dest)
        if action in ("help", "version"):
            a.dest = SUPPRESS
        a.nargs = kwargs.get("nargs")
        a.const = kwargs.get("const")
        if action == "store_true":
            a.const, default = True, False
        elif action == "store_false":
            a.const, default = False, True
        elif action in ("help", "version"):
            default = SUPPRESS
        else:
            default = self._argument_default
        a.default = kwargs.get("default", default)
        a.type = kwargs.get("type")
        a.choices = kwargs.get("choices")
        a.required = bool(kwargs.get("required", not a.options and a.nargs not in ("?", "*")))
        a.help = kwargs.get("help")
        a.metavar = kwargs.get("metavar")
        a.version = kwargs.get("version")
        if a.options:
            taken = {o for b in self._arguments for o in self._strings(b)}
            clash = [o for o in self._strings(a) if o in taken]
            if clash:
                raise ArgumentError(f"argument {'/'.join(a.options)}: conflicting option string: {clash[0]}")
        self._arguments.append(a)
        return None

    @staticmethod
    def _strings(a):
        if a.action != "boolean_optional":
            return a.options
        return a.options + ["--no-" + o[2:] for o in a.options if o.startswith("--")]

    def _set_defaults(self, kwargs):
        for k in kwargs:
            _check_dest(k)
        self._defaults.update(kwargs)
        for a in self._arguments:
            if a.dest in kwargs:
                a.default = kwargs[a.dest]

    def get_default(self, dest):
        for a in self._arguments:
            if a.dest == dest and a.default is not None:
                return a.default
        return self._defaults.get(dest)

    # ---------------------------------------------------------------- parsing
    def parse_args(self, args=None, namespace=None):
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error("unrecognized arguments: " + " ".join(extras))
        return ns

    def parse_known_args(self, args=None, namespace=None):
        tokens = [] if args is None else list(iterate(args))   # sys.argv[1:]: a program has no command line
        check_sequence(len(tokens))
        for t in tokens:
            step()
            if type(t) is not str:
                raise _TypeError(f"parse_args() takes strings, not {type(t).__name__}")
        if namespace is not None and not isinstance(namespace, SimpleNamespace):
            raise _TypeError("parse_args(namespace=...) takes an argparse.Namespace or types.SimpleNamespace "
                             "in programs")
        ns = Namespace() if namespace is None else namespace
        for a in self._arguments:
            step()
            if a.dest is SUPPRESS or a.default == SUPPRESS or hasattr(ns, a.dest):
                continue
            default = a.default
            if type(default) is str and a.type is not None:
                default = self._convert(a, default)
            setattr(ns, a.dest, default)
        for k, v in self._defaults.items():
            if not hasattr(ns, k):
                setattr(ns, k, v)
        extras, positionals, seen = [], [], set()
        i = 0
        while i < len(tokens):
            step()
            t = tokens[i]
            if t == "--":
                positionals.extend(tokens[i + 1:])
                break
            if t.startswith("-") and t != "-" and not _is_number(t):
                option, eq, value = t.partition("=") if t.startswith("--") else (t, "", "")
                if not eq and not t.startswith("--") and len(t) > 2 and self._find(t[:2]) is not None:
                    option, value, eq = t[:2], t[2:], "="   # -o5, or flags together: -vv
                    if self._find(option).action in _FLAGS:
                        tokens[i + 1:i + 1] = ["-" + value]
                        eq = ""
                a = self._find(option)
                if a is None:
                    extras.append(t)
                    i += 1
                    continue
                seen.add(id(a))
                i = self._take(a, option, ns, tokens, i + 1, value if eq else None)
            else:
                positionals.append(t)
                i += 1
        missing = [self._name(a) for a in self._arguments if a.options and a.required and id(a) not in seen]
        rest = positionals
        for a in [a for a in self._arguments if not a.options]:
            n = len(rest)
            if a.nargs is None:
                count = 1 if n else 0
            elif a.nargs == "?":
                count = min(n, 1)
            elif a.nargs in ("*", "..."):
                count = n
            elif a.nargs == "+":
                count = n
            else:
                count = min(n, int(a.nargs))
            values, rest = rest[:count], rest[count:]
            if a.nargs is None and not values or a.nargs == "+" and not values or \
                    type(a.nargs) is int and len(values) < a.nargs:
                missing.append(self._name(a))
                continue
            if a.nargs is None:
                setattr(ns, a.dest, self._value(a, values[0]))
            elif a.nargs == "?":
                if values:
                    setattr(ns, a.dest, self._value(a, values[0]))
            else:
                setattr(ns, a.dest, [self._value(a, v) for v in values])
        if missing:
            self.error("the following arguments are required: " + ", ".join(missing))
        return ns, extras + rest

    def _find(self, option):
        exact = [a for a in self._arguments if option in self._strings(a)]
        if exact:
            return exact[0]
        if self.allow_abbrev and option.startswith("--") and len(option) > 2:
            hits = [(a, o) for a in self._arguments for o in self._strings(a) if o.startswith(option)]
            if len(hits) > 1:
                self.error(f"ambiguous option: {option} could match {', '.join(o for _, o in hits)}")
            if hits:
                return hits[0][0]
        return None

    def _take(self, a, option, ns, tokens, i, explicit):
        """Applies option ``a`` (met as ``option``) from ``tokens[i:]``; the index after what it consumed."""
        name = "/".join(a.options)
        if a.action == "help":
            self.print_help()
            self.exit(0)
        if a.action == "version":
            runtime().write(f"{a.version}\n")
            self.exit(0)
        if a.action in _FLAGS:
            if explicit is not None:
                self.error(f"argument {name}: ignored explicit argument {explicit!r}")
            if a.action == "count":
                setattr(ns, a.dest, (getattr(ns, a.dest, None) or 0) + 1)
            elif a.action == "append_const":
                setattr(ns, a.dest, list(getattr(ns, a.dest, None) or []) + [a.const])
            elif a.action == "boolean_optional":
                setattr(ns, a.dest, not option.startswith("--no-"))
            else:
                setattr(ns, a.dest, a.const)
            return i
        values = [explicit] if explicit is not None else []
        if explicit is None:
            want = {None: 1, "?": 1, "*": None, "+": None, "...": None}.get(a.nargs, a.nargs)
            while i < len(tokens) and (want is None or len(values) < want) and \
                    (not tokens[i].startswith("-") or tokens[i] == "-" or _is_number(tokens[i])):
                step()
                values.append(tokens[i])
                i += 1
        if a.nargs is None and len(values) != 1:
            self.error(f"argument {name}: expected one argument")
        if a.nargs == "+" and not values or type(a.nargs) is int and len(values) != a.nargs:
            self.error(f"argument {name}: expected {a.nargs if type(a.nargs) is int else 'at least one'} argument"
                       f"{'s' if a.nargs != 1 else ''}")
        if a.nargs == "?" and not values:
            value = a.const
        elif a.nargs in (None, "?"):
            value = self._value(a, values[0])
        else:
            value = [self._value(a, v) for v in values]
        if a.action == "append":
            setattr(ns, a.dest, list(getattr(ns, a.dest, None) or []) + [value])
        elif a.action == "extend":
            setattr(ns, a.dest, list(getattr(ns, a.dest, None) or []) + list(value))
        else:
            setattr(ns, a.dest, value)
        return i

    def _value(self, a, text):
        value = self._convert(a, text) if a.type is not None else text
        if a.choices is not None:
            from ..operators import COMPARE
            if not COMPARE["In"](value, a.choices):
                shown = ", ".join(builtins().b_repr(c) for c in iterate(a.choices))
                self.error(f"argument {self._name(a)}: invalid choice: {builtins().b_repr(value)} "
                           f"(choose from {shown})")
        return value

    def _convert(self, a, text):
        try:
            return call(a.type, [text])
        except ArgumentTypeError as e:
            self.error(f"argument {self._name(a)}: {builtins().b_str(e)}")
        except (ValueError, TypeError, _ValueError, _TypeError):
            self.error(f"argument {self._name(a)}: invalid {_callable_name(a.type)} value: {text!r}")

    @staticmethod
    def _name(a):
        if a.options:
            return "/".join(a.options)
        return a.metavar if isinstance(a.metavar, str) else a.dest

    # ---------------------------------------------------------------- help and errors
    def format_usage(self):
        parts = []
        for a in sorted(self._arguments, key=lambda a: not a.options):   # options first, as argparse writes it
            step()
            if a.options:
                metavar = "" if a.action in _FLAGS or a.action in ("help", "version") \
                    else " " + (a.metavar if isinstance(a.metavar, str) else a.dest.upper())
                text = f"{a.options[0]}{metavar}"
                parts.append(text if a.required else f"[{text}]")
            else:
                parts.append(a.metavar if isinstance(a.metavar, str) else a.dest)
        text = f"usage: {self.prog} {' '.join(parts)}".replace("  ", " ") + "\n"
        check_string(len(text))
        return text

    def format_help(self):
        lines = [self.format_usage()]
        if self.description:
            lines.append(f"\n{self.description}\n")
        positionals = [a for a in self._arguments if not a.options]
        options = [a for a in self._arguments if a.options]
        for title, group in (("positional arguments", positionals), ("options", options)):
            if not group:
                continue
            lines.append(f"\n{title}:\n")
            for a in group:
                step()
                head = ", ".join(self._strings(a)) if a.options else self._name(a)
                lines.append(f"  {head}" + (f"  {a.help}" if isinstance(a.help, str) and a.help != SUPPRESS else "")
                             + "\n")
        if self.epilog:
            lines.append(f"\n{self.epilog}\n")
        text = "".join(lines)
        check_string(len(text))
        return text

    def print_usage(self, file=None):
        runtime().write(self.format_usage())

    def print_help(self, file=None):
        runtime().write(self.format_help())

    def exit(self, status=0, message=None):
        if message:
            runtime().write(str(message))
        raise PROGRAM_EXCEPTIONS["SystemExit"](status)

    def error(self, message):
        """Writes the usage and ``message`` to the program's output and raises SystemExit(2)."""
        self.print_usage()
        self.exit(2, f"{self.prog}: error: {message}\n")
