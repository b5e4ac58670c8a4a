"""Hostile chat templates (nesting, growth, recursion, the sandbox escapes): the peak memory
of the whole process tree and the wall time of each, refused by ``bpe-gui chat`` (issue
80's goal: every case under 500 MB and 5 s); then what the bounds cost on the templates
people use: every template llama.cpp ships, rendered here and by transformers.

Then the biggest prompt a template may write, shown in the Chat view offscreen (the time
it holds the window and the peak memory). Each hostile case runs ``bpe-gui chat --tokenizer T --template CASE.jinja --messages
conv.json`` in a fresh process measured with treemem (peak RSS of the process and its
descendants); the baseline is the same command with a one-line template. The cases are
the test suite's (tests/engine/chat/hostile_templates.py).

Then a conversation of one 10 MB message, rendered and encoded.

    python bench/bench_chat_hostile.py [--tokenizer FILE]   # default: o200k_base.tiktoken
                                                            # from /work/assets/files or
                                                            # TIKTOKEN_ENCODINGS_BASE
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "engine"))
sys.path.insert(0, str(REPO / "tests" / "engine" / "chat"))
from treemem import run_measured  # noqa: E402
from hostile_templates import HOSTILE  # noqa: E402

CONV = {"messages": [{"role": "system", "content": "Be terse."},
                     {"role": "user", "content": "Weather in 東京? 🌧"}],
        "add_generation_prompt": True}
LIMIT_MB, LIMIT_S = 500, 5.0


def _tokenizer(given: str | None) -> str:
    if given:
        return given
    for folder in (os.environ.get("TIKTOKEN_ENCODINGS_BASE"), "/work/assets/files"):
        if folder and (Path(folder) / "o200k_base.tiktoken").is_file():
            return str(Path(folder) / "o200k_base.tiktoken")
    sys.exit("give --tokenizer FILE (no o200k_base.tiktoken found)")


def hostile(tok: str, work: Path) -> None:
    (work / "conv.json").write_text(json.dumps(CONV), encoding="utf-8")
    (work / "base.jinja").write_text("{% for m in messages %}{{ m.content }}{% endfor %}",
                                     encoding="utf-8")
    cmd = [sys.executable, "-m", "bpe_gui.cli", "chat", "--tokenizer", tok, "--messages",
           str(work / "conv.json"), "-q", "--template"]
    base = run_measured(cmd + [str(work / "base.jinja")])
    print(f"tokenizer {tok}; baseline (a one-line template): {base['secs']:.2f} s, "
          f"{base['peak_mb']:.0f} MB\n")
    print(f"| case | s | peak MB | within {LIMIT_MB} MB, {LIMIT_S:g} s | message |")
    print("|---|---:|---:|---|---|")
    worst_mb = worst_s = 0.0
    for name, text in HOSTILE.items():
        path = work / f"{name}.jinja"
        path.write_text(text, encoding="utf-8")
        res = run_measured(cmd + [str(path)])
        err = res.get("stderr", "")
        line = next((ln for ln in err.splitlines() if "error" in ln), err.strip()[:80])
        why = line.split(": ", 3)[-1][:70]
        ok = res["peak_mb"] <= LIMIT_MB and res["secs"] <= LIMIT_S and res["returncode"] == 2
        worst_mb, worst_s = max(worst_mb, res["peak_mb"]), max(worst_s, res["secs"])
        print(f"| {name} | {res['secs']:.2f} | {res['peak_mb']:.0f} | "
              f"{'yes' if ok else 'NO'} | {why} |")
    print(f"\nworst: {worst_mb:.0f} MB, {worst_s:.2f} s over {len(HOSTILE)} cases")


def published() -> None:
    """Every llama.cpp template, rendered here (bounded) and by transformers, the
    median of 5 renders each; the total of the medians and the ratio."""
    from llama_cpp_sdist import sdist_files
    folder, why = sdist_files()
    if folder is None:
        print(f"\n(llama.cpp's templates: {why})")
        return
    try:
        from transformers.utils.chat_template_utils import render_jinja_template
    except ImportError:
        print("\n(transformers is not installed: no reference render)")
        return
    from bpe_gui.engine.chat import CompiledTemplate
    ours_total = theirs_total = 0.0
    n = 0
    specials = {"bos_token": "<s>", "eos_token": "</s>"}
    for path in sorted(folder.glob("*.jinja")):
        text = path.read_text(encoding="utf-8")
        try:
            render_jinja_template(conversations=[CONV["messages"]], chat_template=text,
                                  add_generation_prompt=True, **specials)
        except Exception:
            continue   # (a template that refuses this conversation)
        t = CompiledTemplate(text, path.name)

        def ours():
            t.render(messages=CONV["messages"], add_generation_prompt=True, tools=None,
                     documents=None, **specials)

        def theirs():
            render_jinja_template(conversations=[CONV["messages"]], chat_template=text,
                                  add_generation_prompt=True, **specials)
        a, b = [], []
        for _ in range(5):
            for f, out in ((ours, a), (theirs, b)):
                t0 = time.perf_counter()
                f()
                out.append(time.perf_counter() - t0)
        ours_total += statistics.median(a)
        theirs_total += statistics.median(b)
        n += 1
    print(f"\n{n} llama.cpp templates, one render each (median of 5): bpe-gui "
          f"{ours_total * 1e3:.1f} ms, transformers {theirs_total * 1e3:.1f} ms "
          f"(ratio {ours_total / theirs_total:.2f}; both compile a template once; bpe-gui "
          "traces the template's lines for its time limit and sizes what it makes)")


BIG = "{% for i in range(100000) %}{{ i }} word, 東京 🌧 and more text {% endfor %}"
WINDOW = """
import json, os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QApplication
QSettings.setDefaultFormat(QSettings.IniFormat)
QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, sys.argv[3])
app = QApplication([])
from bpe_gui.gui.controller.chat_jobs import ChatJobs
from bpe_gui.gui.panels.chat.chat_view import ChatView
class NoTokenizer(QObject):
    tokenizerChanged = Signal(); imported = None; imported_path = None; use_imported = False
    step_index = 0
    def __init__(self): super().__init__(); self.chat = ChatJobs(self)
    def tokenizer(self): return None
