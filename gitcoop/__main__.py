"""`python -m gitcoop`: the `git-coop` command, where no script of it is on PATH."""

from gitcoop.cli.main import run

run()
