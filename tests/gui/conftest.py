"""GUI test setup: headless Qt, settings and autosaves kept in tmp_path, a main window.

The Qt platform is chosen once, in tests/conftest.py (pytest loads it before this file,
also when a single file here is run). Every test gets QSettings redirected into its own
tmp_path, so the developer's own layout and recent files are never read or written.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, QStandardPaths

import bpe_gui.gui  # noqa: F401  (the PySide6 6.12.0 refcount guard; no-op elsewhere)


@pytest.fixture(autouse=True)
def widgets_live_until_closed(qtbot, monkeypatch):
    """Widgets given to ``qtbot.addWidget`` stay referenced until pytest-qt has closed
    them after the test, and are then deleted by Qt at once, parents before children.

    pytest-qt holds them weakly: a panel that was only a local of the test became
    garbage when the test returned, still shown and owned by Python, and the GUI-thread
    garbage collector (gc_policy.py) could free it before pytest-qt closed it. Freed from
    inside a reference cycle, its children were destroyed after their parent's memory
    was gone: a segfault in ~QWidget (QWidget::window) about one full run in two. Then
    pytest-qt's deleteLater() never ran either (no event loop runs between tests, and
    processEvents() does not do deferred deletes); sendPostedEvents from here does.
    """
    from PySide6.QtCore import QCoreApplication, QEvent
    kept = []
    add = qtbot.addWidget

    def add_and_keep(widget, *args, **kwargs):
        kept.append(widget)
        return add(widget, *args, **kwargs)
    monkeypatch.setattr(qtbot, "addWidget", add_and_keep)
    yield
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    kept.clear()


@pytest.fixture(scope="session")
def font_probe(qapp):
    """The application font's answers, found once per worker (a fresh Glyphs asks every
    installed family on the first character its font lacks)."""
    from bpe_gui.gui.models.glyphs import Glyphs
    return Glyphs().drawable


@pytest.fixture(autouse=True)
def fresh_glyphs(font_probe):
    """Each test gets its own application Glyphs (bpe_gui.gui.models.glyphs.glyphs()):
    the one of the process kept the scripts earlier tests found no font for, so a
    window's status bar said what an earlier test had shown. It asks the shared probe."""
    from bpe_gui.gui.models.glyphs import Glyphs, use_glyphs
    use_glyphs(Glyphs(has_glyph=font_probe))
    yield
    use_glyphs(None)


# the shortest a wait for a condition may give up after: a window that is right is
# right at once, and a loaded CI machine (two test workers, each with worker threads
# and processes) has taken over 5 s, pytest-qt's default, to lay out a main window
PATIENCE_MS = 20_000


@pytest.fixture(autouse=True)
def patient_waits(qtbot, monkeypatch):
    """qtbot.waitUntil waits at least PATIENCE_MS before it fails a test."""
    wait = qtbot.waitUntil

    def patient(callback, *, timeout: int = PATIENCE_MS):
        return wait(callback, timeout=max(timeout, PATIENCE_MS))
    monkeypatch.setattr(qtbot, "waitUntil", patient)


@pytest.fixture(autouse=True)
def no_unanswered_question(monkeypatch):
    """A modal message box nobody answers within 20 s is closed and fails the test:
    offscreen, its exec() waited forever and the whole run hung. A test that expects a
    question answers it (answer_next_box, or the window part that asks)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox
    real, unanswered = QMessageBox.exec, []

    def guarded(box, *args, **kwargs):
        def give_up() -> None:
            if box.isVisible():
                unanswered.append(f"{box.windowTitle()!r}: {box.text()[:200]!r}")
                box.reject()
        QTimer.singleShot(20_000, box, give_up)
        return real(box, *args, **kwargs)
    monkeypatch.setattr(QMessageBox, "exec", guarded)
    yield
    assert not unanswered, f"a question nobody answered: {unanswered[0]}"


@pytest.fixture(autouse=True)
def isolated_qsettings(tmp_path, monkeypatch):
    """QSettings() and QStandardPaths point into tmp_path for the duration of a test."""
    folder = tmp_path / "qsettings"
    QSettings.setDefaultFormat(QSettings.IniFormat)
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(folder))
    QStandardPaths.setTestModeEnabled(True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    yield folder


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "controller(text=WORKED, step=0, **settings): what the controller "
        "fixture trains on (settings: TrainSettings fields; vocab_size 1000 by default)")


@pytest.fixture
def controller(qtbot, request):
    """A real Controller trained on a small corpus (panel_helpers.make_controller), at
    step 0 or the step asked for; shut down after the test.

    A module says what it trains on with ``pytestmark = pytest.mark.controller(TEXT,
    step=40, special_tokens=(...), ...)``; a test can override it with
    ``@pytest.mark.parametrize("controller", [dict(pattern=...)], indirect=True)``.
    """
    from panel_helpers import WORKED, make_controller
    mark = request.node.get_closest_marker("controller")
    kw = dict(mark.kwargs) if mark is not None else {}
    kw.update(getattr(request, "param", None) or {})
    text = kw.pop("text", mark.args[0] if mark is not None and mark.args else WORKED)
    step = kw.pop("step", 0)
    c = make_controller(text, **kw)
    qtbot.waitUntil(lambda: not c.busy and c.trainer is not None, timeout=20_000)
    if step:
        c.goto(step)
        qtbot.waitUntil(lambda: not c.busy, timeout=20_000)
    yield c
    c.shutdown()


@pytest.fixture
def settings_file(tmp_path):
    return str(tmp_path / "window.ini")


@pytest.fixture
def make_window(qtbot, tmp_path, settings_file, monkeypatch):
    """Build main windows on one settings file; each is closed (no prompts) at teardown."""
    from bpe_gui.gui.window.main_window import MainWindow
    from bpe_gui.gui.window.sessions import Sessions

    monkeypatch.setattr(Sessions, "autosave_path",
                        lambda self: tmp_path / "autosave.bpesession")
    windows = []

    def make(load: bool = True, **kw):
        win = MainWindow(settings=QSettings(settings_file, QSettings.IniFormat), **kw)
        # not qtbot.addWidget: it closes widgets before fixtures tear down, and closing
        # a window with unsaved edits would ask (a modal box) and hang the test run
        win.show()
        qtbot.waitExposed(win)
        if load:
            win.sessions.load_initial([])
            wait_ready(qtbot, win.controller)
        windows.append(win)
        return win

    yield make
    for win in windows:
        win.dock_layout.editor._edited = False
        win.dock_layout.editor._edit_timer.stop()
        win.controller.mark_corpus_saved()
        win.close()
        win.controller.shutdown()
        win.deleteLater()
    qtbot.wait(1)


@pytest.fixture
def window(make_window):
    return make_window()


def wait_ready(qtbot, controller, timeout: int = 20_000) -> None:
    """Until no job runs and the trainer matches corpus and settings."""
    qtbot.waitUntil(lambda: not controller.busy and not controller.stale
                    and not controller.retrain_pending, timeout=timeout)


def wait_idle(qtbot, controller, timeout: int = 20_000) -> None:
    qtbot.waitUntil(lambda: not controller.busy, timeout=timeout)


@pytest.fixture
def ready(qtbot):
    """``ready(controller)``: wait until trained on the current corpus and settings."""
    return lambda controller, timeout=20_000: wait_ready(qtbot, controller, timeout)


@pytest.fixture
def idle(qtbot):
    """``idle(controller)``: wait until no job runs."""
    return lambda controller, timeout=20_000: wait_idle(qtbot, controller, timeout)
