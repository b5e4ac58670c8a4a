"""Shared test setup.

Qt must run headless: QT_QPA_PLATFORM is set here, before any test module (or
pytest-qt) imports PySide6.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# the one place the Qt platform is chosen (nothing above imports Qt)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Real text for the tests: small public-domain excerpts kept in tests/fixtures/corpora
# (same file names as the full corpora, see tests/fixtures/README.md), so every test
# runs in a plain clone. BPE_GUI_CORPORA_DIR points at another folder with those names,
# e.g. the full corpora in ../shared/corpora, to run the same tests on more text.
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures" / "corpora"
CORPORA_DIR = Path(os.environ.get("BPE_GUI_CORPORA_DIR") or FIXTURES_DIR)


# The longest tests (the window's state machines, minutes a case) are handed to the
# workers first: last in collection order, one worker ran them for minutes after the
# other had run out of tests. So are the files of long tests that come last in collection
# order (mypy, the C read as MSVC: 5-13 s each), which one worker ran on alone at the end.
FIRST = ("tests/gui/test_window_machine.py", "tests/gui/test_layout_machine.py",
         "tests/test_types.py", "tests/test_portability.py", "tests/test_public_api.py")


def pytest_collection_modifyitems(config, items) -> None:
    items.sort(key=lambda item: not item.nodeid.startswith(FIRST))   # (a stable sort)


@pytest.fixture(scope="session")
def corpora_dir() -> Path:
    """The folder of real texts (the fixtures unless BPE_GUI_CORPORA_DIR says otherwise)."""
    if not CORPORA_DIR.is_dir():
        pytest.fail(f"BPE_GUI_CORPORA_DIR={CORPORA_DIR} is not a folder; unset it to use "
                    f"the excerpts in {FIXTURES_DIR}")
    return CORPORA_DIR
