"""Program-side ``enum``: ``Enum``, ``IntEnum``, ``Flag``-less basics and ``auto``. A program
class deriving from ``Enum`` turns its plain class attributes into members (``Color.RED``,
``Color(1)``, ``Color['RED']``, ``.name``, ``.value``, iteration in definition order)."""
from . import step

__all__ = ["Enum", "IntEnum", "StrEnum", "auto", "unique", "EnumMeta", "EnumType"]


class auto:
    """A member value chosen for you: 1, 2, 3, ... (names for ``StrEnum``)."""
    __slots__ = ("value",)

    def __init__(self):
        self.value = None


def _is_descriptor(v):
    from ..values import Function
    return type(v) is Function or hasattr(type(v), "__get__") or isinstance(v, (staticmethod, classmethod,
                                                                                  property))


class EnumMeta(type):
    """The class of enum classes: members by name and value, iteration, len."""

    def __new__(mcls, name, bases, ns):
        if "__gs_program__" not in ns:
            return super().__new__(mcls, name, bases, ns)
        members = []
        body = {}
        for key, value in ns.items():
            if key.startswith("__") and key.endswith("__") or key.startswith("_") or _is_descriptor(value):
                body[key] = value
            else:
                members.append((key, value))
        cls = super().__new__(mcls, name, bases, body)
        base_value = None
        for k in cls.__mro__[1:]:
            if k in (int, str):
                base_value = k
                break
        by_name, by_value, order = {}, {}, []
        last = 0
        for key, value in members:
            step()
            if type(value) is auto:
                if base_value is str:
                    value = key.lower()
                else:
                    value = last + 1
            if type(value) is int:
                last = value
            if base_value is not None:
                member = base_value.__new__(cls, value)
            else:
                member = object.__new__(cls)
            object.__setattr__(member, "_name_", key)
            object.__setattr__(member, "_value_", value)
            if value in by_value and not isinstance(value, (list, dict, set)):
                member = by_value[value]        # an alias
            else:
                try:
                    by_value[value] = member
                except TypeError:
                    pass
                order.append(member)
            by_name[key] = member
            type.__setattr__(cls, key, member)
        type.__setattr__(cls, "_member_map_", by_name)
        type.__setattr__(cls, "_value2member_map_", by_value)
        type.__setattr__(cls, "_member_order_", order)
        return cls

    def __call__(cls, value, *args, **kwargs):
        members = cls.__dict__.get("_value2member_map_")
        if members is None or args or kwargs:
            return super().__call__(value, *args, **kwargs)
        if isinstance(value, cls):
            return value
        try:
            return members[value]
        except (KeyError, TypeError):
            raise ValueError(f"{value!r} is not a valid {cls.__qualname__}") from None

    def __getitem__(cls, name):
        try:
            return cls.__dict__["_member_map_"][name]
        except KeyError:
            raise KeyError(name) from None

    def __iter__(cls):
        return iter(list(cls.__dict__.get("_member_order_", ())))

    def __len__(cls):
        return len(cls.__dict__.get("_member_order_", ()))

    def __contains__(cls, member):
        return isinstance(member, cls) and member in cls.__dict__.get("_member_order_", ())

    def __repr__(cls):
        return f"<enum '{cls.__name__}'>"

    @property
    def __members__(cls):
        return dict(cls.__dict__.get("_member_map_", {}))


EnumType = EnumMeta


class Enum(metaclass=EnumMeta):
    """Base of the program's enumerations."""

    @property
    def name(self):
        return self._name_

    @property
    def value(self):
        return self._value_

    def __repr__(self):
        return f"<{type(self).__name__}.{self._name_}: {self._value_!r}>"

    def __str__(self):
        return f"{type(self).__name__}.{self._name_}"

    def __hash__(self):
        return hash(self._name_)

    def __eq__(self, other):
        return self is other

    def __reduce_ex__(self, proto):
        raise TypeError("enum members cannot be pickled in programs")


class IntEnum(int, Enum):
    """Enum members that are also ints."""

    def __str__(self):
        return int.__repr__(self)

    def __eq__(self, other):
        return int.__eq__(self, other)

    __hash__ = int.__hash__
    __format__ = int.__format__


class StrEnum(str, Enum):
    """Enum members that are also strings."""

    def __str__(self):
        return str.__str__(self)

    def __eq__(self, other):
        return str.__eq__(self, other)

    __hash__ = str.__hash__
    __format__ = str.__format__


def unique(enumeration):
    names = [k for k, m in enumeration.__dict__["_member_map_"].items() if m._name_ != k]
    if names:
        raise ValueError(f"duplicate values found in {enumeration!r}: {', '.join(names)}")
    return enumeration
