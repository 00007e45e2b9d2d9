"""Evidence checked against the code: paths normalised, files, lines and quotes found.

A verifier's citations decide whether its verdict is trusted (a confirmed
verdict citing a file that is not there is `unclear`); a person's
`--evidence` gets the same check as a warning, since a person may be ahead
of the tree.
"""

from __future__ import annotations

import os

from gitcoop.domain import citation
from gitcoop.domain.records import Evidence
from gitcoop.store.git import ancestry
from gitcoop.store.repository import Repo


def roots(repo: Repo) -> tuple[str, ...]:
    """The work tree's top folder as git reports it and as the file system resolves it."""
    top = repo.workdir()
    if top is None:
        return ()
    return tuple(dict.fromkeys((top, os.path.realpath(top))))


def check(
    repo: Repo, head: str | None, evidence: tuple[Evidence, ...]
) -> tuple[tuple[Evidence, ...], list[str]]:
    """The evidence with normalised paths, and what is wrong with it at `head`, entry by entry."""
    top = roots(repo)
    kept: list[Evidence] = []
    problems: list[str] = []
    for entry in evidence:
        path = citation.normalise_path(entry.path, top)
        if path is None:
            problems.append(f"{citation.cited(entry)}: the path is outside the repository")
            kept.append(entry)
            continue
        entry = Evidence(path, entry.line, entry.quote, entry.head)
        kept.append(entry)
        if head is None:
            problems.append(f"{citation.cited(entry)}: there is no commit to check it against")
            continue
        found = ancestry.file_at(repo, head, path)
        text = found.text if found.exists else None
        wrong = citation.problem(entry, text, readable=not found.exists or found.text is not None)
        if wrong:
            problems.append(wrong)
    return tuple(kept), problems
