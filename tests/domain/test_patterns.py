"""Module-level patterns (`patterns.pattern`): compiled on first use, and then the
compiled pattern's own methods."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain.patterns import _Pattern, pattern

PATTERNS = [r"^(td|rq|it|cf)-[0-9a-hjkmnp-tv-z]{12}\Z", r"([a-z]+)-(\d+)", r"[,\s]+"]


@given(st.sampled_from(PATTERNS), st.text(alphabet="td-0123456789abcxyz ,\n", max_size=30))
def test_a_pattern_answers_as_the_compiled_one(source: str, text: str) -> None:
    made, compiled = pattern(source), re.compile(source)
    for method in ("match", "fullmatch", "search"):
        got, want = getattr(made, method)(text), getattr(compiled, method)(text)
        assert (got and got.groups()) == (want and want.groups())
    assert made.findall(text) == compiled.findall(text)
    assert made.split(text) == compiled.split(text)
    assert made.sub("_", text) == compiled.sub("_", text)
    assert made.groups == compiled.groups and made.pattern == source


def test_nothing_is_compiled_before_first_use() -> None:
    made = pattern(rb"[0-7]+ [^\0]+\0.{20}", re.S)
    assert isinstance(made, _Pattern) and made.compiled is None
    assert made.fullmatch(b"100644 a\0" + b"x" * 20) is not None
    assert made.compiled is not None and made.compiled.flags & re.S
    assert made.match == made.compiled.match  # bound once: a call costs a compiled one's


def test_copying_a_pattern_does_not_compile_it() -> None:
    import copy

    made = pattern("a+")
    assert copy.copy(made).pattern == "a+"
    assert made.compiled is None


def test_no_module_compiles_a_pattern_at_import() -> None:
    """Every module-level pattern of the package is a `pattern`: a `re.compile` at the top
    level of a module costs every process that imports it, used or not."""
    package = Path(__file__).resolve().parents[2] / "gitcoop"
    found = []
    for path in package.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            for call in (
                ast.walk(node) if not isinstance(node, ast.FunctionDef | ast.ClassDef) else ()
            ):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "compile"
                    and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == "re"
                ):
                    found.append(f"{path.relative_to(package)}:{call.lineno}")
    assert found == []
