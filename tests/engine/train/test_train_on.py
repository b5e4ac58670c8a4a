"""Training on from an existing tokenizer, against the slow reference of continue_oracle.py:
the inherited merges and ids stay as they are, and the new merges equal training the
reference from the source's segmentation of the new corpus; exports round-trip through
tokenizers/tiktoken with the same ids as the engine."""
from __future__ import annotations

import base64
import json

import pytest

from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.engine.train import TRAIN_ON, TrainingSpec, build_run, train_on
from bpe_gui.engine.train.trainer import TrainSettings, Trainer

from continue_oracle import gpt2_words, ref_encode, ref_train, sample_text

RULES = ("greatest", "first-seen", "lowest-ids")
EOT = "<|endoftext|>"
OLD_TEXT = sample_text(1, 300) + EOT + sample_text(2, 100)
NEW_TEXT = sample_text(3, 200, "zh") + sample_text(4, 150) + EOT + "def f(x):\n    return x\n"
HELD_OUT = sample_text(9, 40, "zh") + sample_text(10, 40) + f" {EOT} ünïcødé 🙂 x=1\n"


@pytest.fixture(scope="module")
def stage_tok():
    t = Trainer.from_text(OLD_TEXT, TrainSettings(num_merges=120, special_tokens=(EOT,)))
    t.run()
    return t.tokenizer(at_step=90)   # a tokenizer as of a step: 90 of its 120 merges


def _on(src, text, settings):
    """A run of training on from ``src`` over ``text``, at step 0."""
    return build_run(TrainingSpec(mode=TRAIN_ON, text=text, settings=settings, base="src"),
                     base=src)


def tiktoken_encoding(folder):
    """Our tiktoken export, opened by tiktoken itself."""
    tiktoken = pytest.importorskip("tiktoken")
    meta = json.loads((folder / "tokenizer.tiktoken.json").read_text())
    # (read here: tiktoken.load caches files by path, and tmp paths come back)
    ranks = {base64.b64decode(t): int(r) for t, r in
             (line.split() for line in (folder / "tokenizer.tiktoken").read_text().splitlines())}
    return tiktoken.Encoding("t", pat_str=meta["pat_str"], mergeable_ranks=ranks,
                             special_tokens=meta["special_tokens"])


def _load_as(tok, fmt, tmp_path):
    export_tokenizer(tok, tmp_path / fmt, fmt)
    return load_tokenizer(tmp_path / fmt)


def _check_against_reference(src, result, n, rule):
    words = gpt2_words(NEW_TEXT, [EOT])
    src_merges = [(bytes(a), bytes(b)) for a, b in src.merges[:src.n_merges]]
    ref = ref_train(dict(words), src_merges, dict(src.vocab), n, rule)
    got = [(s.left, s.right, s.new_id) for s in result.steps]
    assert got == ref
    tok = result.tokenizer()
    assert tok.merges[:result.n_inherited] == src_merges          # inherited prefix unchanged
    assert result.n_inherited == len(src_merges)
    for i, t in src.vocab.items():                                # ids unchanged
        assert tok.vocab[i] == t
    assert tok.special_ids == src.special_ids
    assert min(s.new_id for s in result.steps) == max(src.vocab) + 1
    return tok


@pytest.mark.parametrize("rule", RULES)
def test_train_on_a_trained_tokenizer_as_of_a_step(stage_tok, rule):
    r = train_on(stage_tok, text=NEW_TEXT, settings=TrainSettings(num_merges=150, tie_rule=rule))
    tok = _check_against_reference(stage_tok, r, 150, rule)
    # the inherited part encodes as the source did; the new merges shorten the new text
    assert r.tokenizer(at_step=0).encode(HELD_OUT, allowed_special="all") == stage_tok.encode(HELD_OUT, allowed_special="all")
    assert len(tok.encode(NEW_TEXT, allowed_special="all")) < len(stage_tok.encode(NEW_TEXT, allowed_special="all"))
    assert tok.decode(tok.encode(HELD_OUT, allowed_special="all")) == HELD_OUT


