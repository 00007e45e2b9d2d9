"""Fast paths: each module shadows a library or a slower correct path.

Each opens with one line saying what it shadows, what it gains (the figure is
in docs/performance.md) and which test holds it equal to what it shadows.
`COOP_REFERENCE=1` in the environment routes every one of them to the path it
shadows (`reference()`).
"""
