"""Session files as data (issue 23): each field checked before it reaches the trainer,
a bad one named and left out, the rest restored; never a crash, now or at quit."""
from __future__ import annotations

import json

import pytest



def session_doc(**over) -> dict:
    doc = {"format": "bpe-gui-session", "version": 1,
           "settings": {"vocab_size": 300, "special_tokens": ["<s>"]},
           "corpus": {"text": "hug pug pun bun hugs " * 20}, "step": 4,
           "encode_text": "hugs and puns"}
    for key, value in over.items():
        if key.startswith("settings_"):
            doc["settings"][key[len("settings_"):]] = value
        else:
            doc[key] = value
    return doc


def write(tmp_path, doc, name="s.bpesession"):
    p = tmp_path / name
    p.write_text(json.dumps(doc), encoding="utf-8")
    return str(p)


@pytest.mark.parametrize("over, field", [
    (dict(settings_vocab_size="abc"), "settings.vocab_size"),
    (dict(settings_special_tokens=5), "settings.special_tokens"),
    (dict(step=2147483648), "step"),
    (dict(encode_text=12), "encode_text"),
])
def test_a_bad_field_is_named_and_the_rest_restored(window, tmp_path, ready, over, field):
    c = window.controller
    assert window.sessions.open_session(write(tmp_path, session_doc(**over)))
    ready(c)
    title, message = window.status.last_error
    assert field in message and "left out" in message and "rest" in message
    good = session_doc()
    assert c.corpus_text == good["corpus"]["text"]
    if field != "step":
        assert c.step_index == 4
    if field != "encode_text":
        assert window.dock_layout.encode_view.text() == "hugs and puns"
    expect = {"settings.vocab_size": (1000, ("<s>",)),
              "settings.special_tokens": (300, ())}.get(field, (300, ("<s>",)))
    assert (c.settings.vocab_size, c.settings.special_tokens) == expect


def test_a_corpus_that_is_not_text_keeps_the_corpus_and_quitting_works(make_window,
                                                                       tmp_path, ready):
    win = make_window()
    c = win.controller
    before = c.corpus_text
    assert win.sessions.open_session(write(tmp_path, session_doc(corpus={"text": 123})))
    ready(c)
    assert "corpus.text" in win.status.last_error[1]
    assert c.corpus_text == before and c.settings.vocab_size == 300
    assert win.close()     # the autosave of this state: no TypeError out of closeEvent
    assert (tmp_path / "autosave.bpesession").exists()


def test_a_huge_step_trains_to_the_target_without_breaking_qt(window, tmp_path, ready):
    c = window.controller
    doc = session_doc(step=2147483647, settings={"num_merges": 2147483647})
    assert window.sessions.open_session(write(tmp_path, doc))
    ready(c, 60_000)
    assert c.trainer is not None and c.trainer.is_done
    assert c.goto(2)             # the window still works
    assert c.step_index == 2


def test_an_autosave_path_that_is_a_folder_gets_a_message(make_window, tmp_path):
    (tmp_path / "autosave.bpesession").mkdir()
    win = make_window()
    why = win.status.last_error[1]
    assert "is a folder" in why and "autosave.bpesession" in why
    assert win.controller.corpus_sample == "tutorial"     # started as usual
    assert "is a folder" in (win.sessions.autosave() or "")        # quitting does not fail either
    assert win.close()


@pytest.mark.regression
def test_the_settings_show_the_sessions_own_while_its_corpus_is_read(window, tmp_path,
                                                                    ready, qtbot,
                                                                    monkeypatch):
    """While a session's corpus file was read, the training settings showed the
    defaults (byte-level, 1,000 tokens), then jumped to the session's."""
    import threading
    from bpe_gui.gui.controller import opening
    corpus = tmp_path / "c.txt"
    corpus.write_text("hug pug pun bun hugs " * 20, encoding="utf-8")
    doc = session_doc(settings_mode="char", settings_num_merges=37,
                      settings_vocab_size=None)
    doc["corpus"] = {"paths": [str(corpus)]}
    gate, reading = threading.Event(), threading.Event()
    real = opening.probe_files

    def slow(*a, **kw):
        reading.set()
        gate.wait(20)
        return real(*a, **kw)
    monkeypatch.setattr(opening, "probe_files", slow)
    panel, c = window.dock_layout.settings_panel, window.controller
    assert c.settings.mode == "char" and c.settings.num_merges == 10   # the tutorial's
    try:
        assert window.sessions.open_session(write(tmp_path, doc))
        qtbot.waitUntil(reading.is_set)
        assert c.busy
        assert panel.char_radio.isChecked() and panel.merges_radio.isChecked()
        assert panel.merges_spin.value() == 37 and not panel.isEnabled()
        assert not panel.is_pending()   # shown, not a change waiting to be applied
    finally:
        gate.set()
    ready(c)
    assert c.settings.num_merges == 37 and panel.isEnabled()
    assert panel.merges_spin.value() == 37 and not panel.is_pending()


@pytest.mark.regression
def test_two_windows_closing_keep_both_sessions(make_window, ready, tmp_path):
    """Two instances wrote the same last-session file: the one closed first was lost."""
    from bpe_gui.engine.train.session import Session
    from bpe_gui.gui.window.sessions import kept_sessions
    first, second = make_window(), make_window()
    assert first.dock_layout.editor.load_sample("english")
    assert second.dock_layout.editor.load_sample("zh-en")
    ready(first.controller)
    ready(second.controller)
    auto = first.sessions.autosave_path()
    assert first.close() and second.close()   # the last closed wins...
    assert Session.load(auto).sample == "zh-en"
    kept = kept_sessions(auto)                 # ...and the other is kept beside it
    assert len(kept) == 1 and Session.load(kept[0]).sample == "english"

    third = make_window()                      # a window alone: its own, replaced
    assert third.controller.corpus_sample == "zh-en"
    assert "Another window closed" in third.statusBar().currentMessage()
    assert third.dock_layout.editor.load_sample("tutorial")
    ready(third.controller)
    assert third.close()
    assert Session.load(auto).sample == "tutorial" and len(kept_sessions(auto)) == 1


@pytest.mark.regression
@pytest.mark.parametrize("key, value", [("encoding", 5), ("corpus", [1, 2]), ("base", 7)])
def test_a_bad_field_of_the_training_spec_is_named_and_the_session_saves(make_window,
                                                                         tmp_path, ready,
                                                                         key, value):
    """A spec with "encoding": 5 showed "unexpected error (please report it)" and the
    session could not be autosaved at close, so it was lost."""
    from bpe_gui.engine.train.session import Session
    corpus = tmp_path / "c.txt"
    corpus.write_text("hug pug pun bun hugs " * 20, encoding="utf-8")
    doc = session_doc()
    doc["corpus"] = {"paths": [str(corpus)]}
    doc["training"] = {"spec": {"mode": "plain", "corpus": [str(corpus)],
                                "settings": {"vocab_size": 300}, key: value}}
    win = make_window()
    c = win.controller
    assert win.sessions.open_session(write(tmp_path, doc))
    ready(c)
    title, message = win.status.last_error
    assert f"training.spec.{key}" in message and "unexpected" not in message.lower()
    assert c.corpus_text.startswith("hug pug") and c.settings.vocab_size == 300
    assert c.opening.save_session(str(tmp_path / "again.bpesession"))
    assert win.sessions.autosave() is None and win.close()
    assert Session.load(tmp_path / "autosave.bpesession").corpus_paths == [str(corpus)]
