"""The layers of DESIGN.md §8: imports point down, and the domain does no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gitcoop"
IO_LIBRARIES = {"pygit2", "ruamel", "filelock", "typer", "subprocess", "os", "socket"}
ALLOWED = {
    "domain": {"gitcoop.domain", "gitcoop.errors"},
    "store": {"gitcoop.domain", "gitcoop.errors", "gitcoop.store"},
    "service": {"gitcoop.domain", "gitcoop.errors", "gitcoop.store", "gitcoop.service"},
    # the interfaces reach the store only through the service (`service/process.py`
    # for what a process needs that is not a verb); `serve` starts the board
    "cli": {
        "gitcoop.domain",
        "gitcoop.errors",
        "gitcoop.service",
        "gitcoop.cli",
        "gitcoop.web",
        "gitcoop",
    },
    # the board is an interface beside the CLI: it reads and writes through the service
    "web": {"gitcoop.domain", "gitcoop.errors", "gitcoop.service", "gitcoop.web"},
}


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("path", modules("domain"), ids=lambda p: p.name)
def test_the_domain_imports_no_io_library(path: Path) -> None:
    bad = {name for name in imports(path) if name.split(".")[0] in IO_LIBRARIES}
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_imports_point_down(layer: str) -> None:
    for path in modules(layer):
        ours = {name for name in imports(path) if name.startswith("gitcoop")}
        up = {n for n in ours if not any(n == a or n.startswith(a + ".") for a in ALLOWED[layer])}
        assert not up, f"{layer}/{path.name} imports upward: {up}"


# What the git room may import besides itself and gitcoop.errors: domain helpers that
# know nothing of the ledger (a pattern compiled on first use; the record decorator,
# until records are plain dataclasses), and for commit signing alone, the reading of
# the public key inside an SSH signature.
GIT_ROOM_HELPERS = {"gitcoop.domain.patterns", "gitcoop.domain.record_type"}
GIT_ROOM_EXCEPTIONS = {"commit_signing.py": {"gitcoop.domain.keys"}}


@pytest.mark.parametrize(
    "path", sorted((PACKAGE / "store" / "git").rglob("*.py")), ids=lambda p: p.name
)
def test_the_git_room_knows_no_ledger(path: Path) -> None:
    """store/git/ is git itself: nothing of the ledger's rooms (ledger/, boundary/,
    fast/, the repository facade) nor of the domain."""
    allowed = GIT_ROOM_HELPERS | GIT_ROOM_EXCEPTIONS.get(path.name, set())
    ours = {name for name in imports(path) if name.startswith("gitcoop")}
    bad = {
        name
        for name in ours
        if name not in allowed and not name.startswith(("gitcoop.store.git", "gitcoop.errors"))
    }
    assert not bad, f"store/git/{path.name} imports {bad}"


def test_only_one_module_each_touches_ruamel_filelock_and_only_the_store_pygit2() -> None:
    users: dict[str, set[str]] = {"ruamel": set(), "filelock": set(), "pygit2": set()}
    for path in PACKAGE.rglob("*.py"):
        for name in imports(path):
            root = name.split(".")[0]
            if root in users:
                users[root].add(str(path.relative_to(PACKAGE)))
    assert users["ruamel"] == {"store/ledger/codec.py"}
    assert users["filelock"] == {"store/git/lock.py"}
    assert all(p.startswith("store/") for p in users["pygit2"]), users["pygit2"]


def test_the_domain_modules_import_each_other_without_a_circle() -> None:
    """The fold sits above the rules it dispatches to: no module reaches back up."""
    graph = {
        f"gitcoop.domain.{path.stem}": {
            name for name in imports(path) if name.startswith("gitcoop.domain.")
        }
        | {f"gitcoop.domain.{alias}" for alias in _from_domain_imports(path)}
        for path in modules("domain")
    }
    done: set[str] = set()

    def visit(module: str, trail: tuple[str, ...]) -> None:
        assert module not in trail, f"import circle: {' -> '.join((*trail, module))}"
        if module in done:
            return
        for target in sorted(graph.get(module, ())):
            visit(target, (*trail, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())


def _from_domain_imports(path: Path) -> set[str]:
    """`from gitcoop.domain import a, b` names modules a and b, wherever it stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "gitcoop.domain":
            found.update(alias.name for alias in node.names)
    return found


def test_only_the_writer_writes_ledger_transitions() -> None:
    """One write path: no module but service/writer.py builds a Change, and only it and its
    claim routing (service/claim_routing.py: here, or through the remote) run a
    transaction."""
    writers = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            names = {alias.name for alias in node.names}
            named = node.module == "gitcoop.store.ledger.transaction" or (
                node.module == "gitcoop.store.ledger" and "transaction" in names
            )
            if named:
                writers.add(str(path.relative_to(PACKAGE)))
    assert writers == {"service/writer.py", "service/claim_routing.py"}


def test_only_serve_loads_the_board_and_only_when_it_runs() -> None:
    """The web extra is optional: no CLI module but serve's names gitcoop.web, and serve
    imports it inside the command, so no other command (nor -h) pays for it."""
    users = {
        str(path.relative_to(PACKAGE))
        for path in modules("cli")
        if any(name.startswith("gitcoop.web") for name in imports(path))
    }
    assert users == {"cli/serve_commands.py"}
    tree = ast.parse((PACKAGE / "cli" / "serve_commands.py").read_text())
    top = {n.module for n in tree.body if isinstance(n, ast.ImportFrom)}
    assert not any((name or "").startswith("gitcoop.web") for name in top)


CLI_FUNCTION_LINES = 60  # lines from `def` to the last line, signature and docstring included


def test_no_cli_function_is_longer_than_sixty_lines() -> None:
    """A command reads on one screen: its options, then a few calls to the service and
    the renderers (issue 44). A longer one is split into helpers, not allowed through."""
    long = [
        f"cli/{path.relative_to(PACKAGE / 'cli')}:{node.lineno} {node.name} "
        f"({(node.end_lineno or node.lineno) - node.lineno} lines)"
        for path in modules("cli")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (node.end_lineno or node.lineno) - node.lineno > CLI_FUNCTION_LINES
    ]
    assert not long, "\n".join(long)


def test_cli_commands_are_module_level_functions() -> None:
    """register() attaches commands defined in the module; it defines none itself, so
    each command can be read, imported and measured on its own."""
    nested = [
        f"cli/{path.relative_to(PACKAGE / 'cli')}: {node.name} in {top.name}"
        for path in modules("cli")
        for top in ast.parse(path.read_text()).body
        if isinstance(top, ast.FunctionDef) and top.name == "register"
        for node in ast.walk(top)
        if isinstance(node, ast.FunctionDef) and node is not top
    ]
    assert not nested, "\n".join(nested)
