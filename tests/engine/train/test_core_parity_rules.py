"""What parity-aware training asks of the training core, on the C core and on its
pure-Python twin: the tie rule of tokenizers' ParityBpeTrainer (GREATEST_HF: the greatest
pair of GPT-2 byte-level spellings), checked step by step against a slow recount here,
and a merge into a token made before (HF keeps a token's id when a second pair makes
it), with its undo."""
from __future__ import annotations

import random
from array import array

import pytest

from bpe_gui.engine.train import _pycore

from engine_oracle import gpt2_chars

_core = pytest.importorskip("bpe_gui.engine.train._core")
MODS = pytest.mark.parametrize("mod", [_core, _pycore], ids=["C", "pure"])


CHARS = gpt2_chars()


def spell(tok: bytes) -> str:
    return "".join(CHARS[b] for b in tok)


def core_of(mod, words, freqs, tokens):
    symbols, starts = array("i"), array("q", [0])
    for w in words:
        symbols.extend(w)
        starts.append(len(symbols))
    return mod.Core(symbols, starts, array("q", freqs), tokens, mod.GREATEST_HF)


def naive_best(words, freqs, tokens):
    """The most frequent pair, ties to the greatest (spelling of a, spelling of b)."""
    counts: dict[tuple[int, int], int] = {}
    for w, f in zip(words, freqs):
        for p in zip(w, w[1:]):
            counts[p] = counts.get(p, 0) + f
    if not counts:
        return None
    a, b = max(counts, key=lambda p: (counts[p], spell(tokens[p[0]]), spell(tokens[p[1]])))
    return a, b, counts[(a, b)]


def naive_merge(words, a, b, new):
    out = []
    for w in words:
        m, i = [], 0
        while i < len(w):
            if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                m.append(new)
                i += 2
            else:
                m.append(w[i])
                i += 1
        out.append(m)
    return out


@MODS
def test_ties_go_to_the_greatest_gpt2_spelling(mod):
    """Random words over bytes whose GPT-2 characters sort otherwise than the bytes (a
    space is 'Ġ' = U+0120, after every letter; 0xAD is U+0143): every step is the
    recount's pick, then undoing all of them gives the words back."""
    rng = random.Random(7)
    alphabet = [0x20, 0x0A, ord("a"), ord("b"), ord("z"), 0xAD, 0xE4, 0xFF]
    for _ in range(12 if mod is _pycore else 60):
        words = [[rng.choice(alphabet) for _ in range(rng.randint(1, 7))]
                 for _ in range(rng.randint(1, 8))]
        freqs = [rng.choice([1, 1, 2, 3]) for _ in words]
        tokens = [bytes([i]) for i in range(256)]
        core = core_of(mod, words, freqs, tokens)
        ref, steps = [list(w) for w in words], 0
        while True:
            want = naive_best(ref, freqs, tokens)
            got = core.step()
            if want is None:
                assert got is None
                break
            a, b, count = want
            assert got == (a, b, len(tokens), count)
            ref = naive_merge(ref, a, b, len(tokens))
            tokens.append(tokens[a] + tokens[b])
            steps += 1
        assert [core.word(i) for i in range(len(words))] == ref
        for _ in range(steps):
            core.undo()
        assert [core.word(i) for i in range(len(words))] == words


@MODS
def test_a_pair_makes_a_token_made_before(mod):
    """Words 'a'+'bc' and 'ab'+'c' (tokens 'ab' and 'bc' given): (a, bc) makes 'abc',
    then (ab, c) into it keeps its id; the counts are the recount's; the first undo
    keeps the token, the second removes it."""
    tokens = [bytes([i]) for i in range(256)] + [b"ab", b"bc"]
    a, c = ord("a"), ord("c")
    words = [[a, 257, a], [256, c, 256, c], [a, 257]]
    freqs = [2, 3, 1]
    core = core_of(mod, words, freqs, tokens)
    new, count = core.merge(a, 257)
    assert (new, count) == (258, 3) and core.n_tokens == 259
    again, count2 = core.merge(256, c, 258)
    assert (again, count2) == (258, 6) and core.n_tokens == 259
    want = naive_merge(naive_merge(words, a, 257, 258), 256, c, 258)
    assert [core.word(i) for i in range(3)] == want == [[258, a], [258, 258], [258]]
    assert core.symbol_count(258) == 2 + 6 + 1 and core.pair_count(258, 258) == 3
    assert core.pair_count(258, a) == 2 and core.total_symbols == 4 + 6 + 1
    if mod is _core:
        assert core._check() is None
    assert core.undo() == (256, c, 258)
    assert core.n_tokens == 259 and core.token(258) == b"abc"
    assert [core.word(i) for i in range(3)] == [[258, a], [256, c, 256, c], [258]]
    core.undo()
    assert core.n_tokens == 258 and [core.word(i) for i in range(3)] == words


@MODS
def test_a_merge_into_another_token_is_refused(mod):
    tokens = [bytes([i]) for i in range(256)] + [b"ab"]
    core = core_of(mod, [[ord("a"), ord("b"), ord("c")]], [1], tokens)
    with pytest.raises(ValueError, match="not token 97's bytes then token 99's"):
        core.merge(ord("a"), ord("c"), 256)
    with pytest.raises(ValueError, match="out of range"):
        core.merge(ord("a"), ord("b"), 999)
    assert core.n_steps == 0
