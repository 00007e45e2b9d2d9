"""The machine's refusals (exit 9) and the one failure worth another try."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from gitcoop.errors import ChangedUnderWrite, EnvironmentFailed
from gitcoop.store.git import environment
from gitcoop.store.ledger.repo import open_repo
from tests.conftest import make_repo


@pytest.mark.parametrize(
    ("error", "what"),
    [
        (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "the disk is full"),
        (OSError("failed to write out file: No space left on device"), "the disk is full"),
        (OSError(errno.EROFS, "Read-only file system", "/x/.git/coop.lock"), "read-only"),
        (OSError("failed to make directory: Permission denied"), "permission was refused"),
        (OSError("could not create: Operation not permitted"), "not permitted"),
        (OSError(errno.EDQUOT, os.strerror(errno.EDQUOT)), "quota"),
    ],
)
def test_environment_failures_are_named(error: OSError, what: str) -> None:
    failed = environment.failure(error, "writing")
    assert isinstance(failed, EnvironmentFailed) and failed.exit_code == 9
    assert what in failed.message and "nothing was recorded" in failed.message


def test_other_errors_are_not_the_environment() -> None:
    assert environment.failure(OSError("object not found"), "reading") is None
    assert environment.failure(ValueError("bad"), "reading") is None


def test_a_vanished_folder_is_transient() -> None:
    renamed = OSError(
        "failed to rename lockfile to '.git/objects/16/e1': No such file or directory"
    )
    assert environment.transient(renamed)
    assert environment.transient(OSError(errno.ENOENT, "gone"))
    assert not environment.transient(OSError(errno.ENOSPC, "full"))


class Flaky:
    """A write that fails `times` times the way a concurrent prune makes libgit2 fail."""

    def __init__(self, times: int, error: OSError) -> None:
        self.times = times
        self.error = error
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        if self.calls <= self.times:
            raise self.error
        return "written"


def test_an_object_write_is_tried_again_after_a_prune_took_its_folder(tmp_path: Path) -> None:
    repo = open_repo(str(make_repo(tmp_path / "r")))
    gone = OSError("failed to rename lockfile: No such file or directory")
    flaky = Flaky(3, gone)
    assert repo._writing(flaky) == "written" and flaky.calls == 4
    with pytest.raises(ChangedUnderWrite, match="git gc or prune"):
        repo._writing(Flaky(100, gone))
    full = Flaky(1, OSError("failed to write out file: No space left on device"))
    with pytest.raises(EnvironmentFailed):
        repo._writing(full)
    assert full.calls == 1  # a full disk is not retried
