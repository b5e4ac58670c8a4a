"""The vocabulary browser's words without a widget (models/vocab_text.py): the summary
line, and a token's lineage down to its base symbols, held against the trainer's own
merge records."""
from __future__ import annotations

from html import escape

from bpe_gui.engine.display import hex_bytes
from bpe_gui.engine.train import Trainer, TrainSettings
from bpe_gui.gui.controller.trainer_view import TrainerView
from bpe_gui.gui.models.vocab_model import VocabModel
from bpe_gui.gui.models.vocab_text import Shown, lineage, lineage_details, summary


def test_the_summary_line():
    assert summary(Shown("trained", 10, 22, 12), "classes: 22 ok") == \
        "Step 10: 22 tokens (12 base/special + 10 merged) · classes: 22 ok"
    assert summary(Shown("trained", 3, 270, 267, inherited=True)).startswith(
        "Step 3: 270 tokens (267 inherited + 3 merged)")
    assert summary(Shown("imported", n=500, imported_name="o200k.tiktoken",
                         imported_label="tiktoken ranks"), "", "dead weight: measuring…",
                   matches=1) == ("Showing the imported o200k.tiktoken — tiktoken ranks: 500 "
                                  "tokens · dead weight: measuring… · 1 match")
    assert summary(Shown("trained", has_trainer=False), matches=0) == \
        "No vocabulary yet · 0 matches"


def test_a_lineage_is_the_merges_that_made_the_token(qtbot):
    t = Trainer.from_source("low low lower newest newest widest widest widest",
                            TrainSettings(num_merges=8, mode="byte"))
    t.goto(8)
    model = VocabModel()
    model.reset_trained(TrainerView(t))
    last = t.steps[-1]
    e = model.entry_by_id(last.new_id)
    root = lineage(model, e)

    def leaves(node) -> bytes:   # the base symbols, left to right, spell the token
        return b"".join(leaves(c) for c in node.children) if node.children else \
            model.entry_by_id(node.id).token
    assert root.id == last.new_id and root.made == f"step {last.index}"
    assert [c.id for c in root.children] == list(e.parts)
    assert leaves(root) == last.token
    details = lineage_details(model, e)
    assert f"made by merge {last.index}" in details and escape(hex_bytes(last.token)) in details
    assert lineage(model, e, budget=[1]).children == []   # the rows' limit
