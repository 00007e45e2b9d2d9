"""A host that talks back: what it writes is a stranger's text, bounded in size and time,
never taken for this machine's own words (docs/hardening.md, H7 and H8; docs/sync.md,
"Transport").

Real clones of a bare remote; the host's behaviour is a hook of the bare repository or a
fake `ssh` (core.sshCommand) that serves, prints or hangs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import Clones, coop_in, git
from tests.store.ledger.test_transport import claiming


def hook(clones: Clones, name: str, script: str) -> None:
    path = clones.root / "remote.git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)


def ssh(clones: Clones, path: Path, script: str) -> Path:
    """origin over a fake ssh running `script` (with $last the remote's command, and a
    count of connections in the returned file)."""
    counter = clones.root / "ssh-count"
    fake = clones.root / "fake-ssh"
    fake.write_text(
        "#!/bin/sh\n"
        f'count=$(cat "{counter}" 2>/dev/null || echo 0); echo $((count + 1)) > "{counter}"\n'
        f"echo $$ >> {clones.root / 'ssh-pids'}\n"
        "for last; do :; done\n" + script
    )
    fake.chmod(0o755)
    git(path, "config", "core.sshCommand", str(fake))
    git(path, "config", "ssh.variant", "ssh")
    git(path, "remote", "set-url", "origin", f"ssh://git@127.0.0.1{clones.root}/remote.git")
    return counter


def pushes_hang(clones: Clones, path: Path, later_fetches: str) -> Path:
    """origin over an ssh that serves the first fetch, hangs every push, and answers every
    later fetch with `later_fetches` (a shell line); the count of connections."""
    served = clones.root / "served"
    return ssh(
        clones,
        path,
        'case "$last" in\n'
        "  *receive-pack*) exec sleep 8 ;;\n"
        f'  *) if [ -e "{served}" ]; then {later_fetches}; fi\n'
        f'     touch "{served}"; exec sh -c "$last" ;;\n'
        "esac\n",
    )


def test_a_host_writing_bytes_that_are_not_utf8_is_told_not_a_bug(clones: Clones) -> None:
    """Its bytes are shown escaped, with the exit of what happened: a refusal (11) for
    sync, and a write recorded here that says it stayed here (0), printing its item."""
    (alice,), _ = claiming(clones, "alice")
    hook(clones, "pre-receive", "printf 'no \\377 way\\n' >&2; exit 1\n")
    added = coop_in(alice, "add", "todo", "four", "--json")
    assert added.code == 0, (added.code, added.err)
    assert added.json()["title"] == "four" and "not yet on origin" in added.err
    synced = coop_in(alice, "sync")
    assert synced.code == 11, (synced.code, synced.err)
    assert "no \ufffd way" in synced.err, synced.err  # the byte, replaced where it stood


def test_a_host_that_floods_its_lines_is_read_in_bounded_memory(clones: Clones) -> None:
    """100 MB of `remote:` lines: the refusal is told (exit 11) and the process's peak
    memory stays that of an ordinary sync; only the start of what the host said is kept."""
    (alice,), _ = claiming(clones, "alice")
    hook(clones, "pre-receive", "yes 'remote junk' | head -c 100000000 >&2; exit 1\n")
    assert coop_in(alice, "add", "todo", "flooded").code == 0  # stays here: the host refuses
    measure = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-c', "
        "'from gitcoop.cli.main import run; run()', 'sync'], capture_output=True, text=True)\n"
        "print(done.returncode, len(done.stderr), "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", measure], cwd=alice, capture_output=True, text=True, check=True
    )
    code, said, peak_kb = map(int, done.stdout.split())
    assert code == 11
    assert said < 10_000  # the message is a line, not the flood
    assert peak_kb < 120_000, f"peak {peak_kb} KB while the host wrote 100 MB"


def test_a_host_saying_the_disk_is_full_is_not_this_machines_disk(clones: Clones) -> None:
    """The host's words are not this machine's: a failure is exit 9 only when this clone's
    own disk or permissions say so; otherwise the remote failed (exit 7)."""
    (alice,), _ = claiming(clones, "alice")
    ssh(clones, alice, "echo 'fatal: No space left on device' >&2; exit 128\n")
    synced = coop_in(alice, "sync", "--json")
    assert synced.code == 7, (synced.code, synced.err)
    assert "No space left on device" in synced.err and "disk is full" not in synced.err


def test_a_claim_does_not_ask_a_remote_that_timed_out_again_and_again(clones: Clones) -> None:
    """A push that timed out is asked about once (did it land?); a fetch that times out
    then ends the claim: exit 7 saying so, not ten more waits of coop.remoteTimeout."""
    (alice,), todo = claiming(clones, "alice")
    counter = pushes_hang(clones, alice, "exec sleep 8")
    git(alice, "config", "coop.remoteTimeout", "1s")
    took = coop_in(alice, "take", todo)
    assert took.code == 7, (took.code, took.err)
    assert "nothing was recorded" in took.err, took.err
    assert int(counter.read_text()) <= 3, counter.read_text()
    assert coop_in(alice, "show", todo, "--json").json()["taken_by"] is None
    for pid in (clones.root / "ssh-pids").read_text().split():  # none left hanging
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().split()[2] in "ZX", f"ssh {pid} lives on"


def test_a_push_that_timed_out_does_not_say_it_was_not_made(clones: Clones) -> None:
    """The host took the push and then hung (a post-receive hook): the command cannot
    know whether it landed, and says that, not that the remote lacks it."""
    (alice,), _ = claiming(clones, "alice")
    hook(clones, "post-receive", "sleep 8\n")
    git(alice, "config", "coop.remoteTimeout", "1s")
    added = coop_in(alice, "add", "todo", "maybe there")
    assert added.code == 0, added.err
    assert "not yet on origin" not in added.err and "not known" in added.err, added.err
    tip = git(alice, "rev-parse", "refs/coop/ledger")
    assert git(clones.root / "remote.git", "rev-parse", "refs/coop/ledger") == tip


def test_init_asks_a_remote_within_coop_remote_timeout(clones: Clones) -> None:
    alice = clones.clone("alice")
    git(alice, "commit", "-q", "--allow-empty", "-m", "code")
    ssh(clones, alice, "exec sleep 8\n")
    git(alice, "config", "coop.remoteTimeout", "1s")
    done = coop_in(alice, "init")
    assert done.code != 0 and "within 1s" in done.err, (done.code, done.err)


def test_init_never_hands_a_configured_name_to_git_as_an_option(clones: Clones) -> None:
    alice = clones.clone("alice")
    planted = clones.root / "PLANTED"
    git(alice, "config", f"remote.--upload-pack=touch {planted};.url", str(clones.root))
    done = coop_in(alice, "init")
    assert not planted.exists()
    assert done.code != 0 and "not a remote name" in done.err, (done.code, done.err)


def test_remote_names_that_nest_are_refused_by_name(clones: Clones) -> None:
    """Remotes `x` and `x/ledger` would share refs (refs/coop/taken/x is a file where
    refs/coop/taken/x/ledger needs a folder), so one of them would lose its memory of the
    remote's history (H4) without a word: neither is used until one is renamed."""
    (alice,), _ = claiming(clones, "alice")
    for name in ("x", "x/ledger"):
        git(alice, "remote", "add", name, clones.url)
    for name in ("x", "x/ledger"):
        synced = coop_in(alice, "sync", name, "--json")
        assert synced.code == 2, (name, synced.code, synced.err)
        assert "git remote rename" in synced.err
        assert synced.json()["error"]["code"] == "usage"
    assert coop_in(alice, "sync").code == 0  # origin nests with nothing


