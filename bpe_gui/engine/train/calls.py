"""Training in one call: :func:`train_bpe` (files or word-count tables to a vocabulary
and merges, as CS336 asks) and :func:`train_from_iterator` (texts from any iterable to a
tokenizer, streamed). Both build their run with :func:`~.build.build_run`, as the window
and the command line do, and run it forward only (no undo log: less memory)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence, cast

from .. import checks
from ..corpus.table import PretokenTable
from ..corpus.table_sums import read_tables, settings_for_table
from ..errors import CancelFn, CorpusError
from .build import build_run
from .spec import TrainingSpec
from .trainer import Trainer, TrainSettings, _table_name

if TYPE_CHECKING:
    from ..tokenizers.trained import Tokenizer


def train_bpe(input_path: "str | Path | Sequence[str | Path] | PretokenTable | None" = None,
              vocab_size: int = 1000, special_tokens: Sequence[str] | None = None, *,
              counts: str | Path | Sequence[str | Path] | None = None,
              progress: Callable[[str, int, int], None] | None = None,
              cancel: CancelFn | None = None, return_trainer: bool = False,
              encoding: str = "utf-8", workers: int | None = None,
              **options) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train byte-level BPE on one or more files; returns ``(vocab, merges)``.

    ids: 0-255 the bytes, then special tokens in the order given, then merges in order.
    ``options`` are the other :class:`TrainSettings` fields (mode, pattern, tie_rule,
    min_frequency, prune, num_merges, end_of_word, lines). ``progress(phase, done, total)``
    reports "pretokenize" (input bytes read) then "merge" (steps). ``encoding``: the
    corpus files' (converted as they are read). ``workers``: the threads that count the
    files (default: every core this process may use, one for a pattern the native
    scanner does not run: ``corpus.counting.default_workers``; the merges are the same
    for any number). ``return_trainer=True`` returns the
    Trainer instead, which only goes forward (it keeps no undo log: see Trainer) and
    keeps no pre-token table (:meth:`Trainer.release_table`).

    Instead of corpus files: ``input_path`` a table in memory (``count_corpus``), or
    ``counts`` word-count table files (summed in the order given). A table's own pattern
    and special tokens (and ``lines``) are used unless ``pattern``/``special_tokens``
    (``lines``) are given, and then they must be the table's (see
    :meth:`Trainer.from_counts`).
    """
    if isinstance(input_path, Iterator):   # read once: the checks below and the run
        input_path = list(input_path)
    if isinstance(counts, Iterator):
        counts = list(counts)
    _check_train_bpe(input_path, vocab_size, special_tokens, counts, options)
    checks.whole(workers, "train_bpe(workers)", 1, 4096, none_ok=True)
    table = input_path if isinstance(input_path, PretokenTable) else None
    settings = TrainSettings(vocab_size=vocab_size,
                             special_tokens=tuple(special_tokens or ()), **options)
    if counts is not None or table is not None:
        if table is None:
            assert counts is not None   # (the test above: one of the two is given)
            table = read_tables(counts)
        settings = settings_for_table(settings, table.meta, pattern="pattern" in options,
                                      specials=special_tokens is not None,
                                      lines="lines" in options)
        names = [str(p) for p in ([counts] if isinstance(counts, (str, Path)) else counts)] \
            if counts is not None else [_table_name(table)]
        spec = TrainingSpec(counts=tuple(names), settings=settings)
    else:   # a str here is a file's path, not the text
        assert not isinstance(input_path, PretokenTable)   # (table is None here)
        paths = [input_path] if isinstance(input_path, (str, Path)) else input_path
        checks.texts_not_paths(list(paths or ()), "train_bpe(input_path)")
        if not paths:
            raise CorpusError("No corpus files were given. Pass at least one text file.")
        spec = TrainingSpec(corpus=tuple(str(p) for p in paths), settings=settings,
                            encoding=encoding, threads=workers)
    trainer = cast(Trainer, build_run(spec, progress, cancel, undo=False, table=table))
    pmerge = (lambda d, t: progress("merge", d, t)) if progress else None
    trainer.advance(progress=pmerge, cancel=cancel, detail=False)
    if not return_trainer:
        trainer.release_core()
    if return_trainer:
        return trainer  # type: ignore[return-value]
    return trainer.vocab, trainer.merges


def train_from_iterator(iterator: Iterable[str], vocab_size: int = 1000,
                        special_tokens: Sequence[str] | None = None, *,
                        progress: Callable[[str, int, int], None] | None = None,
                        cancel: CancelFn | None = None, **options) -> "Tokenizer":
    """Train on texts from any iterable (a list, a generator, a dataset's column, an
    open file), streamed: read a block at a time, so memory grows with the unique words,
    not with the texts. Each text is its own document, as in tokenizers'
    ``train_from_iterator``. ``options``: the other TrainSettings fields (as train_bpe).
    Returns the tokenizer.

    The merges equal train_bpe's on the same texts written to a file, one per line,
    with ``lines=True`` (each line its own text), or as the documents of a .jsonl file.

    Example::

        tok = train_from_iterator((row["text"] for row in rows), vocab_size=8000,
                                  special_tokens=["<|endoftext|>"])
    """
    checks.iterable_texts(iterator, "train_from_iterator(iterator)")
    _check_train_bpe(None, vocab_size, special_tokens, None, options)
    settings = TrainSettings(vocab_size=vocab_size,
                             special_tokens=tuple(special_tokens or ()), **options)
    ptok = (lambda d, t: progress("pretokenize", d, t)) if progress else None
    trainer = Trainer.from_texts(iterator, settings, ptok, cancel, undo=False)
    trainer.release_table()   # its words are in the core now
    pmerge = (lambda d, t: progress("merge", d, t)) if progress else None
    trainer.advance(progress=pmerge, cancel=cancel, detail=False)
    trainer.release_core()
    return trainer.tokenizer()


def _check_train_bpe(input_path, vocab_size, special_tokens, counts, options) -> None:
    """train_bpe's arguments (its options are TrainSettings fields, checked there)."""
    if not isinstance(input_path, PretokenTable):
        checks.paths(input_path, "train_bpe(input_path)")
    checks.paths(counts, "train_bpe(counts)")
    checks.whole(vocab_size, "vocab_size", -checks.MAX_ID, checks.MAX_ID, setting=True,
                 none_ok=True)
    checks.special_tokens(special_tokens, setting=True)
    known = [f for f in TrainSettings.__dataclass_fields__
             if f not in ("vocab_size", "special_tokens")]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise checks.ArgumentTypeError(f"train_bpe() got the unknown option(s) "
                                       f"{', '.join(unknown)}; its options are {', '.join(known)}.")
