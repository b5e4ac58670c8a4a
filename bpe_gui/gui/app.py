"""QApplication setup and ``main()``: show the window first, then load the sample.

The theme (palettes, colours) is in theme.py and the built-in resources in
resources.py: panels import those leaf modules, never this entry module.
"""
from __future__ import annotations

import os
import sys
import time
import traceback

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from . import platform_check
from .controller.gc_policy import freeze_after_jobs
from .resources import app_icon

ORGANIZATION = "bpe-gui"
APPLICATION = "bpe-gui"
_T0 = time.perf_counter()


def seconds_since_process_start() -> float:
    """Wall time since the interpreter started (Linux: /proc; else since this import)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            start_ticks = int(f.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter() - _T0


# ----- errors ---------------------------------------------------------------------------
def _excepthook(exc_type, exc, tb) -> None:
    """A bug in a slot: keep the app alive and show the trace so it can be reported."""
    trace = "".join(traceback.format_exception(exc_type, exc, tb))
    sys.stderr.write(trace)
    app = QApplication.instance()
    if app is None:
        return
    box = QMessageBox(QMessageBox.Icon.Critical, "Unexpected error",
                      f"Something went wrong inside bpe-gui: {exc_type.__name__}: {exc}\n\n"
                      "Your corpus and settings are kept. Please report this with the "
                      "details below.", QMessageBox.StandardButton.Ok,
                      QApplication.activeWindow())
    box.setDetailedText(trace)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()


def create_application(argv: list[str]) -> QApplication:
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("bpe-gui")
    app.setWindowIcon(app_icon())
    return app


# Every Python call the GUI thread makes (a slot, a model's data(), a paint) needs the
# GIL; while a job runs Python on a worker thread, each handover waits up to the switch
# interval (5 ms by default), and a repaint makes hundreds of such calls.
GIL_SWITCH_INTERVAL_S = 0.0005


def apply_process_settings() -> None:
    """The settings the application makes for its whole process (main() calls this; a
    script or a test that uses the engine or the widgets keeps Python's defaults).

    - GIL switch interval 0.5 ms instead of 5 ms: the longest GUI-thread wait while the
      20 MB corpus opens, pre-tokenizes and trains was 74-76 ms with it and 95-201 ms
      without (three runs each, ``python -m pytest bench/test_gui_responsiveness.py``;
      the pre-tokenizing phase gains most: 38-46 ms against 56-201 ms).
    - gc.freeze() after training jobs (gc_policy.freeze_after_jobs): a trained 20 MB corpus
      leaves ~600,000 tracked objects, and a full collection then takes 100-150 ms on
      whichever thread Python starts it (the GUI thread, mid-repaint); frozen, under 1 ms.
    """
    if sys.getswitchinterval() > GIL_SWITCH_INTERVAL_S:
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    freeze_after_jobs()


def main(argv: list[str] | None = None) -> int:
    """Open the window with the built-in sample (or files/sessions given as arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)
    problem = platform_check.xcb_problem(args)
    if problem:   # Qt would abort in QApplication() with a page of hints
        print(problem, file=sys.stderr)
        return 2
    apply_process_settings()
    app = create_application([sys.argv[0], *args])
    args = app.arguments()[1:]  # Qt removed its own options (-platform, -style ...)
    from .window.main_window import MainWindow  # after QApplication: widgets need it
    from .window.sessions import settings_file_notice
    settings_file_notice(QSettings())   # a damaged file is copied before anything saves

    win = MainWindow()
    # a small screen: maximized, so the window manager fits its frame on the screen too
    win.showMaximized() if win.dock_layout.fill_screen else win.show()
    probe = os.environ.get("BPE_GUI_STARTUP_PROBE")

    def after_shown() -> None:
        if probe:
            print(f"first window shown after {seconds_since_process_start():.2f} s "
                  "(since the process started)", flush=True)
        win.sessions.load_initial([a for a in args if not a.startswith("-")])
        if probe == "quit":
            QTimer.singleShot(0, win.close)
        elif probe == "loaded":
            report_when_loaded(win)

    QTimer.singleShot(0, after_shown)
    sys.excepthook = _excepthook
    quit_on_signals(app, win.quit_for_signal)
    return app.exec()


def report_when_loaded(win) -> None:
    """``BPE_GUI_STARTUP_PROBE=loaded``: once what the window opens with (files, the last
    session or the sample) has loaded, print the window's title and the error box shown
    if any, then close."""
    c = win.controller

    def report() -> None:
        if c.busy:   # a job that ends later reports by busyChanged
            return
        c.busyChanged.disconnect(later)
        err = win.status.last_error
        print(f"loaded: {win.windowTitle()}; error shown: "
              + (f"{err[0]}: {err[1]}" if err else "none"), flush=True)
        win.close()

    def later(busy: bool) -> None:
        if not busy:   # after the job's own end signals (its error box) have run
            QTimer.singleShot(0, report)
    c.busyChanged.connect(later)
    QTimer.singleShot(0, report)


def quit_on_signals(app: QApplication, quit_) -> None:
    """SIGTERM and SIGINT call ``quit_`` (which closes the window, saving its layout and
    session). Python runs a signal handler only when it next runs bytecode, and Qt's
    event loop is C: without a wake-up, SIGINT waits for the next mouse move and SIGTERM
    kills the process with nothing saved. So the signal writes a byte to a socket
    (``signal.set_wakeup_fd``) that a QSocketNotifier watches; reading it runs Python, and
    the handler with it."""
    if os.name != "posix":
        return
    import signal
    import socket

    from PySide6.QtCore import QSocketNotifier

    rsock, wsock = socket.socketpair()
    rsock.setblocking(False)
    wsock.setblocking(False)
    signal.set_wakeup_fd(wsock.fileno(), warn_on_full_buffer=False)
    notifier = QSocketNotifier(rsock.fileno(), QSocketNotifier.Type.Read, app)

    def drain() -> None:
        try:
            rsock.recv(512)
        except OSError:
            pass
    notifier.activated.connect(drain)

    def handler(_signum, _frame) -> None:
        QTimer.singleShot(0, quit_)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)
    setattr(app, "_signal_wakeup", (rsock, wsock, notifier))   # alive as long as the app


if __name__ == "__main__":
    sys.exit(main())
