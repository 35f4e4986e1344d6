"""The concept map: chapters as nodes, prerequisites as edges (a DAG)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def find_cycle(edges: Mapping[str, Iterable[str]]) -> list[str] | None:
    """Returns one cycle as a list of nodes (first node repeated at the end), or None for a DAG."""
    white, grey, black = 0, 1, 2
    color = dict.fromkeys(edges, white)
    parent: dict[str, str] = {}
    for start in edges:
        if color.get(start, white) != white:
            continue
        stack = [(start, iter(edges.get(start, ())))]
        color[start] = grey
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                color[node] = black
                stack.pop()
                continue
            state = color.get(child, white)
            if state == grey:
                cycle = [child]
                current = node
                while current != child:
                    cycle.append(current)
                    current = parent[current]
                cycle.append(child)
                return list(reversed(cycle))
            if state == white:
                parent[child] = node
                color[child] = grey
                stack.append((child, iter(edges.get(child, ()))))
    return None


def reading_path(edges: Mapping[str, Iterable[str]], target: str, order: Mapping[str, int], known: set[str] = frozenset()) -> list[str]:
    """Every prerequisite of ``target`` not yet known, then the target, in a valid reading order.

    Among chapters whose prerequisites are met, the one earliest in the curriculum comes first (Kahn's
    algorithm with the curriculum order as tie-break), so the path reads like the book. Known chapters are
    skipped but still satisfy what depends on them.
    """
    needed: set[str] = set()
    stack = [target]
    while stack:
        node = stack.pop()
        if node in needed or (node in known and node != target):
            continue
        needed.add(node)
        stack.extend(edges.get(node, ()))
    remaining = {node: {p for p in edges.get(node, ()) if p in needed} for node in needed}
    path: list[str] = []
    while remaining:
        ready = sorted((node for node, deps in remaining.items() if not deps), key=lambda n: (order.get(n, 0), n))
        if not ready:
            raise ValueError("prerequisites form a cycle")
        node = ready[0]
        path.append(node)
        del remaining[node]
        for deps in remaining.values():
            deps.discard(node)
    return path
