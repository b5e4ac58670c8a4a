"""A plain ``pip install .`` carries every package: pyproject's [tool.setuptools] lists
packages by name, so a new folder left out of it would be missing from an install (only
editable installs and the source tree would have it). An extension that fails to build
says so at install."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
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


def build_requirement() -> tuple[int, ...]:
    """The oldest setuptools that pyproject.toml's [build-system] asks for."""
    requires = tomllib.loads((ROOT.parent / "pyproject.toml").read_text("utf-8"))[
        "build-system"]["requires"]
    spec = next(r for r in requires if r.startswith("setuptools>="))
    return version_tuple(spec.removeprefix("setuptools>="))


def version_tuple(text: str) -> tuple[int, ...]:
    """Example: '84.2.1' -> (84, 2, 1); '80.0.0rc1' -> (80, 0, 0)."""
    return tuple(int(re.match(r"\d*", part).group() or 0) for part in text.split("."))


def not_built_messages(stderr: str) -> dict[str, str]:
    """The extensions setup.py said it did not build, and what it said of each: its own
    framed messages, read apart from whatever else the build tools print."""
    found = re.findall(r"^\*{78}\nbpe-gui: the C extension (\S+) was NOT built:\n(.*?)^\*{78}$",
                       stderr, flags=re.M | re.S)
    return dict(found)


@pytest.mark.slow
def test_a_failed_extension_build_is_said_and_recorded(tmp_path):
    """An extension the compiler cannot build does not pass in silence: the build goes on
    (the Python fallback takes its place) but names it on stderr with the compiler's
    message, and the build record beside the extensions keeps what failed and why."""
    if not (ROOT.parent / "setup.py").is_file():
        pytest.skip("needs the source tree (setup.py)")
    have = version("setuptools")
    if version_tuple(have) < build_requirement():
        pytest.fail(f"setuptools {have} is installed; setup.py needs the one pyproject.toml's "
                    f"[build-system] names (setuptools>={'.'.join(map(str, build_requirement()))}"
                    "): pip install --upgrade setuptools (the test extra installs it)")
    env = dict(os.environ, CFLAGS="-include bpe_gui_no_such_header.h")
    out = tmp_path / "build"
    run = subprocess.run([sys.executable, "setup.py", "build_ext", "-b", str(out),
                          "-t", str(tmp_path / "tmp")], cwd=ROOT.parent, env=env,
                         capture_output=True, text=True)
    # (the install still succeeds; what a failed build says is at the end, after any
    # warnings the build tools print)
    assert run.returncode == 0, "setup.py build_ext failed:\n" + \
        "\n".join(run.stderr.splitlines()[-30:])
    names = ["train._core", "tokenizers._encode", "corpus._count", "text._scan",
             "tokenizers.imported._pipeline"]
    said = not_built_messages(run.stderr)
    assert sorted(said) == sorted(f"bpe_gui.engine.{n}" for n in names)
    for why in said.values():
        assert "bpe_gui_no_such_header.h" in why   # the compiler's own message
        assert "pure-Python fallback" in why
    record = json.loads((out / "bpe_gui" / "engine" / "_build.json").read_text("utf-8"))
    assert record["built"] == []
    assert sorted(record["failed"]) == sorted(said)
    assert all("bpe_gui_no_such_header.h" in why for why in record["failed"].values())
    assert not list(out.rglob("*.so")) and not list(out.rglob("*.pyd"))


@pytest.mark.regression
def test_the_build_messages_are_read_apart_from_the_tools_warnings():
    """A build tool's warning before setup.py's messages was shown as the build's result."""
    bar = "*" * 78
    stderr = (
        "/venv/setuptools/config/pyprojecttoml.py:108: _BetaConfiguration: Support for "
        "`[tool.setuptools]` in `pyproject.toml` is still *beta*.\n  warnings.warn(msg)\n"
        f"\n{bar}\nbpe-gui: the C extension bpe_gui.engine.text._scan was NOT built:\n"
        "gcc: fatal error: x.h: No such file\n\nThe install goes on.\n"
        f"{bar}\n\nwarning: BuildExt: building extension failed\n"
        f"{bar}\n  a build tool's own framed notice\n{bar}\n")
    assert not_built_messages(stderr) == {
        "bpe_gui.engine.text._scan": "gcc: fatal error: x.h: No such file\n\nThe install goes on.\n"}
    assert not_built_messages("warning: something\n") == {}
    assert version_tuple("84.2.1") > version_tuple("77") > version_tuple("65.5.0")
    assert version_tuple("80.0.0rc1") == (80, 0, 0)
