"""Incremental BPE trainer: step, undo, run; every merge is a frozen MergeStep record.

The heavy lifting (pair counts, occurrence lists, the priority order, undo) lives in
the C extension ``_core``; this module turns settings and a pre-token table into the
core's input and the core's answers into records that the GUI, the CLI and the tests
all read.

Example (the worked example of SPEC.md, byte-level, GPT-2 pattern)::

    >>> t = Trainer.from_text("low low lower newest newest widest widest widest",
    ...                       TrainSettings(num_merges=4))
    >>> [t.render_pair(s.pair) for s in t.run()]
    ['s t', 'e st', 'w i', 'wi d']
"""
from __future__ import annotations

import operator
import threading
import time
from abc import ABC, abstractmethod
from array import array
from itertools import accumulate
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple, Sequence, cast

try:
    from . import _core
except ImportError:  # no C compiler at install time: slow but correct stand-in
    from . import _pycore as _core  # type: ignore[no-redef]  # the same API in Python
from .. import checks
from ..corpus.counting import table_from_files, table_from_text
from ..corpus.table_sums import check_settings, read_tables, settings_for_table
from ..display import readable
from ..errors import CancelFn, CorpusError, ProgressFn, SettingsError, VocabSizeError
from ..text.pretokenize import Pretokenizer, refuse_bare_name, resolve_pattern, validate_special_tokens
from ..corpus.table import PretokenTable
from ..tokenizers.symbols import EOW, UNK

if TYPE_CHECKING:   # (the tokenizer is built when first asked for: exports need not)
    from ..tokenizers.trained import Tokenizer

# settings that shape training but not the tokenizer it makes: a tokenizer's metadata
# keeps them, and only the native format writes them (formats/native.py)
TRAINING_ONLY = ("tie_rule", "min_frequency", "prune", "lines", "special_text")
# SuperBPE's rules about the corpus, said once: TrainSettings.validated refuses them, the
# window greys the setting with them (spec.unused), the command line refuses the option
SUPERBPE_BYTES = "SuperBPE needs byte mode (stage 2's tokens hold spaces as bytes)"
SUPERBPE_LINES = ("SuperBPE reads its corpus its own way (stage 2 line by line, with its "
                  "own pattern), so one text per line does not apply to it")
SUPERBPE_PRUNE = "SuperBPE counts every token of the vocabulary: turn pruning off to train it"
TIE_RULES = {"greatest": _core.GREATEST, "first-seen": _core.FIRST_SEEN,
             "lowest-ids": _core.LOWEST_IDS, "lowest-ids-hf": _core.LOWEST_HF}
TIE_RULE_LABELS = {
    "greatest": "Greatest pair (by bytes)",
    "first-seen": "First seen in corpus",
    "lowest-ids": "Lowest token ids",
    "lowest-ids-hf": "Lowest ids, numbered as Hugging Face does",
}
MODES = ("byte", "char")
# how special-token text in the training text is read (TrainSettings.special_text)
SPECIAL_TEXT_LABELS = {
    "cut": "Cut the text at them (CS336, tiktoken-style trainers)",
    "text": "Read them as ordinary text (tokenizers' BpeTrainer given them)",
    "word": "Cut at them, each one a word (tokenizers, tokens added before training)",
}
# Trainer._steps and ._rows change together under this lock: a core run adds rows in a
# job's thread while the window reads the records (made from the rows) in its own
_ROWS_LOCK = threading.RLock()
TIE_LIMIT = 50        # tied pairs kept per record (the total is always kept)
AFFECTED_LIMIT = 50   # affected words kept per record


@dataclass(frozen=True)
class TrainSettings:
    """Everything that decides what training produces.

    ``vocab_size`` counts every token (base symbols + special tokens + merges), or only
    live symbols when ``prune`` is on; ``num_merges``, if given, wins over it.

    ``lines``: each line of the corpus (its \\n kept) is a text of its own, as Hugging
    Face's trainer reads files, so no word spans a line break. With ``tie_rule=
    "lowest-ids-hf"``, byte mode and the GPT-2 pattern, training then gives exactly
    tokenizers' ``BpeTrainer`` merges (ByteLevel without a prefix space, all 256 bytes as
    the initial alphabet, the same vocabulary size and minimum frequency).

    ``special_text``: how special-token text inside the training text is read. "cut"
    (CS336, tiktoken-style trainers): the text is cut at each one and the token is not
    counted, so no merge reaches into or across it. "text": ordinary text, as
    tokenizers' ``BpeTrainer(special_tokens=...)`` reads it when the tokenizer was not
    given those tokens before training (it learns ``<`` + ``|``). "word": cut at each
    one, which is counted as a word of its own, whole, as tokenizers counts the tokens
    added to the tokenizer (``add_special_tokens``) before training: their pieces merge,
    up to the token itself, whose id is kept (that merge does not grow the vocabulary).
    Exact for tokens of printable ASCII without spaces (``<|endoftext|>``, ``<s>``):
    tokenizers reads an added token's own characters, not their ByteLevel spelling.
    In every case the tokens get their ids and the tokenizer made matches them.
    """

    vocab_size: int | None = 1000
    num_merges: int | None = None
    mode: str = "byte"
    end_of_word: str = "suffix"
    pattern: str = "gpt2"
    special_tokens: tuple[str, ...] = ()
    tie_rule: str = "greatest"
    min_frequency: int = 1
    prune: bool = False
    superbpe_from: int | None = None   # SuperBPE: stage 2 after this many merges (superbpe.py)
    lines: bool = False                # one text per line (counting; see above)
    special_text: str = "cut"          # "cut", "text" or "word" (see above)

    def __post_init__(self) -> None:   # each field's type and value; what fits together:
        # validated(). Refused when made, so a wrong value fails where it was written.
        object.__setattr__(self, "special_tokens", checks.train_settings(self))
        self._check_values()
        # a published pattern's name (qwen2) is that pattern from here on, and a preset's
        # other spelling (gpt4, GPT2) or its written-out pattern (a session saved before
        # the spelling was turned into the name) that preset's name: saved, exported,
        # compared with the window's field (presets keep their names)
        pattern, preset = resolve_pattern(self.pattern)
        if (preset or pattern) != self.pattern:
            object.__setattr__(self, "pattern", preset or pattern)

    def validated(self, n_base: int | None = None) -> "TrainSettings":
        """These settings checked (raises SettingsError saying what to change), with the
        special tokens normalised.

        ``n_base``: the size of the base alphabet when the caller knows it -- in
        character mode the corpus's characters plus ``</w>`` and ``<unk>`` (byte mode
        always has 256). A vocabulary size below the base alphabet plus the special
        tokens is refused here, and only here: the trainer, the command line and the
        window all ask this method (a character-mode size is checked once the corpus's
        alphabet is known, i.e. when the caller passes ``n_base``).
        """
        if self.superbpe_from is not None and self.mode != "byte":
            raise SettingsError(f"{SUPERBPE_BYTES}: use mode byte, or turn SuperBPE off.")
        if self.superbpe_from is not None and self.lines:
            raise SettingsError(f"{SUPERBPE_LINES} (lines/--lines): turn one of them off.")
        if self.num_merges is None and self.vocab_size is None:
            raise SettingsError("Give a target vocabulary size or a number of merges.")
        specials = validate_special_tokens(self.special_tokens)
        refuse_bare_name(resolve_pattern(self.pattern)[0])  # "llama4": matches only itself
        Pretokenizer(self.pattern, specials)  # raises PatternError on a bad pattern
        out = replace(self, special_tokens=specials)
        out._check_vocab_size(256 if self.mode == "byte" else n_base)
        return out

    @property
    def cut_at(self) -> tuple[str, ...]:
        """The special tokens the training text is cut at before its words are counted."""
        return self.special_tokens if self.special_text != "text" else ()

    def to_dict(self) -> dict:
        """As JSON-able data (the "settings" a session and a spec's data keep)."""
        return {**asdict(self), "special_tokens": list(self.special_tokens)}

    def _check_values(self) -> None:
        """Each field's value on its own (validated() checks how they combine)."""
        if self.mode not in MODES:
            raise SettingsError(f"Unknown mode {self.mode!r}: use 'byte' or 'char'.")
        if self.end_of_word not in ("suffix", "prefix"):
            raise SettingsError(f"Unknown end-of-word position {self.end_of_word!r}: "
                                "use 'suffix' or 'prefix'.")
        if self.tie_rule not in TIE_RULES:
            raise SettingsError(f"Unknown tie rule {self.tie_rule!r}: use one of "
                                f"{', '.join(TIE_RULES)}.")
        if self.special_text not in SPECIAL_TEXT_LABELS:
            raise SettingsError(f"Unknown special_text {self.special_text!r}: use "
                                f"{' or '.join(map(repr, SPECIAL_TEXT_LABELS))}.")
        if self.min_frequency < 1:
            raise SettingsError(f"Minimum frequency is {self.min_frequency}; it must be at "
                                "least 1.")
        if self.num_merges is not None and self.num_merges < 0:
            raise SettingsError(f"Number of merges is {self.num_merges}; it must be 0 or more.")
        if self.vocab_size is not None and self.vocab_size < 0:   # (0: validated says
            # how far below the base alphabet it is)
            raise SettingsError(f"Vocab size is {self.vocab_size}; it must be a positive "
                                "number (the tokens to reach: base symbols, special tokens "
                                "and merges).")
        if self.superbpe_from is not None and self.superbpe_from < 0:
            raise SettingsError(f"SuperBPE's stage 2 from merge {self.superbpe_from}: it needs "
                                "a merge number of 0 or more.")

    def _check_vocab_size(self, n_base: int | None) -> None:
        """The target vocabulary must hold the base alphabet and the special tokens
        (unless a number of merges is the target, or pruning makes it count live
        symbols only)."""
        if n_base is None or self.num_merges is not None or self.prune:
            return
        assert self.vocab_size is not None   # validated() refuses neither size nor merges
        minimum = n_base + len(self.special_tokens)
        if self.vocab_size < minimum:
            what = "256 bytes" if self.mode == "byte" else f"{n_base} base symbols in this corpus"
            raise VocabSizeError(
                f"Vocab size {self.vocab_size} is below the base alphabet ({what}) plus "
                f"{len(self.special_tokens)} special token(s) = {minimum}. Choose a vocab "
                f"size of at least {minimum}, or set a number of merges.")


