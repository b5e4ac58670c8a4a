"""Corpus files and texts -> blocks that can each be pre-tokenized on their own.

A corpus is never held whole: files are read in blocks of 256 KB to 1 MB, and each block is cut
at a *safe boundary*, a place where no word of the pattern can span and nothing after it can
change the words before it. So counting the words of every block separately gives exactly
the words of the whole text, and blocks can be counted on any thread in any order.

- The patterns the native scanner runs (gpt2, cl100k, o200k, llama3, qwen2, tekken;
  presets.KINDS) ask it (``_count.safe_cut``); a cut there is proved safe for every text
  (see ``csrc/scan.h``).
- The whitespace preset cuts after a visible ASCII character followed by ASCII
  whitespace; the CJK preset after a Han character, or an ASCII letter followed by ASCII
  whitespace. Both are safe by the shape of those patterns.
- A custom pattern cannot be reasoned about: it is cut at the start of a line that
  begins with an ASCII letter after a line that ended in a visible character (a pattern
  that matches across such a line break sees it cut there).

With ``lines`` (each line is a text of its own, as Hugging Face's trainer reads files),
the cut is after the last \\n of the buffer: nothing crosses it, special tokens included.
A buffer with no \\n is one stretch of a line and is cut as above: a safe cut holds for
every text that goes on from it, the line among them.

No cut is ever placed inside a special token. Where a block has no safe boundary at all (one
giant word, a run of spaces), its tail is carried into the next block; under a native
preset, once that tail passes ``giant.GIANT_TAIL``, the scanner says which of its words are
final and where the word in progress may be cut at word_limit's piece boundaries
(``giant.stream_parts``), so memory stays bounded for every stretch those rules cover.
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from ..errors import CorpusError, NotUTF8Error, PatternError
from ..io.reading import file_size
from .files import BOM, binary_error, inner_suffix, is_text_codec, jsonl_text, looks_binary, \
    not_decodable, open_binary
from .giant import Part, stream_parts
from ..text.boundaries import lines_of, outside_specials
from ..text.pretokenize import RUNAWAY_ADVICE, Pretokenizer, shown_pattern
from ..text.presets import PRESET_IDS

try:
    from . import _count
    from ..text.scanner import install_tables
    install_tables(_count)  # the (shared) scanner: the classes of the installed regex
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _count = None  # type: ignore[assignment]  # optional C extension: None where it was not built

# native presets count ~100+ MB/s: a block is a few ms of work. About 2 * workers + 2
# blocks are held at once (read, queued, counted), which is most of counting's memory for a
# small corpus; from LARGE_INPUT on, the word tables outweigh them, and blocks 4x as big
# cost the reading thread 4x fewer Python steps.
BLOCK_BYTES = 1 << 18
LARGE_INPUT = 64 << 20
REGEX_BLOCK_BYTES = 1 << 20  # regex patterns are 10x slower: keep a block near 100 ms

_WS_CUT = rb"(?r)[\x21-\x7e](?=[\t\n\x0b\x0c\r ])"
# U+4E00-U+9FFF (CJK Unified Ideographs: every one is \p{Han}); ASCII letter + whitespace
_CJK_CUT = (rb"(?r)(?:\xe4[\xb8-\xbf]|[\xe5-\xe9][\x80-\xbf])[\x80-\xbf]"
            rb"|[A-Za-z](?=[\t\n\x0b\x0c\r ])")
_LINE_CUT = rb"(?r)(?<=[\x21-\x7e]\n)(?=[A-Za-z])"


@lru_cache(maxsize=None)
def _cut_regex(pattern: bytes):
    """A cut pattern above, compiled at its first use (the native presets need none)."""
    import regex
    return regex.compile(pattern)


@dataclass
class Block:
    """One unit of counting work, in corpus order.

    ``data`` is UTF-8 text that can be pre-tokenized on its own; a .jsonl block carries
    its documents in ``docs`` instead (each one pre-tokenized on its own). ``index`` is
    the block's number in corpus order, ``done`` how many input bytes were consumed when
    it was cut. From a giant stretch (native presets only, see ``giant.Part``): ``stop``
    >= 0 counts only the words of ``data`` that start before it; ``word`` marks ``data``
    as whole pieces of one word (counted as ``word_limit.pieces(data)``).
    """

    index: int
    data: bytes = b""
    docs: list[str] | None = None
    done: int = 0
    source: str = ""
    stop: int = -1
    word: bool = False


class Boundaries:
    """Finds safe boundaries in UTF-8 bytes for one pre-tokenizer (pattern + special tokens)."""

    def __init__(self, pre: Pretokenizer, lines: bool = False):
        self.lines = lines
        # the native presets, unless the scanner is switched off (BPE_GUI_NATIVE_SCAN=0)
        self.native = PRESET_IDS.get(pre.kind) \
            if _count is not None and pre.native is not None and pre.kind is not None else None
        self._cut = {"whitespace": _WS_CUT, "cjk": _CJK_CUT}.get(pre.preset or "", _LINE_CUT)
        self.specials = [s.encode("utf-8") for s in pre.special_tokens]
        self.block_bytes = BLOCK_BYTES if self.native is not None else REGEX_BLOCK_BYTES
        # a cut must see the whole character after it and any special token around it
        self.margin = max([4] + [len(s) for s in self.specials])
        self.giant = True   # giant stretches cut for counting (giant.py); encoding holds them

    @cached_property
    def rx(self):
        """The cut pattern of a pattern without a native scanner (compiled when needed)."""
        return _cut_regex(self._cut)

    def last(self, buf: bytes | bytearray, lo: int, hi: int) -> int:
        """The last safe boundary p with lo < p <= hi (hi <= len(buf) - margin), or -1.

        Example (GPT-2): ``last(b"one two three", 0, 9) -> 7`` (before " three").
        With ``lines``, a buffer that holds a \\n is cut after its last one, anywhere
        past lo (no margin is needed after it); a buffer without one as above.
        """
        if self.lines:
            nl = buf.rfind(b"\n", lo)
            if nl >= 0:   # (none before lo either: the reader cut after it already)
                return nl + 1
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


class BlockReader:
    """Turns corpus sources (file paths, or texts) into :class:`Block` s, in order.

    ``total`` is the input size in bytes (files as they are on disk, so compressed files
    report progress by how much of the file has been read).
    """

    def __init__(self, sources: Sequence[str | Path] | None, pre: Pretokenizer,
                 texts: Iterable[str] | None = None, encoding: str = "utf-8",
                 lines: bool = False, field: str = "text"):
        self.bounds = Boundaries(pre, lines)
        self.field = field   # a .jsonl line's text
        self.paths = [Path(p) for p in (sources or [])]
        # texts in a list are counted one by one; any other iterable is streamed, its
        # texts gathered into blocks of documents (memory: a block, not the stream)
        self.stream = None if texts is None or isinstance(texts, (list, tuple)) else texts
        self.texts = list(texts or []) if self.stream is None else []
        self.encoding = encoding
        self.next_index = 0
        self.done = 0
        # texts count in characters, files in bytes on disk: progress only needs a total
        self.total = sum(file_size(p) for p in self.paths) + sum(len(t) for t in self.texts)
        if self.bounds.native is not None and self.total >= LARGE_INPUT:
            self.bounds.block_bytes = 4 * BLOCK_BYTES

    def __iter__(self) -> Iterator[Block]:
        for text in self.texts:
            yield from self._text_blocks(text)
        if self.stream is not None:
            yield from self._stream_blocks(self.stream)
        for path in self.paths:
            base = self.done
            if inner_suffix(path) == ".jsonl":
                yield from self._jsonl_blocks(path, base)
            else:
                yield from self._file_blocks(path, base)
            self.done = base + file_size(path)

    # ----- sources ------------------------------------------------------------------
    def _block(self, data: bytes = b"", docs: list[str] | None = None, source: str = "") -> Block:
        blk = Block(self.next_index, data, docs, self.done, source)
        self.next_index += 1
        return blk

    def _part_block(self, part: Part, source: str) -> Block:
        blk = self._block(part.data, source=source)
        blk.stop, blk.word = part.stop, part.word
        return blk

    def _text_blocks(self, text: str) -> Iterator[Block]:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise CorpusError(f"The text has a lone surrogate (U+{ord(text[e.start]):04X}) at "
                              f"character {e.start:,}, which UTF-8 cannot hold. Remove it or "
                              "replace it with the character it was part of.") from None
        size, base = self.bounds.block_bytes, self.done
        if len(data) <= size:   # (most texts: no copy)
            self.done = base + len(text)
            yield self._block(data, source="text")
            return
        chunks = (data[i:i + size] for i in range(0, len(data), size))
        for part in stream_parts(chunks, self.bounds):
            end = part.offset + part.counted
            self.done = base + len(text) * end // len(data)
            if part.data or part.last:
                yield self._part_block(part, "text")

    def _stream_blocks(self, texts) -> Iterator[Block]:
        """Texts from an iterator, a block of documents at a time (each text its own
        document, as a .jsonl line's), in the iterator's order."""
        docs: list[str] = []
        held = 0
        for k, text in enumerate(texts):
            if not isinstance(text, str):
                raise CorpusError(f"text {k} of the iterator is {type(text).__name__}, not "
                                  "str: give texts (decode bytes first).")
            if not (text.isascii() or _encodable(text)):
                raise CorpusError(f"text {k} of the iterator has a lone surrogate, which "
                                  "UTF-8 cannot hold. Remove it or replace it with the "
                                  "character it was part of.")
            docs.append(text)
            held += len(text)
            self.done += len(text)
            if held >= self.bounds.block_bytes:
                yield self._block(docs=docs, source="texts")
                docs, held = [], 0
        yield self._block(docs=docs, source="texts")

    def _file_blocks(self, path: Path, base: int) -> Iterator[Block]:
        size = self.bounds.block_bytes
        decoder = None if _is_utf8(self.encoding) else _decoder(self.encoding, path)
        bom = 0               # bytes skipped at the start (a BOM)
        with open_binary(path) as (stream, raw):
            def chunks() -> Iterator[bytes]:
                nonlocal bom
                first = True
                while True:
                    chunk = stream.read(max(size, 8192) if first else size)  # (8 KB to judge)
                    eof = not chunk
                    if first and decoder is None:
                        if looks_binary(chunk):
                            raise binary_error(path, chunk)
                        if chunk.startswith(BOM) and not self.bounds.lines:
                            # (one text per line keeps it, as Hugging Face's trainer
                            # reads it: U+FEFF, whose bytes are merged like any other)
                            chunk, bom = chunk[3:], 3
                    if decoder is not None:
                        chunk = decoder(chunk, eof)
                        if first and looks_binary(chunk):   # judged as the text it decodes to
                            raise binary_error(path)
                    first = False
                    yield chunk
                    if eof:
                        return

            for part in stream_parts(chunks(), self.bounds):
                if decoder is None:
                    _check_utf8(part.data if part.stop < 0 else memoryview(part.data)[:part.stop],
                                path, bom + part.offset)
                self.done = base + (file_size(path) if part.last else raw.tell())
                if part.data or part.last:
                    yield self._part_block(part, str(path))

    def _jsonl_blocks(self, path: Path, base: int) -> Iterator[Block]:
        size = self.bounds.block_bytes
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
                    raise not_decodable(self.encoding, e, path) from e
                except (UnicodeError, LookupError, TypeError, ValueError) as e:
                    raise not_decodable(self.encoding, e, path) from e
                offset += len(line)
                doc = jsonl_text(text, lineno, path, self.field)
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
        self.done = base + file_size(path)
        yield self._block(docs=docs, source=str(path))


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
        if not is_text_codec(encoding):
            raise LookupError(f"{encoding!r} is not a text encoding")
        dec = codecs.getincrementaldecoder(encoding)()
    except LookupError as e:
        raise not_decodable(encoding, e, path) from e

    def convert(chunk: bytes, final: bool) -> bytes:
        try:
            return dec.decode(chunk, final).encode("utf-8", "surrogatepass")
        except UnicodeError as e:
            raise not_decodable(encoding, e, path) from e
    return convert


def _check_utf8(data, path: Path, offset: int) -> None:
    """NotUTF8Error at the first byte of ``data`` (bytes or memoryview) that is not valid
    UTF-8, with its offset in the file."""
    if _count is not None:
        bad = _count.utf8_error(data)
        if bad >= 0:
            raise NotUTF8Error(path, offset + bad, bytes(data[bad:bad + 4]))
        return
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotUTF8Error(path, offset + e.start, bytes(data[e.start:e.start + 4])) from None


def _regex_words(pre: Pretokenizer, text: str, where: str) -> list[str]:
    """Words of one block with the `regex` module, time-limited per block for custom
    patterns; the message says which block ran too long."""
    try:
        return pre.words(text, concurrent=True)
    except PatternError as e:
        if not isinstance(e.__cause__, TimeoutError):
            raise
        raise PatternError(
            f"The custom pre-tokenizer pattern {shown_pattern(pre.pattern)} ran for more "
            f"than {pre.timeout:g} s on one block of {len(text):,} characters ({where}), so "
            "it was stopped. Blocks are small, so the pattern itself is too slow. "
            + RUNAWAY_ADVICE) from None


def texts_of(blk: Block, lines: bool = False) -> list[str]:
    """The texts of a block as str (for patterns that the `regex` module runs, whose
    blocks never carry ``stop`` or ``word``: those come from the native scanner); with
    ``lines``, each line of them (its \\n kept) is a text."""
    texts = blk.docs if blk.docs is not None else [blk.data.decode("utf-8")]
    return [line for t in texts for line in lines_of(t)] if lines else texts


__all__ = ["Block", "BlockReader", "Boundaries", "texts_of"]
