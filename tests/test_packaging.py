"""A plain ``pip install .`` carries every package: pyproject's [tool.setuptools] lists
packages by name, so a new folder left out of it would be missing from an install (only
editable installs and the source tree would have it). An extension that fails to build
says so at install."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import bpe_gui

ROOT = Path(bpe_gui.__file__).resolve().parent


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT.parent / "pyproject.toml").read_text("utf-8"))
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT.parent).parts)
             for p in ROOT.rglob("__init__.py") if "__pycache__" not in p.parts}
    assert found - listed == set()


@pytest.mark.slow
def test_a_failed_extension_build_is_said_and_recorded(tmp_path):
    """An extension the compiler cannot build does not pass in silence: the build goes on
    (the Python fallback takes its place) but names it on stderr with the compiler's
    message, and the build record beside the extensions keeps what failed and why."""
    if not (ROOT.parent / "setup.py").is_file():
        pytest.skip("needs the source tree (setup.py)")
    env = dict(os.environ, CFLAGS="-include bpe_gui_no_such_header.h")
    out = tmp_path / "build"
    run = subprocess.run([sys.executable, "setup.py", "build_ext", "-b", str(out),
                          "-t", str(tmp_path / "tmp")], cwd=ROOT.parent, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr   # (the install still succeeds)
    names = ["train._core", "tokenizers._encode", "corpus._count", "text._scan",
             "tokenizers.imported._pipeline"]
    for name in names:
        assert f"the C extension bpe_gui.engine.{name} was NOT built" in run.stderr
    assert "pure-Python fallback" in run.stderr
    assert "bpe_gui_no_such_header.h" in run.stderr   # the compiler's own message
    record = json.loads((out / "bpe_gui" / "engine" / "_build.json").read_text("utf-8"))
    assert record["built"] == []
    assert sorted(record["failed"]) == sorted(f"bpe_gui.engine.{n}" for n in names)
    assert all("bpe_gui_no_such_header.h" in why for why in record["failed"].values())
    assert not list(out.rglob("*.so")) and not list(out.rglob("*.pyd"))
