"""The package's import graph has no cycle, imports inside functions included.

A cycle means no module of it can be understood (or changed, or tested) without the
others; an import moved into a function to dodge one hides it from Python but not from
this test, which reads every ``import`` statement wherever it stands.
"""
from __future__ import annotations

import ast
from pathlib import Path

import bpe_gui

ROOT = Path(bpe_gui.__file__).parent


def modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the package (a package is its __init__)."""
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = ["bpe_gui", *p.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def imported_names(name: str, path: Path, tree: ast.AST) -> set[str]:
    """Every dotted name an import statement anywhere in the module refers to."""
    found: set[str] = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{a.name}" for a in node.names)
    return found


def graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (a package's own submodules left out:
    a package importing its children is how packages are built, not a cycle)."""
    mods = modules()
    g: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        for x in imported_names(m, p, ast.parse(p.read_text(encoding="utf-8"))):
            while x and x not in mods:
                x = x.rpartition(".")[0]
            if x and x != m and not x.startswith(m + "."):
                g[m].add(x)
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_planted_cycle():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_function_level_imports_are_seen():
    tree = ast.parse("def f():\n    from .b import x\n")
    assert "bpe_gui.engine.b" in imported_names("bpe_gui.engine.a", Path("a.py"), tree)


def test_no_import_cycles():
    found = cycles(graph())
    assert not found, "modules that import each other, round a cycle (imports inside " \
        "functions and under TYPE_CHECKING included):\n" + "\n".join(", ".join(c) for c in found)
