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
        "gitcoop.__version__",
    },
    # the board is an interface beside the CLI: it reads and writes through the service
    "web": {"gitcoop.domain", "gitcoop.errors", "gitcoop.service", "gitcoop.web"},
}


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "gitcoop":
            # `from gitcoop import store` imports the store: name what is taken
            found.update(f"gitcoop.{alias.name}" for alias in node.names)
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


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def depends_on(path: Path) -> set[str]:
    """The modules of gitcoop that `path` imports, at its top or inside a function: a lazy
    import is still a dependency. `from package import module` names the module (and the
    package only for a name that is not a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            named = {f"{node.module}.{alias.name}" for alias in node.names}
            found.update(named & MODULES.keys())
            if named - MODULES.keys():
                found.add(node.module)
    return found & MODULES.keys()


GRAPH = {module: depends_on(path) for module, path in MODULES.items()}


def circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (its modules in order, the first repeated), or None."""
    done: set[str] = set()

    def visit(module: str, trail: tuple[str, ...]) -> list[str] | None:
        if module in trail:
            return [*trail[trail.index(module) :], module]
        if module in done:
            return None
        for target in sorted(graph.get(module, ())):
            found = visit(target, (*trail, module))
            if found:
                return found
        done.add(module)
        return None

    for module in sorted(graph):
        found = visit(module, ())
        if found:
            return found
    return None


@pytest.mark.parametrize("layer", ["domain", "store", "service", "web", "cli"])
def test_the_modules_of_each_layer_import_each_other_without_a_circle(layer: str) -> None:
    """Every import counts, the lazy ones too: a module that must be loaded late to break a
    circle is restructured instead (the fold above the rules it dispatches to, the claim
    routing beneath the writer and the merge's notices beneath the claims, the signer
    above the context)."""
    inside = f"gitcoop.{layer}"
    graph = {
        module: {t for t in targets if t.startswith(inside)}
        for module, targets in GRAPH.items()
        if module.startswith(inside)
    }
    found = circle(graph)
    assert found is None, f"import circle: {' -> '.join(found or ())}"


def test_the_circle_check_sees_a_lazy_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circle(graph) == ["a", "b", "c", "a"]
    assert circle({"a": {"b"}, "b": set(), "d": {"a", "b"}}) is None
    writer = depends_on(PACKAGE / "service" / "writer.py")
    assert "gitcoop.service.claim_routing" in writer  # imported inside a function only
    assert "gitcoop.service.claims" not in writer


# The store's rooms (docs/architecture.md, "Rooms and their imports"): each room, or one
# module of it, and what of the store it may import besides its own room. A target is a
# room or one module of it; the most specific rule for a module is the one that holds.
ROOMS: dict[str, set[str]] = {
    # git itself: no ledger knowledge (and of the domain only helpers: the git room's test)
    "git": set(),
    # the facade the layers above import: git's names and the ledger's repository
    "repository": {"git", "ledger.repo"},
    # a fast path reads what its slower path reads (the layout, a snapshot), and takes
    # that path by reference (COOP_REFERENCE=1: the codec)
    "fast": {"git", "ledger.layout", "ledger.snapshot", "ledger.codec"},
    # the ledger on its ref, over git and the fast paths
    "ledger": {"git", "fast"},
    # the one ledger module that takes in fetched data: the boundary judges it first
    "ledger.merge": {"git", "fast", "boundary"},
    # the boundary judges with the ledger's own reading, and never writes the ledger
    "boundary": {"git", "fast", "ledger.repo", "ledger.layout", "ledger.codec", "ledger.snapshot"},
}


def room(module: str) -> str | None:
    """`ledger.merge` for gitcoop.store.ledger.merge, `repository` for store/repository.py;
    None for a module outside the store or the store's own package."""
    parts = module.split(".")
    if parts[:2] != ["gitcoop", "store"] or len(parts) == 2:
        return None
    return ".".join(parts[2:])


def may_import(importer: str, target: str) -> bool:
    rule = next(ROOMS[k] for k in (importer, importer.split(".")[0]) if k in ROOMS)
    own = importer.split(".")[0] == target.split(".")[0]
    return own or any(target == r or target.startswith(f"{r}.") for r in rule)


def test_every_room_of_the_store_has_a_rule() -> None:
    rooms = {(room(m) or "").split(".")[0] for m in MODULES} - {""}
    assert rooms == {key.split(".")[0] for key in ROOMS}


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if room(m)), ids=lambda m: str(room(m))
)
def test_the_rooms_of_the_store_import_as_their_rules_say(module: str) -> None:
    inside = room(module)
    assert inside is not None
    rooms = {room(t) for t in GRAPH[module]} - {None}
    bad = {r for r in rooms if r and not may_import(inside, r)}
    where = "store/" + inside.replace(".", "/")
    assert not bad, f"{where} imports {sorted(bad)}: see ROOMS"


def test_the_room_rules_refuse_what_they_do_not_name() -> None:
    assert may_import("ledger.merge", "boundary.fetched")
    assert not may_import("ledger.transaction", "boundary.fetched")
    assert not may_import("git.ancestry", "ledger.layout")
    assert not may_import("boundary.tree", "ledger.transaction")
    assert may_import("boundary.tree", "ledger.snapshot")
    assert may_import("fast.activity", "fast.read_cache")


def test_only_the_writer_writes_ledger_transitions() -> None:
    """One write path: no module but service/writer.py builds a Change, and only it and its
    claim routing (service/claim_routing.py: here, or through the remote) run a
    transaction."""
    writers = {
        str(path.relative_to(PACKAGE))
        for module, path in MODULES.items()
        if "gitcoop.store.ledger.transaction" in GRAPH[module]
    }
    assert writers == {"service/writer.py", "service/claim_routing.py"}
    routing = ast.parse((PACKAGE / "service" / "claim_routing.py").read_text())
    called = {
        node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        for node in ast.walk(routing)
        if isinstance(node, ast.Call)
    }
    assert "Change" not in called  # it commits what the writer decided, nothing of its own


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
