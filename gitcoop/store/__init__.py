"""git and the ledger's files, in four rooms: git/, ledger/, boundary/, fast/.

docs/architecture.md ("The store's rooms") says what each holds and why;
`repository.py` names the repository and its parts in one place.
"""