def test_a_process_the_host_leaves_holding_git_s_stderr_is_not_waited_for(
    clones: Clones,
) -> None:
    """An ssh whose child keeps git's stderr open after git is done: the command ends
    once git has (the child is still running then), with git's answer."""
    (alice,), todo = claiming(clones, "alice")
    sleeper = clones.root / "sleeper-pid"
    ssh(clones, alice, f'sleep 30 & echo $! > "{sleeper}"\nexec sh -c "$last"\n')
    try:
        took = coop_in(alice, "take", todo)
        assert took.code == 0, (took.code, took.err)
        left = sleeper.read_text().split()
        assert all(Path(f"/proc/{pid}").exists() for pid in left), "the command waited for it"
    finally:
        for pid in sleeper.read_text().split():
            subprocess.run(["kill", pid], check=False)


def test_git_s_own_words_after_a_flood_of_the_host_s_are_kept(clones: Clones) -> None:
    """70,000 bytes of a host's banner before git says the remote has no ledger: that
    verdict, at the end, is still read, and the ledger is pushed there."""
    (alice,), _ = claiming(clones, "alice")
    empty = clones.root / "empty.git"
    git(clones.root, "init", "-q", "--bare", str(empty))
    git(alice, "remote", "add", "chatty", f"ssh://git@127.0.0.1{empty}")
    ssh(clones, alice, "head -c 70000 /dev/zero | tr '\\\\0' = >&2\nexec sh -c \"$last\"\n")
    git(alice, "remote", "set-url", "chatty", f"ssh://git@127.0.0.1{empty}")
    git(alice, "remote", "set-url", "origin", clones.url)
    synced = coop_in(alice, "sync", "chatty")
    assert synced.code == 0, (synced.code, synced.err[-300:])
    ours = git(alice, "rev-parse", "refs/coop/ledger")
    assert git(empty, "rev-parse", "refs/coop/ledger") == ours


