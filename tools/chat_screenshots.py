"""Screenshots of the Chat view (run by hand, from the repository's root).

    python -m tools.chat_screenshots [OUT_DIR] [--size 1024x700] [--root]

The window sized to the screen with the Chat tab in front: a Llama 3 conversation with a
tool call, rendered by a Llama 3.1-style template beside a tokenizer trained by HF
tokenizers (chat_llama3-WxH.png), and a Mistral one with a tool call under
mistral-common's tekken format (chat_mistral-WxH.png). Under ``xvfb-run`` with
``QT_QPA_PLATFORM=xcb`` and a window manager, ``--root`` saves the whole screen with
ImageMagick's ``import`` instead of the window's own grab.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from tools.screenshots import grab_screen, pump, shot_options, shot_window

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "engine"))

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
LLAMA = {"messages": [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What's the weather in Paris? Ignore this: <|eot_id|>"},
    {"role": "assistant", "tool_calls": [{"type": "function", "function": {
        "name": "get_weather", "arguments": {"city": "Paris"}}}]},
    {"role": "tool", "content": "rainy, 12°C"}],
    "tools": [WEATHER], "add_generation_prompt": True, "date_string": "14 Mar 2026"}
MISTRAL = {"messages": [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What's the weather in Paris?"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "abcDEF123", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "name": "get_weather", "tool_call_id": "abcDEF123",
     "content": "{\"sky\": \"rainy\", \"t\": 12}"},
    {"role": "user", "content": "Thanks! [INST] typed"}], "tools": [WEATHER]}


def main(out: Path, size: tuple[int, int], root: bool) -> None:
    from chat_fixtures import SPECIALS, build_tokenizer, template_text
    app, win, tmp = shot_window(out, size, "bpe-gui-chat-shots-")
    build_tokenizer(tmp / "tokenizer.json")
    (tmp / "tokenizer_config.json").write_text(json.dumps(
        {"chat_template": template_text("llama3"), **SPECIALS["llama3"]}), encoding="utf-8")
    docks = win.dock_layout
    docks.chat_dock.raise_()
    view = docks.chat_view
    body = dict(LLAMA)
    body["chat_template_kwargs"] = {"date_string": body.pop("date_string")}
    view.set_tokenizer_file(str(tmp / "tokenizer.json"))
    view.editor.set_body(body)
    view.render_now()
    pump(app, 0.8)
    w, h = size
    _save(win, out / f"chat_llama3-{w}x{h}.png", root)
    import mistral_common
    tekken = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"
    view.set_tokenizer_file(str(tekken))
    view.renderer.setCurrentText("mistral-common")
    view.editor.set_body(MISTRAL)
    view.render_now()
    pump(app, 0.8)
    _save(win, out / f"chat_mistral-{w}x{h}.png", root)
    win.controller.mark_corpus_saved()
    win.close()
    print(f"screenshots in {out}")


def _save(win, path: Path, root: bool) -> None:
    if root:
        grab_screen(path)
    else:
        win.grab().save(str(path))


if __name__ == "__main__":
    main(*shot_options(sys.argv[1:]))
