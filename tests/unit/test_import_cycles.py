"""No import cycle inside `aletheia.pipeline`: every module can be read (and imported) after the
ones it uses. The PDF sandbox is the case that had one (fulltext -> sandbox -> inputs -> sandbox);
its import-linter contract is in pyproject.toml."""

from __future__ import annotations

import grimp


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_helper_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"b"}, "d": {"a"}}
    assert _cycles(edges) == [["b", "c"]]


def test_no_import_cycle_inside_the_pipeline() -> None:
    graph = grimp.build_graph("aletheia")
    modules = {m for m in graph.modules if m.startswith("aletheia.pipeline.")}
    edges = {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}
    assert _cycles(edges) == []


def test_the_sandbox_depends_on_none_of_its_callers() -> None:
    graph = grimp.build_graph("aletheia")
    for caller in ("aletheia.pipeline.documents.inputs", "aletheia.pipeline.documents.fulltext"):
        assert not graph.chain_exists(importer="aletheia.pipeline.documents.sandbox", imported=caller)


def test_no_import_cycle_inside_the_sources() -> None:
    """The transport and the clients (issue 22: `base`, `breaker`, `ratelimit`, `send_delay` and
    `transport` imported each other through lazy and type-only imports, as did `openalex` and
    `openalex_authors`). grimp counts lazy and type-only imports too."""
    graph = grimp.build_graph("aletheia")
    modules = {m for m in graph.modules if m.startswith("aletheia.sources.")}
    edges = {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}
    assert _cycles(edges) == []
