"""Published patterns run on the native scanner: recognised however they are spelled,
with exactly `regex`'s words; the cl100k and o200k presets are tiktoken's own patterns."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from scan_oracle import corpus_files, corpus_prefix, texts

from bpe_gui.engine import TrainSettings, Trainer
from bpe_gui.engine.text import pretokenize
from bpe_gui.engine.text import pattern_kinds as pk, presets
from bpe_gui.engine.errors import PatternError
from bpe_gui.engine.text.pretokenize import PRESETS, Pretokenizer
from bpe_gui.engine.text.scanner import _scan

pytestmark = pytest.mark.skipif(_scan is None, reason="the _scan extension was not built")
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EDGES = ["a\n ", "a\n\n  b", "\r\n \t", "x \n", "x\n \n", "a\n\n", "  ", "\n 1", "it's 12345 I'LL",
         "a!\n/x", "\u017f'\u017f 9\u0663\u0664\u0665 \u00bd", " !\n\n ", "\t\n x",
         "a//b\r\n//c", "don't 2024/11/23", "\u0301a !\u0301B"]


def tiktoken_patterns() -> dict[str, str]:
    """pat_str of every encoding tiktoken ships, read without its ranks (no network)."""
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    saved = openai_public.load_tiktoken_bpe, openai_public.data_gym_to_mergeable_bpe_ranks
    openai_public.load_tiktoken_bpe = lambda *a, **k: {}
    openai_public.data_gym_to_mergeable_bpe_ranks = lambda *a, **k: {}
    try:
        return {name: make()["pat_str"]
                for name, make in openai_public.ENCODING_CONSTRUCTORS.items()}
    finally:
        openai_public.load_tiktoken_bpe, openai_public.data_gym_to_mergeable_bpe_ranks = saved


# Published spellings: (where it comes from, pattern, the kind it must run as)
PUBLISHED = [
    ("GPT-2 encoder.py / HF ByteLevel",
     r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""", "gpt2"),
    ("openai_public.py's comment",
     r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""", "gpt2"),
    ("the gpt2 preset", presets.GPT2_PATTERN, "gpt2"),
    ("minbpe's GPT-4", presets.MINBPE_GPT4_PATTERN, "llama3"),
    ("Llama 3 (Meta, tokenizer.json)", presets.LLAMA3_PATTERN, "llama3"),
    ("js-tiktoken's cl100k_base",
     r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+"""
     r"""[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""", "llama3"),
    ("Qwen2 tokenizer.json", presets.QWEN2_PATTERN, "qwen2"),
    ("Mistral tekken.json (config.pattern)", presets.TEKKEN_PATTERN, "tekken"),
]


def test_presets_are_tiktokens_patterns():
    published = tiktoken_patterns()
    assert PRESETS["cl100k"] == published["cl100k_base"]
    assert PRESETS["o200k"] == published["o200k_base"]


def test_mistral_commons_tekken_patterns_run_natively():
    """Every tekken.json mistral-common ships: its config.pattern is the tekken kind."""
    mc = pytest.importorskip("mistral_common")
    files = sorted((Path(mc.__file__).parent / "data").glob("tekken_*.json"))
    assert files
    for path in files:
        pattern = json.loads(path.read_bytes())["config"]["pattern"]
        assert pk.scanner_kind(pattern) == "tekken", path.name
        pre = Pretokenizer(pattern)
        assert pre.native is not None and pre.kind == "tekken"
        for text in EDGES:
            assert pre.words(text) == regex.findall(pattern, text), (path.name, text)


def test_every_tiktoken_pattern_runs_natively():
    kinds = {name: pk.scanner_kind(p) for name, p in tiktoken_patterns().items()}
    assert kinds["cl100k_base"] == "cl100k"
    assert kinds["o200k_base"] == "o200k"
    assert kinds["r50k_base"] == kinds["p50k_base"] == kinds["gpt2"] == "gpt2"
    for name, pattern in tiktoken_patterns().items():
        assert Pretokenizer(pattern).native is not None, name


