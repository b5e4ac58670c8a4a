"""SuperBPE against a slow reference stage-2 trainer (continue_oracle.py): stage 1 is
ordinary BPE to merge T; stage 2 cuts each line with the reference's split regex
("isolated": matches and the text between them), segments each piece by the first T
merges and trains on, never making a token that holds ": " or more than 4 words."""
from __future__ import annotations

import pytest
import regex

from bpe_gui.engine.corpus.counting import count_corpus
from bpe_gui.engine.corpus.table_file import read_table, write_table
from bpe_gui.engine.errors import SettingsError
from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
from bpe_gui.engine.text.pretokenize import Pretokenizer
from bpe_gui.engine.train import stage2, train_superbpe
from bpe_gui.engine.train.superbpe import (
    ENCODE_PATTERN, TRAIN_PATTERN, SuperBPETrainer, stage2_pretokenizer)
from bpe_gui.engine.train.trainer import TrainSettings, Trainer

from continue_oracle import (SUPERBPE_SPLIT, gpt2_words, isolated_split, ref_train,
                             sample_text, superbpe_skipped, superbpe_words)

RULES = ("greatest", "first-seen", "lowest-ids")
EOT = "<|endoftext|>"
# runs of one token (" . . . . . . .") count overlapping pairs: cuts must not change them
RUNS = "".join(f"Wait{' .' * (3 + k % 7)}\nand so on and so forth and so{' .' * (k % 9)}\n"
               for k in range(60))
TEXT = sample_text(5, 700) + EOT + sample_text(6, 200) + RUNS
HELD_OUT = sample_text(11, 80) + f"{EOT}Tab\there: 12345 ok...\r\nend  \n\n  x"
ODD = "a: b  c\n\n1234 -- x!!\n/ ok:: y\r\nz ...\n \n"


@pytest.mark.parametrize("text", [TEXT, HELD_OUT, ODD, "x", "\n\n", "  \n a  b\n"])
def test_pieces_are_the_reference_split(text):
    """Encoding: the split regex over the whole text; training: the same, line by line."""
    assert regex.findall(ENCODE_PATTERN, text) == isolated_split(text, SUPERBPE_SPLIT)
    lines = regex.findall(r"[^\n]*\n|[^\n]+", text)
    assert regex.findall(TRAIN_PATTERN, text) == [
        p for line in lines for p in isolated_split(line, SUPERBPE_SPLIT)]


def _reference(text, T, n, rule):
    s1 = ref_train(dict(gpt2_words(text, [EOT])), [], {i: bytes([i]) for i in range(256)}
                   | {256: EOT.encode()}, T, rule)
    merges1 = [(a, b) for a, b, _ in s1]
    vocab1 = {i: bytes([i]) for i in range(256)} | {256: EOT.encode()} | {i: a + b for a, b, i in s1}
    s2 = ref_train(dict(superbpe_words(text, [EOT])), merges1, vocab1, n, rule,
                   skip=superbpe_skipped)
    return s1, s2


@pytest.mark.slow
@pytest.mark.parametrize("rule", RULES)
def test_both_stages_equal_the_reference(rule):
    T, n = 120, 160
    t = train_superbpe(text=TEXT, settings=TrainSettings(num_merges=T + n, superbpe_from=T,
                                                         tie_rule=rule, special_tokens=(EOT,)))
    s1, s2 = _reference(TEXT, T, n, rule)
    assert [(s.left, s.right, s.new_id) for s in t.stage1_steps] == s1
    assert [(s.left, s.right, s.new_id) for s in t.steps] == s2
    assert t.n_inherited == T and t.n_rebuilds > 0   # the skip path was taken
    tokens = [s.token for s in t.steps]
    assert any(b" " in tok.strip(b" ") for tok in tokens)     # superwords bridge spaces
    assert not any(superbpe_skipped(tok) for tok in tokens)


@pytest.mark.parametrize("rule", RULES)
def test_stepping_with_detail_and_undo_equal_the_batch_run(rule):
    s = TrainSettings(num_merges=100, tie_rule=rule, special_tokens=(EOT,))
    t1 = Trainer.from_text(TEXT, s)
    t1.run()
    tok1 = t1.tokenizer(at_step=60)
    table = count_corpus(texts=[TEXT], pre=stage2_pretokenizer([EOT]))
    batch = stage2(tok1, table, TrainSettings(num_merges=120, tie_rule=rule))
    step = SuperBPETrainer(tok1, table, TrainSettings(num_merges=120, tie_rule=rule,
                                                      superbpe_from=60))
    recs = step.run(detail=True)
    assert [(r.pair, r.new_id) for r in recs] == [(r.pair, r.new_id) for r in batch.steps]
    assert any(at > 30 for at, _ in step._log)   # goto(30) goes back through rebuilds
    want = step.tokenizer(at_step=30).encode(HELD_OUT, allowed_special="all")
    step.goto(30)
    assert step.tokenizer().encode(HELD_OUT, allowed_special="all") == want
    step.goto(30)
    again = step.run(detail=False)
    assert [(r.pair, r.new_id) for r in again] == [(r.pair, r.new_id) for r in batch.steps[30:]]
    step.goto(0)
    assert step.n_steps == 0 and step.tokenizer().n_merges == 60