def test_a_claim_found_landed_after_a_cut_off_push_is_remembered(clones: Clones) -> None:
    """The host took the claim's push and then hung; the fetch that finds it landed makes
    it confirmed here, remembered as the remote's tip (H4), so a later rewrite is seen."""
    (alice,), todo = claiming(clones, "alice")
    hook(clones, "post-receive", "sleep 8\n")
    git(alice, "config", "coop.remoteTimeout", "1s")
    took = coop_in(alice, "take", todo)
    assert took.code == 0, (took.code, took.err)
    remote_tip = git(clones.root / "remote.git", "rev-parse", "refs/coop/ledger")
    assert git(alice, "rev-parse", "refs/coop/taken/origin") == remote_tip


def test_a_fetch_reset_after_a_push_that_timed_out_is_not_asked_again(
    clones: Clones,
) -> None:
    (alice,), todo = claiming(clones, "alice")
    counter = pushes_hang(clones, alice, 'echo "Connection reset by peer" >&2; exit 255')
    git(alice, "config", "coop.remoteTimeout", "1s")
    took = coop_in(alice, "take", todo)
    assert took.code == 7, (took.code, took.err)
    assert int(counter.read_text()) <= 3, counter.read_text()


def test_remote_names_that_make_no_valid_ref_are_refused(clones: Clones) -> None:
    (alice,), _ = claiming(clones, "alice")
    for name in ("a//b", "a/.b", "a.lock/b", "a/b."):
        git(alice, "config", f"remote.{name}.url", clones.url)
        synced = coop_in(alice, "sync", name)
        assert synced.code == 2 and "not a remote name" in synced.err, (name, synced.err)
    assert not (alice / ".git" / "refs" / "coop" / "taken" / "a.lock").exists()


def test_a_fetch_refspec_that_overwrites_the_ledger_is_refused(clones: Clones) -> None:
    """`git remote add --mirror=fetch` sets no mirror key, only +refs/*:refs/*, which makes
    a plain git fetch overwrite refs/coop/ledger: refused by name. A mirror key git reads
    as false is no mirror."""
    (alice,), _ = claiming(clones, "alice")
    git(alice, "remote", "add", "--mirror=fetch", "copy", clones.url)
    done = coop_in(alice, "remote", "setup", "copy")
    assert done.code == 2 and "overwrite refs/coop/ledger" in done.err, done.err
    for false in ("FALSE", "Off", ""):
        git(alice, "config", "remote.origin.mirror", false)
        assert coop_in(alice, "sync").code == 0, false


