"""``bpe-gui --version`` says which engine runs, C or Python, for each extension, and why
an extension does not run (the failure the install recorded, else the import error).

A missing extension is simulated: in this process by a ``None`` in ``sys.modules`` (how
Python marks a module that cannot be imported), in a subprocess by an import hook that
fails the extension's import as a broken build does.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_gui.cli.entry import main
from bpe_gui.engine import extensions

REPO = Path(__file__).resolve().parents[2]
ALL = [f"bpe_gui.engine.{name}" for name, _, _ in extensions.EXTENSIONS]
ALLOW_PYCORE = os.environ.get("BPE_GUI_ALLOW_PYCORE") == "1"


@pytest.fixture(autouse=True)
def no_build_record(monkeypatch, tmp_path):
    """No record of the install's build unless a test writes one (the checkout's own,
    if any, says how it was built)."""
    monkeypatch.setattr(extensions, "BUILD_RECORD", tmp_path / "none" / "_build.json")


def record(tmp_path, **fields) -> Path:
    """A build record as setup.py writes it (engine/_build.json)."""
    path = tmp_path / "_build.json"
    path.write_text(json.dumps({"built": [], "failed": {}, "no_simd": False,
                                "compiler": "unix", "cflags": ["-O2"], **fields}), "utf-8")
    return path


def version(capsys) -> list[str]:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.skipif(ALLOW_PYCORE, reason="pure-Python fallback allowed")
def test_version_says_the_c_engine_runs(capsys):
    lines = version(capsys)
    assert lines[0].startswith("bpe-gui ")
    assert lines[1:] == ["engine: C (all 5 extensions)"]


def test_version_names_an_extension_that_was_not_built_and_what_runs_instead(
        capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.tokenizers._encode", None)
    lines = version(capsys)
    fallback = [x for x in lines[2:] if "tokenizers._encode" in x]
    assert len(fallback) == 1
    assert "not built" in fallback[0] and "the Python merge loop runs instead" in fallback[0]
    if not ALLOW_PYCORE:
        assert lines[1] == "engine: C for 4 of 5 extensions; Python for 1 (slow)"
        assert len(lines) == 3


def test_version_gives_the_reason_the_install_recorded(capsys, monkeypatch, tmp_path):
    """The record keeps the compiler's last messages; the line shows its first error."""
    why = ("command '/usr/bin/cc' failed with exit code 1\n"
           "In file included from bpe_gui/engine/csrc/merge/small.c:9:\n"
           "bpe_gui/engine/csrc/util/atomics.h:12:10: fatal error: stdatomic.h: No such "
           "file or directory\n   12 | #include <stdatomic.h>\ncompilation terminated.")
    path = record(tmp_path, failed={"bpe_gui.engine.train._core": why})
    monkeypatch.setattr(extensions, "BUILD_RECORD", path)
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.train._core", None)
    lines = version(capsys)
    core = [x for x in lines if "train._core" in x]
    assert core == ["  train._core (training): not built (bpe_gui/engine/csrc/util/atomics.h:"
                    "12:10: fatal error: stdatomic.h: No such file or directory; see "
                    f"{path}); the Python training core (_pycore) runs instead"]


def test_a_recorded_failure_of_an_extension_that_loads_is_not_shown(capsys, monkeypatch,
                                                                     tmp_path):
    """A record from an earlier build does not outweigh what loads now."""
    loaded = [s.name for s in extensions.extension_states({}) if s.loaded]
    if not loaded:
        pytest.skip("no C extension loads here")
    monkeypatch.setattr(extensions, "BUILD_RECORD", record(
        tmp_path, failed={f"bpe_gui.engine.{loaded[0]}": "x.c:1: error: old failure"}))
    assert not [x for x in version(capsys) if f"{loaded[0]} " in x or "old failure" in x]


def test_a_scalar_build_is_said(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(extensions, "BUILD_RECORD", record(tmp_path, no_simd=True))
    assert "built without SIMD (BPE_GUI_NO_SIMD)" in version(capsys)[1]


def test_every_extension_missing_says_python_runs(capsys, monkeypatch):
    for name in ALL:
        monkeypatch.setitem(sys.modules, name, None)
    lines = version(capsys)
    assert lines[1] == "engine: Python (no C extension loads: slow)"
    assert [x.split(" (")[0].strip() for x in lines[2:]] == [n for n, _, _ in
                                                              extensions.EXTENSIONS]


BREAK_IMPORT = """
import sys
class Broken:
    def find_spec(self, name, path=None, target=None):
        if name == {name!r}:
            raise ImportError({error!r})
        return None
sys.meta_path.insert(0, Broken())
from bpe_gui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_version_prints_the_import_error_of_a_broken_extension():
    """An extension that is there but does not load (a missing library, a wrong build)
    shows its import error, in a real process where the engine runs without it."""
    code = BREAK_IMPORT.format(name="bpe_gui.engine.corpus._count",
                               error="_count.so: undefined symbol: wt_count_chars")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-c", code, "--version"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert ("  corpus._count (counting corpora): does not load: _count.so: undefined symbol: "
            "wt_count_chars; regex and Python counting runs instead") in lines
    if not ALLOW_PYCORE:
        assert lines[1] == "engine: C for 4 of 5 extensions; Python for 1 (slow)"


def test_an_extension_that_needs_a_missing_one_says_so():
    """_encode and _count scan through _scan: where _scan is not there they do not load
    either, and say it is for want of _scan (seen with a real failed build)."""
    code = BREAK_IMPORT.format(name="bpe_gui.engine.text._scan", error="")
    code = code.replace("raise ImportError('')", "raise ModuleNotFoundError("
                        "f'No module named {name!r}', name=name)")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-c", code, "--version"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    scan = [x for x in lines if x.startswith("  text._scan ")]
    assert len(scan) == 1 and ": not built" in scan[0]
    for dependent in ("tokenizers._encode", "corpus._count"):
        line = [x for x in lines if x.startswith(f"  {dependent} ")]
        assert len(line) == 1 and "needs text._scan, which does not load" in line[0]


def test_native_scan_turned_off_is_said(capsys, monkeypatch):
    monkeypatch.setenv("BPE_GUI_NATIVE_SCAN", "0")
    assert "  BPE_GUI_NATIVE_SCAN=0: regex finds the words, not the C scanner" in \
        version(capsys)


def test_word_at_a_time_pretokenizer_is_said(capsys, monkeypatch):
    monkeypatch.setenv("BPE_GUI_PRETOK", "word")
    assert ("  BPE_GUI_PRETOK=word: the cl100k family's and o200k's words one at a time, "
            "not by 64-byte windows") in version(capsys)
    monkeypatch.setenv("BPE_GUI_PRETOK", "mask")
    assert "BPE_GUI_PRETOK" not in version(capsys)


def test_version_is_in_the_help_beside_every_command():
    """--help builds every command's parser (one command builds only its own)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-m", "bpe_gui", "--help"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "--version" in r.stdout and "which engine runs" in r.stdout
    for command in ("train", "encode", "count", "inspect", "cost", "check", "models"):
        assert command in r.stdout
