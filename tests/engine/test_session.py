"""Sessions: corpus reference + settings + step round-trip; malformed files name the key."""
from __future__ import annotations

import json

import pytest

from bpe_gui.engine import FormatError, TrainSettings, Trainer
from bpe_gui.engine.session import Session


def test_round_trip_inline_text(tmp_path):
    s = Session(settings=TrainSettings(vocab_size=300, mode="char", pattern="whitespace",
                                       special_tokens=("<s>",), tie_rule="first-seen"),
                corpus_text="low lower 你好", step=7, encode_text="héllo")
    path = s.save(tmp_path / "a.bpesession")
    back = Session.load(path)
    assert back == s
    assert not list(tmp_path.glob(".*")), "no temporary files are left behind"


def test_round_trip_paths_and_resume(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low low lower newest newest widest widest widest", encoding="utf-8")
    s = Session(settings=TrainSettings(num_merges=4), corpus_paths=[str(corpus)], step=3)
    back = Session.load(s.save(tmp_path / "s.json"))
    assert back.corpus_paths == [str(corpus)] and back.corpus_text is None
    t = Trainer.from_files(back.corpus_paths, back.settings)
    t.goto(back.step)
    ref = Trainer.from_files([corpus], TrainSettings(num_merges=4))
    ref.run(until=3)
    assert t.merges == ref.merges and t.n_steps == 3


@pytest.mark.parametrize("doc, key", [
    ({"format": "other"}, "format"),
    ({"format": "bpe-gui-session", "version": 99}, "version"),
    ({"format": "bpe-gui-session", "version": 1}, "settings"),
    ({"format": "bpe-gui-session", "version": 1, "settings": {"bogus": 1}}, "settings"),
    ({"format": "bpe-gui-session", "version": 1, "settings": {}, "step": -2}, "step"),
])
def test_malformed_session_names_the_key(tmp_path, doc, key):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(FormatError) as e:
        Session.load(p)
    assert e.value.key == key and str(p) in str(e.value)


def test_not_json_names_the_line(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{\n"format": "bpe-gui-session",\n oops\n}', encoding="utf-8")
    with pytest.raises(FormatError) as e:
        Session.load(p)
    assert e.value.line == 3


def test_view_state_round_trips_and_older_files_still_load(tmp_path):
    from bpe_gui.engine.session import Session
    s = Session(corpus_text="a b", imported_path="/x/tokenizer.json", use_imported=True,
                show_whitespace=False)
    p = s.save(tmp_path / "v.bpesession")
    back = Session.load(p)
    assert (back.imported_path, back.use_imported, back.show_whitespace) == \
        ("/x/tokenizer.json", True, False)
    d = Session(corpus_text="a b").to_dict()
    del d["view"]                       # a version-1 file written before these keys
    old = Session.from_dict(d)
    assert old.imported_path is None and not old.use_imported and old.show_whitespace
