"""A plain ``pip install .`` carries every package: pyproject's [tool.setuptools] lists
packages by name, so a new folder left out of it would be missing from an install (only
editable installs and the source tree would have it)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import bpe_gui

ROOT = Path(bpe_gui.__file__).resolve().parent


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT.parent / "pyproject.toml").read_text("utf-8"))
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT.parent).parts)
             for p in ROOT.rglob("__init__.py") if "__pycache__" not in p.parts}
    assert found - listed == set()
