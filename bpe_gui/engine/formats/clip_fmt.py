"""CLIP's merges file, ``bpe_simple_vocab_16e6.txt.gz`` (OpenAI CLIP, open_clip, every
Stable Diffusion text encoder).

A pure parser: the file's bytes (gzip or plain) in, a :class:`ClipMerges` out. The file is
a header line then one merge per line (``i n``, ``th e</w>``), 262,145 of them; CLIP's
``SimpleTokenizer`` uses only the first ``49152 - 256 - 2 = 48,894`` and builds its
vocabulary from them, which :meth:`ClipMerges.vocab` repeats:

    ids 0-255     the 256 bytes in GPT-2's byte-to-unicode alphabet ('!' .. 'Ā' ..)
    ids 256-511   the same 256 followed by '</w>'
    ids 512-...   each merge's two sides joined, in merge order
    then          '<start_of_text>', '<end_of_text>' (49406, 49407)

``</w>`` marks the end of a word: the last symbol of every pre-token carries it
(``cat`` is ``c a t</w>`` before merging), so ``t</w>`` and ``t`` are different tokens
and a token ending in ``</w>`` only ever stands at the end of a word; decoding turns
``</w>`` into a space. Before that, CLIP cleans the text (ftfy.fix_text, HTML unescaped
twice, whitespace runs to one space, stripped, lowercased) and splits it with
``<start_of_text>|<end_of_text>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+``
(IGNORECASE); ``docs/MODEL_FILES.md`` has the details.

A gzip file is inflated in bounded memory (at most ``MAX_TEXT_BYTES``): a gzip bomb is
refused, not unpacked.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

from ..errors import FormatError
from ..io.reading import opened

GZIP_MAGIC = b"\x1f\x8b"
N_MERGES = 49152 - 256 - 2          # the merges CLIP uses (SimpleTokenizer)
EOW = "</w>"
SPECIAL_TOKENS = ("<start_of_text>", "<end_of_text>")
MAX_FILE_BYTES = 64 << 20
MAX_TEXT_BYTES = 64 << 20           # the published file inflates to 3.1 MB
PATTERN = r"""<start_of_text>|<end_of_text>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""


def byte_alphabet() -> list[str]:
    """GPT-2's (and CLIP's) bytes_to_unicode, in byte order: byte b -> this character."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    out, n = {b: chr(b) for b in keep}, 0
    for b in range(256):
        if b not in out:
            out[b] = chr(256 + n)
            n += 1
    return [out[b] for b in range(256)]


@dataclass(frozen=True)
class ClipMerges:
    """``merges``: the merges CLIP uses (the first N_MERGES lines after the header, or
    all there are); ``file_merges``: how many lines the file holds."""

    path: str | None
    header: str
    merges: list[tuple[str, str]]
    file_merges: int

    def vocab(self) -> list[str]:
        """CLIP's vocabulary, id -> token text, as SimpleTokenizer builds it (49,408)."""
        base = byte_alphabet()
        # the byte order of bytes_to_unicode().values(): the printable ones first
        order = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
        order += [b for b in range(256) if b not in set(order)]
        chars = [base[b] for b in order]
        return chars + [c + EOW for c in chars] + [a + b for a, b in self.merges] \
            + list(SPECIAL_TOKENS)


def _inflate(data: bytes, path) -> bytes:
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data, MAX_TEXT_BYTES + 1)
    except zlib.error as e:
        raise FormatError(path, f"is not a valid gzip file ({e}).") from None
    if len(out) > MAX_TEXT_BYTES:
        raise FormatError(path, f"inflates to more than {MAX_TEXT_BYTES >> 20} MiB; CLIP's merges "
                          "file inflates to 3 MB. Check that you picked the right file.")
    if not d.eof:
        raise FormatError(path, "is a truncated gzip file (it ends before its data does).")
    return out


