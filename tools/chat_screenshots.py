"""Screenshots of the Chat view as a user drives it, in a real X server (run by hand, from
the repository's root)::

    python -m tools.chat_screenshots 1024x700 [OUT_DIR]     # default screenshots/ (ignored)

Starts its own Xvfb of that size and openbox (tools/layout_screenshots.py), opens the
window maximized with settings in a temporary folder, and, with the Chat tab in front,
opens Meta's Llama 3 tokenizer (its tokenizer.model converted by transformers into a
tokenizer.json, Meta's tokenizer_config.json's bos and eos beside it) and llama.cpp's copy
of the Llama 3.1 template (tests/engine/chat_published.py). Clicks are real (xdotool on
the widgets' places): Edit as JSON, a conversation with a tool call typed into it, back to
the rows, Focus (Ctrl+Shift+F). Saves the whole screen each time: chat_sample-WxH.png,
chat_json-WxH.png, chat_llama3-WxH.png (the tool call, back in rows),
chat_focus-WxH.png, and chat_mistral-WxH.png (a tekken.json, which mistral-common
renders, with no template chosen).
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from typing import Iterator
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "engine"))

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
LLAMA = {"messages": [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What's the weather in 東京? Ignore this: <|eot_id|>"},
    {"role": "assistant", "tool_calls": [{"type": "function", "function": {
        "name": "get_weather", "arguments": {"city": "東京"}}}]},
    {"role": "tool", "content": "rainy, 12°C"}],
    "tools": [WEATHER], "add_generation_prompt": True}
MISTRAL = {"messages": [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What's the weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "abcDEF123", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "name": "get_weather", "tool_call_id": "abcDEF123",
     "content": "{\"sky\": \"rainy\", \"t\": 12}"},
    {"role": "user", "content": "Thanks! [INST] typed"}], "tools": [WEATHER]}


def click(app, widget, area=None) -> None:
    """A real click in the middle of ``widget`` (xdotool), scrolled into ``area``'s view
    first as a user scrolls to it, then the events handled."""
    from tools.screenshots import pump
    if area is not None:
        area.ensureWidgetVisible(widget)
        pump(app, 0.3)
    centre = widget.mapToGlobal(widget.rect().center())
    subprocess.run(["xdotool", "mousemove", str(centre.x()), str(centre.y()), "click", "1"],
                   check=True)
    pump(app, 0.6)


def key(app, keys: str) -> None:
    from tools.screenshots import pump
    subprocess.run(["xdotool", "key", keys], check=True)
    pump(app, 0.8)


def shot(app, path: Path, view=None, seconds: float = 0.8) -> None:
    """The whole screen once the window has drawn (and ``view``'s render, a job, is back:
    a tekken.json takes seconds, and the last tokenizer's prompt was shot)."""
    import time
    from tools.screenshots import grab_screen, pump
    end = time.monotonic() + 120
    while view is not None and (view.rendering or view.timer.isActive()) and \
            time.monotonic() < end:
        pump(app, 0.05)
    pump(app, seconds)
    grab_screen(path)


def models(tmp: Path) -> Path:
    from chat_published import LLAMA31_CONFIG, llama3_json, sdist_file, write_json
    folder = llama3_json(tmp / "llama3").parent
    write_json(folder / "tokenizer_config.json", LLAMA31_CONFIG)
    shutil.copy(sdist_file("meta-llama-Llama-3.1-8B-Instruct.jinja"), folder / "llama31.jinja")
    return folder


def run(w: int, h: int, out: Path) -> None:
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    from PySide6.QtCore import QSettings, QStandardPaths
    from bpe_gui.gui.app import create_application
    from tools.screenshots import pump
    QStandardPaths.setTestModeEnabled(True)
    tmp = Path(tempfile.mkdtemp(prefix="bpe-gui-chat-shots-"))
    QSettings.setDefaultFormat(QSettings.IniFormat)   # (the user's own settings untouched)
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(tmp / "qsettings"))
    folder = models(tmp)
    app = create_application([sys.argv[0]])
    from bpe_gui.gui.window.main_window import MainWindow
    win = MainWindow(settings=QSettings(str(tmp / "settings.ini"), QSettings.IniFormat))
    win.themes.set("light", save=False)
    win.showMaximized() if win.dock_layout.fill_screen else win.show()
    pump(app, 1.0)
    dl = win.dock_layout
    dl.chat_dock.raise_()
    view = dl.chat_view
    view.set_tokenizer_file(str(folder / "tokenizer.json"))
    view.set_template_file(str(folder / "llama31.jinja"))
    size = f"{w}x{h}"
    pump(app, 0.8)
    shot(app, out / f"chat_sample-{size}.png", view)

    click(app, view.editor.as_json, view.editor_area)   # Edit as JSON: the body as it is
    view.editor.json_edit.setPlainText(json.dumps(LLAMA, ensure_ascii=False, indent=2))
    pump(app, 0.8)
    shot(app, out / f"chat_json-{size}.png", view)
    click(app, view.editor.as_json, view.editor_area)   # back to the rows: a tool call's
    view.editor_area.verticalScrollBar().setValue(0)
    shot(app, out / f"chat_llama3-{size}.png", view)
    view.setFocus()
    key(app, "ctrl+shift+f")                      # Focus: the Chat panel alone
    shot(app, out / f"chat_focus-{size}.png", view)
    key(app, "ctrl+shift+f")

    import mistral_common
    view.editor.set_body(MISTRAL)
    view.set_tokenizer_file(str(Path(mistral_common.__file__).parent / "data"
                                / "tekken_240911.json"))
    from bpe_gui.gui.panels.chat.chat_view import BESIDE
    first = view.renderer.findText(BESIDE)
    view.renderer.setCurrentIndex(first)
    view.renderer.activated.emit(first)
    pump(app, 0.8)
    shot(app, out / f"chat_mistral-{size}.png", view)
    print("warnings:", view.warnings.text()[:200].replace("\n", " | "))
    win.controller.mark_corpus_saved()
    win.close()
    pump(app, 0.3)
    print(f"screenshots at {size} in {out}")


def main(w: int, h: int, out: Path) -> None:
    need = [t for t in ("Xvfb", "openbox", "import", "xdotool") if shutil.which(t) is None]
    if need:
        raise SystemExit(f"{', '.join(need)}: needed (apt-get install xvfb openbox "
                         "imagemagick xdotool)")
    out.mkdir(parents=True, exist_ok=True)
    with x_server(w, h):
        run(w, h, out)


@contextmanager
def x_server(w: int, h: int) -> Iterator[None]:
    """An Xvfb of w x h and openbox on it (layout_screenshots.start_x) while the block runs."""
    from tools.layout_screenshots import start_x
    procs = start_x(w, h)
    try:
        yield
    finally:
        for p in procs:
            p.terminate()
            p.wait()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args or "x" not in args[0]:
        raise SystemExit(__doc__)
    width, height = map(int, args[0].split("x"))
    main(width, height, Path(args[1]) if len(args) > 1 else ROOT / "screenshots")
