"""The same tests over the C and over the Python fallbacks (issue 54: one home per rule).

Each of the five C extensions has exactly one pure-Python fallback (extensions.py names
them). ``BPE_GUI_PURE=1`` keeps every extension off, so a child process runs the
conformance suite (every tokenizer kind against its own library) on the fallbacks: the
suite that holds the C to the libraries holds the fallbacks to them too.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = {**os.environ, "BPE_GUI_PURE": "1", "BPE_GUI_ALLOW_PYCORE": "1",
        "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
CONFORMANCE = "tests/engine/tokenizers/test_conformance.py"
# the conformance tests the default run holds the fallbacks to; the slow run adds the rest
FIRST = "encode_equals or decode_round_trip or offsets_cover"


def _pytest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-q", "-p",
                           "no:cacheprovider", *args], env=PURE, cwd=ROOT,
                          capture_output=True, text=True)


def test_pure_keeps_every_extension_off_and_says_so():
    code = ("from bpe_gui.engine.extensions import engine_report, extension_states\n"
            "from bpe_gui.engine.train import trainer\n"
            "from bpe_gui.engine.tokenizers import merge_model\n"
            "from bpe_gui.engine.text import scanner\n"
            "from bpe_gui.engine.tokenizers.imported.word_model import model_class\n"
            "print([s.loaded for s in extension_states()])\n"
            "print(trainer._core.__name__, merge_model._Merger, scanner._scan,\n"
            "      model_class().__module__)\n"
            "print(engine_report())\n")
    out = subprocess.run([sys.executable, "-c", code], env=PURE, cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    loaded, modules, *report = out.stdout.splitlines()
    assert loaded == str([False] * 5)
    assert modules.split() == ["bpe_gui.engine.train._pycore", "None", "None",
                               "bpe_gui.engine.tokenizers.imported._pymodel"]
    assert report[0] == "engine: Python (no C extension loads: slow)"
    assert len(report) == 6 and all("kept off by BPE_GUI_PURE=1" in x for x in report[1:])


def test_conformance_encode_decode_offsets_on_the_fallbacks():
    """Every kind's ids, decode and offsets, as the C is checked (test_conformance.py)."""
    out = _pytest(CONFORMANCE, "-k", FIRST)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and " failed" not in out.stdout


@pytest.mark.slow
def test_whole_conformance_on_the_fallbacks():
    """The rest of the conformance suite (with the test above, all of it; not run twice):
    streams, playback, explain, token classes, lone surrogates, long words, every kind
    (SentencePiece and GGUF read by the Python readers, the C loaders' twins)."""
    out = _pytest(CONFORMANCE, "-k", f"not ({FIRST})")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and " failed" not in out.stdout
