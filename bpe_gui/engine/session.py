"""A session: corpus reference, training settings and current step; saved as JSON.

The corpus is stored as file paths when it came unedited from files (so a session
file stays small), otherwise inline. Loading re-reads the files, retrains to the
saved step and lands exactly where the user left off (training is deterministic).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .errors import FormatError
from .trainer import TrainSettings

SESSION_FORMAT = "bpe-gui-session"
SESSION_VERSION = 1


@dataclass
class Session:
    settings: TrainSettings = field(default_factory=TrainSettings)
    corpus_text: str | None = None
    corpus_paths: list[str] = field(default_factory=list)
    sample: str | None = None
    step: int = 0
    encode_text: str = ""
    # the view: an imported tokenizer (its path) and whether the encode view uses it,
    # and whether whitespace is drawn visibly (optional keys: older files lack them)
    imported_path: str | None = None
    use_imported: bool = False
    show_whitespace: bool = True

    def to_dict(self) -> dict:
        s = asdict(self.settings)
        s["special_tokens"] = list(self.settings.special_tokens)
        corpus: dict = {}
        if self.corpus_paths:
            corpus["paths"] = list(self.corpus_paths)
        if self.sample:
            corpus["sample"] = self.sample
        if self.corpus_text is not None:
            corpus["text"] = self.corpus_text
        view: dict = {"show_whitespace": self.show_whitespace}
        if self.imported_path:
            view["imported"] = {"path": self.imported_path, "in_use": self.use_imported}
        return {"format": SESSION_FORMAT, "version": SESSION_VERSION, "corpus": corpus,
                "settings": s, "step": self.step, "encode_text": self.encode_text,
                "view": view}

    @classmethod
    def from_dict(cls, d: dict, path: str | Path | None = None) -> "Session":
        if not isinstance(d, dict) or d.get("format") != SESSION_FORMAT:
            raise FormatError(path, "not a bpe-gui session file (expected "
                              f"\"format\": \"{SESSION_FORMAT}\").", key="format")
        if d.get("version") != SESSION_VERSION:
            raise FormatError(path, f"session version {d.get('version')!r} is not supported "
                              f"(this build reads version {SESSION_VERSION}).", key="version")
        raw = d.get("settings")
        if not isinstance(raw, dict):
            raise FormatError(path, "missing or malformed settings object.", key="settings")
        known = {f.name for f in fields(TrainSettings)}
        unknown = set(raw) - known
        if unknown:
            raise FormatError(path, f"unknown setting(s) {sorted(unknown)}.", key="settings")
        raw = dict(raw)
        raw["special_tokens"] = tuple(raw.get("special_tokens") or ())
        corpus = d.get("corpus") or {}
        if not isinstance(corpus, dict):
            raise FormatError(path, "corpus must be an object.", key="corpus")
        step = d.get("step", 0)
        if not isinstance(step, int) or step < 0:
            raise FormatError(path, f"step must be a whole number >= 0, not {step!r}.",
                              key="step")
        view = d.get("view") or {}
        imported = view.get("imported") if isinstance(view, dict) else None
        if not isinstance(view, dict) or (imported is not None and not (
                isinstance(imported, dict) and isinstance(imported.get("path"), str))):
            raise FormatError(path, "view must be an object, with imported.path a string.",
                              key="view")
        return cls(settings=TrainSettings(**raw), corpus_text=corpus.get("text"),
                   corpus_paths=list(corpus.get("paths") or []), sample=corpus.get("sample"),
                   step=step, encode_text=str(d.get("encode_text", "")),
                   imported_path=imported["path"] if imported else None,
                   use_imported=bool(imported and imported.get("in_use")),
                   show_whitespace=bool(view.get("show_whitespace", True)))

    def save(self, path: str | Path) -> Path:
        return write_atomic(Path(path), json.dumps(self.to_dict(), ensure_ascii=False,
                                                   indent=1).encode("utf-8"))

    @classmethod
    def load(cls, path: str | Path) -> "Session":
        p = Path(path)
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise FormatError(p, "file not found.") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            line = getattr(e, "lineno", None)
            raise FormatError(p, f"not valid JSON ({e}).", line=line) from e
        return cls.from_dict(d, p)


def write_atomic(path: Path, data: bytes) -> Path:
    """Write one file through a temporary file and a rename: never a half-written file."""
    from .formats._common import write_files
    return write_files(path.parent, {path.name: data})[0]
