"""The package's shape, read from its own source (docs/design.md, "Wings").

import-linter (`make check`, `pyproject.toml`) holds the layers: a wing imports only wings below
it. These tests hold what a layers contract cannot see: no circle of imports at run time, at
module level or inside a function; an import written only for type annotations (`if
TYPE_CHECKING:`) stays inside its own wing; no module takes another's `_private` names; no two
modules share a name; nothing below `deploy/` knows `Deployment`; every wing says in one line
what it holds; no module over 400 lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "llm_roofline"
# the wings below deploy/, which take resolved objects and never a Deployment
BELOW_DEPLOY = ("_core", "model", "hardware", "engine", "calibration", "serving")


@dataclass(frozen=True)
class Edge:
    source: str  # importing module, dotted under llm_roofline ("" for the package itself)
    target: str  # imported module
    names: tuple[str, ...]  # the names taken from it (empty for `import x`)
    type_only: bool  # inside `if TYPE_CHECKING:`
    line: int


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PKG.rglob("*.py"):
        parts = list(path.relative_to(PKG).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the import nodes inside an `if TYPE_CHECKING:` block."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inside.update(id(n) for block in node.body for n in ast.walk(block))
    return inside


def _absolute(source: str, is_pkg: bool, node: ast.ImportFrom) -> str | None:
    if node.level:
        base = source.split(".") if source else []
        if not is_pkg:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        return ".".join([*base, *([node.module] if node.module else [])])
    module = node.module or ""
    if module == "llm_roofline":
        return ""
    if module.startswith("llm_roofline."):
        return module.removeprefix("llm_roofline.")
    return None


def _edges() -> Iterator[Edge]:
    for source, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typed = _type_checking_nodes(tree)
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            only = id(node) in typed
            if isinstance(node, ast.ImportFrom):
                target = _absolute(source, is_pkg, node)
                if target is None:
                    continue
                for alias in node.names:  # `from pkg import module` imports that module
                    sub = f"{target}.{alias.name}" if target else alias.name
                    if sub in MODULES:
                        yield Edge(source, sub, (), only, node.lineno)
                    elif target in MODULES:
                        yield Edge(source, target, (alias.name,), only, node.lineno)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.name.removeprefix("llm_roofline.")
                    if alias.name.startswith("llm_roofline.") and name in MODULES:
                        yield Edge(source, name, (), only, node.lineno)


EDGES = [e for e in _edges() if e.source != e.target]


def _wing(module: str) -> str:
    return module.split(".")[0]


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_reader_finds_the_imports_it_checks() -> None:
    """The checks below are only as good as the graph: it holds known edges of each kind."""
    pairs = {(e.source, e.target, e.type_only) for e in EDGES}
    assert ("deploy.deployment", "engine.roofline", False) in pairs  # module level
    assert ("model.weights_read", "model.spec", True) in pairs  # for annotations only
    assert ("cli.cmd_report", "deploy.report_table", False) in pairs  # inside a function
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_circle_of_imports_at_run_time() -> None:
    """Module-level and function-level imports together form no circle: every module can be
    read after the modules it imports, and a function-level import is there for start-up
    time, never to hide a circle."""
    graph: dict[str, set[str]] = {}
    for e in EDGES:
        if not e.type_only:
            graph.setdefault(e.source, set()).add(e.target)
    assert _find_cycle(graph) is None, " -> ".join(_find_cycle(graph) or [])


def test_imports_for_annotations_close_no_circle_across_wings() -> None:
    """`if TYPE_CHECKING:` may name a type of a module above in the same wing (a ModelSpec in
    model/weights_read.py); counted with them, the wings still import one way."""
    wings: dict[str, set[str]] = {}
    for e in EDGES:
        if _wing(e.source) != _wing(e.target) and e.source:
            wings.setdefault(_wing(e.source), set()).add(_wing(e.target))
    assert _find_cycle(wings) is None, " -> ".join(_find_cycle(wings) or [])


def test_no_module_takes_another_modules_private_names() -> None:
    wrong = [
        f"{e.source}:{e.line} takes {e.target}.{n}"
        for e in EDGES
        for n in e.names
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not wrong, wrong


def test_every_module_name_says_one_thing() -> None:
    """No two modules share a file name across the package (three `report`s, three `optimize`s
    and `schedule`/`scheduler` were confusing)."""
    seen: dict[str, list[str]] = {}
    for module, path in MODULES.items():
        if path.stem not in ("__init__", "__main__"):
            seen.setdefault(path.stem, []).append(module)
    assert {k: v for k, v in seen.items() if len(v) > 1} == {}


@pytest.mark.parametrize("wing", BELOW_DEPLOY)
def test_nothing_below_deploy_knows_a_deployment(wing: str) -> None:
    """The engine, memory and serving layers take resolved objects (a ModelSpec, a System, a
    Parallelism), never a Deployment."""
    named = []
    for module, path in MODULES.items():
        if _wing(module) != wing:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.attr
                if isinstance(node, ast.Attribute)
                else None
            )
            if name == "Deployment":
                named.append(f"{module}:{node.lineno}")
    assert not named, named


def test_every_wing_says_what_it_holds() -> None:
    """Each subpackage's `__init__.py` opens with a one-line summary (docs/design.md draws the
    picture of the wings from them)."""
    for module, path in MODULES.items():
        if path.name != "__init__.py" or not module:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert doc and doc.splitlines()[0].endswith("."), module


def test_no_module_over_400_lines() -> None:
    long = {
        m: n
        for m, p in MODULES.items()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}


def _long_functions() -> Iterator[str]:
    """Functions over 60 lines or 8 parameters (self and cls not counted) with no comment
    `# size: why` among the comment lines right above their `def` (or their decorators)."""
    for module, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
            n = len([p for p in params if p.arg not in ("self", "cls")])
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            comment = []  # the comment lines right above
            k = first - 2
            while k >= 0 and lines[k].strip().startswith("#"):
                comment.append(lines[k].strip())
                k -= 1
            if (length > 60 or n > 8) and not any(c.startswith("# size:") for c in comment):
                yield f"{module}.{node.name}: {length} lines, {n} parameters"


def test_no_long_function_without_a_reason() -> None:
    """No function over 60 lines or 8 parameters unless a `# size:` comment says why."""
    assert list(_long_functions()) == []


def _imported_by_tests() -> set[str]:
    """The modules of the package some test file imports by name (directly, not through a
    re-export), dotted under llm_roofline."""
    seen: set[str] = set()
    for path in Path(__file__).resolve().parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("llm_roofline"):
                base = (node.module or "").removeprefix("llm_roofline").lstrip(".")
                seen.add(base)
                seen.update(f"{base}.{a.name}" if base else a.name for a in node.names)
            elif isinstance(node, ast.Import):
                seen.update(a.name.removeprefix("llm_roofline.") for a in node.names)
    return seen


def test_every_module_has_tests_that_import_it() -> None:
    """Each module is imported by name by some test (the wings' tests live in tests/<wing>/)."""
    seen = _imported_by_tests()
    untested = [
        m for m, p in MODULES.items() if p.stem not in ("__init__", "__main__") and m not in seen
    ]
    assert untested == []
