"""The .pyi stubs of the C extensions name exactly what the modules have: every public
function, class, constant, method and property, and nothing that is not there."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "bpe_gui" / "engine"
MODULES = ["train._core", "tokenizers._encode", "corpus._count", "text._scan",
           "tokenizers.imported._pipeline"]
STUB_ONLY = {"Pair", "Problem", "Table"}   # type aliases the stubs define for readability


def _stub_names(body) -> dict[str, object]:
    names: dict[str, object] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = None
        elif isinstance(node, ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = None
        elif isinstance(node, ast.Assign):
            names.update((t.id, None) for t in node.targets if isinstance(t, ast.Name))
    return names


def _runtime_names(obj) -> set[str]:
    return {n for n in vars(obj) if not n.startswith("__")}


@pytest.mark.parametrize("name", MODULES)
def test_stub_matches_the_module(name):
    mod = pytest.importorskip(f"bpe_gui.engine.{name}")
    stub = _stub_names(ast.parse((ENGINE / (name.replace(".", "/") + ".pyi")).read_text()).body)
    assert set(stub) - STUB_ONLY == _runtime_names(mod)
    for cls_name, node in stub.items():
        if node is None:
            continue
        cls = getattr(mod, cls_name)
        declared = {n for n in _stub_names(node.body) if not n.startswith("__")}
        assert declared == _runtime_names(cls), cls_name


def test_the_package_says_it_is_typed():
    assert (ENGINE.parent / "py.typed").is_file()
    importlib.import_module("bpe_gui")
