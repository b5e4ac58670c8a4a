"""The releases read without importing their packages (text/regex_release.py,
display.bpe_gui_version) equal what the packages and importlib.metadata say."""
from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import regex

from bpe_gui.engine.display import _dist_info_version, bpe_gui_version
from bpe_gui.engine.text import regex_release

ROOT = Path(__file__).resolve().parents[3]


def test_the_regex_release_is_read_without_importing_regex():
    code = ("import sys, json\nfrom bpe_gui.engine.text.regex_release import regex_version\n"
            "v = regex_version()\nprint(json.dumps([v, 'regex' in sys.modules]))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [regex.__version__, False]


def test_a_release_that_cannot_be_read_is_none_then_regex_is_asked(monkeypatch):
    import importlib.util
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    regex_release._read_version.cache_clear()
    try:
        assert regex_release._read_version() is None
        assert regex_release._imported_version() == regex.__version__
    finally:
        regex_release._read_version.cache_clear()


def test_the_imported_regex_wins(monkeypatch):
    monkeypatch.setattr(regex, "__version__", "0.0.1")
    assert regex_release.regex_version() == "0.0.1"


def test_the_bpe_gui_release_is_importlib_metadatas():
    try:
        want = version("bpe-gui")
    except PackageNotFoundError:
        want = None
    assert bpe_gui_version() == want
    assert _dist_info_version("regex") == version("regex")
    assert _dist_info_version("no_such_package_here") is None
