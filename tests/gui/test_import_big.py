"""Big tokenizer files in the window (issue #11): they load on the worker thread with
progress, the window names a recognised encoding, and the vocabulary browser's search
over 100k+ tokens gives exactly the rows a plain filter over every token gives."""
from __future__ import annotations

import base64
import itertools
import re

import pytest

from bpe_gui.engine.formats import known_encodings as known

pytestmark = pytest.mark.slow   # big files, memory bounds: CI runs it


def big_ranks(n_words: int = 110_000) -> dict[bytes, int]:
    """256 bytes, then n_words letter strings and a few multi-byte characters (>1 MB)."""
    ranks = {bytes([b]): b for b in range(256)}
    extra = ["你", "好", "Ж", " the", " и", "\u00e9t\u00e9"]
    words = itertools.chain((w.encode() for w in extra),
                            ("".join(t).encode() for t in itertools.product(
                                "etaoinshrdlu ", repeat=5)))
    for w in itertools.islice(words, n_words):
        ranks.setdefault(w, len(ranks))
    return ranks


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big_base.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in
                            big_ranks().items()), "ascii")
    return path


def recognise_as_test_encoding(monkeypatch, path):
    fake = known.KnownEncoding("big_base", "Big test encoding", known.content_hash(
        path.read_bytes()), known.CL100K_PATTERN, {"<|endoftext|>": 200_000})
    monkeypatch.setattr(known, "_BY_HASH", {fake.sha256: fake})


def test_big_file_loads_in_background_with_progress(window, qtbot, big_file, monkeypatch):
    from bpe_gui.gui.dialogs.import_dialog import BACKGROUND_BYTES, ImportDialog
    assert big_file.stat().st_size > BACKGROUND_BYTES
    recognise_as_test_encoding(monkeypatch, big_file)
    c = window.controller
    dlg = ImportDialog(c, window, path=str(big_file))
    assert "recognised: Big test encoding" in dlg.format_label.text()
    seen = []
    c.progress.connect(lambda label, done, total: seen.append((label, done, total)))
    with qtbot.waitSignal(c.importFinished, timeout=30_000) as sig:
        dlg.do_import()
        assert dlg.loading and not dlg.progress.isHidden()   # returned at once: a job runs
        assert not dlg.import_button.isEnabled()
    tok = sig.args[0]
    assert tok is not None and dlg.tokenizer is tok and dlg.result() == 1
    assert any(label.startswith("Loading big_base") for label, _, _ in seen)
    assert c.imported is tok and c.use_imported
    assert tok.meta["encoding"] == "big_base"
    assert tok.special_ids == {"<|endoftext|>": 200_000}
    browser = window.dock_layout.vocab_browser
    window.dock_layout.vocab_dock.show()
    window.dock_layout.vocab_dock.raise_()   # a dock tab behind another catches up when raised
    qtbot.waitUntil(lambda: "Big test encoding" in browser.summary.text(), timeout=10_000)
    assert browser.model.n_rows() == len(tok.vocab)


