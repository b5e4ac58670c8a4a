"""What the window's parity-aware training is set to: the languages (a name, a training
file, a dev file or a ratio each), the variant and its parameters. Qt-free: the settings
panel edits one, the controller trains with it, a session saves it as a dict.

the window's own checks (two languages at least, files that are there) with the fix
(the engine's spec says the rest when it trains); :meth:`ParitySetup.options` is the
engine's ParityOptions of the training spec (controller/training.py).

Example::

    setup = ParitySetup(languages=(Language("en", "en.txt", dev="en.dev"),
                                   Language("de", "de.txt", dev="de.dev")))
    setup.problem()                     # None: it can train
    setup.options()                     # the spec's ParityOptions (engine/train/spec.py)
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ...engine.train import PARITY_VARIANTS, ParityOptions
from ...engine.train import Language as EngineLanguage

DEV, RATIO = "dev", "ratio"
VARIANTS = PARITY_VARIANTS

# name.train.txt, name-train.txt, name_dev.txt ...: the part before the first dot,
# dash or underscore that precedes a role word, else the stem
_ROLE = re.compile(r"^(?P<name>.+?)[._-](train|training|dev|valid|test)\b", re.IGNORECASE)


def language_name(path: str) -> str:
    """The default name of a language read from ``path``: its file name without the
    role and the suffixes.

    Example: '/data/en.train.txt' -> 'en'; 'zh.txt' -> 'zh'; 'Deutsch.txt.gz' -> 'Deutsch'
    """
    base = Path(path).name
    m = _ROLE.match(base)
    if m:
        return m.group("name")
    return base.split(".")[0] or base


def dev_beside(path: str) -> str | None:
    """A dev file beside a training file by the usual names (en.train.txt ->
    en.dev.txt), or None."""
    p = Path(path)
    for role in ("train", "training"):
        for sep in (".", "-", "_"):
            key = f"{sep}{role}"
            if key in p.name:
                for dev in ("dev", "valid"):
                    cand = p.with_name(p.name.replace(key, f"{sep}{dev}", 1))
                    if cand.is_file():
                        return str(cand)
    return None


@dataclass(frozen=True)
class Language:
    """One language: its name, training file, dev file (parallel to the others') and
    target ratio (used when balancing on ratios)."""

    name: str
    train: str
    dev: str = ""
    ratio: float = 1.0


@dataclass(frozen=True)
class ParitySetup:
    """Parity-aware training's settings in the window (see the module docstring).
    ``enabled`` False: ordinary training of the corpus (the rest is kept, to turn it
    back on)."""

    enabled: bool = False
    languages: tuple[Language, ...] = ()
    balance: str = DEV          # "dev": each language's tokens on its dev file; "ratio"
    variant: str = "base"
    global_merges: int = 0
    window_size: int = 100
    alpha: float = 2.0
    lines: bool = True          # each line its own text, as Hugging Face reads files
    problems: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def active(self) -> bool:
        return self.enabled

    def problem(self) -> str | None:
        """What keeps this setup from training, with the fix; None when it can."""
        if not self.enabled:
            return None
        langs = self.languages
        if len(langs) < 2:
            return ("Parity training balances languages: add at least two training files "
                    "(one per language) with “Add languages…”.")
        seen: set[str] = set()
        for i, lang in enumerate(langs, 1):
            name = lang.name.strip()
            if not name:
                return f"Language {i} has no name: type one in the Language column."
            if name in seen:
                return f"Language “{name}” is given twice: give each language its own name."
            seen.add(name)
            if not lang.train:
                return f"Language “{name}” has no training file: pick one."
            if not Path(lang.train).is_file():
                return (f"The training file of “{name}” is not there ({lang.train}): pick it "
                        "again or remove the language.")
            if self.balance == DEV:
                if not lang.dev:
                    return (f"Language “{name}” has no dev file: pick one (the same text as "
                            "the other languages' dev files), or balance on ratios.")
                if not Path(lang.dev).is_file():
                    return (f"The dev file of “{name}” is not there ({lang.dev}): pick it "
                            "again.")
            elif not (isinstance(lang.ratio, (int, float)) and math.isfinite(lang.ratio)
                      and lang.ratio > 0):
                return (f"The ratio of “{name}” is {lang.ratio!r}: type a positive number "
                        "(only the ratios' relative sizes matter).")
        return None   # (the variant and its numbers: the engine's ParitySettings checks)

    def options(self) -> ParityOptions:
        """The engine's parity options of this setup (a dev file or a ratio for each
        language, as it balances)."""
        dev = self.balance == DEV
        return ParityOptions(tuple(EngineLanguage(lang.name.strip(), lang.train,
                                                  lang.dev if dev else None,
                                                  None if dev else float(lang.ratio))
                                   for lang in self.languages),
                             self.variant, self.global_merges, self.window_size, self.alpha)

    # ----- sessions -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("problems")
        d["languages"] = [asdict(lang) for lang in self.languages]
        return d

    @classmethod
    def from_dict(cls, d: Any) -> "ParitySetup":
        """A setup from a session's dict; a bad field is left at its default and named
        in ``problems`` (nothing else is lost)."""
        problems: list[str] = []
        out = cls()
        if not isinstance(d, dict):
            return replace(out, problems=("parity: not an object; parity training is off.",))

        def take(key: str, ok, default):
            if key not in d:
                return default
            v = d[key]
            if ok(v):
                return v
            problems.append(f"parity.{key}: {str(v)[:60]!r} is not valid; "
                            f"{default!r} is used.")
            return default

        def whole(lo: int):
            return lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= lo

        langs: list[Language] = []
        raw = d.get("languages", [])
        if not isinstance(raw, list):
            problems.append("parity.languages: not a list; no language is kept.")
            raw = []
        for i, item in enumerate(raw, 1):
            if not (isinstance(item, dict) and isinstance(item.get("name"), str)
                    and isinstance(item.get("train"), str)):
                problems.append(f"parity.languages[{i}]: needs a name and a training file; "
                                "left out.")
                continue
            dev = item.get("dev", "")
            ratio = item.get("ratio", 1.0)
            if not isinstance(dev, str):
                problems.append(f"parity.languages[{i}].dev: not a path; left empty.")
                dev = ""
            if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) \
                    or not math.isfinite(ratio) or ratio <= 0:
                problems.append(f"parity.languages[{i}].ratio: {ratio!r} is not a positive "
                                "number; 1 is used.")
                ratio = 1.0
            langs.append(Language(item["name"], item["train"], dev, float(ratio)))
        return cls(
            enabled=take("enabled", lambda v: isinstance(v, bool), False),
            languages=tuple(langs),
            balance=take("balance", lambda v: v in (DEV, RATIO), DEV),
            variant=take("variant", lambda v: v in VARIANTS, "base"),
            global_merges=take("global_merges", whole(0), 0),
            window_size=take("window_size", whole(1), 100),
            alpha=float(take("alpha", lambda v: isinstance(v, (int, float))
                             and not isinstance(v, bool) and math.isfinite(v) and v > 0, 2.0)),
            lines=take("lines", lambda v: isinstance(v, bool), True),
            problems=tuple(problems))
