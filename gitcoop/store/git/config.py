"""git config: read as git reads it, `git -c` values first, and written to the
repository's own config file.

libgit2 does not read GIT_CONFIG_PARAMETERS, which git exports for `git -c
key=value coop ...`: `config_parameters` parses it, and its values win over
every config file, as they do in git.
"""

from __future__ import annotations

import re
from typing import Any

from gitcoop.errors import BadLedger, UsageError
from gitcoop.store.git import environment
from gitcoop.store.git.libgit2 import pygit2


class Config:
    """The repository's git config (a part of `Repo`, store/git/repo.py)."""

    raw: Any
    overrides: dict[str, str]  # `git -c` values: they win over every config file

    def config_value(self, key: str) -> str | None:
        """A key's value: from `git -c` first, as git does, then the config files."""
        given = self.overrides.get(config_key(key))
        if given is not None:
            return given
        try:
            value = self.raw.config[key]
        except (KeyError, pygit2.GitError):
            return None
        return str(value)

    def config_values(self, key: str) -> list[str]:
        """Every value of a multi-valued key (e.g. remote.origin.fetch)."""
        try:
            return [str(v) for v in self.raw.config.get_multivar(key)]
        except (KeyError, pygit2.GitError):
            return []

    def config_int(self, key: str, default: int) -> int:
        """An integer as git reads it (`7k` is 7168); ValueError when git would refuse it."""
        try:
            return int(self.raw.config.get_int(key))
        except KeyError:
            return default
        except pygit2.GitError as exc:
            raise ValueError(f"git config {key}: {exc}") from None

    def config_bool(self, key: str, default: bool) -> bool:
        """A boolean as git reads it (true/yes/on/1); ValueError when git would refuse it."""
        try:
            return bool(self.raw.config.get_bool(key))
        except KeyError:
            return default
        except pygit2.GitError as exc:
            raise ValueError(f"git config {key}: {exc}") from None

    def config_number(self, key: str, default: float) -> float:
        """A non-negative number from git config, or `default` when unset."""
        value = self.config_value(key)
        if value is None:
            return default
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if number < 0:
            raise UsageError(f"git config {key} is {value!r}; it must be a non-negative number")
        return number

    def add_config_value(self, key: str, value: str) -> None:
        """Add `value` to a multi-valued key in the repository's own config."""
        try:
            self.raw.config.set_multivar(key, "^" + re.escape(value) + "$", value)
        except (pygit2.GitError, OSError) as exc:
            failed = environment.failure(exc, f"writing git config {key}")
            raise failed or BadLedger(f"cannot write git config {key}: {exc}") from None

    def set_config_value(self, key: str, value: str) -> None:
        """Set a single-valued key in the repository's own config."""
        try:
            self.raw.config[key] = value
        except pygit2.GitError as exc:
            raise BadLedger(f"cannot write git config {key}: {exc}") from None

    def unset_config_value(self, key: str) -> None:
        try:
            del self.raw.config[key]
        except KeyError:
            pass
        except pygit2.GitError as exc:
            raise BadLedger(f"cannot write git config {key}: {exc}") from None

    def remove_config_value(self, key: str, value: str) -> bool:
        """Remove `value` from a key in the repository's own config; False when absent."""
        if value not in self.config_values(key):
            return False
        try:
            self.raw.config.delete_multivar(key, "^" + re.escape(value) + "$")
        except pygit2.GitError as exc:
            raise BadLedger(f"cannot write git config {key}: {exc}") from None
        return True

    def remote_names(self) -> list[str]:
        """The configured git remotes, sorted."""
        try:
            return sorted(str(name) for name in self.raw.remotes.names())
        except pygit2.GitError:
            return []


def config_key(key: str) -> str:
    """git's spelling of a key for comparing: section and name are case-insensitive."""
    section, _, rest = key.partition(".")
    middle, dot, name = rest.rpartition(".")
    return f"{section.lower()}.{middle}{dot}{name.lower()}"


def config_parameters(text: str) -> dict[str, str]:
    """GIT_CONFIG_PARAMETERS as a dict: `'key'='value'` entries (git 2.31 on) or `'key=value'`.

    Each part is single-quoted by git, a quote inside written `'\\''` and a `!`
    written `'\\!'`; `'key'=` alone means true. git checked the text before it
    ran us; anything unreadable ends the parse, keeping what came before.
    """
    found: dict[str, str] = {}
    at = 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        word, at = _dequoted(text, at)
        if word is None:
            break
        value: str | None
        if text[at : at + 1] == "=":  # 'key'='value' or 'key'=
            key, at = word, at + 1
            value, at = _dequoted(text, at) if text[at : at + 1] == "'" else (None, at)
        else:  # 'key=value' or 'key'
            key, sep, rest = word.partition("=")
            value = rest if sep else None
        found[config_key(key)] = "true" if value is None else value
    return found


def _dequoted(text: str, at: int) -> tuple[str | None, int]:
    """The single-quoted word starting at `at`, and where it ends (None: not quoted)."""
    if text[at : at + 1] != "'":
        return None, at
    parts: list[str] = []
    at += 1
    while True:
        end = text.find("'", at)
        if end < 0:
            return None, len(text)
        parts.append(text[at:end])
        at = end + 1
        if text[at : at + 1] == "\\" and text[at + 2 : at + 3] == "'":
            parts.append(text[at + 1])  # '\'' is a quote, '\!' an exclamation mark
            at += 3
            continue
        return "".join(parts), at
