"""Verbs as use-cases: each reads the ledger, asks the domain, and writes one commit."""
