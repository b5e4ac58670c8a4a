"""Word playback keeps what each step changed, not the whole word at every step (a long
word with many merges held len x merges symbols): the steps' symbols and ids are replayed
from the start, and equal the old way's, a loop written here that keeps every step whole."""
from __future__ import annotations

import dataclasses
import random

import pytest

from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.engine.train.trainer import TrainSettings, Trainer

tiktoken = pytest.importorskip("tiktoken")

RNG = random.Random(96)
LONG = "".join(RNG.choices("abcdefgh", k=1000))   # PLAYBACK_MAX characters, one word


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    """A trained tokenizer (every place of a merge at once) and its .tiktoken file (one
    place at a time), with many merges inside LONG."""
    t = Trainer.from_text(LONG + " " + LONG[::-1] + " lowest newest widest",
                          TrainSettings(vocab_size=900, pattern=r"\S+|\s+"))
    t.run()
    d = tmp_path_factory.mktemp("pb")
    export_tokenizer(t.tokenizer(), d, "tiktoken")
    return {"trained": t.tokenizer(), "tiktoken": load_tokenizer(d / "tokenizer.tiktoken")}


def old_playback(model, word: str) -> list[tuple]:
    """The old loop: (rank, pair, token, at, symbols, ids) of every step, whole."""
    tok, ids, out = model.token, list(model.start(word)), []
    while len(ids) > 1:
        ranked = [(model.rank(a, b), k) for k, (a, b) in enumerate(zip(ids, ids[1:]))]
        ranked = [(r, k) for r, k in ranked if r is not None]
        if not ranked:
            break
        (r, new), k = min(ranked, key=lambda x: (x[0][0], x[1]))
        at, i = [], k
        while i < len(ids) - 1 and (not model.sequential or not at):
            if (model.rank(ids[i], ids[i + 1]) or (None,))[0] == r:
                at.append(i)
                i += 2
            else:
                i += 1
        pair = (tok(ids[k]), tok(ids[k + 1]))
        for p in reversed(at):
            ids[p:p + 2] = [new]
        prev = out[-1] if out else None
        if model.sequential and prev and prev[0] == r and prev[1] == pair and \
                k + len(prev[3]) >= prev[3][-1] + 2:   # the same merge further right
            out[-1] = (r, pair, prev[2], prev[3] + (k + len(prev[3]),),
                       tuple(map(tok, ids)), tuple(ids))
            continue
        out.append((r, pair, tok(new), tuple(at), tuple(map(tok, ids)), tuple(ids)))
    return out


def stored(value) -> int:
    """Symbols and ids a value holds (a step's own fields; not the playback it is in)."""
    if isinstance(value, tuple):
        return sum(map(stored, value))
    if dataclasses.is_dataclass(value):
        return sum(stored(getattr(value, f.name)) for f in dataclasses.fields(value)
                   if f.name not in ("of", "k"))
    return 1


@pytest.mark.parametrize("name, word", [("trained", LONG), ("tiktoken", LONG[::-1][:300]),
                                        ("trained", "widestlow"), ("tiktoken", "widestlow")],
                         ids=["trained-1000", "tiktoken-300", "trained-9", "tiktoken-9"])
def test_steps_equal_the_old_way_and_hold_what_changed(kinds, name, word):
    tok = kinds[name]
    pb = tok.playback(word)
    want = old_playback(tok.model, word)
    got = [(s.rank, s.pair, s.token, s.at, s.symbols, s.ids) for s in pb.steps]
    assert got == want
    assert [pb.symbols_at(k) for k in range(len(want) + 1)] == \
        [pb.symbols] + [w[4] for w in want]
    assert list(pb.final_ids) == tok.encode(word)
    held = sum(map(stored, pb.steps))
    assert held <= 8 * len(word), (held, len(pb.steps))   # whole steps: 2 x len x merges
    assert len(pb.steps) > (300 if word == LONG else 50 if len(word) == 300 else 2)


def test_a_word_in_pieces_replays_each_piece_in_turn(kinds):
    """A word the pattern cuts (joined pieces): later pieces wait at their start."""
    tok = kinds["trained"]
    words = ["lowest", " ", "newest", " ", "widest"]
    pb = tok.playback("".join(words))
    want, done = [], ()
    for n, w in enumerate(words):
        rest = tuple(tok.model.token(i) for v in words[n + 1:] for i in tok.model.start(v))
        want += [done + s[4] + rest for s in old_playback(tok.model, w)]
        done += tuple(tok.model.token(i) for i in tok.model.merge(w))
    assert [s.symbols for s in pb.steps] == want


def test_a_state_asked_again_is_not_replayed_and_few_are_kept(kinds, monkeypatch):
    """A table repaints its rows and asks each step's symbols again: the last RECENT
    states are kept, so a repaint replays none, and a long word keeps only those."""
    from bpe_gui.engine.tokenizers import model
    pb = kinds["trained"].playback(LONG)
    replays = []
    real = model.Playback._rebuilt
    monkeypatch.setattr(model.Playback, "_rebuilt",
                        lambda self, k: replays.append(k) or real(self, k))
    rows = range(len(pb.steps) - 20, len(pb.steps))   # steps[k] is step k + 1
    first = [pb.steps[k].symbols for k in rows]
    assert replays == [k + 1 for k in rows]
    again = [pb.steps[k].symbols for k in rows]
    ids = [pb.steps[k].ids for k in rows]
    assert replays == [k + 1 for k in rows]   # the repaint and the ids: no replay
    assert again == first and ids == [pb.ids_at(k + 1) for k in rows]
    for k in range(len(pb.steps) + 1):
        pb.symbols_at(k)
    assert len(pb._recent) == model.RECENT < len(pb.steps)