@dataclass(frozen=True)
class AffectedWord:
    """A word (pre-token) that a merge changed: its symbol ids before and after."""

    freq: int
    before: tuple[int, ...]
    after: tuple[int, ...]

    @classmethod
    def of(cls, freq: int, after: Sequence[int], pair: tuple[int, int], new: int) \
            -> "AffectedWord":
        """The word ``after`` the merge of ``pair`` into the new token ``new``, and as it
        was before (each ``new`` in it came from that merge)."""
        before: list[int] = []
        for t in after:
            before.extend(pair if t == new else (t,))
        return cls(freq, tuple(before), tuple(after))


@dataclass(frozen=True, slots=True)   # slots: a long run keeps one per merge
class MergeStep:
    """One merge. ``index`` k is 1-based: the state after it is "step k"."""

    index: int
    pair: tuple[int, int]
    left: bytes
    right: bytes
    new_id: int
    token: bytes
    count: int
    rule: str
    n_tied: int = 1
    tied: tuple[tuple[int, int], ...] = ()
    reason: str = ""
    n_affected: int = 0
    affected: tuple[AffectedWord, ...] = ()
    removed: tuple[int, ...] = ()
    live_size: int = 0
    merged: int = 0           # occurrences replaced, weighted (< count when pairs overlap)
    corpus_tokens: int = 0    # tokens the training corpus has after this merge


@dataclass(frozen=True)
class Stop:
    """Why training stops: ``kind`` is "target", "no-pair" or "min-frequency"; ``short``
    a few words for a status line, ``sentence`` the whole reason."""

    kind: str
    short: str
    sentence: str

    @property
    def early(self) -> bool:
        """Stopped before the target (no pair left, or below the minimum frequency)."""
        return self.kind != "target"


class PairRow(NamedTuple):
    """A row of the pair table: rank in the tie-rule order, pair ids and count.
    (A named tuple: the window takes hundreds of them at every step.)"""

    rank: int
    a: int
    b: int
    count: int  # type: ignore[assignment]  # a field named like tuple.count(), which it hides


def char_alphabet(words: Iterable[str]) -> list[str]:
    """Character mode's alphabet: every character a word keeps after ``strip()``, sorted.

    The one home of this rule (the trainer builds its base symbols from it, the window
    validates a vocabulary size with it). A word may hold inner characters that
    ``str.isspace()`` calls whitespace (custom patterns, or U+001C-U+001F, which regex's
    ``\\s`` skips): they stay. Special tokens are not words, so theirs do not count.

    Example: ["low", " low", "a\\x1cb", "  "] -> ['\\x1c', 'a', 'b', 'l', 'o', 'w']
    """
    return sorted({c for w in words for c in w.strip()})


def base_symbols(table: PretokenTable, settings: TrainSettings) -> list[bytes]:
    """The starting alphabet: 256 bytes, or the corpus's characters plus </w> and <unk>."""
    if settings.mode == "byte":
        return [bytes([i]) for i in range(256)]
    return [c.encode("utf-8") for c in char_alphabet(table.words)] + [EOW, UNK]


def n_base_symbols(table: PretokenTable, mode: str) -> int:
    """How many base symbols training in ``mode`` starts from on this table: 256 bytes,
    or character mode's alphabet plus ``</w>`` and ``<unk>``."""
    return 256 if mode == "byte" else len(char_alphabet(table.words)) + 2


def word_symbols(table: PretokenTable, settings: TrainSettings,
                 token_id: dict[bytes, int]) -> tuple:
    """Table -> the core's input (symbols, starts, freqs) and the word texts.

    Byte mode hands the table's own buffers to the core (each byte is its symbol id;
    the word texts are the table's words). Char mode strips whitespace, adds </w>, and
    re-counts words that become equal.
    """
    if settings.mode == "byte":
        return table.blob, table.starts, table.counts, None
    eow = token_id[EOW]

    def keyed():
        for w, f in zip(table.words, table.freqs):
            core = w.strip()
            if not core:
                continue
            ids = [token_id[c.encode("utf-8")] for c in core]
            if settings.end_of_word == "suffix":
                ids.append(eow)
            elif w[:1].isspace():
                ids.insert(0, eow)
            yield tuple(ids), f, w
    return summed_words(keyed())