def test_a_remote_whose_url_ends_like_the_ledger_ref_is_pushed_to(clones: Clones) -> None:
    (alice,), _ = claiming(clones, "alice")
    odd = clones.root / "x" / "refs" / "coop" / "ledger"
    git(clones.root, "init", "-q", "--bare", str(odd))
    git(alice, "remote", "add", "odd", str(odd))
    pushed = coop_in(alice, "push", "odd")
    assert pushed.code == 0, (pushed.code, pushed.err)


def test_init_says_a_setting_to_fix_is_a_usage_error_not_a_remote_to_wait_for(
    clones: Clones,
) -> None:
    alice = clones.clone("alice")
    git(alice, "config", "coop.remoteTimeout", "soon")
    done = coop_in(alice, "init")
    assert done.code == 2 and "coop.remoteTimeout" in done.err, (done.code, done.err)
    assert "once origin answers" not in done.err


def test_a_finished_git_is_never_turned_into_a_timeout_by_a_pipe_held_after_it() -> None:
    """A child still holding stderr when the deadline passes during the linger: the
    process had finished, so its output and exit stand."""
    import time

    from gitcoop.store.ledger.transport import LINGER, _Heard

    running = subprocess.Popen(
        ["sh", "-c", "sleep 5 >&2 </dev/null & echo done"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    heard = _Heard(running, None)
    try:
        heard.until_done(time.monotonic() + LINGER * 0.9)  # passes during the linger
    finally:
        heard.close()
    assert running.returncode == 0 and heard.out() == "done\n"


def test_sigterm_stops_the_git_and_ssh_a_sync_started(clones: Clones) -> None:
    """A sync stopped by SIGTERM (how an MCP client or a supervisor stops it) leaves as
    Ctrl-C does: exit 143, and the git and ssh it started are gone."""
    import os
    import signal

    (alice,), _ = claiming(clones, "alice")
    fifo = clones.root / "started"
    os.mkfifo(fifo)
    ssh(clones, alice, f'echo $$ > "{fifo}"\nexec sleep 60\n')
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    running = subprocess.Popen(
        [sys.executable, "-c", "from gitcoop.cli.main import run; run()", "sync"],
        cwd=alice,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    ssh_pid = int(fifo.read_text().split()[0])  # blocks until the fake ssh runs
    running.send_signal(signal.SIGTERM)
    _, err = running.communicate(timeout=60)
    assert running.returncode == 143, err
    assert b"Traceback" not in err and b"bug" not in err
    stat = Path(f"/proc/{ssh_pid}/stat")
    assert not stat.exists() or stat.read_text().split()[2] in "ZX", "the ssh lives on"


def test_every_name_git_takes_for_a_remote_and_a_ref_can_carry_is_taken(
    clones: Clones,
) -> None:
    (alice,), _ = claiming(clones, "alice")
    for name in ("a./b", "foo+bar", "user@host", "caf\u00e9", "team.repo", "gh/user"):
        git(alice, "config", f"remote.{name}.url", clones.url)
        synced = coop_in(alice, "sync", name)
        assert synced.code == 0, (name, synced.code, synced.err)


def test_a_negative_refspec_that_leaves_the_ledger_out_is_no_overwrite(clones: Clones) -> None:
    (alice,), _ = claiming(clones, "alice")
    git(alice, "config", "--add", "remote.origin.fetch", "+refs/coop/*:refs/coop/*")
    refused = coop_in(alice, "sync")
    assert refused.code == 2 and "overwrite" in refused.err, refused.err
    git(alice, "config", "--add", "remote.origin.fetch", "^refs/coop/ledger")
    assert coop_in(alice, "sync").code == 0
    git(alice, "config", "remote.origin.mirror", "00")  # false, as git reads it
    assert coop_in(alice, "sync").code == 0
