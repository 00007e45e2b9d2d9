"""The trust boundary: everything a peer can push is judged here, by the rules of one page.

docs/hardening.md, "The boundary on one page", states the model and its eight
rules; each check here names the rule it enforces:

    remembered.py   H4  the remote's history only grows: what this clone took
                        in last stays on the fetched tip's first-parent chain
    history.py      H5 H6 H7  each fetched commit once: at most two parents,
                        events never dropped or rewritten, none added by a
                        merge, each added one named, parsed, bounded, by the
                        commit's author, its clock above its parents', its id
                        its content's (format 2); one root
    tree.py         H7  every listing read is as the layout and git allow
    joining.py      H1 H2 H3  each commit on the fetched first-parent chain
                        holds exactly its first parent's state plus what it
                        adds, judged where it joins (keys and roles of the
                        first parent's state)
    windows.py      H1-H3 H5-H7 as above, a fan-out folder at a time along the
                        whole history, so a check holds one folder's events
                        and items, not every one (a format-2 history without
                        signed writes; others are checked a commit at a time)
    format1.py      format-1 history, checked at its last commit as format 1 did
    signatures.py   git's verdict on the signatures H2 asks about

    fetched.py      `check`: all of the above on what a fetch brought

`store/ledger/merge.py` calls `fetched.check` before anything else reads the remote
side, and writes its merges with `joining.join`. This file imports nothing, so
a command that only reads the remembered tip (`remembered.py`) loads no more.
"""
