"""Corpus files -> one flat file of token ids, documents joined by the end-of-text id
(``Tokenizer.encode_files``; ``bpe-gui encode --file ... --out ids.bin``): the ``.bin`` a
nanoGPT-style training script memory-maps.

A document is a whole text file, or the text between two ``separator`` s of one, or the
``field`` of a .jsonl line (.xz/.gz as the corpus readers open them). Its ids are
``encode_ordinary(document)``'s; an empty document is left out. Files are read in blocks
(``corpus.blocks.BlockReader``) and encoded a batch of blocks at a time on every core,
so memory is a few blocks per thread, not the corpus: where the tokenizer's pattern runs
in the native scanner and the whole text goes to the C encoder, a document is cut at the
scanner's safe boundaries (words never span them, so the ids of the parts are the ids of
the whole; a stretch with none, one giant word, is held whole). Elsewhere (a normalizer,
SentencePiece's prefix space) each document is encoded whole. Where the C encoder finds
the end-of-text special token, a block's documents go to it as one text, joined by that
token's text: no Python work per document.

The ids go to a temporary file beside ``out`` and are renamed into place with the sidecar
``out.json`` ({"dtype", "count", "documents", "eot_id", "tokenizer", "sources", ...}) only
when every file was read: an error or Ctrl-C leaves neither (``io.atomic``).
"""
from __future__ import annotations

import json
import os
import re
import sys
from array import array
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .. import checks
from ..corpus.blocks import BlockReader, Boundaries
from ..corpus.files import inner_suffix, read_text_chunks
from ..errors import ArgumentError, EmptyCorpusError, ExportError
from ..io.atomic import swap_in, temp_beside
from ..io.reading import file_size
from .special_policy import holds_any

BATCH_CHARS = 1 << 20   # text per thread in one native batch call


def encode_files(tok: Any, paths: str | os.PathLike | Sequence[str | os.PathLike],
                 out: str | os.PathLike, *,
                 field: str = "text", separator: str | None = None, eot: int | None = None,
                 num_threads: int | None = None, name: str = "",
                 progress: Callable[[int, int], None] | None = None) -> dict:
    """Write the ids of the documents of ``paths`` to ``out`` (see the module docstring);
    returns the sidecar's content."""
    given = checks.paths(paths, "Tokenizer.encode_files(paths)", none_ok=False)
    files = [str(p) for p in ([given] if isinstance(given, (str, os.PathLike)) else given)]
    if not files:
        raise ArgumentError("Tokenizer.encode_files(paths) got no files: give at least one.")
    threads = checks.whole(os.cpu_count() or 1 if num_threads is None else num_threads,
                           "Tokenizer.encode_files(num_threads)", 1)
    if separator == "":
        raise ArgumentError("An empty separator cuts nothing: give the text between two "
                            "documents, e.g. '<|endoftext|>' or '\\n\\n' (blank lines).")
    if eot is None:
        try:
            eot = tok.eot_token
        except ArgumentError as e:
            raise ArgumentError(f"{e} Name the id to put between documents: eot=ID (on the "
                                "command line --eot-id ID).") from None
    eot = checks.whole(eot, "Tokenizer.encode_files(eot)", 0)
    wide = max(_id_limit(tok), eot + 1) > 1 << 16
    dtype = "uint32" if wide else "uint16"
    out = Path(out).expanduser()
    count = docs = 0
    try:
        with temp_beside(out) as tmp, temp_beside(out.with_name(out.name + ".json")) as tmp_json:
            # each batch written and synced to disk on a thread of its own while the
            # next one is encoded (what the last sync waits for is one batch)
            with open(tmp, "wb") as f, ThreadPoolExecutor(max_workers=1) as writer:
                between = _packed(array("I", [eot]), wide)
                written = writer.submit(_write, f, [])
                for got, news, starts in _encoded(tok, files, field, separator, eot, threads,
                                                  progress):
                    parts = []
                    for ids, new_doc in zip(got, news):
                        if new_doc and count:
                            parts.append(between)
                            count += 1
                        parts.append(_packed(ids, wide))
                        count += len(ids)
                    docs += starts
                    written.result()
                    written = writer.submit(_write, f, parts)
                written.result()
            if not count:
                raise EmptyCorpusError("The files hold no text to encode (every document is "
                                       "empty). Check the paths, or --field for .jsonl files.")
            meta = {"dtype": dtype, "count": count, "documents": docs, "eot_id": eot,
                    "tokenizer": name, "sources": files,
                    "separator": separator, "field": field}
            Path(tmp_json).write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n",
                                      "utf-8")
            swap_in([(tmp, out), (tmp_json, out.with_name(out.name + ".json"))])
    except OSError as e:
        raise ExportError(f"Cannot write {out} ({e.strerror or e}). Check that its folder "
                          "exists and is writable and the disk is not full, or pick "
                          "another path.") from e
    return meta