@pytest.mark.parametrize("where,pattern,kind", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_spellings_are_recognised(where, pattern, kind):
    assert pk.scanner_kind(pattern) == kind
    pre = Pretokenizer(pattern)
    assert pre.native is not None and pre.kind == kind
    for text in EDGES:
        assert pre.words(text) == regex.findall(pattern, text), (where, text)


def all_published() -> list[tuple[str, str]]:
    return [(f"tiktoken {n}", p) for n, p in tiktoken_patterns().items()] + \
        [(w, p) for w, p, _ in PUBLISHED]


@FAST
@given(text=texts(16))
def test_published_spellings_cut_like_regex(text):
    for where, pattern in all_published():
        assert Pretokenizer(pattern).words(text) == regex.findall(pattern, text), where


def test_published_spellings_cut_real_text_like_regex(corpora_dir):
    for path in corpus_files(corpora_dir):
        text = corpus_prefix(path, 150_000)
        for where, pattern in all_published():
            assert Pretokenizer(pattern).words(text) == regex.findall(pattern, text), \
                (where, path.name)


def spellings_of(kind: str, rng: random.Random, n: int) -> list[str]:
    """n random patterns that scanner_kind accepts as `kind` (every place's spellings)."""
    contractions = [k for k, v in pk._CONTRACTIONS.items() if v in ("C", "Ci")]
    out = []
    for _ in range(n):
        slots = rng.choice(pk._SHAPES[kind])
        alts = [rng.choice(sorted(s)) for s in slots]
        if alts[0] in ("C", "Ci"):
            alts[0] = rng.choice([k for k in contractions if pk._CONTRACTIONS[k] == alts[0]])
        out.append("|".join(alts))
    return out


@pytest.mark.parametrize("kind", presets.KINDS)
def test_every_accepted_spelling_matches_like_the_kind(kind):
    """The argument of pattern_kinds.py checked: random combinations of the accepted
    spellings of each place cut like the kind's own pattern."""
    rng = random.Random(kind)
    sample = [t for t in EDGES] + [
        "".join(rng.choice(["a", "B", " ", "\n", "\r", "\t", "'s", "'LL", "1", "234567", "!",
                            "/", "\u0301", "\u4e2d", "  ", " \n "]) for _ in range(30))
        for _ in range(300)]
    for pattern in spellings_of(kind, rng, 40):
        assert pk.scanner_kind(pattern) == kind, pattern
        compiled = regex.compile(pattern)
        for text in sample:
            assert compiled.findall(text) == regex.findall(presets.KIND_PATTERNS[kind], text), \
                (pattern, text)


@pytest.mark.parametrize("pattern", [
    presets.CL100K_PATTERN.replace(r"\s*[\r\n]", r"\s*+[\r\n]"),   # a possessive that must give back
    presets.CL100K_PATTERN.replace(r"\s+(?!\S)", r"\s++(?!\S)"),
    presets.LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}{1,2}"),
    presets.LLAMA3_PATTERN.replace(r"(?i:", "(?:"),                 # case-sensitive contractions
    presets.GPT2_PATTERN.replace(r" ?\p{L}+| ?\p{N}+", r" ?\p{N}+| ?\p{L}+"),
    presets.O200K_PATTERN.replace(r"\p{Lo}", r"\p{Lu}", 1),
    presets.TEKKEN_PATTERN.replace(r"\p{N}|", r"\p{N}{1,3}|"),     # tekken's letters, o200k's digits
    presets.TEKKEN_PATTERN.replace(r"[\r\n/]*", r"[\r\n]*"),
    presets.TEKKEN_PATTERN.replace(r"[^\r\n\p{L}\p{N}]?", r"[^\r\n\p{L}\p{N}]?+", 1),  # no retry
    presets.GPT2_PATTERN + "|x", presets.GPT2_PATTERN[:-4], r"\S+|\s+", "(" + presets.GPT2_PATTERN + ")",
])
def test_near_misses_are_not_recognised(pattern):
    assert pk.scanner_kind(pattern) is None
    assert Pretokenizer(pattern).native is None


def test_split_alternatives_respects_groups_and_classes():
    assert pk.split_alternatives(r"a|(b|c)|[|]|\||[]|]|[^]|]") == \
        ["a", "(b|c)", "[|]", r"\|", "[]|]", "[^]|]"]


# ---------------------------------------------------------------- regressions


@pytest.mark.regression
def test_spans_runaway_pattern_raises_pattern_error(monkeypatch):
    """finditer is lazy: its TimeoutError escaped _run as a bare TimeoutError."""
    monkeypatch.setattr(pretokenize, "CUSTOM_TIMEOUT_S", 0.05)
    pre = Pretokenizer(r"(.*){1,32000}[bc]")
    with pytest.raises(PatternError, match="ran for more than"):
        list(pre.spans("a" * 40))


@pytest.mark.regression
def test_custom_pattern_with_capture_groups_gives_whole_words():
    """regex.findall returns the groups of a pattern with capture groups, so training and
    encode saw 'h', 'w' for 'hello world' while spans() and offsets saw whole words."""
    pre = Pretokenizer(r"(\w)\w*|\s+")
    assert pre.words("hello world") == ["hello", " ", "world"]
    t = Trainer.from_text("hello world hello", TrainSettings(num_merges=3, pattern=r"(\w)\w*|\s+"))
    assert sorted(t.table.words) == [" ", "hello", "world"]
    tok = t.tokenizer()
    assert tok.decode(tok.encode("hello world", allowed_special="all")) == "hello world"
    assert tok.encode("hello world", allowed_special="all") == tok.encode_with_offsets("hello world", allowed_special="all").ids
