"""bpe-gui's ids against tiktoken's / HF tokenizers' on every corpus of ../shared/corpora and
every corner text (corpora.CORNERS), with the five published files of bench_encode_peers.py
(cl100k, o200k, Llama 3.2, Qwen2, the Metaspace file; run that script once to fetch them).
encode_to_array is checked too. Not timed: one process, all files.

    python bench/check_encode_ids.py [--data DIR]     # prints a line per (file, text), then
                                                      # "all equal" or how many differ
"""
from __future__ import annotations

import argparse
import lzma
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
import corpora  # noqa: E402


def texts(data: Path) -> dict[str, str]:
    if not corpora.SHARED.is_dir():
        sys.exit(f"check_encode_ids: {corpora.SHARED} is missing; set BPE_GUI_CORPORA_DIR to "
                 "the folder of ../shared/corpora")
    out = {}
    for p in sorted(corpora.SHARED.iterdir()):
        if p.name.endswith(".txt.xz"):
            with lzma.open(p, "rt", encoding="utf-8") as f:
                out[p.name] = f.read()
        elif p.suffix == ".txt":
            out[p.name] = p.read_text("utf-8")
    for name in corpora.CORNERS:
        out[name] = corpora.corner(name, data).read_text("utf-8")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=corpora.DEFAULT_DATA)
    args = ap.parse_args()
    import tiktoken
    import tiktoken.load
    import tiktoken_ext.openai_public as op
    from tokenizers import Tokenizer

    from bpe_gui.engine.formats import load_tokenizer
    files = args.data / "files"
    all_texts = texts(args.data)
    bad = 0
    for label in ("cl100k", "o200k", "llama3", "qwen2", "spm"):
        if label in ("cl100k", "o200k"):
            path = files / f"{label}_base.tiktoken"
            op.load_tiktoken_bpe = lambda url, expected_hash=None, path=path: \
                tiktoken.load.load_tiktoken_bpe(str(path))
            ref = tiktoken.Encoding(**getattr(op, f"{label}_base")()).encode_ordinary
            policy: dict = {"disallowed_special": ()}   # encode_ordinary: no special token
        else:
            path = files / label / "tokenizer.json"
            hf = Tokenizer.from_file(str(path))
            ref = lambda s, hf=hf: hf.encode(s, add_special_tokens=False).ids  # noqa: E731
            policy = {"allowed_special": "all"}   # HF matches its special tokens in text
        if not path.exists():
            sys.exit(f"check_encode_ids: {path} is missing; run bench/bench_encode_peers.py once")
        ours = load_tokenizer(path)
        for name, text in all_texts.items():
            got = ours.encode(text, add_special_tokens=False, **policy)   # (as the references)
            ok = got == ref(text) and \
                ours.encode_to_array(text, add_special_tokens=False, **policy).tolist() == got
            bad += not ok
            print(f"{label:7} {name:32} {len(text.encode()) / 1e6:6.2f} MB {len(got):9d} ids  "
                  f"{'same' if ok else 'DIFFER'}", flush=True)
    print("all equal" if not bad else f"{bad} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
