"""Screenshots of every panel and dialog of the window, at one screen size, in a real X
server (run by hand, from the repository's root)::

    python -m tools.layout_screenshots 800x600 [OUT_DIR] [--only NAME,NAME]
    python -m tools.layout_screenshots --after-resize [OUT_DIR]   # issue 89's walk, below

Starts its own Xvfb of that size and openbox (both needed: Xvfb, openbox and
ImageMagick's ``import``), opens the window maximized as ``bpe-gui`` does on that screen,
with settings in a temporary folder, and saves the whole screen, NAME-WxH.png in OUT_DIR
(default screenshots/, ignored by git: copy the ones the docs show into docs/screenshots/),
for each scene of :data:`SCENES`: the panels in front one after the other (main, settings, vocab, charts, compare, compare-focus, playback, chat),
and the dialogs open over the window (import, export, run-to-step, check, open-model,
language-cost, training-mixture, train-on). Some scenes show a fix of issue 82 in
particular: glyphs (Hindi, Thai and emoji no font here draws, said in the status bar
whatever the tokens show), export (the status bar naming every file written), train-on
(the one-line note that keeps the ids in sight), parity-charts and parity-export (the
charts' legend clear of their ticks; the tie rule a parity run uses).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "parallel"
GLYPH_TEXT = ("नमस्ते दुनिया। यह एक परीक्षण है।\nสวัสดีครับ ภาษาไทย\n"
              "emoji 🎉👍 and low lower newest widest")


def start_x(w: int, h: int) -> list[subprocess.Popen]:
    """An Xvfb of w x h on a free display, and openbox on it (DISPLAY set)."""
    display = next(n for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    xvfb = subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", f"{w}x{h}x24", "-nolisten",
                             "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 30
    while not Path(f"/tmp/.X11-unix/X{display}").exists():
        if time.monotonic() > end or xvfb.poll() is not None:
            raise SystemExit("Xvfb did not start")
        time.sleep(0.1)
    os.environ["DISPLAY"] = f":{display}"
    wm = subprocess.Popen(["openbox"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)   # (openbox says nothing when it manages the screen)
    return [wm, xvfb]


@dataclass
class Shots:
    """The window being shot, and how to shoot it."""

    app: object
    win: object
    out: Path
    size: str
    tmp: Path

    def pump(self, seconds: float = 0.3) -> None:
        from tools.screenshots import pump
        pump(self.app, seconds)

    def idle(self) -> None:
        from tools.screenshots import wait_idle
        wait_idle(self.app, self.win)

    def shot(self, name: str, seconds: float = 0.8) -> Path:
        self.pump(seconds)
        path = self.out / f"{name}-{self.size}.png"
        subprocess.run(["import", "-window", "root", str(path)], check=True)
        return path

    def front(self, dock, seconds: float = 0.5) -> None:
        dock.show()
        dock.raise_()
        self.pump(seconds)


# ----- the scenes, in order (each leaves the window as the next expects it) -----------------
def main_view(s: Shots) -> None:
    s.shot("main")


def settings(s: Shots) -> None:
    s.front(s.win.dock_layout.settings_dock)
    s.shot("settings")
    s.front(s.win.dock_layout.corpus_dock)


def vocab(s: Shots) -> None:
    dl = s.win.dock_layout
    s.front(dl.vocab_dock)
    vb = dl.vocab_browser
    merged = [i for i in vb.visible_ids() if i >= 12]   # (the tutorial: characters)
    if merged:
        vb.select_id(merged[-1])
    s.shot("vocab")


def charts(s: Shots) -> None:
    s.front(s.win.dock_layout.charts_dock)
    s.shot("charts", 1.5)


def compare(s: Shots) -> None:
    from bpe_gui.gui.panels.compare.compare_view import SAMPLE_TEXT
    dl = s.win.dock_layout
    s.front(dl.compare_dock)
    dl.compare_view.set_text(SAMPLE_TEXT)
    s.idle()
    s.shot("compare", 1.2)
    dl.toggle_focus(dl.compare_dock)
    s.shot("compare-focus", 1.2)
    dl.toggle_focus(dl.compare_dock)


def playback(s: Shots) -> None:
    dl = s.win.dock_layout
    ev = dl.encode_view
    s.front(dl.encode_dock)
    ev.set_text("lowest newer wider low")
    s.pump(0.8)
    dl.playback_view.show_word(ev.words.found.word_at(len("lowest newer w")))
    s.front(dl.playback_dock)
    s.shot("playback")
    s.front(dl.corpus_dock)   # (a tab of the corpus's column on a small screen)


def chat(s: Shots) -> None:
    s.front(s.win.dock_layout.chat_dock)
    s.shot("chat", 1.2)
    s.front(s.win.dock_layout.encode_dock)


def run_to_step(s: Shots) -> None:
    dlg = s.win.actions_menus.goto_dialog()
    s.shot("run-to-step")
    dlg.reject()


def glyphs(s: Shots) -> None:
    """Hindi, Thai and emoji no font here draws: boxes in the text, partial bytes or
    <unk> in the chips, and the status bar says so all the same."""
    dl = s.win.dock_layout
    s.front(dl.encode_dock)
    dl.encode_view.set_text(GLYPH_TEXT)
    s.shot("glyphs", 1.0)
    dl.encode_view.set_text("lowest newer wider low")


def byte_level(s: Shots) -> None:
    """From here on: an English sample trained at byte level (every export format)."""
    s.win.dock_layout.editor.load_sample("english")
    s.idle()
    s.win.controller.goto(60)
    s.idle()


def export(s: Shots) -> None:
    """Every format the tokenizer can be written in: the status bar names every file."""
    dlg = s.win.actions_menus.export_dialog()
    for box in dlg.checks.values():
        box.setChecked(box.isEnabled())
    dlg.folder_edit.setText(str(s.tmp / "export"))
    dlg.export()
    s.shot("export")
    dlg.reject()


def import_dialog(s: Shots) -> None:
    """The last path offered selected: typing replaces it."""
    from PySide6.QtCore import QSettings
    QSettings().setValue("import/last", str(s.tmp / "earlier" / "tokenizer.json"))
    dlg = s.win.actions_menus.import_dialog()
    s.shot("import")
    dlg.reject()


def open_model(s: Shots) -> None:
    dlg = s.win.actions_menus.open_model_dialog()
    s.shot("open-model", 1.5)
    dlg.reject()


def check(s: Shots) -> None:
    """Check my BPE before a check (its intro whole), then after one on a learner's
    result (the check's tests' learners)."""
    from bpe_gui.gui.dialogs.check_dialog import show_check_dialog
    win = s.win
    dlg = show_check_dialog(win.controller, win)
    s.shot("check-intro", 1.0)
    sys.path.insert(0, str(ROOT / "tests" / "engine" / "check"))
    import bpe_learners as L
    text = L.tutorial_text()
    corpus = s.tmp / "tutorial.txt"
    corpus.write_text(text, encoding="utf-8")
    vocab_, merges = L.train(text, 256 + 1 + 150, pick=L.first_seen)
    win.files.open_paths([str(corpus)])
    s.idle()
    dlg.panel.set_result(str(L.write_pickle(s.tmp, vocab_, merges)))
    s.pump(0.5)
    dlg.panel.run_check()
    s.idle()
    s.shot("check", 1.2)
    dlg.close()


def train_on(s: Shots) -> None:
    """Train on from an imported tokenizer: the one-line note keeps the ids in sight."""
    from bpe_gui.engine.formats import export_tokenizer
    from bpe_gui.engine.train import Trainer, TrainSettings
    c, dl = s.win.controller, s.win.dock_layout
    t = Trainer.from_source("low lower newest widest, the slow brown dog " * 20,
                            TrainSettings(num_merges=40))
    t.goto(40)
    export_tokenizer(t.tokenizer(), s.tmp / "source", "gpt2")
    c.tokenizer_files.import_tokenizer(str(s.tmp / "source" / "vocab.json"))
    s.idle()
    s.front(dl.encode_dock)
    dl.encode_view.set_text("The river flows past the old mill and the lower fields. " * 3)
    dlg = s.win.train_on_flow.ask()
    s.shot("train-on-dialog")
    if dlg is not None:
        dlg.accept()
    s.idle()
    s.shot("train-on")


def language_cost(s: Shots) -> None:
    """Per-language cost: the imported tokenizer named."""
    held = s.tmp / "held-out"   # one text per language: the fixtures' dev texts
    held.mkdir(exist_ok=True)
    for lang in ("en", "de", "zh", "ru"):
        shutil.copy(FIXTURES / f"{lang}.dev.txt", held / f"{lang}.txt")
    dlg = s.win.actions_menus.language_cost_dialog()
    dlg.set_folder(str(held))
    dlg.add_step.click()
    if dlg.add_imported.isEnabled():
        dlg.add_imported.click()
    dlg.run()
    s.idle()
    s.shot("language-cost", 1.2)
    dlg.close()


def encode_files(s: Shots) -> None:
    """File › Encode files to ids: two texts cut at blank lines, by an imported tokenizer
    with <|endoftext|>, written."""
    from bpe_gui.engine.formats import export_tokenizer
    from bpe_gui.engine.train import Trainer, TrainSettings
    text = "".join((FIXTURES / f"{lang}.train.txt").read_text("utf-8") for lang in ("en", "zh"))
    t = Trainer.from_source(text, TrainSettings(num_merges=300,
                                                special_tokens=("<|endoftext|>",)))
    t.goto(300)
    export_tokenizer(t.tokenizer(), s.tmp / "with-eot", "hf")
    s.win.controller.tokenizer_files.import_tokenizer(str(s.tmp / "with-eot" / "tokenizer.json"))
    s.idle()
    dlg = s.win.actions_menus.ids_dialog()
    dlg.source.setCurrentIndex(dlg.source.count() - 1)
    dlg.add_files([str(FIXTURES / f"{lang}.train.txt") for lang in ("en", "zh")])
    dlg.separator.setText(r"\n\n")
    dlg.out.setText(str(s.tmp / "ids.bin"))
    dlg.run()
    s.idle()
    s.shot("encode-files", 1.2)
    dlg.close()


def training_mixture(s: Shots) -> None:
    """What was the imported tokenizer trained on: a sample per language, inferred."""
    dlg = s.win.actions_menus.training_mixture_dialog()
    dlg.add_sample_files([str(FIXTURES / f"{lang}.train.txt") for lang in ("en", "de")])
    dlg.run()
    s.idle()
    s.shot("training-mixture", 1.2)
    dlg.close()
    s.win.controller.train_on.leave()
    s.idle()


def parity(s: Shots) -> None:
    """A parity run: the dev-set chart's legend clear of its ticks; Export's tie rule."""
    dl = s.win.dock_layout
    panel = dl.settings_panel
    panel.parity.add_languages([str(FIXTURES / f"{n}.train.txt")
                                for n in ("en", "de", "zh", "ru")])
    panel.merges_radio.setChecked(True)
    panel.merges_spin.setValue(300)
    if panel.check():
        s.win.actions_menus.flow.train()
        s.idle()
    s.front(dl.charts_dock)
    s.shot("parity-charts", 1.5)
    dlg = s.win.actions_menus.export_dialog()
    s.shot("parity-export")
    dlg.reject()


SCENES: dict[str, Callable[[Shots], None]] = {
    "main": main_view, "settings": settings, "vocab": vocab, "charts": charts,
    "compare": compare, "playback": playback, "chat": chat, "run-to-step": run_to_step,
    "glyphs": glyphs, "import": import_dialog, "open-model": open_model, "check": check,
    "byte-level": byte_level, "export": export, "train-on": train_on,
    "language-cost": language_cost, "encode-files": encode_files,
    "training-mixture": training_mixture, "parity": parity,
}


def main(w: int, h: int, out: Path, only: list[str] | None = None) -> None:
    for tool in ("Xvfb", "openbox", "import"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed (apt-get install xvfb openbox imagemagick)")
    out.mkdir(parents=True, exist_ok=True)
    procs = start_x(w, h)
    try:
        run(w, h, out, only)
    finally:
        for p in procs:
            p.terminate()
            p.wait()


def run(w: int, h: int, out: Path, only: list[str] | None = None) -> None:
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    from PySide6.QtCore import QSettings, QStandardPaths
    from bpe_gui.gui.app import create_application
    QStandardPaths.setTestModeEnabled(True)
    tmp = Path(tempfile.mkdtemp(prefix="bpe-gui-layout-shots-"))
    app = create_application([sys.argv[0]])
    from bpe_gui.gui.window.main_window import MainWindow
    win = MainWindow(settings=QSettings(str(tmp / "settings.ini"), QSettings.IniFormat))
    win.themes.set("light", save=False)
    win.showMaximized() if win.dock_layout.fill_screen else win.show()
    s = Shots(app, win, out, f"{w}x{h}", tmp)
    s.pump(1.0)
    win.dock_layout.editor.load_sample("tutorial")
    s.idle()
    win.controller.goto(40)
    s.idle()
    for name, scene in SCENES.items():
        if only is None or name in only:
            scene(s)
            win.statusBar().clearMessage()
    c = win.controller
    c.set_corpus_text(c.corpus_text, dirty=False)
    win.close()
    s.pump(0.3)
    print(f"screenshots at {w}x{h} in {out}")



# ----- after the resize sequence of issue 89 (real keys, clicks and window sizes) -----------
# ``python -m tools.layout_screenshots --after-resize [OUT_DIR]``: one Xvfb of 1920x1080
# with openbox, a fresh profile (HOME, XDG_CONFIG_HOME and the settings file in a temporary
# folder). At 1920x1080 it opens an English corpus of CORPORA by File > Open (typed into
# the file dialog), trains 30 merges (F5 after the merges box), then 60 on a Chinese +
# English one, steps back 10 and on 5 (Shift+F10, F10), gives the Chat dock Focus
# (Ctrl+Shift+F), resizes the window to 800x600, then 1024x700 (xdotool), and leaves
# Focus. Then at each of 800x600, 1024x700 and 1920x1080 (the window's size; maximized for
# the last): every panel in front (after-SIZE-NAME.png), every menu (menu-...) and every
# dialog a key opens (dialog-...), each cropped to the window and whatever it opened.
# A modal dialog runs its own loop: the keys and the shot come from a thread, while a
# timer on the GUI thread notes where the windows are. Default OUT_DIR:
# screenshots/after-resize (ignored by git).
CORPORA = Path(os.environ.get("BPE_GUI_CORPORA_DIR") or "/work/shared/corpora")
SIZES = ((800, 600), (1024, 700), (1920, 1080))
PANELS = ("corpus", "settings", "encode", "vocab", "charts", "compare", "chat", "playback")
MENUS = ("f", "t", "v", "a", "h")     # Alt+ these: File, Training, View, Analysis, Help
DIALOGS = {"run-to-step": "ctrl+g", "import": "ctrl+i", "open-model": "ctrl+shift+i",
           "export": "ctrl+e", "check": "ctrl+shift+b", "language-cost": "ctrl+shift+l",
           "training-mixture": "ctrl+shift+m", "shortcuts": "F1", "open": "ctrl+o"}


class Walk:
    """The window driven from outside: xdotool in a thread, Qt's loop here."""

    def __init__(self, app, win, out: Path):
        from PySide6.QtCore import QTimer
        self.app, self.win, self.out = app, win, out
        self.box = (0, 0, 1, 1)   # x, y, w, h around every visible window
        self.timer = QTimer()
        self.timer.timeout.connect(self._note_boxes)
        self.timer.start(100)

    def _note_boxes(self) -> None:
        from PySide6.QtWidgets import QApplication
        rects = [w.frameGeometry() for w in QApplication.topLevelWidgets()
                 if w.isVisible() and w.isWindow() and w.windowType() != 0x0c]   # no tips
        if not rects:   # (the window closed)
            return
        x0, y0 = min(r.x() for r in rects), min(r.y() for r in rects)
        x1, y1 = max(r.right() for r in rects), max(r.bottom() for r in rects)
        self.box = (max(0, x0), max(0, y0), x1 - max(0, x0) + 1, y1 - max(0, y0) + 1)

    def run(self, job: Callable[[], None], seconds: float = 0.3) -> None:
        """job in a thread (no Qt there), Qt's loop here until it ends."""
        import threading
        errors: list[BaseException] = []

        def guarded() -> None:
            try:
                job()
            except BaseException as e:   # (shown below, on this thread)
                errors.append(e)
        t = threading.Thread(target=guarded)
        t.start()
        while t.is_alive():
            self.app.processEvents()
            time.sleep(0.01)
        self.pump(seconds)
        if errors:
            raise errors[0]

    def pump(self, seconds: float = 0.3) -> None:
        from tools.screenshots import pump
        pump(self.app, seconds)

    def idle(self) -> None:
        from tools.screenshots import wait_idle
        wait_idle(self.app, self.win, 600)

    def xdo(self, *args: str, seconds: float = 0.3) -> None:
        self.run(lambda: subprocess.run(["xdotool", *args], check=True), seconds)

    def grab(self, name: str) -> None:
        """The screen around the window and what it opened (in the thread)."""
        time.sleep(1.0)
        x, y, w, h = self.box
        path = self.out / f"{name}.png"
        subprocess.run(["import", "-window", "root", "-crop", f"{w}x{h}+{x}+{y}", "+repage",
                        str(path)], check=True)
        print("saved", path, flush=True)

    def shot(self, name: str) -> None:
        self.pump(0.8)
        self.run(lambda: self.grab(name))

    def keyed(self, name: str, keys: str, then: str = "Escape") -> None:
        """Press keys, shoot what they opened, close it with ``then``."""
        def job() -> None:
            subprocess.run(["xdotool", "key", keys], check=True)
            time.sleep(1.0)
            self.grab(name)
            subprocess.run(["xdotool", "key", then], check=True)
        self.run(job, 0.5)

    def resize(self, w: int, h: int) -> None:
        """The window to w x h (the screen's size: maximized, by a double click on its
        title bar, as a user does; any other: unmaximized that way, then resized)."""
        wid = str(int(self.win.winId()))
        full = (w, h) == (1920, 1080)
        if self.win.isMaximized() != full:
            top = self.win.frameGeometry()
            self.xdo("mousemove", str(top.x() + top.width() // 2), str(top.y() + 5),
                     "click", "--repeat", "2", "--delay", "80", "1", seconds=1.0)
        if not full:
            self.xdo("windowsize", wid, str(w), str(h))
            self.xdo("windowmove", wid, "10", "40", seconds=1.0)   # its title bar on screen
        print(f"window {self.win.width()}x{self.win.height()} (asked {w}x{h})", flush=True)

    def click(self, widget, seconds: float = 0.5) -> None:
        from PySide6.QtCore import QPoint
        p = widget.mapToGlobal(QPoint(widget.width() // 2, widget.height() // 2))
        self.xdo("mousemove", str(p.x()), str(p.y()), "click", "1", seconds=seconds)


def open_corpus(walk: Walk, path: Path) -> None:
    """File > Open (Ctrl+O), the path typed into Qt's file dialog, Enter."""
    def job() -> None:
        subprocess.run(["xdotool", "key", "ctrl+o"], check=True)
        time.sleep(2.0)
        subprocess.run(["xdotool", "type", "--delay", "10", str(path)], check=True)
        subprocess.run(["xdotool", "key", "Return"], check=True)
        time.sleep(2.0)
        asked = subprocess.run(["xdotool", "getactivewindow", "getwindowname"],
                               capture_output=True, text=True).stdout
        if asked.startswith("Open "):   # "This throws away: the training": Open, not Cancel
            subprocess.run(["xdotool", "key", "shift+Tab", "space"], check=True)
    walk.run(job, 1.0)
    walk.idle()


def train_merges(walk: Walk, n: int) -> None:
    """n in the settings' merges box (clicked, selected, typed), then Train (F5)."""
    dl = walk.win.dock_layout
    dl.settings_dock.show()
    dl.settings_dock.raise_()
    walk.pump(0.5)
    panel = dl.settings_panel
    walk.click(panel.merges_radio)
    walk.click(panel.merges_spin)
    walk.xdo("key", "ctrl+a", "type", str(n))
    walk.xdo("key", "F5", seconds=1.0)
    walk.idle()


def resize_sequence(walk: Walk) -> None:
    """Issue 89's walk: corpora at 1920x1080, Chat in Focus, 800x600, 1024x700, Focus off."""
    dl = walk.win.dock_layout
    open_corpus(walk, CORPORA / "en-tinyshakespeare.txt.xz")
    train_merges(walk, 30)
    walk.shot("seq-1-english")
    open_corpus(walk, CORPORA / "zh-en-d2l-zh-markdown.txt.xz")
    train_merges(walk, 60)
    for key in ("shift+F10",) * 10 + ("F10",) * 5:   # back 10 steps, on 5: step 55
        walk.xdo("key", key, seconds=0.05)
        walk.idle()
    walk.shot("seq-2-chinese")
    dl.chat_dock.show()
    dl.chat_dock.raise_()
    walk.pump(0.5)
    walk.click(dl.chat_view)
    walk.xdo("key", "ctrl+shift+f", seconds=1.0)
    print("focused:", dl.focused and dl.focused.objectName(), flush=True)
    walk.shot("seq-3-chat-focus")
    walk.resize(800, 600)
    walk.shot("seq-4-800x600")
    walk.resize(1024, 700)
    walk.shot("seq-5-1024x700")
    walk.xdo("key", "ctrl+shift+f", seconds=1.0)
    print("focused:", dl.focused and dl.focused.objectName(), flush=True)
    walk.shot("seq-6-focus-off")


def after_resize(out: Path) -> None:
    """The sequence, then every panel, menu and dialog at each size (see Walk)."""
    tmp = Path(tempfile.mkdtemp(prefix="bpe-gui-resize-walk-"))
    os.environ.update(HOME=str(tmp), XDG_CONFIG_HOME=str(tmp / "config"),
                      QT_QPA_PLATFORM="xcb")
    out.mkdir(parents=True, exist_ok=True)
    procs = start_x(1920, 1080)
    try:
        from PySide6.QtCore import QSettings
        from bpe_gui.gui.app import create_application
        app = create_application([sys.argv[0]])
        from bpe_gui.gui.window.main_window import MainWindow
        win = MainWindow(settings=QSettings(str(tmp / "settings.ini"), QSettings.IniFormat))
        win.themes.set("light", save=False)
        win.showMaximized()
        walk = Walk(app, win, out)
        walk.pump(1.5)
        walk.idle()
        resize_sequence(walk)
        dl = win.dock_layout
        docks = dict(zip(PANELS, (dl.corpus_dock, dl.settings_dock, dl.encode_dock,
                                  dl.vocab_dock, dl.charts_dock, dl.compare_dock,
                                  dl.chat_dock, dl.playback_dock)))
        dl.encode_view.set_text("分词器把一句话切成 token。Byte-pair encoding merges "
                                "the most frequent pair: 2024 年。")
        for w, h in SIZES:
            walk.resize(w, h)
            tag = f"{w}x{h}"
            walk.shot(f"after-{tag}-main")
            for name, dock in docks.items():
                dock.show()
                dock.raise_()
                walk.shot(f"after-{tag}-{name}")
            for letter in MENUS:
                walk.keyed(f"after-{tag}-menu-{letter}", f"alt+{letter}")
            for name, keys in DIALOGS.items():
                walk.keyed(f"after-{tag}-dialog-{name}", keys)
                for d in app.topLevelWidgets():   # a non-modal one Escape left open
                    if d is not win and d.isVisible() and d.isWindow():
                        d.close()
                walk.pump(0.3)
        win.controller.set_corpus_text(win.controller.corpus_text, dirty=False)
        win.close()
        walk.pump(0.3)
    finally:
        for p in procs:
            p.terminate()
            p.wait()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--after-resize" in sys.argv:
        after_resize(Path(args[0]) if args else ROOT / "screenshots" / "after-resize")
        raise SystemExit(0)
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
        args = [a for a in args if a != sys.argv[sys.argv.index("--only") + 1]]
    if not args or "x" not in args[0]:
        raise SystemExit(__doc__)
    width, height = map(int, args[0].split("x"))
    main(width, height, Path(args[1]) if len(args) > 1 else ROOT / "screenshots",
         only)
