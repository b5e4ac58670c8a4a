"""Shared test setup.

Qt must run headless: QT_QPA_PLATFORM is set here, before any test module (or
pytest-qt) imports PySide6.
"""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

# The benchmark corpora live beside the project (../shared/corpora), never inside it;
# BPE_GUI_CORPORA_DIR points elsewhere (e.g. from a git worktree in another folder).
CORPORA_DIR = Path(os.environ.get("BPE_GUI_CORPORA_DIR")
                   or Path(__file__).resolve().parents[1].parent / "shared" / "corpora")


@pytest.fixture(scope="session")
def corpora_dir() -> Path:
    """The shared corpora folder; tests that need it skip where it is absent."""
    if not CORPORA_DIR.is_dir():
        pytest.skip(f"shared corpora not found at {CORPORA_DIR} (they live outside the "
                    "repository, in ../shared/corpora); skipping tests on real text")
    return CORPORA_DIR
