"""What each language costs in tokens: held-out texts (one file per language or script)
encoded by a few tokenizers.

For each text and tokenizer:

* bytes per token (UTF-8 bytes of the text / tokens) and tokens per character;
* parity: tokens of this text / tokens of the reference language's text, with the same
  tokenizer (Petrov et al. 2023, "Language Model Tokenizers Introduce Unfairness Between
  Languages", who found up to 15x differences). It compares like with like only when
  the files are translations of one text (FLORES-200 sentences, say);
* Rényi efficiency (alpha 2.5, Zouhar et al. 2023) of the text's token distribution,
  over the tokenizer's whole vocabulary (:func:`~.distribution.renyi_efficiency` has the formula).

A folder's files are its ``.txt``/``.md``/``.jsonl`` files (also ``.xz``/``.gz``); the
language is the name before the first dot (``en.txt`` -> ``en``, ``zh-Hans.txt.xz`` ->
``zh-Hans``). Files are streamed in blocks (``encode_iterable``), never held whole.

Example (the shared corpora's Chinese and English, which are not translations of each
other, so only an illustration; ``bench/bench_analysis.py``)::

    >>> table = language_cost("held/", {"gpt2": gpt2, "o200k": o200k}, reference="en")
    >>> round(table.row("zh", "gpt2").parity, 2), round(table.row("zh", "o200k").parity, 2)
    (2.74, 1.35)
    >>> Path("cost.csv").write_text(table.to_csv())
"""
from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from .. import checks
from ..errors import (
    CancelFn, Cancelled, CorpusError, SettingArgumentError, SettingsError,
    SettingTypeError)
from ..corpus.files import inner_suffix, read_text_chunks
from ..io.reading import file_size
from .distribution import RENYI_ALPHA, renyi_efficiency
from ..tokenizers.base import BaseTokenizer

TEXT_SUFFIXES = (".txt", ".md", ".jsonl")
CSV_COLUMNS = ("language", "tokenizer", "characters", "bytes", "tokens", "bytes_per_token",
               "tokens_per_char", "parity", "reference", "renyi_efficiency", "alpha",
               "token_types", "vocab_size")

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class CostRow:
    """One text encoded by one tokenizer."""

    language: str
    tokenizer: str
    chars: int
    bytes: int
    tokens: int
    types: int                  # distinct tokens in the encoding
    vocab_size: int             # every id of the tokenizer (the Rényi denominator)
    renyi: float | None
    parity: float | None = None

    @property
    def bytes_per_token(self) -> float | None:
        return self.bytes / self.tokens if self.tokens else None

    @property
    def tokens_per_char(self) -> float | None:
        return self.tokens / self.chars if self.chars else None


@dataclass(frozen=True)
class CostTable:
    rows: tuple[CostRow, ...]
    languages: tuple[str, ...]
    tokenizers: tuple[str, ...]
    reference: str
    alpha: float = RENYI_ALPHA

    def row(self, language: str, tokenizer: str) -> CostRow:
        for r in self.rows:
            if r.language == language and r.tokenizer == tokenizer:
                return r
        raise KeyError((language, tokenizer))

    def records(self) -> list[dict]:
        """One dict per (language, tokenizer), keyed by CSV_COLUMNS (None: no value)."""
        return [dict(zip(CSV_COLUMNS, (
            r.language, r.tokenizer, r.chars, r.bytes, r.tokens, r.bytes_per_token,
            r.tokens_per_char, r.parity, self.reference, r.renyi, self.alpha, r.types,
            r.vocab_size))) for r in self.rows]

    def to_csv(self) -> str:
        """The table as CSV, one row per (language, tokenizer); empty cells for no value."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for rec in self.records():
            w.writerow([_num(v) if isinstance(v, float) or v is None else v
                        for v in rec.values()])
        return out.getvalue()


def _num(x: float | None) -> str:
    return "" if x is None else format(x, ".10g")


# ----- files --------------------------------------------------------------------------
def language_of(path: Path) -> str:
    """Example: 'zh-Hans.txt.xz' -> 'zh-Hans'."""
    return path.name.split(".", 1)[0]


# Past about 20, p ** alpha underflows to 0 for texts of many tokens (a math domain
# error); the orders studied for tokenizers are 1 to 3 (Zouhar et al. use 2.5).
MAX_ALPHA = 20.0


def check_alpha(alpha: float) -> float:
    """The Rényi order, if usable: a number in (0, MAX_ALPHA]; the engine's argument
    errors otherwise (they are SettingsErrors too)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise SettingTypeError(f"The Rényi order alpha must be a number (got {alpha!r}).")
    if not 0 < alpha <= MAX_ALPHA:   # (nan fails this too)
        raise SettingArgumentError(
            f"The Rényi order alpha must be a number above 0 and at most {MAX_ALPHA:g} "
            f"(got {alpha!r}); 2.5 is the usual one, 1 is Shannon's entropy.")
    return float(alpha)


def tokenizer_labels(paths: "Sequence[str | Path]") -> list[str]:
    """Short names for a cost table: the file or folder name, numbered when two clash
    (the command line's ``cost`` and the window's dialog both label tokenizers so).

    Example: ['a/tokenizer.json', 'b/tokenizer.json', 'gpt2'] ->
    ['tokenizer.json #1', 'tokenizer.json #2', 'gpt2']
    """
    names = [Path(p).name or str(p) for p in paths]
    out = []
    for k, n in enumerate(names):
        if names.count(n) > 1:
            n = f"{n} #{names[:k + 1].count(n)}"
        out.append(n)
    return out


