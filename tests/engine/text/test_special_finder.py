"""The C finder of special tokens' text (``_scan.SpecialFinder``, csrc/text/special_find.c)
against ``re`` (one search of the tokens' alternation, longest first: what the default
special-token policy searched with before), on every kind of str storage, every route of
the finder (memchr streams, the pair search, the block masks, a look-up a character) and
the places where its blocks and vectors end; and the policy's functions with either finder.
"""
from __future__ import annotations

import random
import re

import pytest

from bpe_gui.engine.errors import DisallowedSpecialError
from bpe_gui.engine.text import _scan
from bpe_gui.engine.tokenizers import special_policy

CL100K = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
          "<|endofprompt|>"]
LLAMA3 = ["<|begin_of_text|>", "<|end_of_text|>"] + [f"<|reserved_special_token_{i}|>"
                                                     for i in range(250)]
SPM = ["<s>", "</s>", "<unk>", "[INST]", "[/INST]", "[TOOL_CALLS]"]
SETS = [CL100K, LLAMA3, SPM, ["<"], ["<", "<|", "<|a"], ["中文", "文"], ["🙂", "🙂🙂x"],
        ["é<", "ÿÿ", "\ud800x"], ["a", "b", "c", "d", "e", "f"]]
# characters stored in 1, 2 and 4 bytes, and pieces of the tokens above
ALPHABET = ["<", "|", ">", "a", "x", " ", "\n", "<|", "|>", "é", "ÿ", "中", "文", "🙂",
            "\ud800", "[", "]", "/", "s", "INST", "endoftext"]


def regex_span(tokens, text, pos=0):
    rx = re.compile("|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True)))
    m = rx.search(text, pos)
    return None if m is None else m.span()


def widen(text: str, kind: int) -> str:
    """The same characters in a str stored with `kind` bytes each: a character of that
    width put in front."""
    return {1: "", 2: "é中"[1:], 4: "🙂"}[kind] + text


@pytest.mark.parametrize("kind", [1, 2, 4])
@pytest.mark.parametrize("tokens", SETS, ids=lambda s: f"{len(s)}:{s[0]!r}")
def test_every_place_near_block_ends(tokens, kind):
    """A token at every place around the ends of 16-byte vectors and 64-character blocks,
    in every kind of str, with and without a near miss (its first characters) before."""
    finder = _scan.SpecialFinder(tokens)
    for tok in tokens[:3]:
        for at in [0, 1, 2, 14, 15, 16, 17, 30, 31, 32, 33, 62, 63, 64, 65, 66, 127, 128, 129,
                   190, 191, 192, 200]:
            for miss in ("", tok[:-1] if len(tok) > 1 else "q"):
                body = "q" * max(0, at - len(miss)) + miss
                text = widen(body + tok + "q" * 70, kind)
                assert finder.search(text) == regex_span(tokens, text), (tok, at, miss)
                assert finder.search(text[:-70]) == regex_span(tokens, text[:-70])


@pytest.mark.parametrize("seed", range(6))
def test_random_texts_against_re(seed):
    rng = random.Random(seed)
    for _ in range(400):
        tokens = {"".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3)))
                  for _ in range(rng.randint(1, 9))}
        finder = _scan.SpecialFinder(sorted(tokens))
        alphabet = ALPHABET[:rng.randint(4, len(ALPHABET))]
        for _ in range(8):
            text = "".join(rng.choices(alphabet, k=rng.randint(0, 400)))
            pos = rng.randint(0, 70)
            assert finder.search(text, pos) == regex_span(tokens, text, pos), \
                (sorted(tokens), text, pos)


def test_the_leftmost_then_the_longest():
    finder = _scan.SpecialFinder(["<|", "<|a", "|a|", "<|a|b"])
    assert finder.search("x<|a|b") == (1, 6)
    assert finder.search("x<|a|c") == (1, 4)
    assert finder.search("x<|") == (1, 3)
    assert finder.search("x|a|<|") == (1, 4)
    assert finder.search("x|a|<|", 2) == (4, 6)
    assert finder.search("", 0) is None
    assert finder.search("abc", 10) is None


def test_bad_strings_are_refused():
    with pytest.raises(ValueError, match="item 1"):
        _scan.SpecialFinder(["<s>", ""])
    with pytest.raises(ValueError, match="item 0"):
        _scan.SpecialFinder([b"<s>"])
    with pytest.raises(TypeError):
        _scan.SpecialFinder(5)
    assert _scan.SpecialFinder([]).search("anything <s>") is None


@pytest.fixture(params=["native", "re"])
def which_finder(request, monkeypatch):
    """The policy's functions with the C finder, then with the ``re`` one."""
    monkeypatch.setattr(special_policy, "_NATIVE", request.param == "native")
    special_policy.finder.cache_clear()
    yield request.param
    special_policy.finder.cache_clear()


def test_policy_functions_with_either_finder(which_finder):
    f = special_policy.finder(frozenset(CL100K))
    assert type(f).__name__ == ("SpecialFinder" if which_finder == "native" else "_RegexFinder")
    allowed = frozenset(CL100K)
    for text in ("plain text", "中文 🙂", "a <|endoftext|> b", "<|fim_prefix|>", "x<|endoftex"):
        want = regex_span(CL100K, text) is not None
        assert special_policy.holds_any(text, allowed) is want
        if want:
            with pytest.raises(DisallowedSpecialError) as e:
                special_policy.refuse_disallowed(text, allowed)
            assert e.value.token == text[slice(*regex_span(CL100K, text))]
        else:
            special_policy.refuse_disallowed(text, allowed)
    chunks = ["abc <|endof", "text|> d"]
    with pytest.raises(DisallowedSpecialError):
        list(special_policy.Checked(iter(chunks), allowed))
    assert list(special_policy.Checked(iter(["abc", "def"]), allowed)) == ["abc", "def"]
