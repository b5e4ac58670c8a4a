"""What the encode view shows of its text, without Qt: the encoding, the spans its text
is coloured by (models/encoding.py's TokenSpans), the counts line, and how a training
step changes them.

A step does not re-encode: the one merge (or its undo) is applied to the encoding of
the step before (engine ``tokenizers.steps``), for byte-level training run on the
trainer that made the encoding and up to ``MAX_STEP_DELTA`` steps away; anything else
(a new trainer, an imported tokenizer, a far jump, SuperBPE's transition, an edit) is
encoded afresh. After a step the spans of before are kept (``prev``), so that a view
can keep the colours of the lines whose tokens did not change (``same_line``).

Example::

    state = EncodeState()
    state.set_text("low lower")
    state.encode(tok, trainer_view)        # spans, counts, and what steps follow from
    state.follow(tok, trainer_view_now)    # True: the merges since were applied
    state.counts_variants()[0]             # '3 tokens · 9 characters · 9 bytes · ...'
"""
from __future__ import annotations

from typing import Protocol, Sequence

from ...engine.errors import BPEError
from ...engine.tokenizers import (BaseTokenizer, Encoding, apply_merge, char_of_byte,
                                  undo_merge, word_numbers)
from ...engine.train import MergeStep
from .encoding import (PARTIAL, PLAIN, TokenKind, TokenSpans, group_parity, token_kinds,
                       utf16_positions)
from .roles import ReadableCache

MAX_STEP_DELTA = 64        # follow up to this many steps merge by merge, else re-encode
ENCODE_LIMIT = 100_000     # characters encoded and coloured; the rest is left plain
WORDS_PENDING: list[int] = []   # marker: word numbers not worked out yet


class StepsSource(Protocol):
    """What following the steps reads of a training run (controller.trainer_view's
    TrainerView)."""

    @property
    def n_steps(self) -> int: ...
    @property
    def steps(self) -> Sequence[MergeStep]: ...
    def same_pretokenizer(self, j: int, k: int) -> bool: ...


class Marks(Protocol):
    """Which tokens to mark new (controller's train_on Origin)."""

    def new_flags(self, ids: Sequence[int]) -> list[bool]: ...


