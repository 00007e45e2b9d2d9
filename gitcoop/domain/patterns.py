"""`pattern`: a module-level regular expression, compiled the first time it is used.

`re.compile` parses and compiles in Python, 0.05-0.2 ms a pattern, in every
process that imports the module. A `take` imports eighteen module-level
patterns and uses four of them; compiled on first use, the other fourteen cost
nothing (~1.5 ms of every `take`, about 1% of it).

Once compiled, the pattern's methods are the compiled pattern's own, bound on
the object: a call costs what a call on an `re.Pattern` costs, so the hot
checks of a first sync (an event file's name, 50,000 times) lose nothing.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, Generic, cast

# what a module calls on a pattern; each becomes the compiled pattern's own at first use
_METHODS = ("match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split")


class _Pattern(Generic[AnyStr]):
    def __init__(self, pattern: AnyStr, flags: int) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags
        self.compiled: re.Pattern[AnyStr] | None = None

    def __getattr__(self, name: str) -> Any:
        # reached for what the object does not hold: a method's first use, or an attribute
        # such as `groups` that only the compiled pattern has
        if name.startswith("__"):  # copy, pickle and the like ask for what objects may have
            raise AttributeError(name)
        compiled = self.compiled
        if compiled is None:
            compiled = self.compiled = re.compile(self.pattern, self.flags)
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"pattern({self.pattern!r})"


def pattern(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(source, flags)`, compiled when first used."""
    return cast("re.Pattern[AnyStr]", _Pattern(source, flags))
