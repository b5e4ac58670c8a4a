"""A session: corpus reference, training settings and current step; saved as JSON.

The corpus is stored as file paths when it came unedited from files (so a session
file stays small), otherwise inline. Loading re-reads the files, retrains to the
saved step and lands exactly where the user left off (training is deterministic).
"""
from __future__ import annotations

import json
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BPEError, FormatError
from .session_fields import (MAX_STEP, check_settings, compare_side, is_type, obj, shown,
                             str_list, take, whole)
from .spec import TrainingSpec
from .trainer import TrainSettings
from ..io.atomic import write_atomic

SESSION_FORMAT = "bpe-gui-session"
SESSION_VERSION = 1
SNIFF_BYTES = 4096
# a JSON object (after an optional byte order mark) whose format key says session
_SNIFF = re.compile(rb'(?:\xef\xbb\xbf)?\s*\{.*?"format"\s*:\s*"' + SESSION_FORMAT.encode()
                    + rb'"', re.DOTALL)


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
    # the pre-tokenizer pattern chosen for a bare .tiktoken (such a file holds only
    # ranks): None when the file was opened as it is recognised
    imported_pattern: str | None = None
    show_whitespace: bool = True
    # Compare's side B (session_fields.compare_side: its kind and what it uses), None
    # for the default side (optional key "view.compare_b")
    compare_b: dict | None = None
    # the furthest step trained: steps past ``step`` were undone and the timeline
    # still offers them (redo); a version-1 file without the key has none
    furthest_step: int = 0
    # trained on from this tokenizer file (engine/train_on.py): the step counts its new
    # merges, and restoring imports it and trains on again (optional key "train_on")
    train_on_from: str | None = None
    # parity-aware training's languages and parameters, as the window's ParitySetup
    # writes them (optional key "parity"; the window checks its fields)
    parity: dict | None = None
    # the training spec the window showed (spec.TrainingSpec.to_dict: its mode, sources
    # with their encoding, settings and target), written with the `bpe-gui train` command
    # that makes it (optional key "training")
    spec: dict | None = None
    # what was wrong in the file and left out, one line per field (not saved)
    problems: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict:
        s = self.settings.to_dict()
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
            if self.imported_pattern is not None:
                view["imported"]["pattern"] = self.imported_pattern
        if self.compare_b is not None:
            view["compare_b"] = _side_dict(self.compare_b)
        out = {"format": SESSION_FORMAT, "version": SESSION_VERSION, "corpus": corpus,
               "settings": s, "step": self.step, "encode_text": self.encode_text,
               "view": view}
        if self.furthest_step > self.step:
            out["furthest_step"] = self.furthest_step
        if self.train_on_from:
            out["train_on"] = {"from": self.train_on_from}
        if self.parity is not None:
            out["parity"] = self.parity
        if self.spec is not None:
            training: dict = {"spec": self.spec}
            try:   # (a spec read is checked field by field: it has its command)
                training["command"] = TrainingSpec.from_dict(self.spec).command()
            except BPEError:
                pass
            out["training"] = training
        return out

    @classmethod
    def from_dict(cls, d: dict, path: str | Path | None = None) -> "Session":
        """A session from its JSON object. Only a document that is not a session of
        this version is refused; each other field is checked on its own (type, range)
        and a bad one is left out, named in ``problems`` (session_fields.py)."""
        if not isinstance(d, dict) or d.get("format") != SESSION_FORMAT:
            raise FormatError(path, "not a bpe-gui session file (expected "
                              f"\"format\": \"{SESSION_FORMAT}\").", key="format")
        if d.get("version") != SESSION_VERSION or type(d.get("version")) is not int:
            raise FormatError(path, f"session version {d.get('version')!r} is not supported "
                              f"(this build reads version {SESSION_VERSION}).", key="version")
        problems: list[str] = []
        settings = check_settings(d.get("settings"), problems)
        corpus = obj(d, "corpus", problems)
        text = take(corpus, "text", is_type(str, "text"), None, problems, "corpus")
        paths = take(corpus, "paths", str_list, [], problems, "corpus")
        sample = take(corpus, "sample", is_type(str, "a sample name"), None, problems,
                      "corpus")
        step = take(d, "step", whole(0, MAX_STEP), 0, problems)
        furthest = take(d, "furthest_step", whole(0, MAX_STEP), 0, problems)
        encode_text = take(d, "encode_text", is_type(str, "text"), "", problems)
        view = obj(d, "view", problems)
        show_ws = take(view, "show_whitespace", is_type(bool, "true or false"), True,
                       problems, "view")
        imported = obj(view, "imported", problems, "view.")
        imported_path = take(imported, "path", is_type(str, "a file path"), None, problems,
                             "view.imported")
        in_use = take(imported, "in_use", is_type(bool, "true or false"), False, problems,
                      "view.imported")
        pattern = take(imported, "pattern", is_type(str, "a pattern"), None, problems,
                       "view.imported")
        compare_b = compare_side(view.get("compare_b"), problems)
        train_on = obj(d, "train_on", problems)
        train_on_from = take(train_on, "from", is_type(str, "a tokenizer file path"), None,
                             problems, "train_on")
        parity = take(d, "parity", is_type(dict, "an object"), None, problems)
        spec = training_spec(obj(d, "training", problems).get("spec"), problems)
        return cls(settings=settings, corpus_text=text, corpus_paths=list(paths),
                   sample=sample, step=step, furthest_step=furthest if furthest > step else 0,
                   encode_text=encode_text, imported_path=imported_path,
                   use_imported=bool(imported_path and in_use),
                   imported_pattern=pattern if imported_path else None,
                   show_whitespace=show_ws, compare_b=compare_b,
                   train_on_from=train_on_from or None, parity=parity, spec=spec,
                   problems=tuple(problems))

    def save(self, path: str | Path) -> Path:
        return write_atomic(Path(path), json.dumps(self.to_dict(), ensure_ascii=False,
                                                   indent=1).encode("utf-8"))

    @classmethod
    def load(cls, path: str | Path) -> "Session":
        p = Path(path)
        try:
            # stat first: open() of a FIFO waits for a writer (a frozen window)
            if not p.is_dir() and not stat.S_ISREG(p.stat().st_mode):
                raise FormatError(p, "a pipe or a device, not a session file. Open the "
                                  ".bpesession file that File > Save session wrote.")
            # (utf-8-sig: a byte order mark an editor added is not an error)
            d = json.loads(p.read_text(encoding="utf-8-sig"))
        except FileNotFoundError:
            raise FormatError(p, "file not found.") from None
        except IsADirectoryError:
            raise FormatError(p, "this is a folder, not a session file. Remove or rename "
                              "the folder, or pick the session file inside it.") from None
        except OSError as e:
            raise FormatError(p, f"cannot be read ({e.strerror or e}).") from None
        except RecursionError:
            raise FormatError(p, "nested too deeply to be a session file.") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            line = getattr(e, "lineno", None)
            raise FormatError(p, f"not valid JSON ({e}).", line=line) from e
        return cls.from_dict(d, p)


def looks_like_session(path: str | Path) -> bool:
    """Whether a file is a session by its content, whatever its name: a JSON object
    whose first bytes hold ``"format": "bpe-gui-session"`` (Session.to_dict writes the
    key first). A session saved as ``work.json`` is not a tokenizer file."""
    p = Path(path)
    try:
        if not stat.S_ISREG(p.stat().st_mode):   # (open() of a FIFO would wait)
            return False
        with open(p, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return False
    return _SNIFF.match(head) is not None


def _side_dict(side: dict) -> dict:
    """A compare side as JSON: its settings (if any) as an object, no empty fields."""
    return {k: v.to_dict() if isinstance(v, TrainSettings) else v
            for k, v in side.items() if v is not None}


def training_spec(raw: object, problems: list[str]) -> dict | None:
    """A session's training spec (TrainingSpec.to_dict's data) with each field checked:
    a wrong one left out and named, the rest kept. None (and a problem) for one that is
    not an object."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.append(f"training.spec: {shown(raw)} is not an object; left out.")
        return None
    own: list[str] = []
    spec = TrainingSpec.from_dict(raw, own)
    problems.extend(f"training.spec.{p}" for p in own)
    return spec.to_dict()
