"""Pure rules: ids, records, lifecycles, obligations, replay. No I/O here."""
