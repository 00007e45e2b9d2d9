"""Running `git coop` as a real process on a pseudo-terminal, as a person's shell would."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from dataclasses import dataclass
from pathlib import Path

SGR = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Screen:
    code: int
    out: str  # what the terminal received on stdout (with \r\n line ends made \n)
    err: str  # stderr: on its own pty when asked, else piped

    @property
    def plain(self) -> str:
        return SGR.sub("", self.out)


def on_terminal(
    cwd: Path,
    *args: str,
    columns: int = 80,
    env: dict[str, str] | None = None,
    stderr_terminal: bool = False,
) -> Screen:
    """`git coop ARGS` with stdout (and, if asked, stderr) on a pty of `columns` columns."""
    full_env = {**os.environ, **(env or {})}
    full_env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + full_env.get("PATH", "")
    full_env.setdefault("TERM", "xterm-256color")
    out_master, out_slave = _pty(columns)
    err_master, err_slave = _pty(columns) if stderr_terminal else (None, None)
    process = subprocess.Popen(
        ["git", "coop", *args],
        cwd=cwd,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=out_slave,
        stderr=err_slave if err_slave is not None else subprocess.PIPE,
        close_fds=True,
    )
    os.close(out_slave)
    if err_slave is not None:
        os.close(err_slave)
    masters = [m for m in (out_master, err_master) if m is not None]
    read = {m: b"" for m in masters}
    piped_err = b""
    while masters:
        ready, _, _ = select.select(masters, [], [], 60)
        if not ready:
            break
        for master in ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other side closed: Linux says EIO
                chunk = b""
            if chunk:
                read[master] += chunk
            else:
                masters.remove(master)
                os.close(master)
    if process.stderr is not None:
        piped_err = process.stderr.read()
    code = process.wait(timeout=60)
    err = read[err_master] if err_master is not None else piped_err
    return Screen(code, _text(read[out_master]), _text(err))


def _pty(columns: int) -> tuple[int, int]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return master, slave


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").replace("\r\n", "\n")