def summed_words(keyed: Iterable[tuple[tuple[int, ...], int, str]]) -> tuple:
    """(symbols, count, text) of each word -> the core's input (symbols, starts, freqs)
    and the word texts; words whose symbols came out equal are counted once, in order of
    first appearance (the first-seen tie rule depends on it)."""
    merged: dict[tuple[int, ...], list] = {}
    for key, f, w in keyed:
        if key in merged:
            merged[key][0] += f
        else:
            merged[key] = [f, w]
    symbols, starts, freqs, texts = array("i"), array("q", [0]), array("q"), []
    for key, (f, w) in merged.items():
        symbols.extend(key)
        starts.append(len(symbols))
        freqs.append(f)
        texts.append(w)
    return symbols, starts, freqs, texts


# parity-aware training's tie rule (tokenizers' ParityBpeTrainer: the greatest pair of
# GPT-2 spellings), not one a plain training offers
PARITY_TIE_RULE = "greatest-hf-spelling"


def new_core(symbols, starts, freqs, token_bytes, tie_rule: str, undo: bool = True):
    """The C core over these words. It counts pairs in 64 bits and refuses word counts
    whose pairs could pass 2**63 - 1 (they would wrap and a wrong pair would win): said
    here in words a user can act on. ``undo=False``: no undo log (a run that only goes
    forward, as train_bpe's: less memory). ``tie_rule``: a name of TIE_RULES, or
    PARITY_TIE_RULE."""
    rule = _core.GREATEST_HF if tie_rule == PARITY_TIE_RULE else TIE_RULES[tie_rule]
    try:
        return _core.Core(symbols, starts, freqs, token_bytes, rule, undo)
    except ValueError as e:
        if "overflow" not in str(e):
            raise
        raise CorpusError("The word counts are too large: each count times its word's "
                          "symbols adds up past 9,223,372,036,854,775,807 (2^63 - 1), the "
                          "largest count training can hold. Scale the counts down (e.g. "
                          "divide them all by 1000).") from None


class _Rows:
    """The steps a core run made whose MergeStep records are not made yet, as columns
    (8 bytes a step, no object per step): the pair, new id, count, tied pairs, occurrences
    merged, which of the pair it used up (bit 1: a, bit 2: b), then the live size and
    the corpus's tokens after the step. The bytes are the trainer's vocab_bytes."""

    __slots__ = ("a", "b", "new", "count", "n_tied", "merged", "gone", "live", "tokens")

    def __init__(self) -> None:
        self.a, self.b, self.new, self.count, self.n_tied, self.merged, self.gone, \
            self.live, self.tokens = (array("q") for _ in range(9))

    def columns(self) -> tuple[array, ...]:
        """Every column but tokens, in the order of __slots__."""
        return (self.a, self.b, self.new, self.count, self.n_tied, self.merged, self.gone,
                self.live)

    def __len__(self) -> int:
        return len(self.a)


def _n_removed(a: int, b: int, gone: int, specials: set[int]) -> int:
    """How many tokens a merge of (a, b) used up (``gone``: bit 1 a, bit 2 b; specials
    never)."""
    if a != b:
        return (1 if gone & 1 and a not in specials else 0) + \
            (1 if gone & 2 and b not in specials else 0)
    return 1 if gone & 3 and a not in specials else 0


# The most steps Core.run makes in one call: their history becomes Python rows at once,
# and at a run's end (when the core is largest) a bigger batch of tuples would raise the
# process's peak.
CHUNK_MAX = 512


class Released:
    """Stands for what a run let go of (its table, its core): every use raises
    SettingsError with ``why``, which says why it fails and what to do instead."""

    def __init__(self, why: str) -> None:
        self.why = why

    def __getattr__(self, name: str):
        raise SettingsError(self.why)


RELEASED_TABLE = ("This trainer let go of its pre-token table once its merge state held "
                  "the words (Trainer.release_table, as train_bpe does), so it cannot give "
                  "the words' texts. Build the trainer with Trainer.from_source to keep the "
                  "table.")
RELEASED_CORE = ("This {} was released after training ({}.release_core), so it cannot "
                 "step, undo or answer questions about pairs and words any more. Train "
                 "again, or keep the trainer without releasing it.")


class RunSteps(ABC):
    """What the window and the command line step a run with: where it is (``steps``,
    ``furthest_step``, ``target_steps``, ``stop``), the verbs (``step``, ``undo``, ``run``,
    ``goto``, a new target) and the tokenizer at a step. What panels read of a run is
    :class:`RunCommon`'s, handed to them through the window's ``TrainerView``.

    Example::

        def train_to(t: RunSteps, k: int) -> Tokenizer:
            t.goto(k)
            return t.tokenizer()
    """

    if TYPE_CHECKING:   # an attribute of some runs, a property of others
        @property
        @abstractmethod
        def steps(self) -> Sequence[MergeStep]:
            """The records of the steps made, in order (step k is ``steps[k - 1]``)."""
    @property
    @abstractmethod
    def furthest_step(self) -> int:
        """The furthest step made, counting steps undone since (``tokenizer(redo=True)``)."""
    @property
    @abstractmethod
    def target_steps(self) -> int | None:
        """Steps until the target, or None when it depends on pruning."""
    @abstractmethod
    def stop(self) -> Stop | None:
        """Why training stops at this step, or None while it goes on."""
    @abstractmethod
    def step(self, detail: bool = True) -> MergeStep | None:
        """One merge: its record, or None when training is done."""
    @abstractmethod
    def undo(self) -> MergeStep | None:
        """Back one merge: the record undone, or None at step 0."""
    @abstractmethod
    def run(self, until: int | None = None,
            progress: Callable[[int, int], None] | None = None,
            cancel: CancelFn | None = None, detail: bool = True) -> Sequence[MergeStep]:
        """Step until the target (or step ``until``); the new records."""
    @abstractmethod
    def can_retarget(self, settings: TrainSettings) -> bool:
        """True when ``settings`` differ only in when to stop (see ``retarget``)."""
    @abstractmethod
    def retarget(self, settings: TrainSettings) -> int:
        """A new stopping target: back to it if past, else it goes on from here
        later. Returns the step it is at."""
    @abstractmethod
    def tokenizer(self, at_step: int | None = None, redo: bool = False) -> Tokenizer:
        """The tokenizer as of step ``at_step`` (default: now); ``redo`` also serves
        undone steps up to ``furthest_step``."""

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    @property
    def is_done(self) -> bool:
        return self.stop() is not None

    def goto(self, k: int, **kw: Any) -> None:
        """Jump to step k: undo back, or run forward (``kw``: as :meth:`run`'s)."""
        checks.whole(k, f"{type(self).__name__}.goto(k)", -checks.MAX_ID)
        while self.n_steps > max(k, 0) and self.undo() is not None:
            pass
        if k > self.n_steps:
            self.run(until=k, **kw)


