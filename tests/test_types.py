"""mypy finds no type error in the engine, every module of it ([tool.mypy] in
pyproject.toml says how strict)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_no_error_in_the_engine():
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is not installed: install the test extra, pip install -e \".[test]\"")
    proc = subprocess.run([sys.executable, "-m", "mypy", "bpe_gui/engine"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
