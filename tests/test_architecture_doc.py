"""docs/ARCHITECTURE.md shows the layer contracts of pyproject.toml exactly, so the page
cannot go stale: each block marked ``<!-- layers: NAME -->`` lists, line by line, the
layers of the contract whose name starts with NAME."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:   # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]


def contracts() -> list[dict]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    return data["tool"]["importlinter"]["contracts"]


def doc_blocks() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text("utf-8")
    return {m.group(1): [ln.strip() for ln in m.group(2).strip().splitlines()]
            for m in re.finditer(r"<!-- layers: (.+?) -->\n```\n(.*?)```", text, re.S)}


def test_every_layers_contract_is_on_the_page():
    layered = [c["name"] for c in contracts() if c["type"] == "layers"
               and len(c["layers"]) > 2]
    shown = doc_blocks()
    missing = [n for n in layered if not any(n.startswith(k) for k in shown)]
    assert missing == []


@pytest.mark.parametrize("key", sorted(doc_blocks()))
def test_the_page_shows_the_contract_as_it_is(key):
    contract = next(c for c in contracts() if c["name"].startswith(key))
    assert doc_blocks()[key] == [" ".join(layer.split()) for layer in contract["layers"]]
