"""The encoder runs without Python, and on other CPUs.

tests/c/encode_driver.c is built here with the system C compiler (or $CC) from the
sources of csrc/scan/scan.c, csrc/merge/ and csrc/imported/offsets.c alone, with
AddressSanitizer and UBSan where the compiler links them. It encodes real texts with
tokenizers trained here (each preset's scanner), and its ids must be tiktoken's over the
same ranks. With $CC a cross compiler
whose programs run under an emulator (CONTRIBUTING.md: arm64 under qemu-user), this is the
scanner, merge and encoder C tested on that CPU, with its own `char` and no x86 vector code.
"""
from __future__ import annotations

import lzma
import os
import random
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
tiktoken = pytest.importorskip("tiktoken")

from bpe_gui.engine.text.presets import PRESET_IDS  # noqa: E402
from bpe_gui.engine.train.trainer import TrainSettings, Trainer  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CSRC = ROOT / "bpe_gui" / "engine" / "csrc"
# (merge/encoder_pool.c adjusts offsets with imported/offsets.c's off_adjust)
SOURCES = [str(CSRC / "scan" / "scan.c"), *sorted(str(p) for p in (CSRC / "merge").glob("*.c")),
           str(CSRC / "imported" / "offsets.c")]
CORPORA = ROOT / "tests" / "fixtures" / "corpora"
SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
PATTERNS = ["gpt2", "cl100k", "o200k", "llama3", "qwen2"]


def _compiler() -> list[str] | None:
    if os.environ.get("CC"):
        return shlex.split(os.environ["CC"])
    found = next((shutil.which(c) for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    return [found] if found else None


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler (cc, gcc or clang; or $CC) to build the encoder's C test")
    out = tmp_path_factory.mktemp("c_encoder") / "encode_driver"
    # -O0: the sanitizers check the same at any level, and scan.c (every preset's
    # scanner) takes a minute to compile at -O1 with them, 25 s at -O0; the optimized
    # builds are tested by the variant builds (tools/ci_variants.sh) and the extension
    base = [*cc, "-std=c99", "-O0", "-g", "-Wall", "-I", str(CSRC),
            str(ROOT / "tests" / "c" / "encode_driver.c"), *SOURCES, "-o", str(out)]
    for flags in (SANITIZE, []):
        done = subprocess.run(base[:1] + flags + base[1:], capture_output=True, text=True)
        if done.returncode == 0:
            return out
    pytest.fail(f"the scanner and the merge engine do not compile as plain C:\n{done.stderr}")


def _read(name: str, limit: int = 60_000) -> str:
    path = CORPORA / name
    raw = lzma.open(path).read() if name.endswith(".xz") else path.read_bytes()
    return raw[:limit].decode("utf-8", "ignore")


TEXTS = {
    "english": _read("en-tinyshakespeare.txt.xz"),
    "chinese": _read("zh-four-classic-novels.txt.xz", 30_000),
    "code": _read("code-python-stdlib.py.txt.xz"),
    "mixed": _read("multi-utf8-demo.txt"),
}


def _random_text(seed: int, n: int = 4000) -> str:
    """Runs of letters, digits, whitespace, punctuation and characters of 2-4 bytes:
    long words, long whitespace runs, every byte length."""
    rng = random.Random(seed)
    pieces = ["a", "Z", "é", "ж", "中", "🙂", " ", "  ", "\n", "\t", "7", "'s", ".", "\u00a0"]
    return "".join(rng.choice(pieces) * rng.choice([1, 1, 2, 5, 40]) for _ in range(n // 4))


@pytest.fixture(scope="module", params=PATTERNS)
def trained(request):
    corpus = TEXTS["english"][:20_000] + TEXTS["chinese"][:5_000] + TEXTS["code"][:10_000]
    t = Trainer.from_text(corpus, TrainSettings(vocab_size=1200, pattern=request.param))
    t.run()
    return request.param, t.tokenizer()


def _model_file(path: Path, pattern: str, tok) -> Path:
    model = tok.model
    t2i = model.token_to_id
    lines = [f"{PRESET_IDS[pattern]} {model.limit}", " ".join(map(str, model.byte_ids)),
             str(len(model.merges))]
    lines += [f"{t2i[a]} {t2i[b]} {rank} {t2i[a + b]}" for rank, (a, b) in
              enumerate(model.merges)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _oracle(tok):
    """tiktoken over the tokenizer's ranks (rank = id; a trained tokenizer's merges come
    in id order)."""
    ranks = {t: i for i, t in tok.vocab.items() if i not in set(tok.special_ids.values())}
    return tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=ranks,
                             special_tokens={})


def test_the_c_encoder_gives_tiktokens_ids(driver, trained, tmp_path):
    pattern, tok = trained
    model = _model_file(tmp_path / "model.txt", pattern, tok)
    enc = _oracle(tok)
    texts = dict(TEXTS, random0=_random_text(0), random1=_random_text(1))
    for name, text in texts.items():
        path = tmp_path / f"{name}.txt"
        path.write_bytes(text.encode("utf-8"))
        done = subprocess.run([str(driver), str(model), str(path)], capture_output=True,
                              text=True)
        assert done.returncode == 0, done.stderr
        ids = [int(x) for x in done.stdout.split()]
        expected = enc.encode_ordinary(text)
        assert ids == expected, (pattern, name, next(
            (i for i, (a, b) in enumerate(zip(ids, expected)) if a != b), min(len(ids), len(expected))))