class RunCommon(RunSteps):
    """A training run of merge steps, the type every run is held as: its steps, what is
    read of it, and what runs answer alike, written once: a run of one corpus from its
    own alphabet (nothing inherited, one stage, one language), its vocabulary as of now,
    and the step loop. A run overrides what it does otherwise.

    The runs: :class:`Trainer` (BPE from the base alphabet), ``InheritedTrainer``
    (inherited.py: training on from a tokenizer, ``n_inherited`` of its merges kept as
    they are), ``SuperBPERun`` (superbpe_run.py: both stages as one run, ``transition``
    the last step of stage 1) and ``ParityTrainer`` (parity.py: ``parity``, whose turn
    each step was and each language's tokens). What tells them apart is data, not their
    type: ``spec.mode``, ``n_inherited``, ``transition``, ``parity`` and ``skip_reason``;
    a caller asks these and never checks which class it holds. Step k is the state after
    k merges of this run (inherited merges are not steps); ``tokenizer(at_step=k)`` has
    the inherited merges and the first k of this run. What each run defines itself is
    abstract (here and in :class:`RunSteps`): a run that lacks a method cannot be made
    (TypeError), and mypy also holds it to ``steps``, ``settings`` and ``table``.
    """

    n_inherited = 0   # merges taken as they are from another tokenizer before step 0
    spec: Any = None   # what it trains (build_run, the one factory, sets it)
    parity: Any = None   # ParityTrainer | None: parity-aware training's facts
    # ids before the first step (base symbols and special tokens, or the whole
    # vocabulary trained on from), the base symbols, the special tokens' ids
    n_initial: int
    n_base: int
    base: Sequence[bytes]
    special_ids: Sequence[int]
    vocab_bytes: Sequence[bytes]   # token bytes by id as of now

    if TYPE_CHECKING:   # attributes of some runs, properties of others
        @property
        @abstractmethod
        def settings(self) -> TrainSettings:
            """What it trains with (``retarget`` may change the stopping target)."""
        @property
        @abstractmethod
        def table(self) -> PretokenTable:
            """The corpus's pre-token table, cut as the settings say (SuperBPE: stage 1's)."""

    @property
    @abstractmethod
    def corpus_tokens(self) -> int:
        """Tokens the training corpus is cut into now."""
    @abstractmethod
    def top_pairs(self, k: int = 200) -> list[PairRow]: ...
    @abstractmethod
    def tied_now(self, limit: int = 50) -> tuple[int, list[tuple[int, int]]]: ...
    @abstractmethod
    def next_choice(self, limit: int = 50) -> MergeStep | None: ...
    @abstractmethod
    def symbol_count(self, i: int) -> int: ...
    @abstractmethod
    def render(self, i: int) -> str: ...

    @property
    def transition(self) -> int | None:
        """SuperBPE: the last step of stage 1; None here (a run of one stage)."""
        return None

    def skip_reason(self, a: int, b: int) -> str | None:
        """Why the next steps would never merge the pair (a, b): never, here (SuperBPE's
        stage 2 skips some)."""
        return None

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """Every merge as of now, the inherited ones first (here: this run's steps)."""
        return [(st.left, st.right) for st in self.steps]

    @property
    def word_texts(self) -> list[str]:
        """The text of each word of the table (word id -> str)."""
        return self.table.words

    @property
    def vocab_size(self) -> int:
        return len(self.vocab_bytes)

    @property
    def vocab(self) -> dict[int, bytes]:
        return dict(enumerate(self.vocab_bytes))

    def render_pair(self, pair: tuple[int, int]) -> str:
        return f"{self.render(pair[0])} {self.render(pair[1])}"

    def _step_until(self, goal: int | None, total: int,
                    progress: Callable[[int, int], None] | None, cancel: CancelFn | None,
                    detail: bool) -> None:
        """step(detail) until step ``goal`` (None: until it stops), or until ``cancel()``
        returns True: one cancel contract for every run (the steps made so far stay).
        ``progress(done, total)`` at most every 50 ms and at the end; ``done`` counts
        steps, or with no goal the vocabulary (what pruning aims at)."""
        last = 0.0
        while goal is None or self.n_steps < goal:
            if cancel is not None and cancel():
                break
            if self.step(detail) is None:
                break
            if progress is not None and time.monotonic() - last > 0.05:
                last = time.monotonic()
                progress(self.n_steps if goal is not None else self.vocab_size, total)
        if progress is not None:
            progress(self.n_steps if goal is not None else self.vocab_size, total)


