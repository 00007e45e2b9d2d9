"""The board: `git coop serve`, a local web page over the ledger (docs/board.md).

An interface beside gitcoop/cli: it reads and writes through gitcoop.service,
as the CLI does, and never touches the store.
"""
