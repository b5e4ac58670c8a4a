"""Token classes (ok / unreachable / undecodable / special, engine/analysis/reachability.py) of the
vocabulary the browser shows, kept by the controller (``controller.classes``).

- The trained tokenizer: a trained tokenizer's tokens keep their class as merges are
  added (analysis.classify_more says why), so the classes of one trainer are kept and
  grow with the steps: a step classifies its one new token at once, on the GUI thread
  (a few microseconds). A vocabulary seen for the first time, or many new tokens after
  a long run (more than SYNC_MAX), are classified by a side job of the controller's
  (kind ``classes``) on a copy of the tokenizer, so it *yields*: the user's next step
  drops it, and it is asked for again once the window is idle.
- An imported tokenizer is classified whole, once (by a job when it has more than
  SYNC_MAX tokens: 200k tokens take about a second, with progress and Cancel in the
  status bar; the window stays responsive meanwhile).

``changed`` tells the browser new classes are known. The classes are an engine
snapshot (``analysis.Reachability``): ``kind(id)``, ``counts()``, ``reencoded[id]``.
"""
from __future__ import annotations

import weakref

from PySide6.QtCore import QObject, QTimer, Signal

from ...engine.analysis import Reachability, classify_more, classify_tokens
from ...engine.tokenizers import BaseTokenizer as Tokenizer  # any kind: trained or imported
from .jobs import Job, JobEnd, Outcome

SYNC_MAX = 2_000     # at most this many tokens are classified at once, on the GUI thread

RETRY_MS = 400       # after the last job ends, ask again for what a dropped job was doing


