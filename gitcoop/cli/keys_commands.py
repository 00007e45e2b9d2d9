"""keys: the SSH keys the ledger registers to people, which sign its commits."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer

from gitcoop.cli.helptext import CoopGroup
from gitcoop.cli.options import AsOpt, JsonOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.errors import UsageError

if TYPE_CHECKING:
    from gitcoop.service.keys import KeyRow

WhoArg = Annotated[str, typer.Argument(metavar="EMAIL", help="Whose key.")]
KeyArg = Annotated[
    str,
    typer.Argument(
        metavar="KEY",
        help="An SSH public key ('ssh-ed25519 AAAA…', quoted) or the path of its .pub file.",
    ),
]


# `roles add` and `keys add`: an id that looks like one the ledger knows is refused without it
LookAlikeOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Add an id that looks like one the ledger already knows (they are two people).",
    ),
]


def add(
    who: WhoArg,
    key: KeyArg,
    force: LookAlikeOpt = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Register KEY as EMAIL's signing key (owners), or propose your own.

    A key you propose for yourself takes effect once an owner adds it too.
    With `git coop config require_signed true`, every ledger commit must be
    signed by a key registered to its author.
    """
    from gitcoop.service import keys

    row = keys.add(make_context(actor), who, key, force)
    _print_change(row, as_json)


def remove(
    who: WhoArg,
    key: Annotated[
        str,
        typer.Argument(metavar="KEY", help="The key, its .pub file, or its SHA256:… print."),
    ],
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove one of EMAIL's keys (owners, or EMAIL themselves).

    Commits it signed before stay valid; from now on it signs nothing.
    """
    from gitcoop.service import keys

    row = keys.remove(make_context(actor), who, key)
    _print_change(row, as_json)


def listing(
    who: Annotated[str | None, typer.Argument(metavar="[EMAIL]", help="Only this person.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The registered and proposed keys, by person, with their fingerprints."""
    from gitcoop.cli import render
    from gitcoop.service import keys

    rows = keys.rows(keys.current(make_context()), who)
    if as_json:
        render.emit_json([r.to_data() for r in rows])
        return
    if not rows:
        say("no keys registered — add one: git coop keys add EMAIL ~/.ssh/id_ed25519.pub")
    for row in rows:
        say(printable(f"{row.who:<30} {row.fingerprint}  {row.kind:<12} {row.status}"))
    if any(r.status == "proposed" for r in rows):
        say("an owner approves a proposed key with: git coop keys add EMAIL KEY")


def export(
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Write to this file, not stdout.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Print an allowed-signers file of every registered key.

    For git itself: git config gpg.ssh.allowedSignersFile FILE, then
    git verify-commit (or git log --show-signature refs/coop/ledger).
    With --json, the file's text is the value of "allowed_signers".
    """
    import sys

    from gitcoop.service import keys

    text = keys.export(make_context())
    if output is not None:
        try:
            with open(os.path.expanduser(output), "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            raise UsageError(f"cannot write {output}: {error.strerror}") from None
    if as_json:
        from gitcoop.cli import render

        render.emit_json({"allowed_signers": text, "output": output})
    elif output is None:
        sys.stdout.write(printable(text, lines=True))  # as all ledger text


def register(app: typer.Typer) -> None:
    keys_app = typer.Typer(
        cls=CoopGroup,
        suggest_commands=False,
        help="The SSH keys that sign ledger commits: add, remove, list, export.",
        no_args_is_help=True,
    )
    app.add_typer(keys_app, name="keys")
    keys_app.command("add")(add)
    keys_app.command("remove")(remove)
    keys_app.command("list")(listing)
    keys_app.command("export")(export)


def _print_change(row: KeyRow, as_json: bool) -> None:
    if as_json:
        from gitcoop.cli import render

        render.emit_json(row.to_data())
        return
    if row.status == "proposed":
        say(
            printable(
                f"proposed {row.fingerprint} for {row.who}; an owner approves it with: "
                f"git coop keys add {row.who} '{row.key}'"
            )
        )
    else:
        say(printable(f"{row.status} {row.fingerprint} for {row.who}"))
