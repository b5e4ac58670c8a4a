"""Encoding step by step (issue 15): pattern branches and per-word merge playback.

Oracles written here: each alternative of the pattern matched alone with `regex` (the
first that matches at a word's start must be the word's branch and give its end), and
a slow merge reference that finds the lowest-rank pair from the merge list itself.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, example, given, settings, strategies as st

from bpe_gui.engine import Tokenizer, TrainSettings, Trainer
from bpe_gui.engine.text.branches import BranchMatcher, pattern_branches, split_alternatives
from bpe_gui.engine.display import gpt2_text
from bpe_gui.engine.tokenizers.explain import playback, safe_end, safe_start, word_spans
from bpe_gui.engine.text.pretokenize import PRESETS, Pretokenizer

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "resources" / "samples"
EOT = "<|endoftext|>"
FAST = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# The presets' alternatives, written out by hand (not from the splitter under test).
HAND_SPLIT = {
    "gpt2": [r"'(?:[sdmt]|ll|ve|re)", r" ?\p{L}+", r" ?\p{N}+", r" ?[^\s\p{L}\p{N}]+",
             r"\s+(?!\S)", r"\s+"],
    "cl100k": [r"'(?i:[sdmt]|ll|ve|re)", r"[^\r\n\p{L}\p{N}]?+\p{L}++", r"\p{N}{1,3}+",
               r" ?[^\s\p{L}\p{N}]++[\r\n]*+", r"\s++$", r"\s*[\r\n]", r"\s+(?!\S)", r"\s"],
    "o200k": [r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
              r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
              r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
              r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
              r"\p{N}{1,3}", r" ?[^\s\p{L}\p{N}]+[\r\n/]*", r"\s*[\r\n]+", r"\s+(?!\S)", r"\s+"],
    "whitespace": [r"\S+", r"\s+"],
    "cjk": [r"'(?:[sdmt]|ll|ve|re)", r" ?\p{Han}", r" ?[^\P{L}\p{Han}]+", r" ?\p{N}+",
            r" ?[^\s\p{L}\p{N}]+", r"\s+(?!\S)", r"\s+"],
}
# Custom patterns: nested groups, classes holding |, escapes, a numbered back-reference
# (matched without the wrapping groups), capture groups, a look-behind.
CUSTOM = {
    "nested": [r"(?:a(?:b|c)|d)+", r"[|x]+", r"\|", r"\p{L}+", r"\s+", r"."],
    "backref": [r"(\p{L})\1+", r"\p{L}", r"[^\p{L}]"],
    "groups": [r"(\p{Lu})(\p{Ll}*)", r"(\p{Ll}+)", r"(\s)", r"(\S)"],
    "lookbehind": [r"(?<=\d)\p{L}+", r"\p{L}+", r"\d", r"\s+", r"[^\s\p{L}\d]+"],
}


def corpus() -> str:
    return (SAMPLES / "en-paragraphs.txt").read_text("utf-8")[:20_000] + EOT + \
        (SAMPLES / "zh-en.txt").read_text("utf-8")


@pytest.fixture(scope="module")
def tokenizers() -> dict[tuple[str, str], Tokenizer]:
    """A trained tokenizer per (preset, mode), with the special token."""
    out = {}
    text = corpus()
    for preset in PRESETS:
        for mode in ("byte", "char"):
            if mode == "char" and preset not in ("gpt2", "whitespace"):
                continue
            t = Trainer.from_text(text, TrainSettings(vocab_size=700, pattern=preset, mode=mode,
                                                      special_tokens=(EOT,)))
            t.run() if hasattr(t, "run") else None
            t.goto(t.target_steps or 400)
            out[preset, mode] = t.tokenizer()
    return out


texts = st.lists(st.one_of(
    st.text(alphabet="ab cA'sdtlv1234567890!?.,\n\t  你好世界éÉ😀-/()\r", max_size=25),
    st.sampled_from([EOT, "it's", "We'LL", "CamelCase", " 12345", "  x", "\n\n y", "a  \n b",
                     "HTTPServer", "(word", "你好 world"]),
    st.text(max_size=8)), max_size=10).map("".join)


# ----- splitting ----------------------------------------------------------------------------
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_preset_alternatives_are_the_hand_split_ones(preset):
    assert split_alternatives(PRESETS[preset]) == HAND_SPLIT[preset]
    assert [b.source for b in pattern_branches(preset)] == HAND_SPLIT[preset]


@pytest.mark.parametrize("pattern,alts", [
    (r"(?:a|b)|[|]|\||c", [r"(?:a|b)", r"[|]", r"\|", "c"]),
    (r"[]|]+|[^]|x]|(a(b|(c|d)))|e", [r"[]|]+", r"[^]|x]", r"(a(b|(c|d)))", "e"]),
    (r"(?#x|y)z|[[:alpha:]|]|\x7c", [r"(?#x|y)z", r"[[:alpha:]|]", r"\x7c"]),
    (r"(?i)ab|cd", ["ab", "cd"]),
    ("(?x) a b  # one | two\n | c", [" a b  # one | two\n ", " c"]),
    (r"(?V1)[[a-z]--[aeiou|]]+|\d", [r"[[a-z]--[aeiou|]]+", r"\d"]),
    (r"\\|\\\|", [r"\\", r"\\\|"]),
])
def test_split_alternatives_respects_groups_classes_escapes(pattern, alts):
    assert split_alternatives(pattern) == alts
    flags = pattern[:len(pattern) - len("|".join(alts))]
    for a in alts:
        regex.compile(flags + a)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_branch_has_a_name_and_plain_words(preset):
    names = [b.name for b in pattern_branches(preset)]
    assert all(names) and all(len(b.about) > 20 for b in pattern_branches(preset))
    assert len(set(names)) == len(names)


# ----- branches against each alternative alone ----------------------------------------------
def first_alternative(alts: list[str], piece: str, start: int) -> tuple[int, int]:
    """The oracle: (index, end) of the first alternative that matches alone at start."""
    for k, a in enumerate(alts):
        m = regex.compile(a).match(piece, start)
        if m is not None:
            return k, m.end()
    raise AssertionError(f"no alternative matches at {start} in {piece!r}")


def check_branches(pattern: str, alts: list[str], text: str) -> None:
    pre = Pretokenizer(pattern, [EOT])
    spans = word_spans(pre, BranchMatcher(pattern), text)
    expected = []
    for piece in pre.pieces(text):
        if piece.special:
            expected.append((piece.start, piece.start + len(piece.text), -1))
            continue
        for m in regex.finditer(pattern, piece.text):
            if m.end() > m.start():
                k, end = first_alternative(alts, piece.text, m.start())
                assert end == m.end()
                expected.append((piece.start + m.start(), piece.start + m.end(), k))
    assert spans == expected


@FAST
@given(text=texts, preset=st.sampled_from(sorted(PRESETS)))
def test_branch_of_each_word_is_the_first_alternative_matching_alone(text, preset):
    check_branches(PRESETS[preset], HAND_SPLIT[preset], text)


@FAST
@given(text=texts, name=st.sampled_from(sorted(CUSTOM)))
def test_branches_of_custom_patterns(text, name):
    check_branches("|".join(CUSTOM[name]), CUSTOM[name], text)


@FAST
@given(text=texts, preset=st.sampled_from(sorted(PRESETS)),
       cut=st.tuples(st.integers(0, 300), st.integers(0, 300)))
@example(text="/\r/", preset="o200k", cut=(2, 2))   # o200k joins "/", a break and "/"
def test_a_window_between_safe_line_starts_finds_the_same_words(text, preset, cut):
    text = text.replace("\r", "\n")
    lo, hi = min(cut), max(cut)
    a, z = safe_start(text, min(lo, len(text))), safe_end(text, min(hi, len(text)))
    pre, matcher = Pretokenizer(preset, [EOT]), BranchMatcher(preset)
    whole = word_spans(pre, matcher, text)
    assert word_spans(pre, matcher, text, a, z) == [w for w in whole if a <= w[0] < z]


# ----- merge playback against a slow reference --------------------------------------------
def slow_rank(merges: list[tuple[bytes, bytes]], n: int, a: bytes, b: bytes) -> int | None:
    for r in range(n):
        if merges[r] == (a, b):
            return r
    return None


def slow_merge(symbols: list[bytes], pair: tuple[bytes, bytes]) -> list[bytes]:
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def check_playback(tok: Tokenizer, pb) -> None:
    merges, n = tok.merges, tok.n_merges
    symbols = list(pb.symbols)
    if tok.mode == "byte":
        assert b"".join(symbols) == pb.word.encode("utf-8") and all(len(s) == 1 for s in symbols)
    last = -1
    for step in pb.steps:
        ranked = [(r, (a, b)) for a, b in zip(symbols, symbols[1:])
                  if (r := slow_rank(merges, n, a, b)) is not None]
        assert ranked, "a step although no learned merge applies"
        rank, pair = min(ranked)
        assert (step.rank, step.pair) == (rank, pair)
        assert rank > last
        last = rank
        symbols = slow_merge(symbols, pair)
        assert list(step.symbols) == symbols
        assert [tok.vocab[i] for i in step.ids] == symbols
    assert not any(slow_rank(merges, n, a, b) is not None for a, b in zip(symbols, symbols[1:]))


@FAST
@given(text=texts, which=st.sampled_from([("gpt2", "byte"), ("cl100k", "byte"), ("o200k", "byte"),
                                          ("cjk", "byte"), ("whitespace", "byte"),
                                          ("gpt2", "char"), ("whitespace", "char")]),
       step=st.integers(0, 700))
def test_playback_ends_in_encode_and_merges_lowest_rank_first(tokenizers, text, which, step):
    tok = tokenizers[which].at_step(step)
    if tok.mode == "char":
        text = "".join(c for c in text if c.encode() in tok.bytes_to_id or c.isspace())
    ex = tok.explain(text)
    assert ex.ids == tok.encode(text, allowed_special="all")
    assert ex.n_merges == tok.n_merges == min(step, len(tokenizers[which].merges))
    for w in ex.words:
        assert w.text == text[w.start:w.end]
        if w.special:
            assert w.ids == (tok.special_ids[EOT],)
        else:
            check_playback(tok, w.playback)


def test_worked_example_reads_as_the_docstring_says():
    import doctest
    import bpe_gui.engine.text.branches
    import bpe_gui.engine.tokenizers.explain
    for mod in (bpe_gui.engine.tokenizers.explain, bpe_gui.engine.text.branches):
        assert doctest.testmod(mod).failed == 0


def test_playback_overlapping_pair_merges_left_to_right():
    merges = [(b"a", b"a")]
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa"}
    pb = playback(Tokenizer(vocab, merges), "aaaaa")
    assert [s.symbols for s in pb.steps] == [(b"aa", b"aa", b"a")]
    assert pb.steps[0].at == (0, 2) and pb.steps[0].new_positions() == (0, 1)


def test_partial_utf8_symbols_in_a_playback():
    tok = Tokenizer({i: bytes([i]) for i in range(256)} | {256: "你".encode()[:2]},
                    [("你".encode()[:1], "你".encode()[1:2])])
    pb = playback(tok, "你")
    assert pb.steps[0].symbols == ("你".encode()[:2], "你".encode()[2:])


def test_ignore_merges_shows_the_whole_word_rule_first(tmp_path):
    """An imported Hugging Face tokenizer with ignore_merges (issue 11): a word that is a
    token becomes that token at once; the playback says so as its only step. (It used to
    be tested on a trained Tokenizer given an ignore_merges attribute its encode never
    read; now the real kind, checked against ``tokenizers``.)"""
    tokenizers = pytest.importorskip("tokenizers")
    from bpe_gui.engine.formats import load_tokenizer
    vocab = {"a": 0, "b": 1, "c": 2, "d": 3, "ab": 4, "abc": 5, "abcd": 6}
    for ignore in (False, True):
        hf = tokenizers.Tokenizer(tokenizers.models.BPE(
            vocab, [("a", "b"), ("ab", "c")], ignore_merges=ignore))
        hf.pre_tokenizer = tokenizers.pre_tokenizers.Split(" ", behavior="removed")
        hf.save(str(tmp_path / "t.json"))
        tok = load_tokenizer(tmp_path / "t.json")
        pb = playback(tok, "abcd")
        assert list(pb.final_ids) == hf.encode("abcd").ids == tok.encode("abcd", allowed_special="all")
        if not ignore:
            assert [s.rank for s in pb.steps] == [0, 1]
            continue
        assert [(s.rank, s.symbols, s.ids) for s in pb.steps] == [(None, (b"abcd",), (6,))]
        assert "ignore_merges" in pb.steps[0].rule
        assert [s.rank for s in playback(tok, "abab").steps] == [0]   # not a token: merges


# ----- why a word ended ----------------------------------------------------------------------
def reasons(pattern: str, text: str) -> dict[str, str]:
    tok = Tokenizer({i: bytes([i]) for i in range(256)}, [], [EOT], pattern=pattern)
    return {w.text: w.reason for w in tok.explain(text).words}


def test_reasons_name_the_character_and_the_next_rule():
    r = reasons("gpt2", f"world's  42{EOT}x")
    assert "apostrophe" in r["world"] and "contraction" in r["world"]
    assert "leads the next word" in r[" "] and "·42" in r[" "]
    assert "special token" in r[" 42"]
    assert r["x"] == "It ends where the text ends."
    assert "never split" in r[EOT]
    r = reasons("cl100k", "1234567")
    assert r["123"].startswith("At most three digits") and "“456”" in r["123"]
    assert reasons("cjk", "你好")["你"].startswith("One Han character per word")


def test_text_no_rule_matches_is_named_in_the_reason():
    r = reasons(r"\p{L}+", "ab, cd")
    assert "no rule of the pattern matches" in r["ab"] and "“,·”" in r["ab"]


# ----- imported GPT-2 style files -----------------------------------------------------------
def test_gpt2_files_play_back_unbelievable(tmp_path):
    """GPT-2's own layout: ids follow the byte-to-unicode alphabet, merges.txt lists the
    merges by rank. The merges of ' unbelievable' in GPT-2's own rank order."""
    chain = [(b"l", b"e"), (b" ", b"u"), (b"a", b"b"), (b"e", b"l"), (b"i", b"e"),
             (b"ab", b"le"), (b" u", b"n"), (b"b", b"el"), (b"ie", b"v"), (b" un", b"bel"),
             (b" unbel", b"iev"), (b" unbeliev", b"able")]
    merges = [(b"t", b"h"), (b"th", b"e")] + chain + [(b"v", b"a")]
    alphabet = [gpt2_text(bytes([b])) for b in range(256)]
    order = sorted(range(256), key=lambda b: ord(alphabet[b]))   # GPT-2's id order
    vocab = {alphabet[b]: i for i, b in enumerate(order)}
    for a, b in merges:
        vocab[gpt2_text(a + b)] = len(vocab)
    (tmp_path / "vocab.json").write_text(json.dumps(vocab), "utf-8")
    (tmp_path / "merges.txt").write_text(
        "#version: 0.2\n" + "".join(f"{gpt2_text(a)} {gpt2_text(b)}\n" for a, b in merges),
        "utf-8")
    tok = Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")
    pb = tok.explain(" unbelievable").words[0].playback
    assert [s.pair for s in pb.steps] == chain
    assert [s.rank for s in pb.steps] == list(range(2, 2 + len(chain)))
    assert pb.final_symbols == (b" unbelievable",)
    assert pb.final_ids == (vocab[gpt2_text(b" unbelievable")],) == tuple(tok.encode(" unbelievable", allowed_special="all"))
    check_playback(tok, pb)
