"""Built-in resources: sample corpora (with suggested training settings), icon, style sheet.

Installed as the package ``bpe_gui.resources`` (pyproject maps it to the top-level
``resources/`` folder), so a plain ``pip install .`` carries the files; everything is
read through :mod:`importlib.resources`, never through a path relative to the
working directory. Imports no Qt, so scripts may use the samples too::

    >>> from bpe_gui import resources
    >>> [s.id for s in resources.samples()][:2]
    ['tutorial', 'tutorial-bytes']
    >>> resources.sample_text("tutorial")
    'low low lower newest newest widest widest widest\\n'
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources as _res

INDEX = "samples/index.json"
ICON = "icon.svg"
STYLE_SHEET_DARK = "style-dark.qss"


@dataclass(frozen=True)
class Sample:
    """One built-in corpus: ``settings`` holds suggested TrainSettings fields."""

    id: str
    title: str
    file: str
    description: str = ""
    settings: dict = field(default_factory=dict)
    encode_text: str = ""   # a text to try in the encode view with this sample


def _root():
    return _res.files(__name__)


def read_bytes(name: str) -> bytes:
    """A resource file's bytes, by its path inside the package ("samples/zh-en.txt")."""
    node = _root()
    for part in name.split("/"):
        node = node / part
    return node.read_bytes()


def read_text(name: str) -> str:
    return read_bytes(name).decode("utf-8")


@lru_cache(maxsize=1)
def _index() -> dict:
    return json.loads(read_text(INDEX))


def samples() -> list[Sample]:
    """Every built-in sample, in menu order."""
    return [Sample(d["id"], d["title"], d["file"], d.get("description", ""),
                   dict(d.get("settings") or {}), d.get("encode_text", ""))
            for d in _index()["samples"]]


def sample(sample_id: str) -> Sample:
    for s in samples():
        if s.id == sample_id:
            return s
    raise KeyError(f"no built-in sample {sample_id!r}; known: "
                   f"{', '.join(s.id for s in samples())}")


def default_sample_id() -> str:
    """The sample the window opens with."""
    return _index().get("default") or samples()[0].id


def sample_text(sample_or_id: "Sample | str") -> str:
    s = sample(sample_or_id) if isinstance(sample_or_id, str) else sample_or_id
    return read_text(f"samples/{s.file}")


def icon_svg() -> bytes:
    return read_bytes(ICON)


def style_sheet(dark: bool = False) -> str:
    """The style sheet: only the dark palette has one ("" in light mode).

    Any application style sheet makes Qt paint every widget through its slower style
    sheet engine (about 1 ms more per training step in the window), so light mode,
    which needs no tweaks, has none.

    ``@ICONS@`` in a sheet becomes the icons folder (Qt style sheets need file paths).
    """
    names = [STYLE_SHEET_DARK] if dark else []
    parts = []
    for name in names:
        try:
            parts.append(read_text(name))
        except (FileNotFoundError, OSError):
            continue
    icons = _root() / "icons"
    return "\n".join(parts).replace("@ICONS@", str(icons).replace("\\", "/"))
