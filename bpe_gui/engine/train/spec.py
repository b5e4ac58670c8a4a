"""What to train, as one value: :class:`TrainingSpec` (the mode, the sources, the
settings and the target), the rules about which modes and settings go together
(:meth:`TrainingSpec.validated`, :func:`unused`), and the spec as the exact ``bpe-gui
train`` command that trains it (:meth:`TrainingSpec.command`). The window and every
command line route make one and hand it to :func:`~.build.build_run`, the one place a
run is built.

Modes:

- ``plain``: BPE from the base alphabet on corpus files, word-count tables or a text;
- ``superbpe``: SuperBPE's two stages (``settings.superbpe_from`` = T), or, with a
  ``base`` tokenizer, stage 2 on top of it (its first T merges, or all: T None);
- ``train-on``: more merges on top of the ``base`` tokenizer (its mode, pattern and
  special tokens cut the corpus);
- ``parity``: parity-aware BPE over ``parity.languages`` (HF's ParityBpeTrainer: byte
  level, GPT-2's pattern, its own tie rule).

Example::

    >>> spec = TrainingSpec(corpus=("corpus.txt",), settings=TrainSettings(num_merges=500))
    >>> spec.command()
    'bpe-gui train --num-merges=500 --out=tokenizer -- corpus.txt'
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .. import checks
from ..errors import ArgumentError, SettingArgumentError, SettingsError, SettingTypeError, \
    VocabSizeError
from .trainer import SUPERBPE_LINES, SUPERBPE_PRUNE, TrainSettings

PLAIN, SUPERBPE, TRAIN_ON, PARITY = "plain", "superbpe", "train-on", "parity"
MODES = (PLAIN, SUPERBPE, TRAIN_ON, PARITY)
STDIN = "-"   # a corpus file named so is the standard input
DEFAULT = TrainSettings()

# Why a mode does not use a setting: the window greys the setting with this as its
# tooltip, and the command line refuses the option with it (cli/parity_options.py).
GPT2_ONLY = ("parity training cuts words with GPT-2's pattern, as HF's ByteLevel pre-tokenizer "
             "does (its merges are HF's only with it): leave it out, or give --preset gpt2")
FROM_BYTES = ("parity training starts from the 256 bytes: training on from a tokenizer is "
              "plain BPE's")
PARITY_UNUSED = {
    "corpus": "parity training takes one text per language: give --language NAME=FILE "
              "for each",
    "counts": "parity training counts each language's text itself: give --language "
              "NAME=FILE for each instead of word-count tables",
    "vocab_size": "parity training counts merges: give --num-merges N instead",
    "special_tokens": "parity training cuts its texts with no special tokens, as HF's "
                      "ParityBpeTrainer with the ByteLevel pre-tokenizer cuts them: leave "
                      "it out",
    "pattern": GPT2_ONLY,
    "mode": "parity training is byte-level BPE, as HF's ParityBpeTrainer with ByteLevel: "
            "leave it out, or give --mode byte",
    "end_of_word": "it applies to --mode char only, and parity training is byte-level: leave "
                   "it out",
    "tie_rule": "parity training breaks ties as HF's ParityBpeTrainer does (the greatest "
                "pair by its byte-level spelling, e.g. Ġthe), and has no other rule: leave "
                "it out",
    "threads": "parity training reads each language's text in one thread: leave it out",
    "prune": "parity training keeps every token: each language's token count is measured with "
             "the whole vocabulary. Leave it out",
    "base": FROM_BYTES,
    "superbpe_from": "SuperBPE is plain BPE's: train with --parity, or with SuperBPE",
    "special_text": "parity training has no special tokens to read: leave it out",
}
PICKS_THREADS = ("picks its own counting threads (every core where the native scanner cuts "
                 "the words, one thread for a pattern the regex module runs)")
ON_UNUSED = {   # training on (and SuperBPE on a tokenizer): the tokenizer decides these
    "mode": "the tokenizer trained on decides it (its mode)",
    "end_of_word": "the tokenizer trained on decides it (where its </w> goes)",
    "pattern": "the tokenizer trained on decides it (its pre-tokenizer)",
    "special_tokens": "the tokenizer trained on decides them (its special tokens)",
    "special_text": "the tokenizer trained on decides it (its special tokens cut the "
                    "corpus)",
    "prune": "training on keeps every inherited token (their ids stay as they are), so "
             "none is pruned",
    "threads": "training on " + PICKS_THREADS,
    "superbpe_from": "SuperBPE's stage 2 on a tokenizer is `bpe-gui train --from FILE "
                     "--superbpe`; training on here learns plain merges",
}
SUPERBPE_UNUSED = {
    "special_text": "SuperBPE cuts its corpus at the special tokens in both stages",
    "prune": SUPERBPE_PRUNE,
    "lines": SUPERBPE_LINES,
    "threads": "SuperBPE " + PICKS_THREADS,
}
NO_TABLES = ("SuperBPE's stage 2 cuts the text without splitting at spaces, and a "
             "word-count table holds only stage 1's words: give the text files, or turn "
             "SuperBPE off.")


@dataclass(frozen=True)
class Language:
    """One language of parity training: its name, training file, and a dev file
    (parallel to the others') or a target ratio."""

    name: str
    train: str
    dev: str | None = None
    ratio: float | None = None


def named_languages(train, dev=None, ratios=None) -> tuple[Language, ...]:
    """Languages from (name, training file) pairs and, by name, (name, dev file) or
    (name, ratio) pairs: each name checked (a dev text or ratio for a language not
    trained, given twice, or missing is refused, saying so).

    Example: named_languages([("en", "en.txt")], ratios=[("en", 1.0)]) ->
    (Language(name='en', train='en.txt', dev=None, ratio=1.0),)
    """
    from .parity import _pairs, check_language_names, ratios_for
    items = _pairs(train, "training files")
    names = [n for n, _ in items]
    dev_items = _pairs(dev, "dev files")
    check_language_names(names, [n for n, _ in dev_items], dev is not None)
    dev_of = {n: str(p) for n, p in dev_items}
    ratio_of = dict(zip(names, ratios_for(names, ratios))) if ratios is not None else {}
    return tuple(Language(n, str(p), dev_of.get(n), ratio_of.get(n)) for n, p in items)


@dataclass(frozen=True)
class ParityOptions:
    """Parity training's own options (HF ParityBpeTrainer's); the number of merges, the
    minimum frequency and one text per line are the spec's settings."""

    languages: tuple[Language, ...] = ()
    variant: str = "base"
    global_merges: int = 0
    window_size: int = 100
    alpha: float = 2.0

    @property
    def balance(self) -> str:
        """"dev" (dev texts measure), "ratio" (target ratios), or "train" (neither)."""
        if any(lang.dev for lang in self.languages):
            return "dev"
        return "ratio" if any(lang.ratio is not None for lang in self.languages) else "train"


@dataclass(frozen=True)
class TrainingSpec:
    """What to train (see the module docstring). ``corpus``: files (``-`` is standard
    input); ``counts``: word-count tables; ``text``: the text itself (the window's typed
    corpus: a command reads it from standard input); ``base``: the tokenizer trained on
    (a file, folder or known encoding); ``parity``: the languages. The target is the
    settings' ``num_merges`` or ``vocab_size``."""

    mode: str = PLAIN
    corpus: tuple[str, ...] = ()
    counts: tuple[str, ...] = ()
    text: str | None = field(default=None, repr=False)
    settings: TrainSettings = DEFAULT
    encoding: str = "utf-8"
    threads: int | None = None
    base: str | None = None
    parity: ParityOptions | None = None

    # ----- the rules ---------------------------------------------------------------------
    def validated(self) -> "TrainingSpec":
        """This spec checked (SettingsError says what to change), each setting its mode
        does not use put back to its default (see :func:`unused`), a number of merges as
        the only target when given."""
        spec = self._normalised()
        try:
            s = spec.settings.validated()
        except VocabSizeError:   # on a tokenizer: its ids are the floor (build.resolve)
            if not self.base:
                raise
            s = replace(spec.settings, num_merges=0).validated()
            s = replace(s, num_merges=None)
        spec = replace(spec, settings=s, encoding=_codec(self.encoding))
        if self.mode == PARITY:
            return _parity_checked(spec)
        if self.parity is not None:
            spec = replace(spec, parity=None)
        sources = bool(self.corpus) + bool(self.counts) + (self.text is not None)
        if sources != 1:
            raise SettingsError("Give the corpus: files, word-count tables or a text (one "
                                "of them)." if not sources else "Give corpus files, "
                                "word-count tables or a text, not several of them.")
        if self.counts and spec.encoding != "utf-8":
            raise SettingsError("The encoding says how corpus files are read; the words of "
                                "word-count tables are read already (give it to `bpe-gui "
                                "count`).")
        if self.mode == TRAIN_ON and not self.base:
            raise SettingsError("Training on needs the tokenizer to train on (--from FILE).")
        if self.mode == PLAIN and self.base:
            raise SettingsError("A tokenizer to train on is training on's (mode train-on).")
        if self.mode == SUPERBPE:
            if self.counts:
                raise SettingsError(NO_TABLES)
            if STDIN in self.corpus and self.corpus != (STDIN,):
                raise SettingsError("SuperBPE reads its corpus twice (stage 1, then stage 2 "
                                    "with its own pattern), so the standard input (-) is "
                                    "read into memory: give it alone, or files only.")
            if not self.base:
                from .superbpe import check_transition
                check_transition(s, 256 + len(s.special_tokens))
        elif s.superbpe_from is not None:
            raise SettingsError("A SuperBPE transition is SuperBPE's (mode superbpe).")
        return spec

    def _normalised(self) -> "TrainingSpec":
        """This spec with each field's type checked (what build_run and command() rely
        on: SettingsError names the field) and each setting its mode does not use put
        back to its default; its other rules are validated()'s."""
        _check_fields(self)
        drop = unused(self)
        s = replace(self.settings, **{k: getattr(DEFAULT, k) for k in drop
                                      if k in TrainSettings.__dataclass_fields__})
        if s.num_merges is not None:
            s = replace(s, vocab_size=None)
        return replace(self, corpus=tuple(self.corpus), counts=tuple(self.counts), settings=s,
                       threads=None if "threads" in drop else self.threads)

    def parity_settings(self, p: ParityOptions | None = None):
        """The engine's ParitySettings for this spec."""
        from .parity import ParitySettings
        p = p or self.parity or ParityOptions()
        given = [lang.ratio for lang in p.languages]
        ratios = tuple(float(r) for r in given if r is not None) \
            if given and None not in given else None
        return ParitySettings(num_merges=self.settings.num_merges or 0, variant=p.variant,
                              global_merges=p.global_merges, window_size=p.window_size,
                              alpha=p.alpha, ratios=ratios,
                              min_frequency=self.settings.min_frequency)

    def tokenizer_settings(self) -> TrainSettings:
        """The settings of the tokenizer this spec trains, as an export sees them:
        SuperBPE's cuts text with its stage-2 pattern."""
        if self.mode != SUPERBPE:
            return self.settings
        from ..text.presets import SUPERBPE_ENCODE_PATTERN
        return replace(self.settings, pattern=SUPERBPE_ENCODE_PATTERN, superbpe_from=None)

    def table_key(self) -> tuple:
        """What a run's words come from and how they are cut: two specs with the same key
        read the same pre-token table (only the target, mode of merging or tie rule
        differ)."""
        s = self.settings
        if self.mode == PARITY:
            return (PARITY, self.parity, s.lines, self.encoding)
        reads = (self.corpus, self.counts, self.text, self.encoding, self.base,
                 self.mode == SUPERBPE)
        return reads + (s.pattern, tuple(s.special_tokens), s.lines, s.special_text)

    # ----- as data (a session keeps it) ---------------------------------------------------
    def to_dict(self) -> dict:
        """This spec as JSON-able data (a text in memory is left out: a session keeps
        the corpus itself)."""
        d: dict = {"mode": self.mode, "settings": self.settings.to_dict()}
        for key in ("corpus", "counts"):
            if getattr(self, key):
                d[key] = list(getattr(self, key))
        if self.encoding != "utf-8":
            d["encoding"] = self.encoding
        if self.threads is not None:
            d["threads"] = self.threads
        if self.base:
            d["base"] = self.base
        if self.parity is not None:
            p = self.parity
            d["parity"] = {"variant": p.variant, "global_merges": p.global_merges,
                           "window_size": p.window_size, "alpha": p.alpha,
                           "languages": [{k: v for k, v in vars(lang).items() if v is not None}
                                         for lang in p.languages]}
        return d

    @classmethod
    def from_dict(cls, d: object, problems: list[str] | None = None) -> "TrainingSpec":
        """A spec from :meth:`to_dict`'s data, each field checked: SettingsError names
        the first wrong one; with ``problems`` (a session's spec), each wrong one is left
        out and named there instead, and the rest kept."""
        if not isinstance(d, dict):
            raise SettingsError(f"Not a training spec ({type(d).__name__}): write it as "
                                "TrainingSpec.to_dict() does.")
        kw: dict = {}
        for key, value in d.items():
            own: list[str] = []
            try:
                kw[key] = _field(key, value, own)
            except SettingsError as e:
                if problems is None:
                    raise
                own.append(f"{key}: {str(e).rstrip('.')}; left out.")
            if own and problems is None:   # (a setting's, named by check_settings)
                raise SettingsError(f"Not a training spec: {own[0]}")
            if problems is not None:
                problems.extend(own)
        return cls(**kw)

    # ----- the command ---------------------------------------------------------------------
    def argv(self, out: str = "tokenizer") -> list[str]:
        """The ``bpe-gui train`` arguments that train this spec (after ``bpe-gui``); a
        text in memory is read from standard input (``-``). Only the settings its mode
        uses; each value joined to its option (``--out=-tok``) and the files after
        ``--``, so a name that starts with a dash is read as the name it is."""
        spec = self._normalised()
        s, a = spec.settings, ["train"]

        def opt(flag: str, value: object) -> None:
            a.append(f"{flag}={value}")
        if spec.mode == PARITY:
            p = spec.parity or ParityOptions()
            opt("--parity", p.variant)
            for lang in p.languages:
                opt("--language", f"{lang.name}={lang.train}")
                if lang.dev:
                    opt("--dev", f"{lang.name}={lang.dev}")
                elif lang.ratio is not None:
                    opt("--ratio", f"{lang.name}={_number(lang.ratio)}")
            if p.global_merges:
                opt("--global-merges", p.global_merges)
            if p.variant == "window":
                opt("--window-size", p.window_size)
                opt("--window-share", _number(p.alpha))
        for table in spec.counts:
            opt("--counts", table)
        if spec.base:
            opt("--from", spec.base)
            if spec.mode == SUPERBPE and s.superbpe_from is None:
                a.append("--superbpe")
        if s.num_merges is not None:
            opt("--num-merges", s.num_merges)
        else:
            opt("--vocab-size", s.vocab_size)
        for t in s.special_tokens:   # (none on a tokenizer: it decides them, see unused)
            opt("--special-token", t)
        if s.pattern != DEFAULT.pattern:
            from ..text.presets import PRESETS
            opt("--preset" if s.pattern in PRESETS else "--pattern", s.pattern)
        for key in ("mode", "end_of_word", "tie_rule", "min_frequency", "special_text",
                    "superbpe_from"):
            if getattr(s, key) != getattr(DEFAULT, key):
                opt(f"--{key.replace('_', '-')}", getattr(s, key))
        a += ["--prune"] * s.prune + ["--lines"] * s.lines
        if spec.encoding != "utf-8":
            opt("--encoding", spec.encoding)
        if spec.threads is not None:
            opt("--threads", spec.threads)
        opt("--out", out)
        files = list(spec.corpus) or ([STDIN] if spec.text is not None else [])
        return a + (["--", *files] if files and spec.mode != PARITY else [])

    def command(self, out: str = "tokenizer") -> str:
        """The exact shell command that trains this spec (``bpe-gui train ...``)."""
        import shlex   # (only a command shown needs it)
        return shlex.join(["bpe-gui", *self.argv(out)])


def _parity_checked(spec: TrainingSpec) -> TrainingSpec:
    """``spec`` (parity mode) with its languages checked, as a parity run reads it."""
    p = spec.parity or ParityOptions()
    if spec.settings.num_merges is None:
        raise SettingsError("Parity training needs a number of merges (a vocabulary "
                            "size is not its target).")
    devs = [(lang.name, lang.dev) for lang in p.languages if lang.dev]
    ratios = [(lang.name, lang.ratio) for lang in p.languages if lang.ratio is not None]
    if devs and ratios:
        raise SettingsError("Give a dev text for every language (--dev NAME=FILE) or a "
                            "ratio for every language (--ratio NAME=R), not both: the dev "
                            "set measures each language's compression, ratios set targets "
                            "instead.")
    named_languages([(lang.name, lang.train) for lang in p.languages], devs or None,
                    ratios or None)   # (each name, dev text and ratio checked there)
    if not devs and not ratios:
        raise SettingsError("Give a dev text for every language (--dev NAME=FILE) or a "
                            "ratio for every language (--ratio NAME=R): parity training "
                            "balances the languages on one of them.")
    for lang in p.languages:
        if not lang.train:
            raise SettingsError(f"Language {lang.name!r} has no training file: give "
                                "its path.")
    spec.parity_settings(p).validated(len(p.languages))
    if p.variant == "base":   # the window's share is the window variant's
        p = replace(p, window_size=100, alpha=2.0)
    return replace(spec, parity=p, corpus=(), counts=(), text=None, base=None,
                   encoding=spec.encoding)


def _field(key: str, value: Any, problems: list[str]) -> Any:
    """One field of a spec's data, checked (SettingsError says why not; a setting that is
    wrong is left out of the settings and named in ``problems``)."""
    if key == "settings":
        from .session_fields import check_settings
        return check_settings(value, problems)
    if key == "parity":
        try:
            p = ParityOptions(tuple(Language(**lang) for lang in value["languages"]), **{
                k: v for k, v in value.items() if k != "languages"})
        except (AttributeError, KeyError, TypeError) as e:
            raise SettingsError(f"not parity options ({type(e).__name__}: {e})") from None
        value = p
    if key not in TrainingSpec.__dataclass_fields__ or key == "text":
        raise SettingsError("not a field of this version")
    if key in ("corpus", "counts") and isinstance(value, list):
        value = tuple(value)
    spec = TrainingSpec(**{key: value})
    _check_fields(spec)
    return _codec(value) if key == "encoding" else getattr(spec, key)


def _check_fields(spec: TrainingSpec) -> None:
    """Each field of ``spec`` of the type build_run and command() take (SettingsError
    names it, as ``TrainingSpec(corpus)[0]``)."""
    def names(value: Any, name: str) -> None:
        if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
            checks.instance(value, (), name, "a tuple of file paths")
        for k, path in enumerate(value):
            if not (isinstance(path, str) and path):
                checks.instance(path, (), f"{name}[{k}]", "a file path (a str)")
    try:
        checks.instance(spec.settings, TrainSettings, "TrainingSpec(settings)", "TrainSettings")
        names(spec.corpus, "TrainingSpec(corpus)")
        names(spec.counts, "TrainingSpec(counts)")
        if spec.text is not None:
            checks.text(spec.text, "TrainingSpec(text)")
        checks.instance(spec.encoding, str, "TrainingSpec(encoding)", "an encoding's name")
        checks.whole(spec.threads, "TrainingSpec(threads)", 1, 4096, none_ok=True)
        checks.instance(spec.base, str, "TrainingSpec(base)", "a tokenizer's path or name",
                        none_ok=True)
        checks.instance(spec.parity, ParityOptions, "TrainingSpec(parity)", "ParityOptions",
                        none_ok=True)
        if spec.parity is not None:   # (its numbers' values: ParitySettings.validated)
            checks.instance(spec.parity.alpha, (int, float), "TrainingSpec(parity).alpha",
                            "a number")
        for k, lang in enumerate(spec.parity.languages if spec.parity else ()):
            where = f"TrainingSpec(parity).languages[{k}]"
            checks.instance(lang, Language, where, "a Language")
            if not (isinstance(lang.name, str) and "=" not in lang.name):
                checks.instance(lang.name, (), f"{where}.name", "a name without '='")
            names((lang.train,) + ((lang.dev,) if lang.dev is not None else ()),
                  f"{where} (train, dev)")
            if lang.ratio is not None and not checks.is_whole(lang.ratio):
                checks.instance(lang.ratio, float, f"{where}.ratio", "a number")
    except ArgumentError as e:   # (a setting's error: also a TypeError or ValueError)
        raise (SettingTypeError if isinstance(e, TypeError) else SettingArgumentError)(
            str(e)) from None
    if spec.mode not in MODES:
        raise SettingsError(f"Unknown training mode {spec.mode!r}: use one of "
                            f"{', '.join(MODES)}.")


def _codec(name: str) -> str:
    """A codec's canonical name ('latin-1' -> 'iso8859-1'); SettingsError if Python has
    no such text encoding."""
    import codecs
    try:
        info = codecs.lookup(name)
    except (LookupError, TypeError):
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):
        raise SettingsError(f"{name!r} is not a text encoding Python knows; e.g. latin-1, "
                            "cp1252, gbk, shift_jis, utf-16.")
    return info.name


