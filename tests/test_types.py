"""mypy finds no type error in what [tool.mypy] in pyproject.toml lists (the engine, the
command line, the window, the trainer-protocol test) and says how strict. About 40 s with no cache (the
PySide6 stubs are big), a few seconds after."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_no_error_in_the_engine_the_cli_and_the_window():
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is not installed: install the test extra, pip install -e \".[test]\"")
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT,   # pyproject's files
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout
