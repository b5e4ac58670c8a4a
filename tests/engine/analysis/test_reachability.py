"""Unreachable and undecodable tokens (engine/analysis.py) against independent oracles:
``tiktoken`` built from the same vocabulary for byte-level tokenizers, Hugging Face
``tokenizers`` for tokenizer.json files (normalizers, prefix spaces, added tokens), and
a slow merge loop written here for character-level ones."""
from __future__ import annotations

import json

import pytest

tiktoken = pytest.importorskip("tiktoken")
tokenizers = pytest.importorskip("tokenizers")
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bpe_gui.engine.analysis.reachability import CONTEXTS, KINDS, classify_tokens, method_of  # noqa: E402
from bpe_gui.engine.corpus.counting import Cancelled  # noqa: E402
from bpe_gui.engine.display import unicode_to_bytes  # noqa: E402
from bpe_gui.engine.formats import load_tokenizer, unsupported_reason  # noqa: E402
from bpe_gui.engine.tokenizers.trained import EOW, UNK, Tokenizer  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402
from hf_files import CASES  # noqa: E402

MIXED = ("The quick brown fox jumps over the lazy dog. It's 3:45pm; we'll see... "
         "Привет, мир! 你好世界，这是一个测试。 emoji 🙂👍🏽 def f(x):\n    return x**2\n"
         "  lead\t\ttrail  \n\n<|endoftext|>lowest newest widest 12345 ") * 12


# ----- oracles --------------------------------------------------------------------------
def tiktoken_classes(tok: Tokenizer) -> tuple[dict[str, list[int]], dict[int, tuple]]:
    """Classify with tiktoken built from tok's vocabulary (ranks = ids; of two ids with
    the same bytes the first) and pattern."""
    special = dict(tok.special_ids)
    ranks: dict[bytes, int] = {}
    for i in sorted(tok.vocab):
        if i not in special.values():
            ranks.setdefault(tok.vocab[i], i)
    enc = tiktoken.Encoding("oracle", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=special)
    out: dict[str, list[int]] = {k: [] for k in KINDS}
    again: dict[int, tuple] = {}
    for i in sorted(tok.vocab):
        if i in special.values():
            out["special"].append(i)
            continue
        try:
            text = tok.vocab[i].decode("utf-8")
        except UnicodeDecodeError:
            out["undecodable"].append(i)
            continue
        ids = enc.encode(text, allowed_special="all")
        if ids == [i]:
            out["ok"].append(i)
        else:
            out["unreachable"].append(i)
            again[i] = tuple(ids)
    return out, again


def trained(text: str, **kw) -> Trainer:
    t = Trainer.from_text(text, TrainSettings(**kw))
    t.run()
    return t


# ----- byte level: tiktoken as the oracle --------------------------------------------------
@pytest.mark.parametrize("kw", [
    dict(vocab_size=700),
    dict(vocab_size=700, pattern="cl100k", special_tokens=("<|endoftext|>",)),
    dict(vocab_size=600, pattern="o200k", tie_rule="first-seen"),
    dict(vocab_size=500, pattern="whitespace", special_tokens=("<|endoftext|>", "<s>")),
    dict(vocab_size=650, prune=True, tie_rule="lowest-ids"),
], ids=["gpt2", "cl100k-special", "o200k", "whitespace", "pruned"])
def test_trained_tokenizers_match_tiktoken(kw):
    t = trained(MIXED, **kw)
    for k in (None, 0, 1, 37, min(150, t.n_steps)):   # (a step never made is refused)
        tok = t.tokenizer(at_step=k)
        assert unsupported_reason(tok, "tiktoken") is None   # tiktoken encodes as we do
        want, again = tiktoken_classes(tok)
        r = classify_tokens(tok)
        assert r.method == "text"
        assert r.as_json() == want, k
        assert r.reencoded == again
        assert sum(r.counts().values()) == len(tok.vocab)
        assert [r.kind(i) for i in sorted(tok.vocab)] == \
            [next(c for c in KINDS if i in want[c]) for i in sorted(tok.vocab)]


def test_at_step_only_has_the_tokens_of_its_merges():
    t = trained(MIXED, vocab_size=500)
    r = classify_tokens(t.tokenizer(at_step=20))
    assert sum(r.counts().values()) == 256 + 20
    assert r.kind(256 + 20) is None and r.kind(-1) is None and r.kind(10 ** 6) is None


def handmade() -> Tokenizer:
    """Tokens no trainer makes: 'ing ' across GPT-2's word boundary, a partial character,
    and a second id for b'in' (a duplicate: only the first id is ever produced)."""
    vocab = {i: bytes([i]) for i in range(256)}
    merges = [(b"i", b"n"), (b"in", b"g"), (b"ing", b" "), (b"\xe4", b"\xbd"),
              (b"\xe4\xbd", b"\xa0"), (b" ", b"w"), (b" w", b"in")]
    for k, (a, b) in enumerate(merges):
        vocab[256 + k] = a + b
    vocab[300] = b"in"
    return Tokenizer(vocab, merges, ["<|endoftext|>"])


def test_handmade_tokens_are_classified_as_tiktoken_does():
    tok = handmade()
    r = classify_tokens(tok)
    want, again = tiktoken_classes(tok)
    assert r.as_json() == want and r.reencoded == again
    assert r.reencoded[258] == (257, 32)          # 'ing ' comes back as 'ing' ' '
    assert r.reencoded[300] == (256,)             # the duplicate comes back as the first id
    assert r.kind(259) == "undecodable" and r.kind(260) == r.kind(262) == "ok"
    assert r.kind(301) == "special"


WORDS = st.sampled_from(["low", "lower", "newest", "widest", " the", "the", "it's", "你好",
                         "世界", "🙂", "  ", "\n", "12", "345", "!!", "ab", "ba", "aaa",
                         "<|endoftext|>", "Ж", "é", "e\u0301"])


@settings(max_examples=25, deadline=None)
@given(parts=st.lists(WORDS, min_size=5, max_size=60), merges=st.integers(1, 120),
       pattern=st.sampled_from(["gpt2", "cl100k", "whitespace"]))
def test_random_corpora_match_tiktoken(parts, merges, pattern):
    t = trained(" ".join(parts), num_merges=merges, pattern=pattern,
                special_tokens=("<|endoftext|>",))
    tok = t.tokenizer()
    assume(unsupported_reason(tok, "tiktoken") is None)
    want, again = tiktoken_classes(tok)
    r = classify_tokens(tok)
    assert r.as_json() == want and r.reencoded == again


# ----- tokenizer.json files: Hugging Face tokenizers as the oracle --------------------------
CONTEXT_CASES = {"metaspace-first-fallback", "metaspace-always-split", "metaspace-nfkc",
                 "llama2-prepend-replace", "prepend", "bytelevel-prefix-space-trim",
                 "bytelevel-prefix-space-no-trim", "added-tokens-metaspace",
                 "precompiled-nmt-nfkc", "precompiled-nfkc-cf-collapse",
                 "replace-at-start-metaspace-first"}


def hf_bytes(tk, i: int) -> bytes:
    """The bytes token i stands for, from tokenizers' own vocabulary."""
    s = tk.id_to_token(i)
    added = tk.get_added_tokens_decoder()
    if i in added and not (len(s) == 6 and s.startswith("<0x")):
        return added[i].content.encode("utf-8")
    if len(s) == 6 and s.startswith("<0x") and s.endswith(">"):
        return bytes([int(s[3:5], 16)])          # byte fallback
    if '"ByteLevel"' in json.dumps(json.loads(tk.to_str()).get("pre_tokenizer")):
        table = unicode_to_bytes()
        return bytes(table[c] for c in s)        # GPT-2's byte alphabet
    return s.replace("▁", " ").encode("utf-8")


def hf_classes(tk, context: bool) -> dict[str, list[int]]:
    enc = lambda text: tk.encode(text, add_special_tokens=False).ids  # noqa: E731
    special = {i for i, t in tk.get_added_tokens_decoder().items() if t.special}
    heads = [(c, enc(c)) for c in CONTEXTS]
    out: dict[str, list[int]] = {k: [] for k in KINDS}
    for i in range(tk.get_vocab_size()):
        if i in special:
            out["special"].append(i)
            continue
        try:
            text = hf_bytes(tk, i).decode("utf-8")
        except UnicodeDecodeError:
            out["undecodable"].append(i)
            continue
        ok = enc(text) == [i] or (context and any(enc(c + text) == head + [i]
                                                  for c, head in heads))
        out["ok" if ok else "unreachable"].append(i)
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_tokenizer_json_matches_tokenizers(case, tmp_path):
    tk = CASES[case]()
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    tok = load_tokenizer(path)
    context = case in CONTEXT_CASES
    assert method_of(tok) == ("context" if context else "text")
    r = classify_tokens(tok)
    assert r.as_json() == hf_classes(tk, context)


def test_context_finds_word_inner_tokens_of_metaspace(tmp_path):
    """Without a context every word-inner token of a ▁-tokenizer would be unreachable."""
    tk = CASES["metaspace-first-fallback"]()
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    tok = load_tokenizer(path)
    inner = [i for i, t in tok.vocab.items() if len(t) > 1 and t.isalpha()]
    assert len(inner) > 20
    assert all(tok.encode(tok.vocab[i].decode(), allowed_special="all") != [i] for i in inner)  # alone: ▁ + text
    r = classify_tokens(tok)
    assert all(r.kind(i) == "ok" for i in inner)


# ----- character level: a slow merge loop as the oracle ---------------------------------------
def slow_merge(symbols: list[bytes], merges: list[tuple[bytes, bytes]]) -> list[bytes]:
    """Merges in learned order, each everywhere left to right, without overlaps."""
    for a, b in merges:
        out, k = [], 0
        while k < len(symbols):
            if k + 1 < len(symbols) and symbols[k] == a and symbols[k + 1] == b:
                out.append(a + b)
                k += 2
            else:
                out.append(symbols[k])
                k += 1
        symbols = out
    return symbols


@pytest.mark.parametrize("eow", ["suffix", "prefix"])
def test_character_level_rebuilds_tokens_from_their_symbols(eow):
    t = trained(MIXED.replace("<|endoftext|>", " "), vocab_size=500, mode="char",
                end_of_word=eow, pattern="whitespace" if eow == "suffix" else "gpt2")
    for k in (None, 60):
        tok = t.tokenizer(at_step=k)
        r = classify_tokens(tok)
        assert r.method == "symbols"
        for i, tb in tok.vocab.items():
            if tb == UNK:
                assert r.kind(i) == "special"
                continue
            marked = tb.endswith(EOW) if eow == "suffix" else tb.startswith(EOW)
            body = tb.replace(EOW, b"")
            syms = [c.encode() for c in body.decode()]
            syms = (syms + [EOW] if eow == "suffix" else [EOW] + syms) if marked else syms
            built = slow_merge(syms, tok.merges)
            assert (r.kind(i) == "ok") == (built == [tb]), (i, tb, built)
        # a word-final token rebuilt from its symbols is also what encoding its text gives
        for i in r.ids("ok"):
            tb = tok.vocab[i]
            if eow == "suffix" and tb.endswith(EOW) and len(tb) > len(EOW):
                assert tok.encode(tb[:-len(EOW)].decode(), allowed_special="all") == [i]


# ----- progress and cancel ----------------------------------------------------------------
def test_progress_reaches_the_total_and_cancel_stops(monkeypatch):
    import bpe_gui.engine.analysis.reachability as analysis
    monkeypatch.setattr(analysis, "_BATCH", 100)
    tok = trained(MIXED, vocab_size=700).tokenizer()
    seen = []
    classify_tokens(tok, progress=lambda d, n: seen.append((d, n)))
    assert seen[-1] == (len(tok.vocab), len(tok.vocab))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) == -(-len(tok.vocab) // 100)
    calls = []
    with pytest.raises(Cancelled):
        classify_tokens(tok, cancel=lambda: calls.append(1) or len(calls) > 2)
    assert len(calls) == 3


# ----- classes of a growing trained tokenizer (the vocabulary browser, issue #14) ----------
@pytest.mark.parametrize("kw", [
    dict(vocab_size=700),
    dict(vocab_size=600, pattern="whitespace", special_tokens=("<|endoftext|>",)),
    dict(vocab_size=500, mode="char"),
    dict(vocab_size=650, prune=True, tie_rule="lowest-ids"),
], ids=["gpt2", "whitespace-special", "char", "pruned"])
def test_classes_grow_with_the_steps(kw):
    """Classifying only the new tokens after each run of steps gives what classifying
    the whole tokenizer gives, at every step (tiktoken's classes for byte level)."""
    from bpe_gui.engine.analysis.reachability import classify_more
    t = Trainer.from_text(MIXED, TrainSettings(**kw))
    known = classify_tokens(t.tokenizer())
    for more in (1, 2, 7, 40, 150, 10_000):
        before = len(t.vocab_bytes)
        t.run(until=t.n_steps + more, detail=False)
        tok = t.tokenizer()
        known = classify_more(tok, known, range(before, len(t.vocab_bytes)))
        whole = classify_tokens(tok)
        assert known.as_json() == whole.as_json() and known.reencoded == whole.reencoded
        if kw.get("mode") != "char":
            assert known.as_json() == tiktoken_classes(tok)[0]
    t.goto(10)   # undone steps: the classes of the first ids are still right
    tok = t.tokenizer()
    assert {i: known.kind(i) for i in tok.vocab} == \
        {i: classify_tokens(tok).kind(i) for i in tok.vocab}


def test_copy_for_thread_is_equal_and_independent():
    """The copy classifies (and encodes) as the original does, and goes on encoding
    while the trainer's own tokenizer grows."""
    import threading
    t = Trainer.from_text(MIXED, TrainSettings(vocab_size=600))
    t.run(until=200)
    tok = t.tokenizer()
    twin = tok.copy_for_thread()()
    assert twin is not tok and twin.encode(MIXED, allowed_special="all") == tok.encode(MIXED, allowed_special="all")
    assert classify_tokens(twin).as_json() == classify_tokens(tok).as_json()
    errors, stop = [], threading.Event()

    def encode_there():
        try:
            while not stop.is_set():
                assert twin.encode(MIXED, allowed_special="all") == want
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    want = twin.encode(MIXED, allowed_special="all")
    th = threading.Thread(target=encode_there)
    th.start()
    for _ in range(100):   # the original grows and encodes here meanwhile
        t.step()
        t.tokenizer().encode(MIXED, allowed_special="all")
    stop.set()
    th.join()
    assert not errors
