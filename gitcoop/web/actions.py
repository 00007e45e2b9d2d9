"""The board's writes: each one the service call its CLI command makes, with its checks.

A form names an item, the version the page showed it at (`--expect-version`)
and the verb's own fields; what the CLI refuses before writing is refused here
with the same sentence, and what the rules refuse comes back as the service's
own error. The server's actor acts: the identity the CLI uses without --as.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gitcoop.domain import fields as shapes
from gitcoop.domain import obligations
from gitcoop.domain.record_type import record_type
from gitcoop.domain.timefmt import parse_duration
from gitcoop.errors import UsageError
from gitcoop.service.context import Context

MakeContext = Callable[[int | None], Context]
REPORTS = ("done", "released", "abandoned", "blocked", "unblocked")
KINDS = ("todo", "request", "item")
LINKS = ("blocks", "blocked-by", "parent-of", "child-of", "discovered-from", "related", "follows")


@record_type
class Said:
    message: str  # what the CLI prints on success
    item: str  # the item's id


def perform(make: MakeContext, verb: str, form: Mapping[str, str]) -> Said:
    """Do `verb` as the form asks; a CoopError carries the refusal's sentence."""
    handler = HANDLERS.get(verb)
    if handler is None:
        raise UsageError(f"the board has no action {verb!r} — reload the board")
    return handler(make, {k: _typed(k, v) for k, v in form.items()})


def _typed(field: str, value: str) -> str:
    """A form's value as typed: a free text keeps its spaces, and its line breaks, which a
    browser sends as CRLF (HTML's form submission), are the ledger's line breaks."""
    if field in ("text", "body"):
        return shapes.typed_lines(value)
    return value.strip()


def _version(form: Mapping[str, str]) -> int | None:
    text = form.get("version", "")
    if not text:
        return None
    if not text.isdigit():
        raise UsageError(f"version {text!r} is not a number — reload the board")
    return int(text)


def _item(form: Mapping[str, str]) -> str:
    ref = form.get("item", "")
    if not ref:
        raise UsageError("no item named — reload the board")
    return ref


def _said(shown: Any, past: str) -> Said:
    """print_written's line: what changed, or why nothing did."""
    notes = list(shown.notes)
    if not shown.wrote:
        why = notes.pop(0) if notes else "it already records that"
        line = f"{shown.label} unchanged — {why}"
    else:
        line = f"{past} {shown.label}: {shown.item.title} [{shown.item.status}]"
    return Said("\n".join([line, *notes]), str(shown.item.id))


def _transition(verb: str, past: str, args: dict[str, Any]) -> Callable[..., Said]:
    def run(make: MakeContext, form: Mapping[str, str]) -> Said:
        from gitcoop.service import ledger

        given = {k: v for k, v in args.items() if v}
        for key in ("reason", "summary", "commit", "text"):
            if form.get(key):
                given[key] = form[key]
        if verb in ("release", "abandon") and not form.get("reason"):
            raise UsageError(f"{verb} needs a --reason: say why the work " + _WHY[verb])
        if verb == "note" and not form.get("text", "").strip():
            raise UsageError("a note needs some text")
        elsewhere = bool(form.get("commit_elsewhere"))
        if elsewhere and not form.get("commit"):
            raise UsageError("--commit-elsewhere goes with --commit SHA")
        ctx = make(_version(form))
        return _said(ledger.act(ctx, _item(form), verb, given, elsewhere), past)

    return run


_WHY = {"release": "goes back", "abandon": "is dropped"}


def _report(make: MakeContext, form: Mapping[str, str]) -> Said:
    from gitcoop.service import ledger

    status = form.get("status", "")
    if status not in REPORTS:
        raise UsageError(f"a report is one of {', '.join(REPORTS)}")
    reason = form.get("reason") or None
    if status in ("released", "abandoned", "blocked") and not reason:
        raise UsageError(f"a {status} report needs --reason")
    args: dict[str, Any] = {"status": status}
    if status == "unblocked":
        if form.get("reason"):
            raise UsageError("an unblocked report takes --note, not --reason")
        args["note"] = form.get("note") or None
    else:
        args["reason"] = reason
    args["summary"] = form.get("summary") or None
    args["commit"] = form.get("commit") or None
    given = {k: v for k, v in args.items() if v}
    shown = ledger.act(make(_version(form)), _item(form), "report", given)
    return _said(shown, f"reported {status} on")


def _review(make: MakeContext, form: Mapping[str, str]) -> Said:
    from gitcoop.service import ledger

    decision = form.get("decision", "")
    if decision not in obligations.DECISIONS:
        raise UsageError(f"a review decides one of {', '.join(obligations.DECISIONS)}")
    reason = form.get("reason") or None
    if decision in ("release", "abandon") and not reason:
        raise UsageError(f"review {decision} needs --reason: say why")
    args: dict[str, Any] = {"decision": decision, "reason": reason}
    if decision == "close":
        args["summary"] = form.get("summary") or None
        args["commit"] = form.get("commit") or None
    after = form.get("after")
    if after and decision in ("defer", "escalate"):
        try:
            delay = parse_duration(after)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not obligations.DELAY_MIN <= delay <= obligations.DELAY_MAX:
            raise UsageError("--after must be between 30s and 30d")
        args["delay_seconds"] = int(delay.total_seconds())
    given = {k: v for k, v in args.items() if v}
    shown = ledger.act(make(_version(form)), _item(form), "review", given)
    return _said(shown, f"reviewed ({decision})")