@pytest.mark.parametrize("fmt", ["gpt2", "hf", "tiktoken", "native"])
@pytest.mark.parametrize("rule", RULES)
def test_train_on_loaded_files(stage_tok, fmt, rule, tmp_path):
    src = _load_as(stage_tok, fmt, tmp_path)
    assert src.encode(HELD_OUT, allowed_special="all") == stage_tok.encode(HELD_OUT, allowed_special="all")
    r = train_on(src, text=NEW_TEXT, settings=TrainSettings(num_merges=120, tie_rule=rule))
    _check_against_reference(src, r, 120, rule)


def test_gpt2_layout_with_bytes_in_alphabet_order(stage_tok, tmp_path):
    """GPT-2's own files number the 256 bytes in the order of their printable alphabet,
    not by value: those ids are kept, and tokenizers agrees on the extended tokenizer."""
    tokenizers = pytest.importorskip("tokenizers")
    export_tokenizer(stage_tok, tmp_path / "g", "gpt2")
    vocab = json.loads((tmp_path / "g" / "vocab.json").read_text())
    singles = sorted((k for k, i in vocab.items() if i < 256), key=ord)   # alphabet order
    for new_id, k in enumerate(singles):
        vocab[k] = new_id
    (tmp_path / "g" / "vocab.json").write_text(json.dumps(vocab))
    src = load_tokenizer(tmp_path / "g")
    assert src.vocab[0] == b"!" and src.encode("!", allowed_special="all") == [0]
    r = train_on(src, text=NEW_TEXT, settings=TrainSettings(num_merges=80))
    tok = _check_against_reference(src, r, 80, "greatest")
    export_tokenizer(tok, tmp_path / "hf", "hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "hf" / "tokenizer.json"))
    assert hf.encode(HELD_OUT).ids == tok.encode(HELD_OUT, allowed_special="all")


@pytest.mark.parametrize("fmt", ["trained", "gpt2", "tiktoken", "NUL in the text"])
def test_each_word_starts_segmented_by_the_source_merges(stage_tok, fmt, tmp_path):
    src = stage_tok if fmt in ("trained", "NUL in the text") else _load_as(stage_tok, fmt, tmp_path)
    text = NEW_TEXT + (" the\x00end \x00\x00 of" if fmt == "NUL in the text" else "")
    t = _on(src, text, TrainSettings(num_merges=5))
    ranks = {(bytes(a), bytes(b)): r for r, (a, b) in enumerate(src.merges)}
    words = gpt2_words(text, [EOT])
    assert t.word_texts == list(words)
    for w, text in enumerate(t.word_texts):
        assert [t.vocab_bytes[i] for i in t.word(w)] == ref_encode(text.encode("utf-8"), ranks)


def test_steps_undo_and_the_tokenizer_as_of_a_new_step(stage_tok):
    t = _on(stage_tok, NEW_TEXT, TrainSettings(num_merges=20))
    recs = t.run(detail=True)
    assert [r.index for r in recs] == list(range(1, 21))
    tok5 = t.tokenizer(at_step=5)
    assert tok5.n_merges == t.n_inherited + 5
    t.goto(5)
    assert t.tokenizer().encode(HELD_OUT, allowed_special="all") == tok5.encode(HELD_OUT, allowed_special="all")
    again = t.run(detail=False)
    assert [(s.pair, s.new_id) for s in again] == [(s.pair, s.new_id) for s in recs[5:]]
    assert len(t.merges) == t.n_inherited + 20
    assert t.metadata()["n_inherited"] == t.n_inherited
    assert len(t.metadata()["merge_counts"]) == t.n_inherited + 20


def test_vocab_size_counts_the_inherited_tokens(stage_tok):
    n0 = max(stage_tok.vocab) + 1
    r = train_on(stage_tok, text=NEW_TEXT, settings=TrainSettings(vocab_size=n0 + 7))
    assert r.n_steps == 7 and len(r.vocab) == n0 + 7


@pytest.mark.parametrize("rule", RULES)
def test_exports_keep_ids_and_load_in_tokenizers_and_tiktoken(stage_tok, rule, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    r = train_on(stage_tok, text=NEW_TEXT, settings=TrainSettings(num_merges=60, tie_rule=rule))
    tok = r.tokenizer()
    want = tok.encode(HELD_OUT, allowed_special="all")
    assert any(i > max(stage_tok.vocab) for i in want)   # the new merges are used
    export_tokenizer(tok, tmp_path / "hf", "hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "hf" / "tokenizer.json"))
    assert hf.encode(HELD_OUT).ids == want
    export_tokenizer(tok, tmp_path / "tt", "tiktoken")
    enc = tiktoken_encoding(tmp_path / "tt")
    assert enc.encode(HELD_OUT, allowed_special="all") == want
    export_tokenizer(tok, tmp_path / "g", "gpt2")
    back = load_tokenizer(tmp_path / "g")
    assert back.encode(HELD_OUT, allowed_special="all") == want and back.vocab == tok.vocab


def test_train_on_a_tiktoken_source_keeps_tiktoken_encoding(stage_tok, tmp_path):
    """A rank-based source: our merge list on the extended ranks equals tiktoken's
    encoding of the extended file."""
    src = _load_as(stage_tok, "tiktoken", tmp_path)
    r = train_on(src, text=NEW_TEXT, settings=TrainSettings(num_merges=80, tie_rule="lowest-ids"))
    export_tokenizer(r.tokenizer(), tmp_path / "out", "tiktoken")
    enc = tiktoken_encoding(tmp_path / "out")
    for text in (HELD_OUT, NEW_TEXT, OLD_TEXT):
        assert enc.encode(text, allowed_special="all") == r.tokenizer().encode(text, allowed_special="all")


def test_a_source_whose_encoder_is_not_its_merge_list_is_refused(tmp_path):
    """tiktoken takes a piece that is a token whole even when no merge makes it: a
    merge list cannot continue that, so training on is refused with the place."""
    import base64
    ranks = [bytes([b]) for b in range(256)] + [b"ab", b"xyz"]   # no merge makes 'xyz'
    (tmp_path / "t.tiktoken").write_text(
        "".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(ranks)))
    (tmp_path / "t.tiktoken.json").write_text(json.dumps({"pat_str": "gpt2", "special_tokens": {}}))
    try:
        src = load_tokenizer(tmp_path / "t.tiktoken")
    except Exception as e:   # a loader that refuses such a file is fine too
        pytest.skip(f"loader refuses a whole-piece token: {e}")
    with pytest.raises(SettingsError, match="merge list"):
        train_on(src, text="xyz ab xyz abab\n" * 5, settings=TrainSettings(num_merges=3))


def test_count_table_with_the_source_pattern(stage_tok):
    from bpe_gui.engine.corpus.counting import count_corpus
    from bpe_gui.engine.text.pretokenize import Pretokenizer
    table = count_corpus(texts=[NEW_TEXT], pre=Pretokenizer(stage_tok.pattern, [EOT]))
    a = train_on(stage_tok, table, TrainSettings(num_merges=15))
    b = train_on(stage_tok, text=NEW_TEXT, settings=TrainSettings(num_merges=15))
    assert a.merges == b.merges
    other = count_corpus(texts=[NEW_TEXT], pre=Pretokenizer("whitespace", [EOT]))
    with pytest.raises(SettingsError, match="counted with"):
        train_on(stage_tok, other, TrainSettings(num_merges=15))


@pytest.mark.parametrize("mode", ["byte", "char"])
@pytest.mark.parametrize("rule", RULES)
def test_training_on_the_same_corpus_continues_the_original_run(mode, rule):
    """From step 60 of a run, training on over the same corpus makes the run's own
    merges 61..100 with the same ids: the words start as the run had them at step 60."""
    s = TrainSettings(num_merges=100, tie_rule=rule, mode=mode, special_tokens=(EOT,))
    t = Trainer.from_text(OLD_TEXT, s)
    t.run()
    r = train_on(t.tokenizer(at_step=60), text=OLD_TEXT,
                 settings=TrainSettings(num_merges=40, tie_rule=rule))
    assert [(x.left, x.right, x.new_id, x.count) for x in r.steps] == \
        [(x.left, x.right, x.new_id, x.count) for x in t.steps[60:]]
    assert r.tokenizer().encode(HELD_OUT, allowed_special="all") == t.tokenizer().encode(HELD_OUT, allowed_special="all")


@pytest.mark.regression
def test_pruning_is_refused_when_training_on(stage_tok):
    """train_on(prune=True) pruned the live count of a run that keeps every inherited id
    (the window and the command line refuse pruning there)."""
    with pytest.raises(SettingsError, match="none is pruned"):
        train_on(stage_tok, text=NEW_TEXT, settings=TrainSettings(num_merges=5, prune=True))
