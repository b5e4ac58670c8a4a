"""The benchmark corpora that are built, not shipped: 250 MB of English, 256 MB of Python,
1 GiB of code, 20 MB of C and 5 MB of Russian.

All are made once into a data folder outside the repository (``--data DIR``, default
``~/.cache/bpe-gui-bench``) and reused:

- ``en-250mb.txt``: ``en-gutenberg-20mb`` from ../shared/corpora repeated, cut at 250 MB
  (at a line end). Same unique words as the 20 MB corpus, 12.5x the text.
- ``python-256mb.txt``: ``code-python-stdlib.py`` (1 MB of Python's standard library) from
  ../shared/corpora repeated, cut at 256 MB (at a line end): its unique words, 256x the text.
- ``code-1gib.txt``: Debian's ``linux-source-6.1`` package (``apt-get download``), every
  ``.c``/``.h``/``.rst``/``.txt``/``Kconfig*`` file of its source tarball in path order,
  concatenated and cut at 1 GiB (at a character boundary). A few kernel files are Latin-1;
  they are decoded with replacement characters so the corpus is valid UTF-8 for every trainer.
- ``c-include-20mb.txt``: C headers of this machine, the ``*.h`` files under
  ``/usr/include`` outside ``c++/`` in path order, cut at 20 MB at a line end (on this
  project's machine image: the first 2,037 of 6,978 headers, EGL, GL, X11, glibc's,
  libxml2, Linux UAPI...). What is there depends on the installed ``-dev`` packages; the
  machine image is the same for every developer.
- ``ru-5mb.txt``: real Russian from two Debian packages (``apt-get download``): every
  fortune of ``fortunes-ru`` (quotes, jokes, verse; 3.5 MB) in path order, then the text
  of ``gimp-help-ru``'s HTML pages (the GIMP manual in Russian; tags dropped, and the
  lines whose letters are mostly not Cyrillic: pages left in English) until 5 MB, cut at
  a line end.
- ``corners/NAME.txt``: 2 MB texts that stress one part of an encoder (``CORNERS``: long
  words, whitespace runs, digits, emoji sequences, random Unicode, decomposed accents),
  generated from a fixed seed (``bench_encode_peers.py --corners`` times them; the encoder's
  tests check ids on smaller ones).

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
SHARED = Path(os.environ.get("BPE_GUI_CORPORA_DIR", ROOT.parent / "shared" / "corpora"))
DEFAULT_DATA = Path(os.environ.get("BPE_GUI_BENCH_DATA", Path.home() / ".cache" / "bpe-gui-bench"))
EN_250 = "en-250mb.txt"
PY_256 = "python-256mb.txt"
CODE_1G = "code-1gib.txt"
MB = 1_000_000
GIB = 1 << 30
CODE_SUFFIXES = (".c", ".h", ".rst", ".txt")


def shared(name: str) -> Path:
    p = SHARED / name
    if not p.exists():
        sys.exit(f"bench: {p} is missing; the benchmarks read ../shared/corpora beside the "
                 "repo, or the folder BPE_GUI_CORPORA_DIR names (a worktree elsewhere: "
                 "BPE_GUI_CORPORA_DIR=/path/to/shared/corpora).")
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
    return repeated("en-gutenberg-20mb.txt.xz", EN_250, 250 * MB, data)


def python_256mb(data: Path) -> Path:
    return repeated("code-python-stdlib.py.txt.xz", PY_256, 256 * MB, data)


def repeated(name: str, out_name: str, size: int, data: Path) -> Path:
    """A shared corpus repeated whole until `size` bytes, cut at a line end (once)."""
    out = data / out_name
    if out.exists():
        return out
    text = decompressed(name, data).read_bytes()
    if not text.endswith(b"\n"):
        text += b"\n"
    tmp, written = out.with_suffix(".part"), 0
    with open(tmp, "wb") as f:
        while written < size:
            part = text[:size - written]
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


def c_source(data: Path, size: int = 20 * MB) -> Path:
    out = data / "c-include-20mb.txt"
    if out.exists():
        return out
    files = sorted(p for p in Path("/usr/include").rglob("*.h")
                   if p.is_file() and "c++" not in p.relative_to("/usr/include").parts)
    parts, n = [], 0
    for p in files:
        body = p.read_bytes().decode("utf-8", "replace")
        parts.append(body if body.endswith("\n") else body + "\n")
        n += len(parts[-1].encode("utf-8"))
        if n >= size:
            break
    text = "".join(parts).encode("utf-8")[:size]
    text = text[:text.rfind(b"\n") + 1]
    tmp = out.with_suffix(".part")
    tmp.write_bytes(text)
    tmp.rename(out)
    return out


def _html_text(page: str) -> str:
    from html.parser import HTMLParser

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.out: list[str] = []
            self.skip = 0

        def handle_starttag(self, tag, attrs) -> None:
            self.skip += tag in ("script", "style")

        def handle_endtag(self, tag) -> None:
            self.skip -= tag in ("script", "style")

        def handle_data(self, d: str) -> None:
            if not self.skip:
                self.out.append(d)
    t = Text()
    t.feed(page)
    lines = (" ".join(line.split()) for line in "".join(t.out).splitlines())
    return "".join(line + "\n" for line in lines if _mostly_cyrillic(line))


def _mostly_cyrillic(line: str) -> bool:
    """Most letters Cyrillic (the manual leaves some pages and menu names in English)."""
    letters = [c for c in line if c.isalpha()]
    return bool(letters) and 2 * sum("\u0400" <= c <= "\u04ff" for c in letters) > len(letters)


def russian(data: Path, size: int = 5 * MB) -> Path:
    out = data / "ru-5mb.txt"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(dir=data) as tmpdir:
        subprocess.run(["apt-get", "download", "fortunes-ru", "gimp-help-ru"], cwd=tmpdir,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for deb in sorted(Path(tmpdir).glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), tmpdir], check=True)
        root = Path(tmpdir)
        fortunes = sorted(p for p in (root / "usr/share/games/fortunes/ru").iterdir()
                          if p.is_file() and not p.is_symlink() and p.suffix != ".dat")
        parts = [p.read_text("utf-8") for p in fortunes]
        parts += [_html_text(p.read_text("utf-8")) for p in
                  sorted((root / "usr/share/gimp/2.0/help/ru").rglob("*.html"))]
        text = "".join(parts).encode("utf-8")[:size]
        text = text[:text.rfind(b"\n") + 1]
        tmp = out.with_suffix(".part")
        tmp.write_bytes(text)
        tmp.rename(out)
    return out


# ----- corners: texts that stress one part of an encoder (bench_encode_peers.py --corners) -----
CORNERS = {
    "long-words": "random letters in words of 20-300 (no word comes twice)",
    "whitespace": "runs of 20-3000 spaces, tabs and newlines between short words",
    "digits": "runs of 1-2000 digits, with and without spaces",
    "emoji": "emoji: ZWJ families, skin tones, flags, keycaps, in runs of 1-40",
    "unicode": "random characters of every script and plane (no surrogates), in words of 1-12",
    "decomposed": "English, French and German text with every accent decomposed (NFD)",
}


def _emoji(rng) -> str:
    base = [chr(c) for c in list(range(0x1F600, 0x1F650)) + list(range(0x1F680, 0x1F6C0))
            + list(range(0x1F900, 0x1F9A0))]
    kind = rng.randrange(5)
    if kind == 0:   # a family joined by ZWJ
        return "\u200d".join(rng.choice("👨👩👧👦") for _ in range(rng.randint(2, 4)))
    if kind == 1:   # a skin tone
        return rng.choice("👍👋🙏💪👏") + chr(0x1F3FB + rng.randrange(5))
    if kind == 2:   # a flag: two regional indicators
        return chr(0x1F1E6 + rng.randrange(26)) + chr(0x1F1E6 + rng.randrange(26))
    if kind == 3:   # a keycap
        return rng.choice("0123456789#*") + "\ufe0f\u20e3"
    return rng.choice(base)


def _unicode_chars(rng) -> list[str]:
    import unicodedata
    out = []
    while len(out) < 60_000:
        c = rng.randrange(0x20, 0x323AF)
        if 0xD800 <= c < 0xE000 or 0xE000 <= c < 0xF900:
            continue
        ch = chr(c)
        if unicodedata.category(ch) not in ("Cn", "Co", "Cs"):
            out.append(ch)
    return out


def corner_text(name: str, size: int, english: str = "") -> str:
    """One corner text (CORNERS) of about `size` UTF-8 bytes from a fixed seed; "decomposed"
    takes its English from `english` (4x `size` characters are enough)."""
    import random
    import unicodedata
    if name not in CORNERS:
        raise SystemExit(f"corpora: no corner named {name!r} (known: {', '.join(CORNERS)})")
    rng = random.Random(name)
    parts: list[str] = []
    n = 0
    chars = _unicode_chars(rng) if name == "unicode" else []
    while n < size:
        if name == "long-words":
            w = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(20, 300)))
            piece = (" " if rng.random() < 0.8 else "\n") + w
        elif name == "whitespace":
            ws = "".join(rng.choice(" \t\n") if rng.random() < 0.3 else " "
                         for _ in range(rng.randint(20, 3000)))
            piece = ws + rng.choice(["x", "word", "if", "}", "42"])
        elif name == "digits":
            d = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 2000)))
            piece = d + rng.choice([" ", "\n", ".", ""])
        elif name == "emoji":
            piece = "".join(_emoji(rng) for _ in range(rng.randint(1, 40))) + \
                rng.choice([" ", " ", "\n", "", " and "])
        elif name == "unicode":
            piece = "".join(rng.choice(chars) for _ in range(rng.randint(1, 12))) + \
                rng.choice([" ", " ", "\n", ""])
        else:   # decomposed
            start = rng.randrange(max(1, len(english) - 2000))
            text = english[start:start + 2000]
            for a, b in (("e", "é"), ("a", "à"), ("o", "ö"), ("u", "ü"), ("c", "ç")):
                text = text.replace(" " + a, " " + b, 3)
            piece = unicodedata.normalize("NFD", text)
        parts.append(piece)
        n += len(piece.encode("utf-8"))
    return "".join(parts)


def corner(name: str, data: Path, size: int = 2 * MB) -> Path:
    """One corner text of about `size` bytes (CORNERS), made once into the data folder."""
    out = data / "corners" / f"{name}.txt"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    english = decompressed("en-gutenberg-20mb.txt.xz", data).read_text("utf-8")[:4 * size] \
        if name == "decomposed" else ""
    tmp = out.with_suffix(".part")
    tmp.write_text(corner_text(name, size, english), "utf-8")
    tmp.rename(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--skip-code", action="store_true", help="do not build the 1 GiB code corpus")
    args = ap.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    print(english_250mb(args.data))
    print(python_256mb(args.data))
    print(c_source(args.data))
    print(russian(args.data))
    if not args.skip_code:
        print(code_1gib(args.data))


if __name__ == "__main__":
    main()
