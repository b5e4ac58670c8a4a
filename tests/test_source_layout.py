"""The native sources follow README's rule: C sources live in engine/csrc/, none directly
in engine/, and every one of them is built into an extension by setup.py."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "bpe_gui" / "engine"


def test_no_c_file_directly_in_engine():
    assert sorted(p.name for p in ENGINE.glob("*.c")) == []


def test_every_csrc_c_file_is_built():
    setup = (ROOT / "setup.py").read_text("utf-8")
    named = set(re.findall(r'"(?:bpe_gui/engine/csrc/)?([\w]+\.c)"', setup))
    assert sorted(p.name for p in (ENGINE / "csrc").glob("*.c")) == sorted(named)
