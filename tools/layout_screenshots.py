"""Screenshots of every panel and dialog of the window, at one screen size, in a real X
server (run by hand, from the repository's root)::

    python -m tools.layout_screenshots 800x600 [OUT_DIR] [--only NAME,NAME]

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
    "language-cost": language_cost,
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


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
        args = [a for a in args if a != sys.argv[sys.argv.index("--only") + 1]]
    if not args or "x" not in args[0]:
        raise SystemExit(__doc__)
    width, height = map(int, args[0].split("x"))
    main(width, height, Path(args[1]) if len(args) > 1 else ROOT / "screenshots",
         only)
