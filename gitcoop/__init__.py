"""gitcoop: a work ledger kept inside the git repository, on refs/coop/ledger."""

__version__ = "0.1.0"
