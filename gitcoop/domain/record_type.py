"""`record_type`: how a record class is declared, a frozen dataclass made cheaply at start-up.

`@dataclass(frozen=True)` writes the source of six methods per class
(`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`) and
compiles each when the module is imported, in every process: for the ~30
records a `take` loads, about a third of the CPU gitcoop's own imports cost.
`record_type` makes the same class with one compiled method, its `__init__`; the
other five are shared functions reading the class's field names. The class is
a dataclass as before (`fields`, `replace`, `asdict`, `is_dataclass` work), and
it compares, hashes, prints and refuses assignment as `dataclass(frozen=True)`
does (property-tested against it in tests/domain/test_record_type.py).

Measured again in issue 44 (docs/performance.md, "One copy of each rule"): with
`@dataclass(frozen=True, slots=True)` for every record, a `take` costs ~14 ms
more CPU at 10,000 items (1.10x), a warm `list --json` 1.17x, `status` 1.25x.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def record_type(cls: type[T]) -> type[T]:
    """The class as a frozen dataclass (fields, defaults and factories as `dataclass`)."""
    undocumented = not cls.__doc__
    if undocumented:  # else `dataclass` parses object.__init__'s text signature for one
        cls.__doc__ = cls.__name__
    made: Any = dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
    every = dataclasses.fields(made)
    if undocumented:
        made.__doc__ = f"{cls.__name__}({', '.join(f.name for f in every)})"
    compared = tuple(f.name for f in every if f.compare)
    own = vars(made)
    if any(name in own for name in _MADE):
        raise TypeError(f"{made.__qualname__}: record_type makes {', '.join(_MADE)} itself")
    made.__coop_shown__ = tuple(f.name for f in every if f.repr)
    made.__coop_key__ = attrgetter(*compared) if compared else staticmethod(_nothing)
    made.__init__ = _first_init(made, every)
    for name, method in _MADE.items():
        setattr(made, name, method)
    made_class: type[T] = made
    return made_class


def _first_init(cls: type, every: tuple[dataclasses.Field[Any], ...]) -> Any:
    """The `__init__` a class starts with: the first record made compiles the real one
    and puts it in its place. Compiling costs ~0.1 ms a class, and a command makes
    records of a few of the classes it loads (a `take`, of 14 of the 28 it loads)."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made = vars(cls)["__init__"]
        if made is __init__:
            made = _init(cls, every)
            setattr(cls, "__init__", made)  # noqa: B010 (mypy forbids assigning __init__)
        made(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _init(cls: type, every: tuple[dataclasses.Field[Any], ...]) -> Any:
    """The one compiled method: stores every argument, as a frozen dataclass's does, in
    one step (the instance's dictionary made whole: a third of the time of one
    `object.__setattr__` per field, for the 38 of an item)."""
    names: dict[str, Any] = {"__set": object.__setattr__, "__missing": dataclasses.MISSING}
    params, body = ["self"], []
    for f in every:
        if f.default is not dataclasses.MISSING:
            names[f"__default_{f.name}"] = f.default
            params.append(f"{f.name}=__default_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            names[f"__factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=__missing")
            body.append(f" if {f.name} is __missing: {f.name} = __factory_{f.name}()")
        else:
            params.append(f.name)
    if every:
        state = ", ".join(f"{f.name!r}: {f.name}" for f in every)
        body.append(f" __set(self, '__dict__', {{{state}}})")
    source = f"def __init__({', '.join(params)}):\n" + "\n".join(body or [" pass"]) + "\n"
    exec(source, names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _nothing(_: object) -> tuple[()]:
    return ()


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    key = self.__coop_key__
    return key(self) == key(other)


def _hash(self: Any) -> int:
    return hash(self.__coop_key__(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__coop_shown__)
    return f"{self.__class__.__qualname__}({shown})"


def _setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


_MADE = {
    "__eq__": _eq,
    "__hash__": _hash,
    "__repr__": _repr,
    "__setattr__": _setattr,
    "__delattr__": _delattr,
}
