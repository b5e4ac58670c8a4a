"""The layering and lint rules configured in pyproject.toml hold (CI runs this file with
the rest of the suite): import-linter's contracts (the engine never imports Qt, the
window or the command line; panels do not import engine internals; models import none
of our widgets), ruff's small rule set, and the one layering rule neither tool can say:
models import no Qt widgets."""
from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"{module} is not installed: install the test extra, "
                    "pip install -e \".[test]\"")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_import_contracts_are_kept():
    _need("importlinter")
    proc = _run("-c", "import sys; from importlinter.cli import lint_imports; "
                      "sys.exit(lint_imports(no_cache=True, no_logo=True))")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_ruff_finds_nothing():
    _need("ruff")
    proc = _run("-m", "ruff", "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def test_models_import_no_qt_widgets():
    """Item models sit between engine snapshots and views; a widget in a model ties it
    to one view (import-linter can only forbid a whole external package)."""
    offenders = {p.name: sorted(m for m in _imported_modules(p)
                                if m == "PySide6.QtWidgets" or m.startswith("PySide6.QtWidgets."))
                 for p in (ROOT / "bpe_gui" / "gui" / "models").glob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}
