"""pygit2, imported without reading the system's whole CA bundle.

At import, pygit2 hands libgit2 the CA file and folder `ssl` names, and
libgit2's OpenSSL parses every certificate in the file there and then: about
57 M instructions, a tenth of a `git coop show`, in every process. gitcoop
never uses libgit2's TLS (git carries the network), so where a CA folder
exists libgit2 is given the folder alone, which OpenSSL reads only when a
certificate is looked up; without one it gets both, as before. `ssl` is
itself again once pygit2 is loaded (pygit2's settings module keeps the name
it imported, which still asks `ssl` and drops only the file).
"""

from __future__ import annotations

import ssl

__all__ = ["pygit2"]

_told = ssl.get_default_verify_paths


def _folder_only() -> ssl.DefaultVerifyPaths:
    paths = _told()
    if not paths.capath:
        return paths
    # pygit2 passes a cafile of None on to libgit2 as "no file".
    return paths._replace(cafile=None)  # type: ignore[arg-type]


ssl.get_default_verify_paths = _folder_only
try:
    import pygit2
finally:
    ssl.get_default_verify_paths = _told