class EncodeState:
    """The encode view's text and what it shows of it (see the module docstring)."""

    def __init__(self, cache: ReadableCache | None = None):
        self.cache = cache          # (readable texts: a token's kind is known from it)
        self.text = ""              # the whole text, line breaks as "\n"
        self.block_starts = [0]     # the character each line (text block) begins at
        self.encoding = Encoding([], [], [], [])
        self.spans = TokenSpans()
        self.prev: TokenSpans | None = None   # the spans before the last step, same text
        self.marks: Marks | None = None       # what marked tokens new (None: no marks)
        self.error: str | None = None
        self.nbytes = 0
        self.last_mode = ""          # "full" or "step": how the last update was made
        self._shown_text = ""        # the text of the shown encoding
        self._run: StepsSource | None = None   # the run the encoding follows
        self._step = -1
        self._records: list[MergeStep] = []   # its merge records 1..step then
        self._words: list[int] | None = None
        self._cob: list[int] | None = None

    # ----- the text -----------------------------------------------------------------------
    def set_text(self, raw: str) -> None:
        """The text box's text, U+2029 between its lines (QTextDocument.toRawText)."""
        starts, i = [0], raw.find("\u2029")
        while i >= 0:
            starts.append(i + 1)
            i = raw.find("\u2029", i + 1)
        self.block_starts = starts
        self.text = raw.replace("\u2029", "\n")   # (exact_text.py: U+2028 is the text's own)

    @property
    def cut(self) -> bool:
        """Only the first ENCODE_LIMIT characters are encoded."""
        return len(self.text) > ENCODE_LIMIT

    # ----- encoding ---------------------------------------------------------------------
    def encode(self, tok: BaseTokenizer | None, run: StepsSource | None = None,
               marks: Marks | None = None) -> None:
        """Encode the text with ``tok`` afresh. ``run``: the training run whose tokenizer
        ``tok`` is (byte level): later steps of it can follow merge by merge."""
        part = self.text[:ENCODE_LIMIT]   # the window stays responsive with a pasted book
        enc, error = Encoding([], [], [], []), None
        if tok is not None and part:
            try:
                enc = tok.encode_with_offsets(part, allowed_special="all",
                                              add_special_tokens=False)
            except BPEError as e:   # e.g. a character missing from a char-level vocabulary
                error = str(e)
        self.nbytes = len(part.encode("utf-8"))
        self._follows(tok, enc, run if not self.cut else None)
        self._show(enc, error, marks)
        self.last_mode = "full"

    def _follows(self, tok: BaseTokenizer | None, enc: Encoding,
                 run: StepsSource | None) -> None:
        """Note what this encoding follows, so steps can update it merge by merge."""
        self._run, self._words = None, None
        if tok is None or run is None or tok.mode != "byte":
            return
        if sum(map(len, enc.tokens)) != self.nbytes:
            return   # a custom pattern skipped some text: byte positions would not line up
        self._run, self._step, self._records = run, run.n_steps, list(run.steps)
        self._words = WORDS_PENDING   # worked out at the first step: typing need not pay

    def follow(self, tok: BaseTokenizer | None, run: StepsSource | None,
               marks: Marks | None = None) -> bool:
        """Update the encoding for the step ``run`` is at by applying or undoing merges.
        False if it cannot (another run, far, across SuperBPE's transition, the text
        edited since it was encoded): then encode afresh."""
        if (self._words is None or run is None or run is not self._run or tok is None
                or self.text != self._shown_text):
            return False
        k, new_k = self._step, run.n_steps
        if new_k == k or abs(new_k - k) > MAX_STEP_DELTA:
            return False
        if not run.same_pretokenizer(k, new_k):   # SuperBPE's transition: other words
            return False
        common = min(k, new_k)
        if common and run.steps[common - 1].pair != self._records[common - 1].pair:
            return False
        enc, words = self.encoding, self._words
        if words is WORDS_PENDING:
            assert tok.pre is not None   # (a byte-level run's tokenizer has its pattern)
            words = word_numbers([s for s, _e, _sp in tok.pre.spans(self.text)], enc.offsets)
            self._cob = char_of_byte(self.text)
        if new_k > k:
            for rec in run.steps[k:new_k]:
                enc, words = apply_merge(enc, words, rec.pair[0], rec.pair[1], rec.new_id,
                                         rec.token)
        else:
            for rec in reversed(self._records[new_k:k]):
                enc, words = undo_merge(enc, words, rec.new_id, rec.pair[0], rec.pair[1],
                                        rec.left, rec.right, self._cob)
        self._step, self._records, self._words = new_k, list(run.steps), words
        changed = enc is not self.encoding
        if changed:
            self._show(enc, None, marks)
        self.last_mode = "step"
        return True

    def _show(self, enc: Encoding, error: str | None, marks: Marks | None) -> None:
        """Make ``enc`` the shown encoding: its spans (kinds, groups, marks)."""
        same_text = self.text == self._shown_text and bool(self.spans.offsets)
        self.prev = self.spans if same_text else None
        self._shown_text = self.text
        self.encoding, self.error, self.marks = enc, error, marks
        n = len(enc.ids)
        kinds: list[TokenKind]
        if self.text.isascii() and not any(enc.special):
            kinds = [PLAIN] * n   # no token can hold part of a character: fast path
        else:
            kinds = token_kinds(enc, self.cache)
        self.spans = TokenSpans(enc.offsets, kinds, group_parity(enc.offsets, self.block_starts),
                                marks.new_flags(enc.ids) if marks is not None else None,
                                utf16_positions(self.text))

    def forget_spans(self) -> None:
        """The text was edited: the spans no longer match it (until encoded again)."""
        self.spans, self.prev = TokenSpans(u16=self.spans.u16), None

    # ----- what the view draws -----------------------------------------------------------
    def same_line(self, n: int) -> bool:
        """Line ``n`` shows the same tokens, kinds, colours and marks as before the last
        step (its colours can stay)."""
        prev = self.prev
        if prev is None or n >= len(self.block_starts):
            return False
        c0 = self.block_starts[n]
        c1 = self.block_starts[n + 1] if n + 1 < len(self.block_starts) else 1 << 62
        return self.spans.same_between(prev, c0, c1)

    def counts_variants(self) -> list[str]:
        """The counts line, longest first (the view shows the first that fits): never cut
        off mid-number."""
        if self.error:
            return [self.error]
        n = len(self.encoding)
        nbytes = self.nbytes
        ratio = f"{nbytes / n:.2f}" if n else "–"
        partial = self.spans.kinds.count(PARTIAL) if self.spans.kinds else 0
        extra = f" · {partial:,} partial-character tokens" if partial else ""
        chars = min(len(self.text), ENCODE_LIMIT)
        if self.cut:
            extra += f" (first {ENCODE_LIMIT:,} characters only)"
        toks = f"{n:,} token{'' if n == 1 else 's'}"   # ("1 tokens" after a typed word)
        chs = f"{chars:,} character{'' if chars == 1 else 's'}"
        nb = f"{nbytes:,} byte{'' if nbytes == 1 else 's'}"
        return [f"{toks} · {chs} · {nb} · {ratio} bytes/token{extra}",
                f"{toks} · {chars:,} chars · {nb} · {ratio} bytes/token",
                f"{toks} · {ratio} bytes/token", toks]