def parse_clip_merges(data: bytes, path: str | Path | None = None,
                      n_merges: int = N_MERGES) -> ClipMerges:
    """CLIP merges (gzip or plain bytes) -> ClipMerges; FormatError names the line."""
    if data[:2] == GZIP_MAGIC:
        data = _inflate(data, path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(path, f"is not UTF-8 text (bad byte at offset {e.start}).",
                          line=data[:e.start].count(b"\n") + 1) from None
    lines = text.split("\n")
    header, body = lines[0], lines[1:]
    if body and body[-1] == "":
        body.pop()
    merges: list[tuple[str, str]] = []
    for i, line in enumerate(body[:n_merges]):
        parts = line.split()
        if len(parts) != 2:
            raise FormatError(path, f"{line[:40]!r} is not a merge (two symbols separated by a "
                              "space).", line=i + 2)
        merges.append((parts[0], parts[1]))
    if not merges:
        raise FormatError(path, "holds no merges after its header line.", line=2)
    return ClipMerges(None if path is None else str(path), header, merges, len(body))


def read_clip_merges(path: str | Path) -> ClipMerges:
    p = Path(path)
    with opened(p, "the merges file") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise FormatError(p, f"is larger than {MAX_FILE_BYTES >> 20} MiB; CLIP's merges file is "
                          "1.4 MB. Check that you picked the right file.")
    return parse_clip_merges(data, p)


def inflate_head(head: bytes, limit: int = 4096) -> bytes | None:
    """The first ``limit`` inflated bytes of a gzip file's head, or None if it is not
    gzip (or its first block does not fit in the head)."""
    if head[:2] != GZIP_MAGIC:
        return None
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, limit)
    except zlib.error:
        return None


def looks_like_clip_merges(text_head: bytes) -> bool:
    """Whether (inflated) text starts like CLIP's merges: a header line, then lines of two
    symbols, some ending in '</w>' (GPT-2's merges.txt has no '</w>')."""
    lines = text_head.split(b"\n")[1:-1][:400]
    if len(lines) < 8:
        return False
    if not all(len(x.split()) == 2 for x in lines):
        return False
    return any(x.endswith(b"</w>") for x in lines)


# ----- loading as a tokenizer -----------------------------------------------------------
EXPORT_PROBLEM = (
    "CLIP cleans the text before splitting it (HTML entities unescaped twice, whitespace "
    "runs to one space, lowercase) and ends each word's last token with '</w>': GPT-2 "
    "files, .tiktoken and bpe-gui's JSON hold neither, and a tokenizer.json written here "
    "would not do the cleaning. Share CLIP's merges file itself (or the model's own "
    "tokenizer.json).")


def load(path: str | Path, special_tokens=None, **kwargs):
    """The tokenizer of a CLIP merges file, as CLIP's SimpleTokenizer encodes (cleaning
    with ftfy.fix_text; tokenizers/imported/clip.py)."""
    from ..display import gpt2_bytes
    from ..tokenizers.imported import clip
    from ..tokenizers.imported.imported_tokenizer import LazyMerges, PipelineTokenizer
    from ..tokenizers.pipeline import Pipeline
    from ..tokenizers.imported.word_model import PipelineModel, model_class
    p = Path(path)
    if special_tokens is not None or kwargs.get("pattern") is not None:
        raise FormatError(p, "CLIP's special tokens and pattern are its own; they cannot be "
                          "replaced. Leave out --special-token / --pattern / --preset.")
    cm = read_clip_merges(p)
    tokens = cm.vocab()
    vocab = {t: i for i, t in enumerate(tokens)}
    native, problem = model_class().from_hf(vocab, [[a, b] for a, b in cm.merges], True)
    if problem is not None:
        raise FormatError(p, problem[2] + ".", line=problem[1] + 2 if problem[0] == "merges"
                          else None)
    native.configure(False, False, -1, False)
    eow = EOW.encode("ascii")
    native.set_end_of_word_suffix(eow)
    table, t2i = native.tables(None, False)
    model = PipelineModel(native, table, byte_level=True, end_of_word=eow)
    specials = {s: vocab[s] for s in SPECIAL_TOKENS}

    def decode(keys: list[str]) -> str:   # SimpleTokenizer.decode
        return gpt2_bytes("".join(keys)).decode("utf-8", "replace").replace(EOW, " ")

    pipe = Pipeline(model, vocab=table, added=clip.ClipSplit(specials),
                    pre=clip.pre_tokenizer(), decode=decode,
                    key_of=lambda i: tokens[i] if 0 <= i < len(tokens) else None,
                    specials=frozenset(specials.values()), stream_safe=False)
    meta = {"format": "clip", "source": str(p), "merges_used": len(cm.merges),
            "merges_in_file": cm.file_merges,
            "label": f"CLIP merges ({len(cm.merges):,} merges; cleaning: ftfy.fix_text, HTML "
                     "entities, whitespace, lowercase)" if clip.fix_text is not None else
                     f"CLIP merges ({len(cm.merges):,} merges; cleaning: NFC, HTML entities, "
                     f"whitespace, lowercase; {clip.FTFY_MISSING})",
            "export_problem": EXPORT_PROBLEM,
            **kwargs.get("meta", {})}
    merges = LazyMerges(lambda: model.n_merges, model.merge_at, table)
    return PipelineTokenizer(pipe, vocab=table, bytes_to_id=t2i, merges=merges,
                             special_ids=specials, pattern="(?i)" + clip.PATTERN, meta=meta)
