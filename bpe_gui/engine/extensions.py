"""Which engine runs: the C extensions that load, and for each that does not, why.

Every C extension is optional at install: where one was not built (no compiler, a build
error) or does not load (a missing library, a wrong Python), the engine runs a slower
Python stand-in for it. That is never silent: ``bpe-gui --version`` and the window's
About box print :func:`engine_report`, e.g.::

    engine: C (all 5 extensions)

or, one line for each stand-in that runs::

    engine: C for 4 of 5 extensions; Python for 1
      tokenizers._encode (encoding trained and GPT-2 tokenizers): not built: <why>

Why: the failure the install recorded for that extension (``setup.py``'s build writes
:data:`BUILD_RECORD`; its first compiler error is shown), else the import error itself.

This module is the one place that names all five extensions (each is private to its
package, which imports it for its own use); it loads them by name, nothing else of the
engine, so ``bpe-gui --version`` stays quick.
"""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

# (extension, under bpe_gui.engine; what it does; what runs without it)
EXTENSIONS: tuple[tuple[str, str, str], ...] = (
    ("train._core", "training", "the Python training core (_pycore)"),
    ("tokenizers._encode", "encoding trained and GPT-2 tokenizers",
     "the Python merge loop"),
    ("corpus._count", "counting corpora", "regex and Python counting"),
    ("text._scan", "the pattern scanner and Unicode normal forms",
     "regex and unicodedata"),
    ("tokenizers.imported._pipeline", "imported tokenizers (tokenizer.json, .tiktoken, "
     "SentencePiece, GGUF)", "the Python model (_pymodel)"),
)
# Set to 1: no extension loads, each package runs its one Python fallback (bpe_gui.engine's
# __init__ acts on it, before any extension can load), so the test suite runs over the
# fallbacks as it runs over the C (tests/engine/test_fallbacks.py).
PURE_VARIABLE = "BPE_GUI_PURE"


def pure_requested() -> bool:
    """Whether :data:`PURE_VARIABLE` asks for the Python fallbacks only."""
    return os.environ.get(PURE_VARIABLE, "") not in ("", "0")


# written by setup.py's build at install, beside the extensions: {"built": [names],
# "failed": {"bpe_gui.engine.train._core": "why, with the compiler's last messages"},
# "no_simd": bool, "compiler": ..., "cflags": [...]}
BUILD_RECORD = Path(__file__).with_name("_build.json")
REASON_CHARS = 300   # a recorded reason's length in the report (the record has it all)


class ExtensionState:
    """One extension: ``name`` (e.g. "train._core", under bpe_gui.engine), its ``role``,
    the ``fallback`` that runs in its place, whether it ``loaded``, and ``why`` not.
    (A plain class: a dataclass would import ``dataclasses`` into ``--version``.)"""

    __slots__ = ("name", "role", "fallback", "loaded", "why")

    def __init__(self, name: str, role: str, fallback: str, loaded: bool, why: str = ""):
        self.name, self.role, self.fallback = name, role, fallback
        self.loaded, self.why = loaded, why

    def __repr__(self) -> str:
        return f"ExtensionState({self.name!r}, loaded={self.loaded}, why={self.why!r})"

    def line(self) -> str:
        """``tokenizers._encode (encoding ...): not built: why``."""
        return f"{self.name} ({self.role}): {self.why}; {self.fallback} runs instead"


def build_record() -> dict:
    """What the install recorded about building the extensions (empty if nothing)."""
    try:
        text = BUILD_RECORD.read_text(encoding="utf-8")
    except OSError:
        return {}
    import json   # (only where an install left a record)
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def recorded_failures(record: dict | None = None) -> dict[str, str]:
    """Extension (e.g. "train._core") -> why the install could not build it, in one
    line: the compiler's first error if its messages hold one, else the first line."""
    record = build_record() if record is None else record
    failed = record.get("failed")
    if not isinstance(failed, dict):
        return {}
    out = {}
    for name, why in failed.items():
        lines = [" ".join(x.split()) for x in str(why).splitlines() if x.strip()]
        error = next((x for x in lines if "error" in x.lower()), lines[0] if lines else "")
        if len(error) > REASON_CHARS:
            error = error[:REASON_CHARS - 1] + "…"
        out[str(name).removeprefix(f"{__package__}.")] = f"{error}; see {BUILD_RECORD}"
    return out


def _state(name: str, role: str, fallback: str, recorded: dict[str, str]) -> ExtensionState:
    full = f"{__package__}.{name}"
    if full in sys.modules and sys.modules[full] is None and pure_requested():
        return ExtensionState(name, role, fallback, False, f"kept off by {PURE_VARIABLE}=1")
    try:
        importlib.import_module(full)
    except ImportError as e:
        missing = e.name if isinstance(e, ModuleNotFoundError) else None
        needed = (missing or "").removeprefix(f"{__package__}.")
        if missing == full:
            why = f"not built ({recorded[name]})" if name in recorded else "not built"
        elif needed in (n for n, _, _ in EXTENSIONS):
            # (_encode and _count scan through _scan's function table: they load after it)
            why = f"needs {needed}, which does not load"
        else:
            why = f"does not load: {' '.join(str(e).split())}"
        return ExtensionState(name, role, fallback, False, why)
    return ExtensionState(name, role, fallback, True)


def extension_states(record: dict | None = None) -> list[ExtensionState]:
    """The state of each of the five extensions, loading those not loaded yet
    (``record``: the install's build record, read from :data:`BUILD_RECORD` if None)."""
    recorded = recorded_failures(record)
    return [_state(n, r, f, recorded) for n, r, f in EXTENSIONS]


def engine_report(states: list[ExtensionState] | None = None) -> str:
    """What ``bpe-gui --version`` and the About box say about the engine: one line when
    every extension loads, else a line for each Python stand-in that runs, saying why."""
    record = build_record()
    states = extension_states(record) if states is None else states
    missing = [s for s in states if not s.loaded]
    scalar = ", built without SIMD (BPE_GUI_NO_SIMD)" if record.get("no_simd") else ""
    if not missing:
        head = f"engine: C (all {len(states)} extensions{scalar})"
    elif len(missing) == len(states):
        head = "engine: Python (no C extension loads: slow)"
    else:
        head = (f"engine: C for {len(states) - len(missing)} of {len(states)} extensions"
                f"{scalar}; Python for {len(missing)} (slow)")
    lines = [head] + [f"  {s.line()}" for s in missing]
    if os.environ.get("BPE_GUI_NATIVE_SCAN", "1") == "0":
        lines.append("  BPE_GUI_NATIVE_SCAN=0: regex finds the words, not the C scanner")
    if os.environ.get("BPE_GUI_PRETOK") == "word":
        lines.append("  BPE_GUI_PRETOK=word: the cl100k family's and o200k's words one at a time, "
                     "not by 64-byte windows")
    return "\n".join(lines)


__all__ = ["BUILD_RECORD", "EXTENSIONS", "ExtensionState", "PURE_VARIABLE", "build_record",
           "engine_report", "extension_states", "pure_requested", "recorded_failures"]
