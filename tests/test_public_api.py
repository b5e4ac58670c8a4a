"""The public API as a script sees it (issue 69): tests/fixtures/public_api_example.py uses
only names of ``bpe_gui.engine.__all__``; it runs, and ``mypy --strict`` finds no error in
it (the names are typed well enough for a strict caller)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "fixtures" / "public_api_example.py"


def test_the_example_uses_only_public_names():
    import ast
    import bpe_gui.engine as engine
    tree = ast.parse(EXAMPLE.read_text(encoding="utf-8"))
    used = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            and (n.module or "").startswith("bpe_gui") for a in n.names}
    assert used and used <= set(engine.__all__)
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert {m for m in mods if (m or "").startswith("bpe_gui")} == {"bpe_gui.engine"}


def test_the_example_runs(tmp_path):
    proc = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "refused <|endoftext|>" and lines[1].startswith("unknown ")
    assert lines[2] == "True"   # a tokenizer.json reads its special token, as tokenizers does
    assert lines[-2:] == ["True", "True"]   # token_to_id(id_to_token(i)) is i; added after


@pytest.mark.slow
def test_mypy_strict_passes_on_the_example():
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is not installed: install the test extra, pip install -e \".[test]\"")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--no-warn-unused-configs", str(EXAMPLE)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
