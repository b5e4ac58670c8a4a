"""The benchmark corpora that are built, not shipped: 250 MB of English and 1 GiB of code.

Both are made once into a data folder outside the repository (``--data DIR``, default
``~/.cache/bpe-gui-bench``) and reused:

- ``en-250mb.txt``: ``en-gutenberg-20mb`` from ../shared/corpora repeated, cut at 250 MB
  (at a line end). Same unique words as the 20 MB corpus, 12.5x the text.
- ``code-1gib.txt``: Debian's ``linux-source-6.1`` package (``apt-get download``), every
  ``.c``/``.h``/``.rst``/``.txt``/``Kconfig*`` file of its source tarball in path order,
  concatenated and cut at 1 GiB (at a character boundary). A few kernel files are Latin-1;
  they are decoded with replacement characters so the corpus is valid UTF-8 for every trainer.

    python bench/corpora.py            # builds whatever is missing, prints the paths
"""
from __future__ import annotations

import argparse
import lzma
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpora"
DEFAULT_DATA = Path(os.environ.get("BPE_GUI_BENCH_DATA", Path.home() / ".cache" / "bpe-gui-bench"))
EN_250 = "en-250mb.txt"
CODE_1G = "code-1gib.txt"
MB = 1_000_000
GIB = 1 << 30
CODE_SUFFIXES = (".c", ".h", ".rst", ".txt")


def shared(name: str) -> Path:
    p = SHARED / name
    if not p.exists():
        sys.exit(f"bench: {p} is missing; the benchmarks read ../shared/corpora beside the repo.")
    return p


def decompressed(name: str, data: Path) -> Path:
    """A shared .xz corpus decompressed into the data folder (once)."""
    out = data / name.removesuffix(".xz")
    if not out.exists():
        tmp = out.with_suffix(".part")
        with lzma.open(shared(name), "rb") as src, open(tmp, "wb") as dst:
            while chunk := src.read(1 << 22):
                dst.write(chunk)
        tmp.rename(out)
    return out


def english_250mb(data: Path) -> Path:
    out = data / EN_250
    if out.exists():
        return out
    text = decompressed("en-gutenberg-20mb.txt.xz", data).read_bytes()
    if not text.endswith(b"\n"):
        text += b"\n"
    tmp, written = out.with_suffix(".part"), 0
    with open(tmp, "wb") as f:
        while written < 250 * MB:
            part = text[:250 * MB - written]
            if len(part) < len(text):
                part = part[:part.rfind(b"\n") + 1]
                if not part:
                    break
            f.write(part)
            written += len(part)
    tmp.rename(out)
    return out


def _is_code(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return name.endswith(CODE_SUFFIXES) or base.startswith("Kconfig")


def code_1gib(data: Path) -> Path:
    out = data / CODE_1G
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(dir=data) as tmpdir:
        subprocess.run(["apt-get", "download", "linux-source-6.1"], cwd=tmpdir, check=True,
                       stdout=subprocess.DEVNULL)
        deb = next(Path(tmpdir).glob("linux-source-6.1_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), tmpdir], check=True)
        tarball = next(Path(tmpdir).glob("usr/src/linux-source-6.1.tar.*"))
        with tarfile.open(tarball) as tar:
            members = sorted((m for m in tar.getmembers() if m.isfile() and _is_code(m.name)),
                             key=lambda m: m.name)
            tmp, written = out.with_suffix(".part"), 0
            with open(tmp, "wb") as f:
                for m in members:
                    raw = tar.extractfile(m).read()
                    body = raw.decode("utf-8", "replace").encode("utf-8")
                    if written + len(body) >= GIB:
                        body = body[:GIB - written]
                        while body and (body[-1] & 0xC0) == 0x80:  # a cut character's tail
                            body = body[:-1]
                        if body and body[-1] >= 0xC0:              # ... or its lead byte
                            body = body[:-1]
                        f.write(body)
                        written += len(body)
                        break
                    f.write(body)
                    written += len(body)
    tmp.rename(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--skip-code", action="store_true", help="do not build the 1 GiB code corpus")
    args = ap.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    print(english_250mb(args.data))
    if not args.skip_code:
        print(code_1gib(args.data))


if __name__ == "__main__":
    main()
