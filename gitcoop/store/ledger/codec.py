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
from collections.abc import Mapping
from typing import Any

from gitcoop.errors import BadLedger, Refused
from gitcoop.store.fast import reference, yaml_emitter, yaml_lines
from gitcoop.store.fast.yaml_emitter import written_instant
from gitcoop.store.fast.yaml_lines import MAX_DEPTH

MAX_BYTES = 1024 * 1024

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


def within(written: bytes, path: str, cap: int) -> bytes:
    """`written`, unless it is over the `cap` every read holds `path` to (H7): a clone
    never writes a file its readers refuse. Refused with nothing written: what makes a
    state's file grow past it is the refused events it lists."""
    if len(written) > cap:
        raise Refused(
            f"{path} would be {len(written)} bytes, over the {cap}-byte cap every read "
            "holds it to, so nothing was written — the refused events it lists make it so "
            "(git coop log shows them): an owner settles an item's with git coop resolve, "
            "or every clone raises git config coop.maxFileBytes"
        )
    return written


def dump(data: Mapping[str, Any]) -> bytes:
    """Deterministic YAML bytes for a mapping of plain data.

    The block shape every ledger file has is written by `yaml_emitter.text`, the same
    bytes as ruamel's emitter without loading it; anything else goes as events
    straight to the emitter (ruamel's C emitter when present): the same bytes
    ruamel's safe dumper writes for this data, without its representer, which
    costs more than half of a dump. A string is written plain only where
    ruamel's own resolver would read it back as a string.
    """
    written = None if reference() else yaml_emitter.text(data, _plain_is_str)  # it sorts
    if written is not None:
        return written.encode("utf-8")
    return emitted(_sorted(data))


def emitted(data: Mapping[str, Any]) -> bytes:
    """What ruamel's emitter writes for this (sorted) data: the reference of `yaml_emitter.text`."""
    events = _Events(_engine().resolver)
    try:
        events.document(data)
    except _Unusual:  # a float, say: ruamel's representer knows how it is written
        return representer_dump(data)
    stream = io.StringIO()
    writer = _ruamel_emitter(stream)
    for event in events.out:
        writer.emit(event)
    return stream.getvalue().encode("utf-8")


_resolver_events: Any = None


def _plain_is_str(value: str) -> bool:
    """ruamel's resolver, asked by `yaml_emitter.text` for strings it cannot answer alone."""
    global _resolver_events
    if _resolver_events is None:
        _resolver_events = _Events(_engine().resolver)
    return bool(_resolver_events.plain_is_str(value))


def representer_dump(data: Mapping[str, Any]) -> bytes:
    """ruamel's safe dumper: the reference the fast path must match byte for byte."""
    stream = io.StringIO()
    _engine().dump(_sorted(data), stream)
    return stream.getvalue().encode("utf-8")


class _Unusual(Exception):
    """A value the event writer leaves to ruamel's representer."""


def _ruamel_emitter(stream: io.StringIO) -> Any:
    try:
        from ruamel.yaml.cyaml import CEmitter  # type: ignore[attr-defined]
    except ImportError:  # no C extension: the pure emitter, same output
        from ruamel.yaml.emitter import Emitter

        return Emitter(stream, allow_unicode=True, width=1 << 16)
    return CEmitter(stream, allow_unicode=True, width=1 << 16)


class _Events:
    """Plain data as YAML events: block style, implicit tags, no anchors."""

    STR = "tag:yaml.org,2002:str"

    def __init__(self, resolver: Any) -> None:
        from ruamel.yaml import events

        self.ev: Any = events
        self.implicit = _implicit_resolvers(resolver)
        self.out: list[Any] = []

    def plain_is_str(self, value: str) -> bool:
        """Whether `value` may be written plain: ruamel's resolver and this codec's
        reader (YAML 1.2 core) must both read it back as a string.

        The resolver's answer is what `resolver.resolve(ScalarNode, value, (True,
        False))` says, without its per-call version lookup: the first implicit
        resolver whose pattern matches names the tag; none matching means a
        string. The two differ on floats such as `.5e5`, which ruamel's pattern
        leaves a string and YAML 1.2 core reads as a number: those are quoted.
        """
        if not isinstance(yaml_lines.plain(value), str):
            return False
        if written_instant(value):  # the timestamp rule's: known without compiling its
            return False  # pattern and the int and float ones tried before it (~2 ms)
        rules = self.implicit.get(value[:1])
        for tag, pattern in self.implicit[None] if rules is None else rules:
            if pattern.match(value):
                return bool(tag == self.STR)
        return True

    def document(self, value: Any) -> None:
        ev = self.ev
        self.out += [ev.StreamStartEvent(), ev.DocumentStartEvent(explicit=False)]
        self.node(value)
        self.out += [ev.DocumentEndEvent(explicit=False), ev.StreamEndEvent()]

    def node(self, value: Any) -> None:
        ev = self.ev
        if isinstance(value, dict):
            self.out.append(ev.MappingStartEvent(None, None, True, flow_style=False))
            for key, item in value.items():
                self.node(key)
                self.node(item)
            self.out.append(ev.MappingEndEvent())
        elif isinstance(value, list):
            self.out.append(ev.SequenceStartEvent(None, None, True, flow_style=False))
            for item in value:
                self.node(item)
            self.out.append(ev.SequenceEndEvent())
        elif isinstance(value, str):
            plain = self.plain_is_str(value)
            self.out.append(ev.ScalarEvent(None, self.STR, (plain, True), value))
        else:
            tag, text = _scalar_text(value)
            self.out.append(ev.ScalarEvent(None, tag, (True, False), text))