def _tags(text: str | None) -> list[str]:
    return list(dict.fromkeys(t.strip() for t in (text or "").replace(",", " ").split() if t))


def _priority(text: str | None) -> int | None:
    if not text:
        return None
    if not text.isdigit() or not 0 <= int(text) <= 4:
        raise UsageError("priority must be 0 to 4 (0 is the highest)")
    return int(text)


def _checked(title: str | None, tags: list[str], priority: int | None, body: str | None) -> None:
    problems = [
        shapes.title_problem(title) if title is not None else None,
        *(shapes.tag_problem(tag) for tag in tags),
        shapes.priority_problem(priority) if priority is not None else None,
        shapes.body_problem(body) if body is not None else None,
    ]
    for problem in problems:
        if problem:
            raise UsageError(problem)


def _add(make: MakeContext, form: Mapping[str, str]) -> Said:
    from gitcoop.service import ledger, queue

    kind = form.get("kind", "todo")
    if kind not in KINDS:
        raise UsageError("an item is a todo, a request or a queue item")
    title = form.get("title", "")
    tags, priority, body = (
        _tags(form.get("tags")),
        _priority(form.get("priority")),
        form.get("body"),
    )
    body = body or None
    _checked(title, tags, priority, body)
    ctx = make(None)
    if kind == "item":
        shown = queue.add_item(ctx, title, tuple(tags), (), "human", body, priority, None, None)
    else:
        shown = ledger.add(ctx, kind, title, body=body, tags=tags, priority=priority)
    return Said(f"added {shown.label}: {shown.item.title}", str(shown.item.id))


def _edit(make: MakeContext, form: Mapping[str, str]) -> Said:
    from gitcoop.service import ledger

    title = form.get("title") or None
    body = form.get("body")
    tags, untag = _tags(form.get("tags")), _tags(form.get("untag"))
    priority = _priority(form.get("priority"))
    _checked(title, tags, priority, body)
    shape: dict[str, Any] = {
        "title": title,
        "body": body if body is not None and "body" in form else None,
        "priority": priority,
        "tags": tags or None,
        "untag": untag or None,
    }
    shape = {k: v for k, v in shape.items() if v is not None}
    shown = ledger.edit(make(_version(form)), _item(form), shape)
    return _said(shown, "edited")


def _dep(make: MakeContext, form: Mapping[str, str]) -> Said:
    from gitcoop.service import dependencies

    action, phrase, other = form.get("action", "add"), form.get("link", ""), form.get("other", "")
    if action not in ("add", "remove"):
        raise UsageError("dep is add or remove")
    if phrase not in LINKS:
        raise UsageError(f"a link is one of {', '.join(LINKS)}")
    if not other:
        raise UsageError("name the other item: an id or a prefix")
    first = _item(form)
    shown = dependencies.link(make(_version(form)), first, phrase, other, action)
    if not shown.wrote:
        return _said(shown, "linked")
    past = "linked" if action == "add" else "unlinked"
    return Said(f"{past}: {first} {phrase} {other}", str(shown.item.id))


def _ack(make: MakeContext, form: Mapping[str, str]) -> Said:
    from gitcoop.service import lost

    shown = lost.acknowledge(make(_version(form)), _item(form), form.get("event") or None)
    return _said(shown, "acknowledged")


def _resolve(make: MakeContext, form: Mapping[str, str]) -> Said:
    from gitcoop.service import resolution

    decision = form.get("decision", "")
    if decision not in ("apply", "dismiss"):
        raise UsageError("resolve needs exactly one of --apply or --dismiss")
    reason = form.get("reason", "")
    if not reason:
        raise UsageError("resolve needs --reason: say why the conflict is settled this way")
    event = form.get("event", "")
    shown = resolution.resolve(make(_version(form)), _item(form), event, decision, reason)
    title = shown.item.title
    return Said(
        f"resolved {shown.label} ({decision}): {title} [{shown.item.status}]", str(shown.item.id)
    )


HANDLERS: dict[str, Callable[[MakeContext, Mapping[str, str]], Said]] = {
    "take": _transition("take", "took", {}),
    "release": _transition("release", "released", {}),
    "done": _transition("done", "done", {}),
    "close": _transition("close", "closed", {}),
    "abandon": _transition("abandon", "abandoned", {}),
    "note": _transition("note", "noted", {}),
    "report": _report,
    "review": _review,
    "add": _add,
    "edit": _edit,
    "dep": _dep,
    "ack": _ack,
    "resolve": _resolve,
}
