"""Benchmarks run with pytest on purpose: `python -m pytest bench/ -s`. Same setup as tests/."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_spec = importlib.util.spec_from_file_location(
    "bpe_gui_tests_conftest", Path(__file__).resolve().parents[1] / "tests" / "conftest.py")
_tests_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tests_conftest)
corpora_dir = _tests_conftest.corpora_dir  # the shared-corpora fixture