Rules = dict[str | None, list[tuple[str, Any]]]
_implicit: Rules | None = None


def _implicit_resolvers(resolver: Any) -> Rules:
    """The resolver's implicit (tag, pattern) lists by first character ("" for the
    empty string, None for any other), read once; the rules ruamel tries for every
    character are appended to each list, in the order its `resolve` tries them."""
    global _implicit
    if _implicit is None:
        table = resolver.versioned_resolver
        anywhere = list(table.get(None, []))
        _implicit = {key: [*rules, *anywhere] for key, rules in table.items() if key is not None}
        _implicit.setdefault("", list(anywhere))
        _implicit[None] = anywhere
    return _implicit


def _scalar_text(value: Any) -> tuple[str, str]:
    if value is None:
        return "tag:yaml.org,2002:null", "null"
    if isinstance(value, bool):
        return "tag:yaml.org,2002:bool", "true" if value else "false"
    if isinstance(value, int):
        return "tag:yaml.org,2002:int", str(value)
    raise _Unusual(type(value).__name__)


def load(raw: bytes, path: str, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """Parse one ledger file safely; BadLedger names the path and the rule broken."""
    if len(raw) > max_bytes:
        raise BadLedger(f"{path}: file is {len(raw)} bytes, over the {max_bytes}-byte cap")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadLedger(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    # the shape the codec writes, read without a parser (COOP_REFERENCE=1: always parsed)
    document = None if reference() else yaml_lines.read(text)
    if document is not None:
        return document
    return parse(text, path)


def parse(text: str, path: str) -> dict[str, Any]:
    """The YAML parser's reading: what `yaml_lines.read` must agree with where it reads."""
    try:
        document = _build(_event_source(text), path)
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
    """A plain scalar resolves as YAML 1.2 core (null, bool, int, float); else a string."""
    if event.style:  # quoted or block: always a string
        return event.value
    return yaml_lines.plain(event.value)


def _event_source(text: str) -> Any:
    """A callable returning the next parse event: the C parser itself when present."""
    try:
        from _ruamel_yaml import CParser
    except ImportError:  # no C extension: ruamel's pure parser, same events
        return iter(_engine().parse(text)).__next__
    return CParser(text).get_event


def _build(next_event: Any, path: str) -> Any:
    """Plain data from parse events, refusing what a ledger file never holds."""
    from ruamel.yaml import events as ev

    stack: list[Any] = []  # open containers
    keys: list[Any] = []  # beside each open mapping: its pending key, or _NO_KEY
    documents = 0
    root: Any = None
    while True:
        event = next_event()
        kind = type(event)
        if kind is ev.ScalarEvent:
            if event.anchor is not None or event.tag is not None:
                _refuse_decoration(event, path)
            value = _scalar(event)
        elif kind is ev.MappingStartEvent or kind is ev.SequenceStartEvent:
            if event.anchor is not None or event.tag is not None:
                _refuse_decoration(event, path)
            if len(stack) >= MAX_DEPTH:
                raise BadLedger(f"{path}: nested deeper than {MAX_DEPTH} levels")
            stack.append({} if kind is ev.MappingStartEvent else [])
            keys.append(_NO_KEY)
            continue
        elif kind is ev.MappingEndEvent or kind is ev.SequenceEndEvent:
            value = stack.pop()
            keys.pop()
        elif kind is ev.StreamEndEvent:
            return root
        elif kind is ev.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise BadLedger(f"{path}: holds more than one YAML document")
            continue
        elif kind is ev.StreamStartEvent or kind is ev.DocumentEndEvent:
            continue
        elif kind is ev.AliasEvent:
            raise BadLedger(f"{path}: YAML aliases are not allowed (*{event.anchor})")
        else:
            raise BadLedger(f"{path}: unexpected YAML event {kind.__name__}")
        if not stack:
            root = value
        else:
            _place(stack[-1], keys, value, path)


def _refuse_decoration(event: Any, path: str) -> None:
    if event.anchor is not None:
        raise BadLedger(f"{path}: YAML anchors are not allowed (&{event.anchor})")
    raise BadLedger(f"{path}: YAML tags are not allowed ({event.tag})")


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