class TokenClasses(QObject):
    """The classes of the trained and the imported vocabulary (see the module
    docstring)."""

    changed = Signal()

    def __init__(self, controller):
        super().__init__(controller)
        self._trained: tuple[object, Reachability] | None = None   # (TrainerView, classes)
        self._imported: "weakref.WeakKeyDictionary[Tokenizer, Reachability]" = \
            weakref.WeakKeyDictionary()
        self._asked: tuple | None = None     # what the running job classifies
        self._wanted: str | None = None      # "trained" / "imported": ask again later
        self._cancelled: object = None       # the user cancelled classifying this
        self._retry = QTimer(self, singleShot=True, interval=RETRY_MS)
        self._retry.timeout.connect(self._ask_again)
        controller.busyChanged.connect(self._busy_changed)

    @property
    def _c(self):
        # the controller is the parent: no reference of ours to it, so the two make no
        # reference cycle (a cycle of Qt objects collected by Python's GC crashed Qt)
        return self.parent()

    def _busy_changed(self, busy: bool) -> None:
        if not busy:
            self._retry.start()

    # ----- what the browser asks -------------------------------------------------------------
    def of_trained(self, force: bool = False) -> Reachability | None:
        """The classes of the trained vocabulary as of now, as far as they are known:
        ids past ``len(codes)`` are not classified yet (a job is working them out, or
        will when the window is idle). None: nothing known yet. ``force``: ask again
        after the user cancelled it."""
        v = self._c.view()
        known = self._trained[1] if self._trained is not None else None
        if v is None:
            return known
        if self._trained is None or self._trained[0] is not v:
            known, self._trained = None, None   # another trainer
        n = len(v.vocab_bytes)
        have = len(known.codes) if known is not None else 0
        if have >= n:
            return known
        if n - have <= SYNC_MAX and not self._c.peeking:
            tok = v.tokenizer()
            known = classify_tokens(tok) if known is None else \
                classify_more(tok, known, range(have, n))
            self._trained = (v, known)
            return known
        self._ask("trained", force)
        return known

    def of_imported(self, tok: Tokenizer, force: bool = False) -> Reachability | None:
        """The classes of an imported tokenizer, or None while they are worked out."""
        known = self._imported.get(tok)
        if known is not None:
            return known
        if len(tok.vocab) <= SYNC_MAX:
            known = self._imported[tok] = classify_tokens(tok)
            return known
        self._ask("imported", force)
        return None

    def context_note(self, which: str, tid: int) -> str:
        """For an unreachable token of the shown vocabulary (``which``: "trained" or
        "imported") whose text ends in spaces that a pattern sets apart at the end of a
        text: that the token is still made before a word, in one sentence ('' if not).

        SuperBPE's stage 2 encodes with `` +(?!\\S)``: spaces before whitespace or the
        end of the text are a piece of their own. So ". " alone is cut "." + " " (the
        class test encodes a token's text alone, as "Fishing for Magikarp" does) while
        ". The" is cut ". " + "The": text does produce the token (step 464 of the
        tiny Shakespeare SuperBPE run; issue 30). Under GPT-2's pattern "ing " is not
        made before a word either ("ing" + " a"), and gets no note.
        """
        c = self._c
        if which == "imported":
            tok, reach = c.imported, self._imported.get(c.imported) if c.imported else None
        else:
            v = c.view()
            tok = v.tokenizer() if v is not None and not c.peeking else None
            reach = self._trained[1] if self._trained is not None else None
        if tok is None or reach is None or reach.kind(tid) != "unreachable":
            return ""
        try:
            text = tok.vocab[tid].decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            return ""
        body = text.rstrip()
        if not body or body == text:
            return ""
        got = reach.reencoded.get(tid, ())
        if b"".join(tok.vocab[i] for i in got) != tok.vocab[tid] or \
                not tok.vocab[got[-1]].decode("utf-8", "replace").isspace():
            return ""   # not a trailing space set apart: another reason
        for after in ("The", "a", "I"):
            try:
                ids = tok.encode(text + after, allowed_special="all", add_special_tokens=False)
            except Exception:   # noqa: BLE001  (a note, never an error)
                return ""
            if ids[:1] == [tid]:
                shown = (text + after).replace(" ", "·")
                return (f"Alone, its trailing space is cut off: this tokenizer's pattern sets "
                        f"spaces at the end of a text apart. Before a word (“{shown}”) it is "
                        "this one token, so text does produce it; the class tests a token's "
                        "text alone (as the Magikarp paper does).")
        return ""

    def known_for(self, tok: Tokenizer) -> Reachability | None:
        """Classes already known for this tokenizer object (an imported one), else None."""
        return self._imported.get(tok)

    def cancelled(self, which: str) -> bool:
        """The user cancelled classifying what the browser shows (trained/imported)."""
        c = self._c
        obj = c.view() if which == "trained" else c.imported
        return obj is not None and self._cancelled is obj

    # ----- the job ---------------------------------------------------------------------------------
    def _ask(self, which: str, force: bool = False) -> None:
        c = self._c
        obj = c.view() if which == "trained" else c.imported
        if obj is None or (obj is self._cancelled and not force):
            return
        self._cancelled = None
        self._wanted = which
        if self._asked is not None or c.busy:
            return   # under way, or asked again when the running job ends
        if which == "trained":
            v = obj
            key, build, yields = ("trained", v), v.tokenizer().copy_for_thread(), True
            n = len(v.vocab_bytes)
        else:
            tok = obj
            key, build, yields = ("imported", tok), tok.copy_for_thread(), False
            n = len(tok.vocab)

        def job(progress, cancelled):
            return classify_tokens(build(), progress, cancelled)
        self._asked = key   # before it starts: it may be cancelled at once
        if not c.start(Job(f"Classifying {n:,} tokens (ok, unreachable, undecodable)", job,
                           lambda reach: self._done(key, reach), self._ended,
                           abandon=True, yields=yields)):
            self._asked = None

    def _done(self, key: tuple, reach: Reachability) -> None:
        which, obj = key
        if which == "trained":
            if self._c.view() is obj:
                self._trained = (obj, reach)
        elif isinstance(obj, Tokenizer):
            self._imported[obj] = reach
        self._wanted = None
        self.changed.emit()

    def _ended(self, end: JobEnd) -> None:
        asked, self._asked = self._asked, None
        if end.outcome is Outcome.CANCELLED and asked is not None:   # until asked again
            self._cancelled, self._wanted = asked[1], None
            self.changed.emit()
        elif end.outcome is Outcome.FAILED:   # (reported) do not ask again and again
            self._wanted = None

    def _ask_again(self) -> None:
        if self._wanted is not None and not self._c.busy:
            self.changed.emit()   # the browser asks for what it shows now
