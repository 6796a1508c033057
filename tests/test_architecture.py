"""The shape of authui's imports (DESIGN.md §2): dependencies point down the picture.

- No import cycle between authui's subpackages and top-level modules (``authui.mail``,
  ``authui.actions``, ``authui.config`` …), counted at that level: a module of
  ``authui.mail`` importing one of ``authui.actions`` while an action imports the mail
  package is a cycle, whichever modules of them it is.
- The packages and modules below the actions never import a flow, the core, or an
  integration.
- The core reaches the actions only through their dispatch table.

The source is read with ``ast``, nothing is imported. Every import counts: those under
``if TYPE_CHECKING:`` too (an annotation that names a module above is a dependency on it
all the same, and the cycle it hides comes back as soon as the name is used at run time),
and those inside functions (they run on the first call).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "authui"

FLOWS_AND_ABOVE = (
    "authui.actions",
    "authui.core",
    "authui.integrations",
    "authui.quart",
    "authui.starlette",
    "authui.fastapi",
)
"""The actions (the flows) and what stands above them."""

LEAF_PACKAGES = ("providers", "mail", "sessions", "adapters", "pages", "oauth")
LEAF_MODULES = ("jwt", "cookies", "csrf", "errors", "config", "http", "urls")


@dataclass(frozen=True)
class Import:
    """One import statement's dependency of ``module`` on ``target`` (both dotted names)."""

    module: str
    target: str
    line: int
    names: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return f"{_path_of(self.module)}:{self.line}"


def _module_paths() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _module_paths()


def _path_of(module: str) -> str:
    return str(MODULES[module].relative_to(PACKAGE.parent))


def _imports(module: str, path: Path) -> Iterator[Import]:
    """What ``module`` imports, wherever in the file (functions and ``TYPE_CHECKING``
    blocks included); ``from package import name`` is an import of the submodule
    ``package.name`` when there is one, else of ``package``."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                here = here[: len(here) - node.level + 1]
                base = ".".join([*here, *([node.module] if node.module else [])])
            names = tuple(alias.name for alias in node.names)
            others = tuple(name for name in names if f"{base}.{name}" not in MODULES)
            if others:
                yield Import(module, base, node.lineno, others)
            for name in names:
                if name not in others:
                    yield Import(module, f"{base}.{name}", node.lineno)


IMPORTS = [
    found
    for module, path in MODULES.items()
    for found in _imports(module, path)
    if found.target == "authui" or found.target.startswith("authui.")
]


def _unit(module: str) -> str:
    """The subpackage or top-level module ``module`` belongs to (``authui`` itself for the
    package's ``__init__``)."""
    return ".".join(module.split(".")[:2])


def _package_graph() -> dict[str, dict[str, list[Import]]]:
    graph: dict[str, dict[str, list[Import]]] = {}
    for found in IMPORTS:
        source, target = _unit(found.module), _unit(found.target)
        if source != target:
            graph.setdefault(source, {}).setdefault(target, []).append(found)
    return graph


def _groups(graph: Mapping[str, Mapping[str, list[Import]]]) -> list[set[str]]:
    """The strongly connected groups of more than one unit: each holds a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set(stack[stack.index(node) :])
            del stack[stack.index(node) :]
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _shortest_cycle(graph: Mapping[str, Mapping[str, list[Import]]], group: set[str]) -> list[str]:
    best: list[str] = []
    for start in sorted(group):
        paths = {start: [start]}
        queue = [start]
        while queue:
            node = queue.pop(0)
            for nxt in sorted(graph.get(node, {})):
                if nxt == start and (not best or len(paths[node]) < len(best)):
                    best = paths[node]
                elif nxt in group and nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    queue.append(nxt)
    return best


def _describe(group: set[str], graph: Mapping[str, Mapping[str, list[Import]]]) -> str:
    """A cycle of ``group``, then every import between its members (one line per pair)."""
    cycle = _shortest_cycle(graph, group)
    lines = [" -> ".join([*cycle, cycle[0]]), "  imports within this group:"]
    for source in sorted(group):
        for target in sorted(set(graph.get(source, {})) & group):
            first = graph[source][target][0]
            lines.append(f"    {source} -> {target}  ({first.where}: {first.target})")
    return "\n".join(lines)


def test_the_source_is_read() -> None:
    graph = _package_graph()
    assert "authui.actions" in graph["authui.core"]
    assert "authui.errors" in graph["authui.actions"]


def test_no_import_cycle_between_packages() -> None:
    graph = _package_graph()
    groups = _groups(graph)
    report = "\n\n".join(_describe(group, graph) for group in groups)
    assert not groups, f"import cycles between authui's packages and modules:\n{report}"


def _is_leaf(module: str) -> bool:
    parts = module.split(".")
    return len(parts) >= 2 and (
        parts[1] in LEAF_PACKAGES or (len(parts) == 2 and parts[1] in LEAF_MODULES)
    )


def _is_flow_or_above(target: str) -> bool:
    return target == "authui" or any(
        target == name or target.startswith(f"{name}.") for name in FLOWS_AND_ABOVE
    )


def test_the_leaves_import_no_flow() -> None:
    leaves = [m for m in MODULES if _is_leaf(m)]
    assert {_unit(m) for m in leaves} >= {f"authui.{name}" for name in LEAF_PACKAGES}
    upward = [
        f"{found.where}: {found.target}"
        for found in IMPORTS
        if _is_leaf(found.module) and _is_flow_or_above(found.target)
    ]
    assert not upward, "modules below the actions import upward:\n" + "\n".join(upward)


def test_the_core_reaches_the_actions_through_dispatch_only() -> None:
    reaching = [
        found
        for found in IMPORTS
        if found.module == "authui.core"
        and (found.target == "authui.actions" or found.target.startswith("authui.actions."))
    ]
    assert reaching, "authui.core no longer imports authui.actions' dispatch"
    other = [
        f"{found.where}: {found.target} {list(found.names)}"
        for found in reaching
        if not (found.target == "authui.actions" and found.names == ("dispatch",))
    ]
    assert not other, "authui.core imports action modules:\n" + "\n".join(other)
