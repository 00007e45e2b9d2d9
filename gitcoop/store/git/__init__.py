"""git itself: the repository opened, refs and their compare-and-swap, objects, walks, config.

Nothing in this room knows the ledger's layout or format.
"""
