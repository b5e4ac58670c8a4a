"""A FIFO, a device or a folder opened as a corpus (or dropped as a tokenizer) is refused
at once with a message (issue 23): nothing opens it on the GUI thread, where open() of a
FIFO waited for a writer forever."""
from __future__ import annotations

import os
import threading

import pytest


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.txt"
    os.mkfifo(path)
    done = threading.Event()

    def unblock():   # before the fix open() waited for a writer: end the wait, fail
        if not done.wait(5):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
    t = threading.Thread(target=unblock, daemon=True)
    t.start()
    yield path
    done.set()


def refused_at_once(window, open_it, word):
    c = window.controller
    before = (c.corpus_text, c.corpus_paths)
    # refused by what it is, before anything opens it: one that was opened waits until
    # the fixture's writer comes (5 s), then reads as empty ("no text", not ``word``);
    # how long a refusal takes is measured in bench/bench_refusals.py
    assert not open_it()
    assert not c.busy
    assert word in window.status.last_error[1]
    assert (c.corpus_text, c.corpus_paths) == before


def test_a_fifo_is_refused_as_a_corpus(window, fifo):
    refused_at_once(window, lambda: window.dock_layout.editor.open_files([str(fifo)]), "a pipe")


def test_a_fifo_named_like_a_tokenizer_is_refused(window, tmp_path):
    path = tmp_path / "tokenizer.json"
    os.mkfifo(path)
    t = threading.Timer(5, lambda: os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK)))
    t.start()
    try:
        refused_at_once(window, lambda: window.files.open_paths([str(path)]), "a pipe")
    finally:
        t.cancel()


def test_a_device_is_refused_as_a_corpus(window):
    refused_at_once(window, lambda: window.dock_layout.editor.open_files(["/dev/zero"]), "a device")


def test_a_folder_is_refused_as_a_corpus(window, tmp_path):
    editor = window.dock_layout.editor
    refused_at_once(window, lambda: editor.open_files([str(tmp_path)]), "a folder")


def test_a_session_whose_corpus_is_a_fifo_is_refused(window, fifo, tmp_path):
    import json
    s = tmp_path / "s.bpesession"
    s.write_text(json.dumps({"format": "bpe-gui-session", "version": 1, "settings": {},
                             "corpus": {"paths": [str(fifo)]}}), encoding="utf-8")
    refused_at_once(window, lambda: window.sessions.open_session(str(s)), "a pipe")
