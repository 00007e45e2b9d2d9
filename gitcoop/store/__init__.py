"""Git and YAML: the codec, the tree layout, reading snapshots, transactions."""