def settle():
    while v.rendering or v.timer.isActive(): app.processEvents(); time.sleep(0.001)
import gc; gc.disable()   # (as the application runs: GuiThreadCollector collects)
v = ChatView(NoTokenizer()); v.resize(1200, 800); v.show()
v.set_tokenizer_file(sys.argv[1]); settle()
t0 = time.perf_counter(); v.set_template_file(sys.argv[2]); settle()
print(json.dumps({"secs": time.perf_counter() - t0, "tokens": len(v.result.tokens),
                  "chars": len(v.result.text), "chips": len(v.flow.ids)}))
"""


def biggest(tok: str, work: Path) -> None:
    """The biggest prompt a template may write (a few million characters), rendered in
    the Chat view offscreen: the seconds it holds the window, the peak memory."""
    (work / "big.jinja").write_text(BIG, encoding="utf-8")
    res = run_measured([sys.executable, "-c", WINDOW, tok, str(work / "big.jinja"),
                        str(work / "qsettings")])
    got = json.loads(res["stdout"].strip().splitlines()[-1])
    print(f"\nthe Chat view, one prompt of {got['chars']:,} characters ({got['tokens']:,} "
          f"tokens, {got['chips']:,} chips laid out): {got['secs']:.2f} s to show, "
          f"{res['peak_mb']:.0f} MB peak for the whole process")


def ten_mb(tok: str, work: Path) -> None:
    """A conversation of one 10 MB message (2,000,000 tokens of o200k) rendered by
    ``bpe-gui chat`` with a template that trims and prints it, as published ones do
    (the bound is on what a template makes beyond its inputs)."""
    msg = "word " * 2_000_000
    (work / "big.json").write_text(json.dumps({"messages": [
        {"role": "user", "content": msg}]}), encoding="utf-8")
    (work / "trim.jinja").write_text("{% for m in messages %}<|{{ m.role }}|>"
                                     "{{ m.content | trim }}{% endfor %}", encoding="utf-8")
    cmd = [sys.executable, "-m", "bpe_gui.cli", "chat", "--tokenizer", tok, "--messages",
           str(work / "big.json"), "--template", str(work / "trim.jinja"), "-q"]
    res = run_measured(cmd + ["--json"])
    ok = res["returncode"] == 0
    n = len(json.loads(res["stdout"])["ids"]) if ok else 0
    print(f"\na 10 MB message ({len(msg):,} characters): bpe-gui chat --json "
          f"{'rendered' if ok else 'FAILED'} {n:,} tokens in {res['secs']:.2f} s, "
          f"{res['peak_mb']:.0f} MB peak" + ("" if ok else f" ({res.get('stderr', '')[-200:]})"))
    from bpe_gui.engine.chat import TemplateSource, encode_chat
    from bpe_gui.engine.formats import load_tokenizer
    import gc
    t = load_tokenizer(tok)
    body = {"messages": [{"role": "user", "content": msg}]}
    src = TemplateSource((work / "trim.jinja").read_text("utf-8"), "trim.jinja")
    gc.disable()   # (as the window's worker thread runs it)
    t0 = time.perf_counter()
    enc = encode_chat(t, body, "jinja", src)
    t1 = time.perf_counter()
    gc.enable()
    print(f"the library's encode_chat alone (in process, tokenizer loaded): {t1 - t0:.2f} s "
          f"for {len(enc.ids):,} tokens")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokenizer")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hostile(_tokenizer(args.tokenizer), Path(tmp))
        ten_mb(_tokenizer(args.tokenizer), Path(tmp))
        biggest(_tokenizer(args.tokenizer), Path(tmp))
    published()


if __name__ == "__main__":
    main()
