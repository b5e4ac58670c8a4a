"""The time to render a conversation and encode it: bpe-gui's ``encode_chat`` (what the
Chat view and ``bpe-gui chat`` run: the template in the sandbox, bounded, every token
with its origin) against transformers' ``apply_chat_template(tokenize=True)``, with the
same template (llama.cpp's copy of Meta's Llama 3.1 Instruct template) and the same
tokenizer (Meta's Llama 3 tokenizer.model converted to a tokenizer.json by transformers,
as the tests build it), for a short and a long conversation. Both compile the template
once; each figure is the median of several renders. Python's collector runs as usual
("gc on") and, as in the window's worker thread, paused ("gc off").

    python bench/bench_chat_render.py [--long-turns 400] [--repeat 5]
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "engine"))
sys.path.insert(0, str(HERE.parent / "tests"))

SHORT = [{"role": "system", "content": "Be terse."},
         {"role": "user", "content": "Weather in 東京? 🌧"},
         {"role": "assistant", "content": "Rain.\n\tdef f():\n        pass"},
         {"role": "user", "content": "And tomorrow?"}]
TURN = ("The quick brown fox, 東京 and Zürich; numbers 12345 and code `x = f(y)`.\n" * 25)


def long_conversation(turns: int) -> list[dict]:
    out = [{"role": "system", "content": "You are a careful assistant."}]
    for i in range(turns):
        out.append({"role": "user" if i % 2 == 0 else "assistant",
                    "content": f"Turn {i}. " + TURN})
    return out


def median_s(f, repeat: int, collect: bool) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        if not collect:
            gc.disable()
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
        gc.enable()
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--long-turns", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import transformers
    from chat_published import LLAMA31_CONFIG, llama3_json, sdist_file
    from bpe_gui.engine.chat import TemplateSource, encode_chat
    from bpe_gui.engine.formats import load_tokenizer
    with tempfile.TemporaryDirectory() as tmp:
        path = llama3_json(Path(tmp))
        text = sdist_file("meta-llama-Llama-3.1-8B-Instruct.jinja").read_text("utf-8")
        ours_tok = load_tokenizer(path)
        hf = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path), **LLAMA31_CONFIG)
        hf.chat_template = text
        template = TemplateSource(text, "llama31.jinja", specials=dict(LLAMA31_CONFIG))
        print(f"transformers {transformers.__version__}; Llama 3.1 Instruct template; "
              f"median of {args.repeat}\n")
        print("| conversation | tokens | bpe-gui gc on | bpe-gui gc off | transformers gc on "
              "| transformers gc off | ratio (gc on) |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, messages in (("short (4 messages)", SHORT),
                               (f"long ({args.long_turns + 1} messages)",
                                long_conversation(args.long_turns))):
            body = {"messages": messages, "add_generation_prompt": True}
            mine = encode_chat(ours_tok, body, "jinja", template)
            want = hf.apply_chat_template(messages, tokenize=True, return_dict=False,
                                          add_generation_prompt=True, date_string="26 Jul 2024")
            same = "same ids" if mine.ids == list(want) else "IDS DIFFER"
            got = {}
            for collect in (True, False):
                got["ours", collect] = median_s(
                    lambda: encode_chat(ours_tok, body, "jinja", template), args.repeat, collect)
                got["hf", collect] = median_s(
                    lambda: hf.apply_chat_template(messages, tokenize=True, return_dict=False,
                                                   add_generation_prompt=True),
                    args.repeat, collect)
            print(f"| {name} | {len(mine.ids):,} ({same}) | {got['ours', True] * 1e3:.1f} ms | "
                  f"{got['ours', False] * 1e3:.1f} ms | {got['hf', True] * 1e3:.1f} ms | "
                  f"{got['hf', False] * 1e3:.1f} ms | "
                  f"{got['ours', True] / got['hf', True]:.2f} |")


if __name__ == "__main__":
    main()
