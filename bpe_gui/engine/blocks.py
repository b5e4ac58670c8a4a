"""Corpus files and texts -> blocks that can each be pre-tokenized on their own.

A corpus is never held whole: files are read in blocks of a few MB, and each block is cut
at a *safe cut*, a place where no word of the pattern can span and nothing after it can
change the words before it. So counting the words of every block separately gives exactly
the words of the whole text, and blocks can be counted on any thread in any order.

- The patterns the native scanner runs (gpt2, cl100k, o200k, llama3, qwen2) ask it (``_count.safe_cut``); a
  cut there is proved safe for every text (see ``csrc/scan.h``).
- The whitespace preset cuts after a visible ASCII character followed by ASCII
  whitespace; the CJK preset after a Han character, or an ASCII letter followed by ASCII
  whitespace. Both are safe by the shape of those patterns.
- A custom pattern cannot be reasoned about: it is cut at the start of a line that
  begins with an ASCII letter after a line that ended in a visible character (a pattern
  that matches across such a line break sees it cut there).

No cut is ever placed inside a special token. Where a block has no safe cut at all (one
giant word, a run of spaces), its tail is carried into the next block, so memory grows
only with the longest stretch of text that cannot be cut -- except for a giant run of
ASCII letters under a native preset, which is cut at word_limit's piece boundaries
(``Cutter.giant_cut``) once the carried tail passes ``GIANT_TAIL``.
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import regex

from .errors import CorpusError, NotUTF8Error
from .files import BOM, binary_error, inner_suffix, jsonl_text, looks_binary, open_binary
from .pretokenize import Pretokenizer
from .presets import PRESET_IDS
from .word_limit import MAX_WORD_BYTES

try:
    from . import _count
    from .scanner import install_tables
    install_tables(_count)  # the (shared) scanner: the classes of the installed regex
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _count = None  # type: ignore[assignment]  # optional C extension: None where it was not built

BLOCK_BYTES = 4 << 20        # native presets count ~100+ MB/s: a block is ~30 ms of work
REGEX_BLOCK_BYTES = 1 << 20  # regex patterns are 10x slower: keep a block near 100 ms

_WS_CUT = regex.compile(rb"(?r)[\x21-\x7e](?=[\t\n\x0b\x0c\r ])")
# U+4E00-U+9FFF (CJK Unified Ideographs: every one is \p{Han}); ASCII letter + whitespace
_CJK_CUT = regex.compile(rb"(?r)(?:\xe4[\xb8-\xbf]|[\xe5-\xe9][\x80-\xbf])[\x80-\xbf]"
                         rb"|[A-Za-z](?=[\t\n\x0b\x0c\r ])")
_LINE_CUT = regex.compile(rb"(?r)(?<=[\x21-\x7e]\n)(?=[A-Za-z])")
GIANT_TAIL = 8 << 20   # a carried tail past this is checked for a giant letter run
# The letters that, from a word start, make one word under each native preset (see giant_cut)
_LETTER_RUN = {"o200k": regex.compile(rb"[a-z]+")}
_ANY_CASE_RUN = regex.compile(rb"[A-Za-z]+")


@dataclass
class Block:
    """One unit of counting work, in corpus order.

    ``data`` is UTF-8 text that can be pre-tokenized on its own; a .jsonl block carries
    its documents in ``docs`` instead (each one pre-tokenized on its own). ``index`` is
    the block's number in corpus order, ``done`` how many input bytes were consumed when
    it was cut.
    """

    index: int
    data: bytes = b""
    docs: list[str] | None = None
    done: int = 0
    source: str = ""


class Cutter:
    """Finds safe cuts in UTF-8 bytes for one pre-tokenizer (pattern + special tokens)."""

    def __init__(self, pre: Pretokenizer):
        # the native presets, unless the scanner is switched off (BPE_GUI_NATIVE_SCAN=0)
        self.native = PRESET_IDS.get(pre.kind) \
            if _count is not None and pre.native is not None and pre.kind is not None else None
        self.rx = {"whitespace": _WS_CUT, "cjk": _CJK_CUT}.get(pre.preset or "", _LINE_CUT)
        self.specials = [s.encode("utf-8") for s in pre.special_tokens]
        self.block_bytes = BLOCK_BYTES if self.native is not None else REGEX_BLOCK_BYTES
        # a cut must see the whole character after it and any special token around it
        self.margin = max([4] + [len(s) for s in self.specials])
        # giant_cut's rule holds for the native presets only, and only if no special
        # token is made of the run's letters alone (one could then sit inside the run)
        run = _LETTER_RUN.get(pre.kind or "", _ANY_CASE_RUN) if self.native is not None \
            else None
        self.letter_run = None if run is None or any(run.fullmatch(s) for s in self.specials) \
            else run

    def giant_cut(self, buf: bytes | bytearray) -> int:
        r"""A cut inside a giant word that gives the same word pieces as the whole text, or -1.

        Used only where ``cut`` found nothing in a tail of more than GIANT_TAIL bytes, and
        only for a tail that *starts* with a run of ASCII letters (lowercase only under
        o200k) reaching at least to c + margin, where c is the last multiple of
        MAX_WORD_BYTES there. Why that is exact: buf[0] starts a word (the file's start,
        a safe cut, or an earlier such c). From a letter at a word start, every native
        pattern takes the letter alternative and eats the run greedily with no lookahead
        (gpt2 `` ?\p{L}+``; cl100k/llama3/qwen2 ``[^\r\n\p{L}\p{N}]?\p{L}+``, the
        contraction alternatives start with ``'``; o200k ``[...]?[\p{Lu}..]*[\p{Ll}..]+
        (?i:'s|..)?``: ``[a-z]`` is not in its first class, so the run is the ``[\p{Ll}..]+``
        part, whose end and optional contraction depend only on the text after the run).
        So the whole text's word is [0, E) with E past c + margin, the text scanned from c
        gives [c, E) and then the very same words (the match at E sees the same text),
        and buf[:c] alone is one word. word_limit cuts a word every MAX_WORD_BYTES from its
        start (ASCII: no back-off to a character start), so pieces([0, E)) ==
        pieces(buf[:c]) + pieces([c, E)). No lookahead rule (``\s+(?!\S)``, o200k's
        ``[\r\n/]*`` tails) is involved: they belong to words after E, scanned alike.
        Special tokens: none is made of these letters alone (else letter_run is None),
        and any longer one would have to start before c and reach c + margin, which is
        more than the longest one. Other giant stretches (spaces, digits, mixed scripts,
        regex-run patterns) keep the old behaviour: carried whole.
        """
        if self.letter_run is None:
            return -1
        m = self.letter_run.match(buf, 0, len(buf))
        run = m.end() if m is not None else 0
        c = (run - self.margin) // MAX_WORD_BYTES * MAX_WORD_BYTES
        return c if c > 0 else -1

    def cut(self, buf: bytes | bytearray, lo: int, hi: int) -> int:
        """The last safe cut p with lo < p <= hi (hi <= len(buf) - margin), or -1.

        Example (GPT-2): ``cut(b"one two three", 0, 9) -> 7`` (before " three").
        """
        while hi > lo:
            if self.native is not None:
                p = _count.safe_cut(self.native, buf, lo, hi)
            else:
                m = self.rx.search(buf, lo, hi)  # (its lookahead sees up to hi)
                p = m.end() if m is not None and m.end() > lo else -1
            if p <= lo or not self.specials:
                return p if p > lo else -1
            q = outside_specials(buf, p, lo, self.specials)
            if q > lo:
                return q
            hi = min(hi, p) - 1  # the fix would go back to the block's start: look before
        return -1


# How far before a cut the rules look (the scanner reads 8 bytes back, see scan.h).
CONTEXT = 8


def outside_specials(buf, p: int, lo: int, specials) -> int:
    """Fix a cut p for special tokens: text is cut at special tokens before any rule
    sees it, so a cut inside one moves to its start (or its end, if the start is not
    after ``lo``), and a cut whose rule looked back into one (a token ending less than
    CONTEXT before p) moves to that token's end, where a new piece starts anyway.
    Works on str and bytes alike; returns -1 if no fix stays after ``lo``.

    Example: ``outside_specials("ab<s>cd", 3, 0, ["<s>"]) -> 2``.
    """
    for _ in range(2 * len(specials) + 2):  # overlapping specials may move it again
        moved = False
        for s in specials:
            n = len(s)
            i = buf.find(s, max(0, p - n - CONTEXT), p + n - 1)
            while i != -1 and i < p:
                end = i + n
                if i < p < end:                    # inside the token
                    p = i if i > lo else end
                    moved = True
                    break
                if p - CONTEXT < end < p:          # the rule saw the token's last bytes
                    p = end
                    moved = True
                    break
                i = buf.find(s, i + 1, p + n - 1)
        if not moved:
            return p if p > lo else -1
    return p if p > lo else -1


class BlockReader:
    """Turns corpus sources (file paths, or texts) into :class:`Block` s, in order.

    ``total`` is the input size in bytes (files as they are on disk, so compressed files
    report progress by how much of the file has been read).
    """

    def __init__(self, sources: Sequence[str | Path] | None, pre: Pretokenizer,
                 texts: Sequence[str] | None = None, encoding: str = "utf-8"):
        self.cutter = Cutter(pre)
        self.paths = [Path(p) for p in (sources or [])]
        self.texts = list(texts or [])
        self.encoding = encoding
        self.next_index = 0
        self.done = 0
        # texts count in characters, files in bytes on disk: progress only needs a total
        self.total = sum(_size(p) for p in self.paths) + sum(len(t) for t in self.texts)

    def __iter__(self) -> Iterator[Block]:
        for text in self.texts:
            yield from self._text_blocks(text)
        for path in self.paths:
            base = self.done
            if inner_suffix(path) == ".jsonl":
                yield from self._jsonl_blocks(path, base)
            else:
                yield from self._file_blocks(path, base)
            self.done = base + _size(path)

    # ----- sources ------------------------------------------------------------------
    def _block(self, data: bytes = b"", docs: list[str] | None = None, source: str = "") -> Block:
        blk = Block(self.next_index, data, docs, self.done, source)
        self.next_index += 1
        return blk

    def _text_blocks(self, text: str) -> Iterator[Block]:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise CorpusError(f"The text has a lone surrogate (U+{ord(text[e.start]):04X}) at "
                              f"character {e.start:,}, which UTF-8 cannot hold. Remove it or "
                              "replace it with the character it was part of.") from None
        size = self.cutter.block_bytes
        start, base = 0, self.done
        while len(data) - start > size:
            last = len(data) - self.cutter.margin
            p = self.cutter.cut(data, start + size // 2, min(start + size, last))
            if p <= start:  # nothing to cut at near the goal: look further on
                p = self.cutter.cut(data, start + size, last)
                if p <= start:
                    break
            self.done = base + len(text) * p // len(data)
            yield self._block(data[start:p], source="text")
            start = p
        self.done = base + len(text)
        yield self._block(data[start:] if start else data, source="text")

    def _file_blocks(self, path: Path, base: int) -> Iterator[Block]:
        size, cutter = self.cutter.block_bytes, self.cutter
        decoder = None if _is_utf8(self.encoding) else _decoder(self.encoding, path)
        buf = bytearray()
        offset = 0            # offset in the (decompressed) file of buf[0]
        searched = 0          # buf[:searched] has no cut
        first = True
        with open_binary(path) as (stream, raw):
            while True:
                chunk = stream.read(max(size, 8192) if first else size)  # (8 KB to judge)
                eof = not chunk
                if first and decoder is None:
                    if looks_binary(chunk):
                        raise binary_error(path, chunk)
                    if chunk.startswith(BOM):
                        chunk, offset = chunk[3:], 3
                if decoder is not None:
                    chunk = decoder(chunk, eof)
                    if first and looks_binary(chunk):   # judged as the text it decodes to
                        raise binary_error(path)
                first = False
                buf += chunk
                if eof:
                    p = len(buf)
                else:
                    p = cutter.cut(buf, max(0, searched - 1), len(buf) - cutter.margin)
                    if p <= 0 and len(buf) > GIANT_TAIL:
                        p = cutter.giant_cut(buf)
                    if p <= 0:
                        searched = max(0, len(buf) - cutter.margin)
                        continue
                with memoryview(buf) as view:
                    data = view[:p].tobytes()
                del buf[:p]
                searched = 0
                if decoder is None and _count is not None:
                    bad = _count.utf8_error(data)
                    if bad >= 0:
                        raise NotUTF8Error(path, offset + bad, data[bad:bad + 4])
                elif decoder is None:
                    _check_utf8(data, path, offset)
                offset += p
                self.done = base + raw.tell() if not eof else base + _size(path)
                if data or eof:
                    yield self._block(data, source=str(path))
                if eof:
                    return

    def _jsonl_blocks(self, path: Path, base: int) -> Iterator[Block]:
        size = self.cutter.block_bytes
        docs: list[str] = []
        held = 0
        offset = 0
        with open_binary(path) as (stream, raw):
            for lineno, line in enumerate(stream, 1):
                if lineno == 1:
                    if looks_binary(line[:8192]):
                        raise binary_error(path, line[:8192])
                    if line.startswith(BOM):
                        line, offset = line[3:], 3
                try:
                    text = line.decode(self.encoding)
                except UnicodeDecodeError as e:
                    if _is_utf8(self.encoding):
                        raise NotUTF8Error(path, offset + e.start, line[e.start:e.start + 4]) from None
                    raise CorpusError(f"cannot be decoded as {self.encoding} ({e}).", path) from e
                except LookupError as e:
                    raise CorpusError(f"cannot be decoded as {self.encoding} ({e}).", path) from e
                offset += len(line)
                doc = jsonl_text(text, lineno, path)
                if doc is None:
                    continue
                if b"\\u" in line and not _encodable(doc):
                    raise CorpusError(f"line {lineno} holds a lone surrogate escape (\\ud800-"
                                      "\\udfff without its pair), which UTF-8 cannot hold. "
                                      "Fix or drop that line.", path)
                docs.append(doc)
                held += len(line)
                if held >= size:
                    self.done = base + raw.tell()
                    yield self._block(docs=docs, source=str(path))
                    docs, held = [], 0
        self.done = base + _size(path)
        yield self._block(docs=docs, source=str(path))


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0  # reading it will say what is wrong


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_utf8(encoding: str) -> bool:
    return encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")


def _decoder(encoding: str, path: Path) -> Callable[[bytes, bool], bytes]:
    """bytes in ``encoding`` -> UTF-8 bytes, incrementally (a file the user said is in it)."""
    try:
        dec = codecs.getincrementaldecoder(encoding)()
    except LookupError as e:
        raise CorpusError(f"cannot be decoded as {encoding} ({e}).", path) from e

    def convert(chunk: bytes, final: bool) -> bytes:
        try:
            return dec.decode(chunk, final).encode("utf-8", "surrogatepass")
        except UnicodeDecodeError as e:
            raise CorpusError(f"cannot be decoded as {encoding} ({e}).", path) from e
    return convert


def _check_utf8(data: bytes, path: Path, offset: int) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotUTF8Error(path, offset + e.start, data[e.start:e.start + 4]) from None


def texts_of(blk: Block) -> list[str]:
    """The texts of a block as str (for patterns that the `regex` module runs)."""
    return blk.docs if blk.docs is not None else [blk.data.decode("utf-8")]


__all__ = ["Block", "BlockReader", "Cutter", "texts_of"]