def _number(x: float) -> str:
    """A float as the shortest text that reads back as it: 1.0 -> '1', 0.1 -> '0.1'."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def unused(spec: TrainingSpec) -> dict[str, str]:
    """Each setting (a TrainSettings field, or ``threads``, and for parity the sources
    ``corpus``, ``counts`` and ``base``) that ``spec``'s mode does not use, with why: the
    window greys it with the reason as its tooltip, the command line refuses it when
    given, and :meth:`TrainingSpec.validated` puts it back to its default.

    Example: a parity spec -> {'corpus': 'parity training takes one text per language:
    ...', 'tie_rule': ..., ...}; a plain byte-level spec -> {'end_of_word': 'where </w>
    goes applies to character-level BPE only, ...', 'superbpe_from': ...}
    """
    if spec.mode == PARITY:
        return dict(PARITY_UNUSED)
    out: dict[str, str] = {}
    if spec.base:
        out.update(ON_UNUSED)
    elif spec.settings.mode == "byte":
        out["end_of_word"] = ("where </w> goes applies to character-level BPE only, and "
                              "byte-level BPE has no </w>")
    if not spec.settings.special_tokens and "special_text" not in out:
        out["special_text"] = ("there are no special tokens to read: it says how their text "
                               "in the training text is read")
    if spec.mode == SUPERBPE:
        out.pop("superbpe_from", None)
        out.update(SUPERBPE_UNUSED)
    elif not spec.base:
        out["superbpe_from"] = "SuperBPE is a mode of its own (stage 2 from step T)"
    if spec.counts:
        out["threads"] = ("the words of word-count tables are counted already (give "
                          "--threads to `bpe-gui count`)")
    return out
