"""Sessions of the main window: save and open ``.bpesession`` files (corpus, settings,
step, the encode view's text, the imported tokenizer), the autosave when the window
closes, and what the window opens at start (files given on the command line, the last
session unless turned off in the File menu, or the default sample).

:class:`Sessions` is a part of :class:`~bpe_gui.gui.window.main_window.MainWindow`,
composed, given the window and the parts of it that a session holds or needs.
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

from PySide6.QtCore import QLockFile, QSettings, QStandardPaths
from PySide6.QtWidgets import QFileDialog, QMainWindow

from ..resources import resources
from ..controller.controller import Controller
from ..widgets.last_folder import last_folder, remember
from ..panels.corpus.corpus_editor import SESSION_SUFFIX

SESSION_FILTER = f"bpe-gui sessions (*{SESSION_SUFFIX} *.json);;All files (*)"
AUTOSAVE_NAME = "last-session" + SESSION_SUFFIX
KEPT_MAX = 5   # other windows' sessions kept beside the autosave (the oldest go)
AUTOSAVE_MAX_INLINE = 5_000_000   # characters of edited text the autosave keeps inline
# set when a signal closed the window with unsaved corpus edits: the next start opens the
# autosave even if "Reopen last session" is off, so the edits are not lost
RECOVER_KEY = "recoverAutosave"


class Sessions:
    """Session files, the autosave and the first thing the window opens."""

    def __init__(self, window: QMainWindow, controller: Controller, settings: QSettings,
                 recent, editor, encode_view, merge_panel, files, reopen: Callable[[], bool],
                 show_error: Callable[[str, str], object], compare_view=None):
        self.window, self.controller, self.settings = window, controller, settings
        self.recent, self.editor, self.files, self.reopen = recent, editor, files, reopen
        self.encode_view, self.merge_panel, self.show_error = encode_view, merge_panel, show_error
        self.compare_view = compare_view
        self._sample_encode_text = ""
        # the autosave as this window found it: one changed since was written by another
        # window (instance) that closed first, and is kept beside, not overwritten
        self._autosave_seen = _stamp(self.autosave_path())

    def encode_text(self) -> str:
        view = self.encode_view
        for name in ("text", "input_text"):
            fn = getattr(view, name, None)
            if callable(fn):
                try:
                    return str(fn())
                except TypeError:
                    pass
        return ""

    def _show_ws(self) -> bool:
        ws = getattr(self.encode_view, "show_ws", None)
        return ws.isChecked() if ws is not None else True

    def sample_loaded(self, sample) -> None:
        """Offer the sample's example text in the encode view, unless the user typed one."""
        current = self.encode_text()
        if sample.encode_text and (not current.strip() or current == self._sample_encode_text):
            self.set_encode_text(sample.encode_text)
            self._sample_encode_text = sample.encode_text

    def set_encode_text(self, text: str) -> None:
        fn = getattr(self.encode_view, "set_text", None)
        if callable(fn) and text:
            fn(text)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open session", self._session_dir(),
                                              SESSION_FILTER)
        if path:
            remember(path)
            self.open_session(path)

    def open_session(self, path: str) -> bool:
        if not self.files.maybe_save_corpus():
            return False
        if not self._restore(path):
            return False
        if not path.endswith(AUTOSAVE_NAME):
            self.recent.add([path])
        return True

    def _restore(self, path: str) -> bool:
        """The session's corpus, settings and steps (controller), and the view's part:
        the encode text and visible whitespace."""
        s = self.controller.opening.open_session(path)
        if s is None:
            return False
        self.set_encode_text(s.encode_text)
        ws = getattr(self.encode_view, "show_ws", None)
        if ws is not None:
            ws.setChecked(s.show_whitespace)
        if self.compare_view is not None and s.compare_b is not None:
            self.compare_view.pane_b.restore(s.compare_b, self._compare_note)
        return True

    def _compare_note(self, note: str) -> None:
        """Compare's side B could not come back as it was: said in the status bar, with
        what else of the session could not."""
        notes = self.controller.opening.restore_notes
        notes.append(note)
        self.controller.message.emit(" ".join(notes))

    def _compare_b(self) -> dict | None:
        view = self.compare_view
        return view.pane_b.state() if view is not None else None

    def _timeline_end(self) -> int:
        """The last step the timeline shows (steps past the current one were undone)."""
        timeline = getattr(self.merge_panel, "timeline", None)
        return len(getattr(timeline, "records", ()))

    def save(self) -> bool:
        path = self.controller.session_path
        if not path or path.endswith(AUTOSAVE_NAME):
            return self.save_as()
        return self.controller.opening.save_session(path, self.encode_text(), self._show_ws(),
                                                    self._timeline_end(), self._compare_b())

    def save_as(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(self.window, "Save session",
                                              str(Path(self._session_dir()) / f"work{SESSION_SUFFIX}"),
                                              SESSION_FILTER)
        if not path:
            return False
        if not path.endswith(SESSION_SUFFIX) and not path.endswith(".json"):
            path += SESSION_SUFFIX
        ok = self.controller.opening.save_session(path, self.encode_text(), self._show_ws(),
                                                  self._timeline_end(), self._compare_b())
        if ok:
            remember(path)
            self.recent.add([path])
        return ok

    def _session_dir(self) -> str:
        return last_folder()

    def autosave_path(self) -> Path:
        """Where the session is saved for the next start (tests put it elsewhere)."""
        base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
        return Path(base or Path.home() / ".bpe-gui") / AUTOSAVE_NAME

    def autosave(self, discard_edits: bool = False) -> str | None:
        """Save the session for the next start (on close). Never raises: quitting must
        not fail on it. Returns why it could not be saved (None: saved or not needed);
        the next start says so too (``load_initial``). ``discard_edits``: the user
        answered Discard to unsaved corpus edits, so the session keeps the corpus as it
        was before them (its file or sample; none for text typed from scratch)."""
        c = self.controller
        lock: QLockFile | None = None
        try:
            path = self.autosave_path()
            if path.is_dir():
                return autosave_is_folder(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            # two windows closing at once take turns (a stale lock of a crashed one is
            # taken over after a while; without the lock the write is still atomic)
            lock = QLockFile(str(path) + ".lock")
            lock.setStaleLockTime(30_000)
            lock.tryLock(5_000)
            theirs = _stamp(path) not in (None, self._autosave_seen)
            # the session as the controller would save it: while one is being restored,
            # that one (never the half-restored state: no trainer yet is step 0)
            session = c.opening.session(self.encode_text(), self._show_ws(),
                                        self._timeline_end(), self._compare_b(),
                                        without_edits=discard_edits)
            text = session.corpus_text or ""
            if not session.corpus_paths and (not text or len(text) > AUTOSAVE_MAX_INLINE):
                # nothing this session could be saved with: an older autosave must not
                # come back in its place at the next start (another window's may)
                if not theirs:
                    path.unlink(missing_ok=True)
                return None
            if theirs:   # the last window closed wins; the other's is kept beside
                keep_aside(path)
            session.save(path)   # atomic: a temporary file renamed into place
            self._autosave_seen = _stamp(path)
        except Exception as e:  # noqa: BLE001  (never block quitting on the autosave)
            why = f"The session could not be autosaved to {self.autosave_path()}: {e}"
            sys.stderr.write(why + "\n")
            return why
        finally:
            if lock is not None and lock.isLocked():
                lock.unlock()
        return None

    def _kept_notice(self, auto: Path) -> str:
        """A few words on another window's session kept beside the autosave since the
        last start (once)."""
        kept = kept_sessions(auto)
        if not kept or str(self.settings.value("autosave/keptNoticed", "")) == kept[0].name:
            return ""
        self.settings.setValue("autosave/keptNoticed", kept[0].name)
        return (f" Another window closed before the last one: its session is kept as "
                f"“{kept[0].name}” (File > Open session).")

    def set_reopen(self, on: bool) -> None:
        self.settings.setValue("reopenLastSession", bool(on))

    def load_initial(self, args: Sequence[str] = ()) -> None:
        """After the window is shown: files from the command line, last session or sample."""
        if args:
            self.files.open_paths(list(args))
            return
        notice = settings_file_notice(self.settings)
        if notice:
            self.show_error("Settings reset", notice)
        auto = self.autosave_path()
        recover = str(self.settings.value(RECOVER_KEY, "false")).lower() == "true"
        self.settings.remove(RECOVER_KEY)
        if auto.is_dir():
            self.show_error("Last session not restored", autosave_is_folder(auto))
        elif (self.reopen() or recover) and auto.exists():
            if self._restore(str(auto)):
                if recover:
                    self.controller.message.emit(" ".join([
                        *self.controller.opening.restore_notes,
                        "The window was closed by a signal with unsaved corpus edits: "
                        "they are back, from the autosaved session. Save them with File > "
                        "Save corpus as."]))
                elif self.controller.busy:   # its corpus is read and trained back
                    step = self.controller.opening.session().step
                    self.controller.message.emit(
                        f"Restoring where you left off (step {step:,}): reading and "
                        "training the corpus again. (File > Reopen last session at "
                        "startup turns this off.)")
                else:
                    # what did not come back first: a long message is cut at its end
                    self.controller.message.emit(" ".join([
                        *self.controller.opening.restore_notes,
                        "Restored where you left off. (File > Reopen last session at "
                        "startup turns this off.)" + self._kept_notice(auto)]))
                return
        self.editor.load_sample(resources().default_sample_id())


_backed_up: set[str] = set()


def settings_file_notice(settings: QSettings) -> str | None:
    """If the settings file could not be read in full, keep a copy of it (Qt rewrites it
    with only what it could read, on its next save) and say so; None if it was fine.
    Called before the window writes any setting (app.main) and again when it shows."""
    if settings.status() != QSettings.Status.FormatError:
        return None
    path = Path(settings.fileName())
    copy = path.with_name(path.name + ".corrupt")
    if str(path) not in _backed_up:
        _backed_up.add(str(path))
        try:
            shutil.copyfile(path, copy)
        except OSError as e:
            return (f"The settings file {path} is damaged and could not be read in full, "
                    f"so bpe-gui starts with default settings (layout, recent files, "
                    f"theme) where it could not read them. No copy could be kept ({e}).")
    return (f"The settings file {path} is damaged and could not be read in full, so "
            "bpe-gui starts with default settings (layout, recent files, theme) where it "
            f"could not read them. The damaged file is kept as {copy}.")


def autosave_is_folder(path: Path) -> str:
    return (f"The autosave path {path} is a folder, so the last session can be neither "
            "restored nor saved there. Move or rename that folder; the next quit saves "
            "the session again.")


def _stamp(path: Path) -> tuple[int, int] | None:
    """(modification time, size) of a file, None if there is none."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def kept_sessions(path: Path) -> list[Path]:
    """Other windows' last sessions kept beside the autosave ``path``, newest first."""
    stem = path.name[:-len(SESSION_SUFFIX)]
    found = [p for p in path.parent.glob(f"{stem} (another window, *){SESSION_SUFFIX}")]
    return sorted(found, key=lambda p: _stamp(p) or (0, 0), reverse=True)


def keep_aside(path: Path) -> Path:
    """Move the autosave of a window that closed before this one beside it, named by
    when it was written (File > Open session opens it); at most KEPT_MAX are kept."""
    when = time.strftime("%Y-%m-%d %H.%M.%S", time.localtime(path.stat().st_mtime))
    stem = path.name[:-len(SESSION_SUFFIX)]
    dest = path.with_name(f"{stem} (another window, {when}){SESSION_SUFFIX}")
    n = 2
    while dest.exists():
        dest = path.with_name(f"{stem} (another window, {when}, {n}){SESSION_SUFFIX}")
        n += 1
    os.replace(path, dest)
    for old in kept_sessions(path)[KEPT_MAX:]:
        old.unlink(missing_ok=True)
    return dest