@pytest.mark.parametrize("rule", RULES)
def test_export_loads_in_plain_tokenizers_and_encodes_identically(rule, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    t = train_superbpe(text=TEXT, settings=TrainSettings(num_merges=300, superbpe_from=150,
                                                         tie_rule=rule, special_tokens=(EOT,)))
    tok = t.tokenizer()
    assert tok.pattern == ENCODE_PATTERN
    export_tokenizer(tok, tmp_path, "hf")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in (HELD_OUT, ODD, TEXT[:3000]):
        want = tok.encode(text, allowed_special="all")
        assert hf.encode(text).ids == want
        assert tok.decode(want) == text
    assert load_tokenizer(tmp_path / "tokenizer.json").encode(HELD_OUT, allowed_special="all") == tok.encode(HELD_OUT, allowed_special="all")
    assert len(tok.encode(HELD_OUT, allowed_special="all")) < len(t.tokenizer(at_step=0).encode(HELD_OUT, allowed_special="all"))


def test_stage2_count_tables_record_their_pattern(tmp_path):
    table = count_corpus(texts=[TEXT], pre=stage2_pretokenizer([EOT]))
    write_table(table, tmp_path / "s2.counts.tsv")
    back = read_table(tmp_path / "s2.counts.tsv")
    assert back.meta.pattern == TRAIN_PATTERN
    s1 = count_corpus(texts=[TEXT], pre=Pretokenizer("gpt2", [EOT]))
    settings = TrainSettings(num_merges=200, superbpe_from=100, special_tokens=(EOT,))
    a = train_superbpe(settings=settings, stage1_table=s1, stage2_table=back)
    b = train_superbpe(text=TEXT, settings=settings)
    assert a.merges == b.merges
    with pytest.raises(SettingsError, match="counted with"):
        train_superbpe(settings=settings, stage1_table=s1, stage2_table=s1)


def test_settings_are_checked():
    with pytest.raises(SettingsError, match="two stages"):
        Trainer.from_text("a b", TrainSettings(num_merges=5, superbpe_from=2))
    with pytest.raises(SettingsError, match="byte mode"):
        TrainSettings(superbpe_from=3, mode="char").validated()
    with pytest.raises(SettingsError, match="after the target"):
        train_superbpe(text="a b", settings=TrainSettings(num_merges=5, superbpe_from=9))
    with pytest.raises(SettingsError, match="superbpe_from"):
        train_superbpe(text="a b", settings=TrainSettings(num_merges=5))


def test_stage2_refuses_what_it_does_not_use():
    tok1 = Trainer.from_text(TEXT, TrainSettings(num_merges=50, special_tokens=(EOT,)))
    tok1.run()
    for extra, why in ((dict(lines=True), "one text per line"), (dict(prune=True), "pruning")):
        with pytest.raises(SettingsError, match=why):
            stage2(tok1.tokenizer(), text=TEXT, settings=TrainSettings(num_merges=5, **extra))


def test_rebuilds_ask_about_each_candidate_about_once(monkeypatch):
    """Each rebuild looks for skipped pairs among the LOOK_AHEAD leading candidates, mostly
    the same ones as at the rebuild before: a pair of tokens found fine is not asked about
    again (it was at every rebuild: 39 times here), and the cuts, the rebuilds and the
    merges are those of asking every time (the old settle, here as the oracle)."""
    from collections import Counter
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "fixtures" / "parallel" /
            "en.train.txt").read_text("utf-8")[:8000]
    settings = TrainSettings(num_merges=1000, superbpe_from=300)
    asked: Counter = Counter()
    plain = SuperBPETrainer.skip_reason

    def spy(self, a, b):
        asked[self.vocab_bytes[a] + self.vocab_bytes[b]] += 1
        return plain(self, a, b)
    monkeypatch.setattr(SuperBPETrainer, "skip_reason", spy)
    t = train_superbpe(text=text, settings=settings)
    monkeypatch.setattr(SuperBPETrainer, "_skipped_among", lambda self, pairs: (
        (a, b) for a, b, _ in pairs if plain(self, a, b) is not None))
    every_time = train_superbpe(text=text, settings=settings)
    assert t.n_rebuilds == every_time.n_rebuilds > 30
    assert t._log == every_time._log and t.merges == every_time.merges
    assert max(asked.values()) <= 4 and sum(asked.values()) < 2 * len(asked)
