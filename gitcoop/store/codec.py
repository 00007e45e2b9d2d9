"""YAML <-> plain data. The only module that touches ruamel.yaml.

Writing is deterministic: keys sorted, block style, no aliases, so the same
state gives the same bytes and the same blob id. Reading never runs ruamel's
constructor: the C parser's events are checked (no aliases, anchors, tags,
duplicate keys, deep nesting, several documents, non-mapping roots) and
turned into plain data in the same pass, so a hostile blob is refused
before anything is built from it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any

from gitcoop.errors import BadLedger

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 12

_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")

_yaml: Any = None


def _engine() -> Any:
    global _yaml
    if _yaml is None:
        from ruamel.yaml import YAML

        engine = YAML(typ="safe", pure=False)
        engine.default_flow_style = False
        engine.allow_unicode = True
        engine.width = 1 << 16
        _yaml = engine
    return _yaml


def _sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [_sorted(v) for v in value]
    return value


def dump(data: Mapping[str, Any]) -> bytes:
    """Deterministic YAML bytes for a mapping of plain data."""
    stream = io.StringIO()
    _engine().dump(_sorted(data), stream)
    return stream.getvalue().encode("utf-8")


def load(raw: bytes, path: str, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """Parse one ledger file safely; BadLedger names the path and the rule broken."""
    if len(raw) > max_bytes:
        raise BadLedger(f"{path}: file is {len(raw)} bytes, over the {max_bytes}-byte cap")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadLedger(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        document = _build(_engine().parse(text), path)
    except BadLedger:
        raise
    except Exception as exc:  # ruamel's parser errors have no common public base
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BadLedger(f"{path}: malformed YAML ({first})") from None
    if not isinstance(document, dict):
        raise BadLedger(f"{path}: the document must be a mapping, not {_kind(document)}")
    return document


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    return "a list" if isinstance(value, list) else f"a scalar ({type(value).__name__})"


def _scalar(event: Any) -> Any:
    value = event.value
    if event.style not in (None, ""):
        return value
    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT.match(value):
        return int(value)
    if _FLOAT.match(value):
        return float(value)
    return value


def _build(events: Any, path: str) -> Any:
    """Plain data from parse events, refusing what a ledger file never holds."""
    stack: list[Any] = []  # open containers; a dict's pending key sits beside it
    keys: list[Any] = []
    documents = 0
    root: Any = None
    for event in events:
        name = type(event).__name__
        if name in ("StreamStartEvent", "StreamEndEvent", "DocumentEndEvent"):
            continue
        if name == "DocumentStartEvent":
            documents += 1
            if documents > 1:
                raise BadLedger(f"{path}: holds more than one YAML document")
            continue
        if name == "AliasEvent":
            raise BadLedger(f"{path}: YAML aliases are not allowed (*{event.anchor})")
        if getattr(event, "anchor", None) is not None:
            raise BadLedger(f"{path}: YAML anchors are not allowed (&{event.anchor})")
        if getattr(event, "tag", None) is not None:
            raise BadLedger(f"{path}: YAML tags are not allowed ({event.tag})")
        if name in ("MappingEndEvent", "SequenceEndEvent"):
            value = stack.pop()
            keys.pop()
        elif name in ("MappingStartEvent", "SequenceStartEvent"):
            if len(stack) >= MAX_DEPTH:
                raise BadLedger(f"{path}: nested deeper than {MAX_DEPTH} levels")
            stack.append({} if name == "MappingStartEvent" else [])
            keys.append(_NO_KEY)
            continue
        elif name == "ScalarEvent":
            value = _scalar(event)
        else:
            raise BadLedger(f"{path}: unexpected YAML event {name}")
        if not stack:
            root = value
            continue
        _place(stack[-1], keys, value, path)
    return root


_NO_KEY = object()


def _place(container: Any, keys: list[Any], value: Any, path: str) -> None:
    if isinstance(container, list):
        container.append(value)
        return
    key = keys[-1]
    if key is _NO_KEY:
        if not isinstance(value, str):
            raise BadLedger(f"{path}: mapping keys must be plain strings, not {value!r}")
        if value in container:
            raise BadLedger(f"{path}: duplicate key {value!r}")
        keys[-1] = value
        return
    container[key] = value
    keys[-1] = _NO_KEY