def typed_separator(text: str) -> str:
    """A separator as a user types it on one line: \\n, \\t, \\r a line break, tab,
    carriage return; \\\\ a backslash (``--separator '\\n\\n'`` cuts at blank lines)."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m[1], m[1]), text)


def _write(f, parts: list) -> None:
    """The parts at the file's end, on disk."""
    f.writelines(parts)
    f.flush()
    os.fsync(f.fileno())


def _id_limit(tok: Any) -> int:
    """The largest id plus one (``n_vocab``), read off an imported model's table where
    it has one (``n_vocab`` builds the id -> bytes table, which encoding does not need)."""
    n_ids = getattr(getattr(tok.pipeline.model, "native", None), "n_ids", None)
    if n_ids is None:   # (a trained model's native is a flag, not a table)
        return tok.n_vocab
    return max([n_ids, *(i + 1 for i in tok.special_ids.values())])


def _packed(ids: array, wide: bool) -> memoryview | bytearray:
    """4-byte ids as the file's dtype: as they are, or their low two bytes (every id
    fits: the vocabulary does)."""
    raw = memoryview(ids).cast("B")
    if wide:
        return raw
    lo = 0 if sys.byteorder == "little" else 2
    out = bytearray(len(raw) // 2)
    out[0::2], out[1::2] = raw[lo::4], raw[lo + 1::4]
    return out


def _encoded(tok: Any, paths: list[str], field: str, separator: str | None, eot: int,
             threads: int, progress) -> Iterator[tuple[list[array], list[bool], int]]:
    """The ids of the pieces of text, whether each starts a document and how many do, a
    batch at a time, in order; the next batch is read on another thread while this one is
    encoded."""
    specials = tok._matchable()
    glue = _glue(tok, eot)
    total = sum(file_size(p) for p in paths)
    batches = _batches(tok, paths, field, separator, threads, total, progress)
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        ahead = pool.submit(next, batches, None)
        while (batch := ahead.result()) is not None:
            ahead = pool.submit(next, batches, None)
            starts = sum(len(docs) - (not new) for docs, new, _ in batch)
            # special tokens' text is text: in a tokenizer that reads none (made when a
            # batch holds some: it has its own encoder and cache)
            clone = tok._restricted(frozenset()) if specials and holds_any(
                "\0".join("\0".join(docs) for docs, _, clean in batch if not clean),
                specials) else tok
            if glue is not None and clone is tok:   # a block's documents as one text
                texts = [glue.join(docs) for docs, _, _ in batch]
                news = [new for _, new, _ in batch]
            else:
                texts = [d for docs, _, _ in batch for d in docs]
                news = [new or k > 0 for docs, new, _ in batch for k in range(len(docs))]
            plan = clone.pipeline.route(texts)
            if plan is not None:
                enc, given, ordinary = plan
                got = enc.encode_batch(given, threads, as_array=True, ordinary=ordinary)
            else:
                got = [array("I", ids) for ids in clone.encode_batch(
                    texts, num_threads=threads, disallowed_special=(), add_special_tokens=False)]
            yield got, news, starts
    finally:
        pool.shutdown(wait=False, cancel_futures=True)   # (Ctrl-C: not after a read)


def _glue(tok: Any, eot: int) -> str | None:
    """The text of the special token with the end-of-text id that the C encoder finds in
    a text given whole, if there is one: documents joined by it encode to their ids with
    that id between them (special tokens cut a text into parts encoded on their own), one
    native call for many documents."""
    if not tok.pipeline._whole:
        return None
    return next((t for t, i in (tok.pipeline._specials_in_c() or {}).items() if i == eot),
                None)


def _batches(tok, paths, field, separator, threads, total, progress):
    """Lists of (a block's documents, empty ones left out; whether the first starts one;
    whether none holds a special token's text, surely) of about ``threads * BATCH_CHARS``
    characters."""
    batch: list[tuple[list[str], bool, bool]] = []
    held = base = 0
    for path in paths:
        reader, blocks = _blocks(tok, path, field, separator)
        for docs, new, clean in blocks:
            kept = list(filter(None, docs))
            if kept:
                batch.append((kept, new or not docs[0], clean))
                held += sum(map(len, kept))
            if held >= threads * BATCH_CHARS:
                if progress is not None:
                    progress(base + reader.done if reader else base, total)
                yield batch
                batch, held = [], 0
        base += file_size(path)
    if progress is not None:
        progress(total, total)
    if batch:
        yield batch


def _blocks(tok, path: str, field: str, separator: str | None):
    """(reader, blocks): the (documents, whether the first starts one, whether none holds
    a special token's text, surely) of one file's blocks; a block's first document
    continues the one before unless it starts one."""
    seps = [separator] if separator else []
    split = tok.pipeline.route(("",)) is not None and tok.pipeline._whole \
        and Boundaries(tok.pre).native is not None
    if inner_suffix(Path(path)) == ".jsonl":
        reader = BlockReader([path], tok.pre, field=field)
        return reader, ((blk.docs or [], True, False) for blk in reader)
    if not split:
        return None, (([d], True, False) for d in _documents(read_text_chunks(path), separator))
    # blocks cut where the documents' words allow, never inside a separator: their
    # special tokens' text is plain text (encode_ordinary), not a place to cut
    reader = BlockReader([path], tok.pre.with_specials(seps))
    reader.bounds.giant = False
    reader.bounds.block_bytes = min(reader.bounds.block_bytes, BATCH_CHARS // 4)  # (>= 4 a thread)
    specials = tok._matchable()

    def parts() -> Iterator[tuple[list[str], bool, bool]]:
        new = True   # (a block starts in a document, or at a separator's end)
        for blk in reader:
            text = (blk.data[:blk.stop] if blk.stop >= 0 else blk.data).decode("utf-8")
            docs = text.split(separator) if separator else [text]
            # (one search of the block, on the reading thread; one found may lie across a
            # separator: then _encoded searches the documents)
            yield docs, new, not (specials and holds_any(text, specials))
            new = not docs[-1]   # (a file's blocks are not empty but its last)
    return reader, parts()


def _documents(chunks: Iterator[str], separator: str | None) -> Iterator[str]:
    """The documents of a text read in chunks: the whole text, or the texts between
    separators (one held at a time)."""
    held: list[str] = []
    carry = ""   # the end of the last chunk, where a separator may start
    keep = len(separator) - 1 if separator else 0
    for chunk in chunks:
        parts = (carry + chunk).split(separator) if separator else [chunk]
        if len(parts) > 1:
            yield "".join(held) + parts[0]
            yield from parts[1:-1]
            held = []
        cut = max(0, len(parts[-1]) - keep)
        held.append(parts[-1][:cut])
        carry = parts[-1][cut:]
    yield "".join(held) + carry