def held_out_files(folder: str | Path) -> dict[str, Path]:
    """language -> file, for the text files of a folder (sorted by language)."""
    p = Path(folder).expanduser()
    if not p.is_dir():
        raise CorpusError("is not a folder. Point at a folder holding one text file per "
                          "language (en.txt, de.txt, zh.txt ...).", p)
    found: dict[str, Path] = {}
    for f in sorted(p.iterdir()):
        if f.name.startswith(".") or not f.is_file() or inner_suffix(f) not in TEXT_SUFFIXES:
            continue
        lang = language_of(f)
        if lang in found:
            raise CorpusError(f"holds two files for the language {lang!r} ({found[lang].name}, "
                              f"{f.name}). Keep one file per language.", p)
        found[lang] = f
    if not found:
        raise CorpusError("holds no .txt, .md or .jsonl files. Put one text file per "
                          "language in it (en.txt, de.txt, zh.txt ...).", p)
    return found


# ----- counting -----------------------------------------------------------------------
@dataclass
class _Count:
    chars: int = 0
    bytes: int = 0


def _measured(chunks: Iterator[str], acc: _Count, cancel: CancelFn | None) -> Iterator[str]:
    for chunk in chunks:
        if cancel is not None and cancel():
            raise Cancelled()
        acc.chars += len(chunk)
        acc.bytes += len(chunk.encode("utf-8", "surrogatepass"))
        yield chunk


def text_cost(path: Path, tok: BaseTokenizer, language: str = "", label: str = "",
              alpha: float = RENYI_ALPHA, on_read: Callable[[int], None] | None = None,
              cancel: CancelFn | None = None) -> CostRow:
    """Encode one file with one tokenizer, streaming; parity is left to the caller."""
    acc = _Count()
    counts = Counter(tok.encode_iterable(_measured(read_text_chunks(path, on_read), acc, cancel),
                                        allowed_special="all"))
    size = len(tok.vocab)
    return CostRow(language or language_of(path), label, acc.chars, acc.bytes,
                   sum(counts.values()), len(counts), size,
                   renyi_efficiency(counts.values(), size, alpha))


def language_cost(texts: str | Path | Mapping[str, str | Path],
                  tokenizers: Mapping[str, BaseTokenizer], reference: str | None = None,
                  alpha: float = RENYI_ALPHA, progress: ProgressFn | None = None,
                  cancel: CancelFn | None = None) -> CostTable:
    """Every text with every tokenizer. ``texts``: a folder (see :func:`held_out_files`)
    or {language: file}; ``tokenizers``: {label: tokenizer}; ``reference``: the language
    parity divides by (default: ``en`` if there is one, else the first language).
    ``progress(done, total)`` counts file bytes read over all passes."""
    _check_arguments(texts, tokenizers, reference)
    check_alpha(alpha)
    files = held_out_files(texts) if isinstance(texts, (str, Path)) else \
        {k: Path(v) for k, v in sorted(texts.items())}
    if not tokenizers:
        raise SettingsError("No tokenizer to measure: pick at least one.")
    if not files:
        raise CorpusError("No texts to measure: give at least one file.")
    langs = tuple(files)
    ref = reference if reference is not None else ("en" if "en" in files else langs[0])
    if ref not in files:
        raise SettingsError(f"The reference language {ref!r} has no file; the languages are "
                            f"{', '.join(langs)}. Pick one of them.")
    sizes = {lang: max(1, file_size(f)) for lang, f in files.items()}
    total = sum(sizes.values()) * len(tokenizers)
    done = 0
    rows: list[CostRow] = []
    for lang, f in files.items():
        for label, tok in tokenizers.items():
            def on_read(n: int, base=done) -> None:
                if progress is not None:
                    progress(min(base + n, total), total)
            rows.append(text_cost(f, tok, lang, label, alpha, on_read, cancel))
            done += sizes[lang]
    return CostTable(tuple(_with_parity(rows, ref)), langs, tuple(tokenizers), ref, alpha)


def _with_parity(rows: list[CostRow], ref: str) -> list[CostRow]:
    """Parity = tokens / the reference text's tokens, for the same tokenizer."""
    base = {r.tokenizer: r.tokens for r in rows if r.language == ref}
    out = []
    for r in rows:
        b = base.get(r.tokenizer)
        parity = r.tokens / b if b else None
        out.append(replace(r, parity=parity))
    return out


def _check_arguments(texts, tokenizers, reference) -> None:
    if not isinstance(texts, Mapping):
        checks.path(texts, "language_cost(texts)")
    if not isinstance(tokenizers, Mapping):
        checks.instance(tokenizers, Mapping, "language_cost(tokenizers)",
                        "a dict {label: Tokenizer}, e.g. {'mine': tok}")
    for label, tok in tokenizers.items():
        checks.instance(tok, BaseTokenizer, f"language_cost(tokenizers)[{label!r}]", "a Tokenizer")
    checks.instance(reference, str, "language_cost(reference)", "a language name or None",
                    none_ok=True)