class Trainer(RunCommon):
    """Step-by-step BPE training over a pre-token table."""

    settings: TrainSettings
    table: PretokenTable

    def __init__(self, table: PretokenTable, settings: TrainSettings | None = None, *,
                 undo: bool = True):
        """``undo=False``: the trainer only goes forward (train_bpe's); its core keeps no
        undo log, which saves memory, and undo() and going back raise SettingsError."""
        checks.instance(table, PretokenTable, "Trainer(table)",
                        "a PretokenTable (from Trainer.from_text/from_files/from_counts)")
        _check_settings(table, settings)
        self.settings = (settings or TrainSettings()).validated()
        self.table = table
        s = self.settings
        if s.lines and not (table.meta is not None and table.meta.lines):
            raise SettingsError("One text per line (lines=True) needs words counted line by "
                                "line, but this table was counted from whole texts, so its "
                                "words may span lines. Build the trainer from the corpus "
                                "(Trainer.from_files / from_text with these settings), or count "
                                "it with count_corpus(..., lines=True).")
        token_bytes, symbols, starts, freqs = self._initial_state(table, s)
        if len(symbols) == 0:
            raise CorpusError("The corpus has only whitespace, so character mode has no words "
                              "to train on. Add some text, or use byte mode.")
        self._freqs = freqs
        self._corpus_bytes: int | None = None
        self._word_cuts: int = getattr(table, "cuts", 0)
        self._can_undo = bool(undo)
        self.core = new_core(symbols, starts, freqs, token_bytes, s.tie_rule, self._can_undo)
        self._tokens0 = self.core.total_symbols
        self.vocab_bytes: list[bytes] = list(token_bytes)
        self._steps: list[MergeStep] = []
        # steps the core made on its own whose records are not made yet: a row of a
        # record's fields each (_ROW), turned into records when the steps are first read
        self._rows = _Rows()
        self._live = sum(1 for i in range(self.n_initial) if self.core.symbol_count(i) > 0) \
            + len(self.special_ids)
        self._live0 = self._live
        s.validated(n_base=self.n_base)   # now that the alphabet is known (char mode)
        self._tok: Tokenizer | None = None

    def _initial_state(self, table: PretokenTable, s: TrainSettings) -> tuple:
        """The initial tokens and the core's input: (token_bytes, symbols, starts, freqs).
        Sets base, n_base, special_ids, n_initial and the word texts (a subclass that
        starts from another tokenizer's vocabulary overrides it: engine/train_on.py)."""
        if s.superbpe_from is not None:
            raise SettingsError("SuperBPE trains in two stages with two pre-tokenizers: use "
                                "bpe_gui.engine.train.train_superbpe, not Trainer/train_bpe.")
        self.base = base_symbols(table, s)
        self._symbols_are_bytes = s.mode == "byte"   # (each symbol of a word is a byte)
        self.n_base = len(self.base)
        token_bytes = self.base + [t.encode("utf-8") for t in s.special_tokens]
        self.special_ids = list(range(self.n_base, len(token_bytes)))
        self.n_initial = len(token_bytes)
        token_id = {t: i for i, t in enumerate(self.base)}
        symbols, starts, freqs, self._word_texts = word_symbols(table, s, token_id)
        return token_bytes, symbols, starts, freqs

    # ----- construction -------------------------------------------------------------
    @classmethod
    def from_source(cls, source: "str | Path | Sequence[str | Path] | PretokenTable | object",
                    settings: TrainSettings | None = None, progress: ProgressFn | None = None,
                    cancel: CancelFn | None = None, *, encoding: str = "utf-8",
                    where: str | None = None, undo: bool = True, **kw) -> "Trainer":
        """The one way from a corpus to a trainer (train_bpe, the command line and the
        window all come here): a ``str`` is the text itself; a ``Path`` or a list of
        paths, files (streamed, read with ``encoding``); a :class:`PretokenTable`, its
        words (``settings`` checked against its metadata, see :meth:`from_counts`);
        any object with ``paths`` (and ``encoding``), such as the window's file corpus,
        its files (a ``str`` naming an existing file is refused: say Path or from_files);
        ``progress(done, total)`` reports the counting; ``kw`` goes to it
        (``workers``). ``undo=False``: a trainer that only goes forward (see __init__).

        Example: ``Trainer.from_source("low lower lowest", TrainSettings(vocab_size=260))``
        """
        if isinstance(source, PretokenTable):
            return cls.from_counts(source, settings, where=where, undo=undo)
        if isinstance(source, str):
            checks.not_a_path(source, "Trainer.from_source(source)", "Trainer.from_files(path)")
        elif isinstance(source, (list, tuple)):
            checks.texts_not_paths(source, "Trainer.from_source(source)")
        settings = (settings or TrainSettings()).validated()
        return cls(source_table(source, settings, progress, cancel, encoding=encoding, **kw),
                   settings, undo=undo)

    @classmethod
    def from_texts(cls, texts: Iterable[str], settings: TrainSettings | None = None,
                   progress: ProgressFn | None = None, cancel: CancelFn | None = None, *,
                   undo: bool = True, **kw) -> "Trainer":
        """From texts: a list, a generator, an open file (its lines), each text its own
        document, read a block at a time (memory grows with the unique words, not with
        the texts). ``progress(done, 0)``: characters read (the total is not known).

        Example: ``Trainer.from_texts(open("corpus.txt"), TrainSettings(lines=True))``
        trains as ``Trainer.from_files("corpus.txt", TrainSettings(lines=True))``."""
        from ..corpus.counting import count_corpus
        texts = checks.iterable_texts(texts, "Trainer.from_texts(texts)")
        settings = (settings or TrainSettings()).validated()
        pre = counting_pretokenizer(settings)
        return cls(count_corpus(texts=texts, pre=pre, progress=progress, cancel=cancel,
                                lines=settings.lines, **kw), settings, undo=undo)

    @classmethod
    def from_text(cls, text: str, settings: TrainSettings | None = None, **kw) -> "Trainer":
        _check_settings(checks.text(text, "Trainer.from_text(text)"), settings)
        return cls.from_source(text, settings, **kw)

    @classmethod
    def from_files(cls, paths: str | Path | Sequence[str | Path],
                   settings: TrainSettings | None = None, **kw) -> "Trainer":
        _check_settings(checks.paths(paths, "Trainer.from_files(paths)"), settings)
        return cls.from_source([paths] if isinstance(paths, str) else paths, settings, **kw)

    @classmethod
    def from_counts(cls, counts: "PretokenTable | str | Path | Sequence[str | Path]",
                    settings: TrainSettings | None = None, where: str | None = None, *,
                    undo: bool = True) -> "Trainer":
        """Train from word counts: table files (``bpe-gui count``; several are summed in
        the order given) or a table in memory (``count_corpus``). Without ``settings``,
        the table's pattern and special tokens with the default settings; given settings
        must use the table's pattern and special tokens (SettingsError says why not;
        ``where`` names the table in it).

        Example: ``Trainer.from_counts("corpus.counts.tsv", TrainSettings(vocab_size=5000))``
        """
        if not isinstance(counts, PretokenTable):
            _check_settings(checks.paths(counts, "Trainer.from_counts(counts)", False), settings)
        table = counts if isinstance(counts, PretokenTable) else read_tables(counts)
        settings = (settings or settings_for_table(TrainSettings(), table.meta)).validated()
        where = where or _table_name(counts)
        check_settings(table.meta, settings, where)
        return cls(table, settings, undo=undo)

    # ----- state --------------------------------------------------------------------
    _symbols_are_bytes = False   # words start as their bytes (Trainer's own _initial_state)

    @property
    def word_texts(self) -> list[str]:
        """The text of each word the core holds (word id -> str)."""
        return self.table.words if self._word_texts is None else self._word_texts

    @property
    def steps(self) -> list[MergeStep]:
        """The record of every step made, in order (records of steps the core made on its
        own are made here, when first read)."""
        if self._rows:
            with _ROWS_LOCK:
                self._make_records()
        return self._steps

    @steps.setter
    def steps(self, records: list[MergeStep]) -> None:
        with _ROWS_LOCK:
            self._steps, self._rows = records, _Rows()

    @property
    def n_steps(self) -> int:
        with _ROWS_LOCK:
            return len(self._steps) + len(self._rows)

    @property
    def target_steps(self) -> int | None:
        """Merges until the target, or None when it depends on pruning."""
        s = self.settings
        if s.num_merges is not None:
            return s.num_merges
        if s.prune:
            return None
        assert s.vocab_size is not None   # validated settings: a size or a number of merges
        return max(0, s.vocab_size - self.n_initial + self._remade())

    _remade_at = (0, 0)   # (vocabulary size, special tokens made again by then)

    def _remade(self) -> int:
        """Special tokens a merge made again (special_text "word": each one's pieces merge
        into it), which, as tokenizers keeps the special token's id, do not count toward
        the vocabulary size."""
        if self.settings.special_text != "word":
            return 0
        vb, (n, k) = self.vocab_bytes, self._remade_at
        if len(vb) < n:   # (steps undone)
            n, k = self.n_initial, 0
        specials = {vb[i] for i in self.special_ids}
        k += sum(1 for t in vb[max(n, self.n_initial):] if t in specials)
        self._remade_at = (len(vb), k)
        return k

    @property
    def corpus_tokens(self) -> int:
        """How many tokens the training corpus (all words, with frequency) is cut into now."""
        with _ROWS_LOCK:
            if self._rows:
                return self._rows.tokens[-1]
            return self._steps[-1].corpus_tokens if self._steps else self._tokens0

    @property
    def corpus_bytes(self) -> int:
        """UTF-8 bytes of the training words, each as often as it occurs: in byte mode the
        corpus's tokens before the first merge (one per byte), else the table's sum."""
        if self._symbols_are_bytes:
            return self._tokens0
        if self._corpus_bytes is None:
            self._corpus_bytes = self.table.total_word_bytes
        return self._corpus_bytes

    @property
    def live_size(self) -> int:
        """Tokens that still occur on their own (+ specials): the vocab size when pruning."""
        return self._live

    @property
    def vocab_size(self) -> int:
        return self._live if self.settings.prune else len(self.vocab_bytes)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """(left, right) of every step so far, in order, read without making records."""
        with _ROWS_LOCK:
            rows, vb = self._rows, self.vocab_bytes   # (the steps past the records)
            return [(r.left, r.right) for r in self._steps] + \
                list(zip(map(vb.__getitem__, rows.a), map(vb.__getitem__, rows.b)))

    def stop(self) -> "Stop | None":
        """Why training stops at this step (a :class:`Stop`), or None while it goes on.

        The one home of the stopping rule (the target, no pair left, the minimum
        frequency), for the trainer, the window and the command line alike.

        Example: the worked example with ``num_merges=2``, after two steps ->
        Stop(kind='target', ..., sentence='Target reached at step 2 (2 merges).')
        """
        s, n = self.settings, self.n_steps
        if s.num_merges is not None:
            if n >= s.num_merges:
                return Stop("target", f"{s.num_merges:,} merges",
                            f"Target reached at step {n} ({s.num_merges:,} merges).")
        else:
            assert s.vocab_size is not None   # validated settings: a size or a number of merges
            if (self._live if s.prune else len(self.vocab_bytes) - self._remade()) \
                    >= s.vocab_size:
                return Stop("target", f"vocabulary {self.vocab_size:,}",
                            f"Target reached at step {n} (vocabulary size {self.vocab_size:,}).")
        best = self.best_pair()
        if best is None:
            return Stop("no-pair", "no pair left",
                        f"Training stopped at step {n}, before the target: no pair of "
                        "symbols is left (every word is one token).")
        if best[2] < s.min_frequency:
            return Stop("min-frequency",
                        f"best pair occurs {best[2]:,}×, below min frequency "
                        f"{s.min_frequency:,}",
                        f"Training stopped at step {n}, before the target: the best pair "
                        f"occurs {best[2]:,} times, below the minimum frequency "
                        f"{s.min_frequency:,}.")
        return None

    def render(self, i: int) -> str:
        return readable(self.vocab_bytes[i])

    def word(self, w: int) -> tuple[int, ...]:
        return tuple(self.core.word(w))

    def best_pair(self) -> tuple[int, int, int] | None:
        """(a, b, count) of the pair the next step would merge, or None if none is left
        (the target and minimum frequency are not looked at: see is_done)."""
        best = self.core.best()
        return None if best is None else (best[0], best[1], best[2])

    def symbol_count(self, i: int) -> int:
        return self.core.symbol_count(i) if i < self.core.n_tokens else 0

    def top_pairs(self, k: int = 200) -> list[PairRow]:
        """The k best candidate pairs now, in the order the tie rule ranks them."""
        return [PairRow(r, a, b, c) for r, (a, b, c) in enumerate(self.core.top(k), 1)]

    def tied_now(self, limit: int = TIE_LIMIT) -> tuple[int, list[tuple[int, int]]]:
        n, pairs = self.core.tied(limit)
        return n, [(p[0], p[1]) for p in pairs]  # the C core adds counts: drop them

    def next_choice(self, limit: int = TIE_LIMIT) -> MergeStep | None:
        """The merge the next step would make, as a provisional record (no affected
        words), its ``reason`` explaining the tie the same way :meth:`explain` does for
        past steps; None when training is done. Changes nothing.

        Example (worked example, after 2 merges): ``next_choice().reason`` ->
        '6 pairs share the top count 3; w i wins because it is the greatest pair ...'
        """
        if self.is_done:
            return None
        best = self.core.best()
        n_tied, tied = self.tied_now(limit)
        a, b, count = best[0], best[1], best[2]
        left, right = self.vocab_bytes[a], self.vocab_bytes[b]
        rec = MergeStep(index=len(self.steps) + 1, pair=(a, b), left=left, right=right,
                        new_id=len(self.vocab_bytes), token=left + right, count=count,
                        rule=self.settings.tie_rule, n_tied=n_tied, tied=tuple(tied))
        return replace(rec, reason=self.explain(rec, rec.tied))

    # ----- stepping -----------------------------------------------------------------
    def step(self, detail: bool = True) -> MergeStep | None:
        """Merge the best pair. Returns its record, or None when training is done."""
        if self.is_done:
            return None
        s = self.settings
        n_tied, tied = self.core.tied(TIE_LIMIT if detail else 1)
        a, b, new, count = self.core.step()
        left, right = self.vocab_bytes[a], self.vocab_bytes[b]
        self.vocab_bytes.append(left + right)
        removed = tuple(t for t in dict.fromkeys((a, b))
                        if t not in self.special_ids and self.core.symbol_count(t) == 0)
        self._live += 1 - len(removed)
        merged = self.core.symbol_count(new)
        rec = MergeStep(index=self.n_steps + 1, pair=(a, b), left=left, right=right,
                        new_id=new, token=left + right, count=count, rule=s.tie_rule,
                        n_tied=n_tied, removed=removed, live_size=self._live,
                        merged=merged, corpus_tokens=self.corpus_tokens - merged)
        if detail:
            tied_t = tuple((p[0], p[1]) for p in tied)  # pairs only, as documented
            n_aff, words = self.core.touched(AFFECTED_LIMIT)
            affected = tuple(AffectedWord.of(self._freqs[w], self.core.word(w), (a, b), new)
                             for w in words)
            rec = replace(rec, tied=tied_t, n_affected=n_aff, affected=affected,
                          reason=self.explain(rec, tied_t))
        self.steps.append(rec)
        return rec

    def undo(self) -> MergeStep | None:
        """Go back one merge exactly. Returns the record undone, or None at step 0."""
        if not self.steps:
            return None
        if not self._can_undo:
            raise SettingsError("This trainer only goes forward: it was made without an undo "
                                "log (as train_bpe makes it, to save memory), so it cannot go "
                                "back a step. Make it with Trainer(..., undo=True), the "
                                "default, to step back.")
        self.core.undo()
        return self._pop_step()

    def _pop_step(self) -> MergeStep:
        """The last record off, with its token and its change to the live tokens (the
        core is undone already)."""
        rec = self.steps.pop()
        self.vocab_bytes.pop()
        self._live -= 1 - len(rec.removed)
        return rec

    def run(self, until: int | None = None, progress: Callable[[int, int], None] | None = None,
            cancel: CancelFn | None = None, detail: bool = True) -> list[MergeStep]:
        """Step until the target (or step ``until``); returns the new records.

        ``progress(done, total)`` is called at most every 50 ms; ``cancel()`` is checked
        between steps and stops early (the steps made so far stay).
        """
        checks.whole(until, "Trainer.run(until)", -checks.MAX_ID, none_ok=True)
        start = self.n_steps
        self.advance(until, progress, cancel, detail)
        return self.steps[start:]

    def advance(self, until: int | None = None,
                progress: Callable[[int, int], None] | None = None,
                cancel: CancelFn | None = None, detail: bool = True) -> None:
        """:meth:`run`, returning nothing: the records of steps made in the core are made
        when first read (train_bpe and the command line read only merges and counts)."""
        goal = until if until is not None else self.target_steps
        total = goal if goal is not None else self.settings.vocab_size
        assert total is not None   # no goal: pruning to a vocabulary size (validated settings)
        while True:
            if not detail and goal is not None and not self.settings.prune:
                self._run_in_core(goal, total, progress, cancel)
            else:
                self._step_until(goal, total, progress, cancel, detail)
            if until is not None or goal is None or self.n_steps < goal \
                    or self.target_steps == goal:
                return
            goal = self.target_steps   # (a special token made again: one step more)

    def _run_in_core(self, goal: int, total: int, progress, cancel) -> None:
        """Steps without detail, in the C core without the GIL, in chunks of about
        20-80 ms so cancel and progress stay prompt; records are made afterwards from
        the core's history, equal to those step(detail=False) makes."""
        chunk, last = 64, 0.0
        s = self.settings
        if self.target_steps is not None:  # as step() stops at the target
            goal = min(goal, self.target_steps)
        while self.n_steps < goal:
            if cancel is not None and cancel():
                break
            n = min(chunk, goal - self.n_steps)
            t0 = time.monotonic()
            done = self.core.run(n, s.min_frequency)
            self._record_core_steps()
            if done < n:
                break
            took = time.monotonic() - t0
            chunk = min(chunk * 2, CHUNK_MAX) if took < 0.02 else max(16, chunk // 2) \
                if took > 0.08 else chunk
            if progress is not None and time.monotonic() - last > 0.05:
                last = time.monotonic()
                progress(self.n_steps, total)
        if progress is not None:
            progress(self.n_steps, total)

    def _record_core_steps(self) -> None:
        """The rows of MergeStep records for the steps the core made on its own
        (Core.run): the records are made from them when first read (:attr:`steps`)."""
        with _ROWS_LOCK:
            made = self.core.history_columns(self.n_steps)   # seven int64 columns
            n = len(made) // 56
            if not n:
                return
            cols = memoryview(made).cast("q")
            a_ids, b_ids, merged, gone = cols[:n], cols[n:2 * n], cols[5 * n:6 * n], cols[6 * n:]
            tokens = array("q", accumulate(merged, operator.sub, initial=self.corpus_tokens))
            vb, specials = self.vocab_bytes, set(self.special_ids)
            for a, b in zip(a_ids, b_ids):
                vb.append(vb[a] + vb[b])
            lives = array("q", accumulate(   # (few merges use a token up: most add one)
                (1 - _n_removed(a, b, g, specials) if g else 1
                 for a, b, g in zip(a_ids, b_ids, gone)), initial=self._live))
            self._live = lives[-1]
            rows = self._rows
            for k, column in enumerate(rows.columns()[:7]):
                column.frombytes(made[8 * n * k:8 * n * (k + 1)])
            rows.live.extend(lives[1:])
            rows.tokens.extend(tokens[1:])

    def _make_records(self) -> None:
        """The MergeStep records of the rows _record_core_steps left."""
        rule, rows, vb = self.settings.tie_rule, self._rows, self.vocab_bytes
        specials, steps = set(self.special_ids), self._steps
        self._rows = _Rows()
        index = len(steps)
        for a, b, new, count, n_tied, merged, gone, live, tokens in zip(
                *rows.columns(), rows.tokens):
            # the tokens this merge used up (bit 1: a, bit 2: b), specials never
            if a != b:
                removed = ((a,) if gone & 1 and a not in specials else ()) + \
                    ((b,) if gone & 2 and b not in specials else ())
            else:
                removed = (a,) if gone & 3 and a not in specials else ()
            steps.append(MergeStep(index=index + 1, pair=(a, b), left=vb[a], right=vb[b],
                                   new_id=new, token=vb[self.n_initial + index],
                                   count=count, rule=rule, n_tied=n_tied, removed=removed,
                                   live_size=live, merged=merged, corpus_tokens=tokens))
            index += 1

    def _merge_rows(self, lo: int, hi: int) -> list[tuple[bytes, bytes, int]]:
        """(left, right, new_id) of steps lo+1 .. hi, without making records."""
        with _ROWS_LOCK:
            n, rows, vb = len(self._steps), self._rows, self.vocab_bytes
            out = [(r.left, r.right, r.new_id) for r in self._steps[lo:min(hi, n)]]
            at = slice(max(lo - n, 0), max(hi - n, 0))
            out += zip(map(vb.__getitem__, rows.a[at]), map(vb.__getitem__, rows.b[at]),
                       rows.new[at])
        return out

    def _counts(self, k: int) -> list[int]:
        """The pair count of each of the first k steps, without making records."""
        with _ROWS_LOCK:
            n = len(self._steps)
            return [r.count for r in self._steps[:k]] + \
                self._rows.count[:max(k - n, 0)].tolist()

    @property
    def word_cuts(self) -> int:
        """Places in the corpus where a word over the 64 KiB limit was cut into pieces
        (corpus/word_limit.py) before training: as counting recorded them where they
        were made (``PretokenTable.cuts``), also once the table is let go of."""
        return self._word_cuts

    def release_table(self) -> None:
        """Let go of the pre-token table once the core holds its words: the table's
        memory then does not sit beside the merge state's through training. Merges,
        records, counts and ``corpus_bytes`` stay; ``table``, ``word_texts`` and
        detailed steps raise :class:`SettingsError` afterwards. :func:`train_bpe` (and
        so the command line) does it before training."""
        if isinstance(self.table, Released):
            return
        self._corpus_bytes = self.corpus_bytes
        self.table = Released(RELEASED_TABLE)   # type: ignore[assignment]
        self._freqs = Released(RELEASED_TABLE)   # (byte mode: the table's counts)
        self._word_texts = None            # (char mode's own texts go too)

    def release_core(self) -> None:
        """Free the merge state (most of a run's memory) once training is over: the
        records, merges, vocabulary and tokenizers stay; stepping, undoing and asking
        about pairs or words raise :class:`SettingsError` afterwards. The command line
        and :func:`train_bpe` do it before exporting, so the export's memory does not
        come on top of the merge state's."""
        self.core = Released(RELEASED_CORE.format("trainer's merge state", "Trainer"))

    TARGET_FIELDS = ("vocab_size", "num_merges", "min_frequency")

    def can_retarget(self, settings: TrainSettings) -> bool:
        """True when ``settings`` differ from this trainer's only in when to stop, so
        :meth:`retarget` can apply them without pre-tokenizing again."""
        keep = {f: getattr(self.settings, f) for f in self.TARGET_FIELDS}
        return replace(settings, **keep) == self.settings

    def stop_step(self, settings: TrainSettings | None = None) -> int | None:
        """The first step already made at which training under ``settings`` (default:
        this trainer's) would have stopped, or None if it would go on past the last one.

        Example (worked example, 4 merges made): with ``num_merges=2`` -> 2; with
        ``min_frequency=4`` -> 2 (the third merge, ``w i``, has count 3 < 4).
        """
        s = settings or self.settings
        remade, specials = 0, {self.vocab_bytes[i] for i in self.special_ids}   # (_remade)
        for k in range(self.n_steps + 1):
            nxt = self.steps[k].count if k < self.n_steps else None
            if s.num_merges is not None:
                if k >= s.num_merges:
                    return k
            else:
                assert s.vocab_size is not None, "settings need a vocab size or a number of merges"
                if s.prune:
                    live = self.steps[k - 1].live_size if k else self._live0
                    if live >= s.vocab_size:
                        return k
                elif self.n_initial + k - remade >= s.vocab_size:
                    return k
            if nxt is not None and nxt < s.min_frequency:
                return k
            remade += s.special_text == "word" and k < self.n_steps \
                and self.steps[k].token in specials
        return None

    def retarget(self, settings: TrainSettings) -> int:
        """Apply a new stopping target (vocab size, number of merges, min frequency) to
        this trainer: it keeps its merges, goes back to the new target if it is past
        it, and otherwise can go on from where it is. Returns the step it is at.

        Raises SettingsError when anything else differs (that needs a new Trainer).
        """
        settings = settings.validated(n_base=self.n_base)
        if not self.can_retarget(settings):
            raise SettingsError("Only the vocab size, number of merges and minimum "
                                "frequency can change on a live trainer; retrain for the rest.")
        stop = self.stop_step(settings)
        self.settings = settings
        if stop is not None and stop < self.n_steps:
            self.goto(stop)
        return self.n_steps

    # ----- explanations -------------------------------------------------------------
    def explain(self, rec: MergeStep, tied: Sequence[tuple[int, int]]) -> str:
        """One sentence saying why this pair won. Example:
        '6 pairs share the top count 3; w i wins because its bytes are the greatest.'"""
        win = self.render_pair(rec.pair)
        if rec.n_tied <= 1:
            return f"{win} is the most frequent pair ({rec.count:,}); no tie to break."
        others = [p for p in tied if (p[0], p[1]) != tuple(rec.pair)]
        runner = self.render_pair(others[0]) if others else "the others"
        head = f"{rec.n_tied:,} pairs share the top count {rec.count:,}; {win} wins"
        if rec.rule == "greatest":
            return (f"{head} because it is the greatest pair comparing bytes (first token, "
                    f"then second): it beats {runner} and every other tied pair.")
        if rec.rule == "first-seen":
            return (f"{head} because it occurs first in the corpus (scanning words in order "
                    f"of first appearance), before {runner}.")
        if rec.rule == "lowest-ids-hf":
            a, b = (self.hf_id(t) for t in rec.pair)
            return (f"{head} because it has the lowest ids as Hugging Face numbers them "
                    f"({a}, {b}), lower than {runner}.")
        return (f"{head} because it has the lowest token ids ({rec.pair[0]}, {rec.pair[1]}), "
                f"lower than {runner}.")

    def hf_id(self, t: int) -> int:
        """Token t's id in tokenizers' numbering (what lowest-ids-hf compares): special
        tokens first, then the alphabet sorted by code point (in byte mode GPT-2's
        character for each byte), then the merges in order, as here."""
        n_special = len(self.special_ids)
        if self.settings.mode == "byte" and t < 256:
            from ._pycore import hf_byte_ranks
            return n_special + hf_byte_ranks()[t]
        if t in self.special_ids:
            return self.special_ids.index(t)
        return t + n_special if t < self.n_base else t

    # ----- tokenizers ---------------------------------------------------------------
    @property
    def furthest_step(self) -> int:
        """The furthest step reached so far, counting steps undone since (see tokenizer)."""
        return max(self.n_steps, len(self._tok.merges) - self.n_inherited
                   if self._tok is not None else 0)

    def tokenizer(self, at_step: int | None = None, redo: bool = False) -> Tokenizer:
        """The tokenizer as of step k (default: now), with exactly the first k merges.

        Cheap: one tokenizer grows with the steps and each call shares its tables.
        ``redo=True`` also serves steps up to :attr:`furthest_step` that were undone:
        training is deterministic, so they are the merges stepping forward would make.
        """
        k = step_asked(at_step, self.n_steps, self.furthest_step if redo else self.n_steps,
                       "Trainer.tokenizer(at_step)")
        tok = self._tok
        if tok is None:
            tok = self._tok = self._first_tokenizer()
        off = self.n_inherited   # merges the first tokenizer already has
        # Training is deterministic, so merges past an undo come back the same; check anyway.
        have = min(len(tok.merges) - off, self.n_steps)
        for left, right, _ in self._merge_rows(have - 1, have) if have > 0 else []:
            if tok.merges[off + have - 1] != (left, right):
                self._tok = None
                return self.tokenizer(at_step)
        tok.add_merges(self._merge_rows(len(tok.merges) - off, self.n_steps))
        out = tok.at_step(off + k)
        counts = self._counts(k)   # the counts as of now, for the lazy metadata
        out.meta = lambda: self.metadata(k, list(counts))  # exports read it
        return out

    def _first_tokenizer(self) -> Tokenizer:
        """The tokenizer before the first step, which tokenizer() grows step by step."""
        from ..tokenizers.trained import Tokenizer
        s = self.settings
        return Tokenizer(dict(enumerate(self.vocab_bytes[:self.n_initial])), [],
                         list(s.special_tokens), pattern=s.pattern, mode=s.mode,
                         end_of_word=s.end_of_word)

    def metadata(self, k: int | None = None, counts: list[int] | None = None) -> dict:
        s = self.settings
        k = self.n_steps if k is None else k
        return {"mode": s.mode, "end_of_word": s.end_of_word, "pattern": s.pattern,
                **{k: getattr(s, k) for k in TRAINING_ONLY},
                "special_tokens": list(s.special_tokens),
                "merge_counts": counts if counts is not None
                else self._counts(k)}


def step_asked(at_step: object, now: int, hi: int, where: str) -> int:
    """The step a caller asked for (None: ``now``), refused past ``hi`` (the steps made,
    or undone and kept for redo) or below 0: a tokenizer of fewer merges than asked for
    is not the one asked for.

    Example: step_asked(5, 2, 2, "tokenizer(at_step)") raises SettingsError
    'tokenizer(at_step) = 5: only steps 0 to 2 are made; run to step 5 first (goto(5) or run(until=5)).'
    """
    if at_step is None:
        return now
    k = checks.whole(at_step, where, -checks.MAX_ID)
    if not 0 <= k <= hi:
        raise SettingsError(f"{where} = {k}: only steps 0 to {hi:,} are made; "
                            + (f"run to step {k:,} first (goto({k}) or run(until={k}))."
                               if k > hi else "give a step of 0 or more."))
    return k


def _table_name(counts) -> str:
    if isinstance(counts, PretokenTable):
        return getattr(counts, "source", None) or "the count table"
    if isinstance(counts, (str, Path)):
        return str(counts)
    names = [str(p) for p in counts]
    return names[0] if len(names) == 1 else f"the count tables ({', '.join(names)})"


def _check_settings(_, settings) -> None:
    checks.instance(settings, TrainSettings, "settings", "a TrainSettings or None",
                    none_ok=True)


def counting_pretokenizer(settings: TrainSettings) -> Pretokenizer:
    """What cuts the training text into the words counted (``settings.special_text``)."""
    pre = Pretokenizer(settings.pattern, settings.cut_at)
    pre.special_words = settings.special_text == "word"
    return pre


def source_table(source: "str | Path | Sequence[str | Path] | PretokenTable | object",
                 settings: TrainSettings, progress: ProgressFn | None = None,
                 cancel: CancelFn | None = None, *, encoding: str = "utf-8",
                 where: str | None = None, **kw) -> PretokenTable:
    """The pre-token table of a source as :meth:`Trainer.from_source` reads it (text,
    files, an object with ``paths``, or a table, checked against ``settings``); for
    trainers built from a table of their own (``train_on.InheritedTrainer``)."""
    if isinstance(source, PretokenTable):
        check_settings(source.meta, settings, where or _table_name(source))
        return source
    pre = counting_pretokenizer(settings)
    if isinstance(source, str):
        return table_from_text(source, pre, progress=progress, cancel=cancel,
                               lines=settings.lines, **kw)
    paths = cast("str | Path | Sequence[str | Path]", getattr(source, "paths", source))
    encoding = getattr(source, "encoding", None) or encoding
    return table_from_files(paths, pre, progress=progress, cancel=cancel,
                            encoding=encoding, lines=settings.lines, **kw)
