"""The engine never imports Qt (DESIGN convention 1)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_engine_loads_no_qt():
    code = ("import bpe_gui.engine, bpe_gui.engine.train.trainer, bpe_gui.engine.tokenizers.trained, sys; "
            "qt = [m for m in sys.modules if m.startswith('PySide6')]; "
            "assert not qt, qt")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
