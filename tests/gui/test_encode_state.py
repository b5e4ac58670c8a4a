"""The encode view's state without a widget (models/encode_state.py) and the spans a text
is coloured by (models/encoding.py's TokenSpans): following a training run merge by
merge gives what encoding afresh gives, at every step, forward and back; the spans'
runs are what a slow per-character rule says.

The run is the engine's own trainer behind the controller's TrainerView (no Qt); the
oracle for each step is the trainer's tokenizer at that step encoding the whole text.
"""
from __future__ import annotations

import random

import pytest

from bpe_gui.engine.train import Trainer, TrainSettings
from bpe_gui.gui.controller.trainer_view import TrainerView
from bpe_gui.gui.models.encode_state import MAX_STEP_DELTA, EncodeState
from bpe_gui.gui.models.encoding import (PARTIAL, PLAIN, SPECIAL, TokenSpans, format_index,
                                         group_parity, token_kinds)

CORPUS = ("low lower lowest newest widest 最新的 新词 low lower\n" * 8 +
          "the widest newer wider 😀😀 naïve\n" * 4)
TEXT = "lowest 新词 widest\nnewer 😀 low-lying 最新的 words\n\nwider"


@pytest.fixture(scope="module")
def run():
    t = Trainer.from_source(CORPUS, TrainSettings(num_merges=80))
    t.goto(80, detail=True)
    t.goto(0)
    return t


def fresh(t: Trainer, text: str):
    return t.tokenizer().encode_with_offsets(text, allowed_special="all",
                                             add_special_tokens=False)


def test_following_steps_is_encoding_afresh_at_each(run):
    view = TrainerView(run)
    state = EncodeState()
    state.set_text(TEXT.replace("\n", "\u2029"))
    state.encode(run.tokenizer(), view)
    assert state.last_mode == "full"
    run.goto(80)
    top = run.n_steps   # (where the corpus runs out of pairs)
    assert top > 40
    rng = random.Random(7)
    ks = [rng.randrange(0, top + 1) for _ in range(40)] + list(range(top, -1, -1))
    for k in ks:
        before = run.n_steps
        run.goto(k)
        if not state.follow(run.tokenizer(), view):
            assert k == before or abs(k - before) > MAX_STEP_DELTA, (before, k)
            state.encode(run.tokenizer(), view)
        want = fresh(run, TEXT)
        enc = state.encoding
        assert (enc.ids, enc.tokens, enc.offsets) == (want.ids, want.tokens, want.offsets), k
        spans = state.spans
        assert list(spans.offsets) == list(want.offsets)
        assert list(spans.kinds) == token_kinds(want)
        lines = state.block_starts
        assert lines == [0] + [i + 1 for i, c in enumerate(TEXT) if c == "\n"]
        assert list(spans.groups) == group_parity(want.offsets, lines)


def test_another_run_or_an_edit_is_encoded_afresh(run):
    run.goto(5)
    state = EncodeState()
    state.set_text("lowest widest")
    state.encode(run.tokenizer(), TrainerView(run))
    run.goto(6)
    assert not state.follow(run.tokenizer(), TrainerView(run))   # another view object
    view = TrainerView(run)
    state.encode(run.tokenizer(), view)
    state.set_text("lowest widest!")            # edited: its encoding no longer matches
    run.goto(7)
    assert not state.follow(run.tokenizer(), view)
    assert not state.follow(run.tokenizer(), None)   # (an imported tokenizer on show)


def test_lines_keep_their_colours_only_where_nothing_changed(run):
    view = TrainerView(run)
    run.goto(0)
    state = EncodeState()
    state.set_text("xyz q\u2029lowest lowest")
    state.encode(run.tokenizer(), view)
    assert state.prev is None   # a new text: nothing to keep
    run.goto(3)
    assert state.follow(run.tokenizer(), view)
    assert state.prev is not None
    assert state.same_line(0)        # no merge of these three steps is in "xyz q"
    assert not state.same_line(1)    # "lo", "ow" ... are


def test_the_counts_line_in_words_of_one_token_and_of_many():
    state = EncodeState()
    state.set_text("a")
    from bpe_gui.engine.tokenizers import Tokenizer
    tok = Tokenizer({i: bytes([i]) for i in range(256)}, [])
    state.encode(tok)
    assert state.counts_variants()[0] == "1 token · 1 character · 1 byte · 1.00 bytes/token"
    state.set_text("é")
    state.encode(tok)
    assert state.counts_variants()[0] == ("2 tokens · 1 character · 2 bytes · 1.00 "
                                          "bytes/token · 2 partial-character tokens")


def slow_runs(spans: TokenSpans) -> list[tuple[int, int, int]]:
    """Each token's span (empty ones drawn in nothing), its format."""
    out = []
    for i, (s, e) in enumerate(spans.offsets):
        if e > s:
            out.append((s, e, format_index(spans.kinds[i],
                                           spans.groups[i] if spans.groups else i % 2,
                                           bool(spans.news and spans.news[i]))))
    return out


def test_runs_are_each_tokens_span_and_format():
    offsets = [(0, 2), (2, 3), (2, 3), (3, 3), (3, 5), (5, 6)]
    kinds = [PLAIN, PARTIAL, PARTIAL, SPECIAL, PLAIN, PLAIN]
    groups = group_parity(offsets)
    for news in (None, [False, True, True, False, True, False]):
        spans = TokenSpans(offsets, kinds, groups, news)
        assert spans.runs(0, 6) == slow_runs(spans)
        assert spans.runs(2, 5) == [(max(s, 2), min(e, 5), f) for s, e, f in slow_runs(spans)
                                    if e > 2 and s < 5]
    assert spans.tokens_at(2) == [1, 2]
    assert format_index(SPECIAL, 1, True) == 4 and format_index(PARTIAL, 1, True) == 8


def test_runs_are_in_document_positions_past_an_emoji():
    # 'a😀b': the emoji takes two positions of the text box's document
    spans = TokenSpans([(0, 1), (1, 2), (2, 3)], [PLAIN] * 3, u16=[0, 1, 3, 4])
    assert spans.runs(0, 4) == [(0, 1, 0), (1, 3, 1), (3, 4, 0)]
    assert spans.runs(3, 4) == [(3, 4, 0)]
    assert spans.char_of_pos(3) == 2 and spans.pos_of_char(2) == 3


def test_utf16_positions_one_home_lone_surrogate():
    """UTF-16 positions have one home (models/encoding.utf16_positions), used by the token
    view and the pages: a character past U+FFFF is two units, a lone surrogate (a str may
    hold one) one unit, as its UTF-16 with surrogatepass gives it; positions map back."""
    from bpe_gui.gui.models.encoding import char_index, doc_position, utf16_positions
    from bpe_gui.gui.panels.encode.pages import chars_before
    import bpe_gui.gui.widgets.token_text as token_text
    assert not hasattr(token_text, "_positions")
    for text in ("a😀b", "x\ud800y", "\udfff😀\ud83d", "你好", "abc"):
        units = [len(text[:i].encode("utf-16-le", "surrogatepass")) // 2
                 for i in range(len(text) + 1)]
        u16 = utf16_positions(text)
        assert (u16 or list(range(len(text) + 1))) == units
        for i, p in enumerate(units):
            assert doc_position(u16, i) == p and char_index(u16, p) == i
            assert chars_before(text, p) == i
        assert chars_before(text, units[-1] + 5) == len(text)