def test_failed_background_load_reopens_the_dialog(window, qtbot, tmp_path):
    from bpe_gui.gui.dialogs.import_dialog import BACKGROUND_BYTES, ImportDialog
    bad = tmp_path / "bad.tiktoken"
    bad.write_text("QQ== 0\n" * (BACKGROUND_BYTES // 7 + 10), "ascii")  # a rank given twice
    dlg = ImportDialog(window.controller, window, path=str(bad))
    with qtbot.waitSignal(window.controller.importFinished, timeout=30_000) as sig:
        dlg.do_import()
    assert sig.args[0] is None and dlg.result() == 0 and dlg.import_button.isEnabled()
    assert window.status.last_error and "line 2" in window.status.last_error[1]
    assert window.controller.imported is None


@pytest.fixture(scope="module")
def big_tok(big_file):
    from bpe_gui.engine.formats import load_tokenizer
    from bpe_gui.gui.models.vocab_model import prepare_imported
    tok = load_tokenizer(big_file)
    prepare_imported(tok)
    return tok


@pytest.mark.parametrize("query", ["the", "ЖЖ", "你", "e4 bd", "<E4 BD A0>", "1000", "·the",
                                   "tt ", "zz-none"])
def test_search_on_big_vocabulary_matches_a_plain_filter(qtbot, big_tok, query):
    from bpe_gui.gui.models.vocab_model import (ReadableCache, VocabModel, parse_hex,
                                                search_key, search_pattern)
    tok = big_tok
    model = VocabModel()
    model.reset_imported(tok)
    model.set_search(query)
    got = [model.entry(r).id for r in range(model.n_rows())]
    # the reference: each token's own search key, matched on its own
    rx = re.compile(search_pattern(query), re.I | re.M)
    cache = ReadableCache()
    want = [e.id for e in model.entries if rx.search(search_key(e, cache))]
    assert got == want
    if parse_hex(query) is None and not query.isdigit():   # plain text: a direct check too
        assert want == [i for i in sorted(tok.vocab) if query.replace("·", " ") in
                        tok.vocab[i].decode("utf-8", "ignore")]


def test_a_second_import_replaces_the_first_in_the_encode_view(window, qtbot, tmp_path):
    """Importing while another imported tokenizer is in use switches the views to it."""
    c = window.controller
    ids = {}
    for name, preset in (("a", "gpt2"), ("b", "o200k")):
        from bpe_gui.engine.formats import export_tokenizer
        from bpe_gui.engine.train.trainer import TrainSettings, Trainer
        t = Trainer.from_text("hello world, hello there " * 20 + name * 30,
                              TrainSettings(vocab_size=300, pattern=preset))
        t.run()
        files = export_tokenizer(t.tokenizer(), tmp_path / name, "hf")
        ids[name] = t.tokenizer().encode("hello " + name * 4, allowed_special="all")
        with qtbot.waitSignal(c.tokenizerChanged, timeout=5_000):
            assert c.tokenizer_files.import_tokenizer(str(files[0])) is not None
        assert c.tokenizer().encode("hello " + name * 4, allowed_special="all") == ids[name]
    assert c.tokenizer() is c.imported and c.imported_path.endswith("tokenizer.json")


@pytest.mark.parametrize("gpt2", [False, True])
@pytest.mark.parametrize("query", ["", "the"])
def test_sorting_a_big_vocabulary_by_text_matches_a_plain_sort(qtbot, big_tok, gpt2, query):
    """Sorting 100k+ tokens by text uses the order worked out on the worker thread; the
    reference is Python's sort of every shown row by its shown text."""
    from PySide6.QtCore import Qt

    from bpe_gui.engine.display import readable
    from bpe_gui.gui.models.vocab_model import VocabModel
    model = VocabModel()
    model.reset_imported(big_tok)
    model.set_gpt2(gpt2)
    model.set_search(query, gpt2)
    shown = [model.entry(r) for r in range(model.n_rows())]
    for order in (Qt.AscendingOrder, Qt.DescendingOrder):
        model.sort(VocabModel.TOKEN, order)
        got = [model.data(model.index(r, VocabModel.TOKEN)) for r in range(model.n_rows())]
        want = sorted((readable(e.token, gpt2=gpt2) for e in shown),
                      reverse=order == Qt.DescendingOrder)
        assert got == want


def test_preparing_a_big_vocabulary_reports_its_progress(big_file):
    from bpe_gui.engine.formats import load_tokenizer
    from bpe_gui.gui.models.vocab_model import prepare_imported
    tok = load_tokenizer(big_file)
    shares = []
    prepare_imported(tok, shares.append)
    assert shares == sorted(shares) and shares[-1] == 1.0
    assert len({round(s, 2) for s in shares if 0.3 < s < 1.0}) >= 10   # never stuck
