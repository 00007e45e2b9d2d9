"""The ledger on its ref: layout, codec, snapshot, transaction, merge, journal, transport.

Also the upkeep that keeps the ref's history small, and `fsck`'s survey.
"""
