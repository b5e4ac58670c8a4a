"""Training in one call: :func:`train_bpe` (files or word-count tables to a vocabulary
and merges, as CS336 asks), :func:`train_from_iterator` (texts from any iterable to a
tokenizer, streamed), :func:`train_on` (more merges on top of a tokenizer),
:func:`train_superbpe` and :func:`stage2` (SuperBPE), :func:`train_parity` (parity-aware
BPE). Each makes a :class:`~.spec.TrainingSpec` and builds its run with
:func:`~.build.build_run`, as the window and the command line do, and runs it forward
only (no undo log: less memory)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence, cast

from .. import checks
from ..corpus.table import PretokenTable
from ..corpus.table_sums import read_tables, settings_for_table
from ..errors import Cancelled, CancelFn, CorpusError, SettingsError
from .build import build_run
from .spec import (PARITY, SUPERBPE, TRAIN_ON, ParityOptions, TrainingSpec, named_languages,
                   unused)
from .trainer import Trainer, TrainSettings, _table_name

if TYPE_CHECKING:
    from ..tokenizers.trained import Tokenizer
    from .inherited import InheritedTrainer
    from .parity import Named, ParityTrainer
    from .superbpe import SuperBPETrainer
    from .superbpe_run import SuperBPERun

Progress = Callable[[str, int, int], None]
TRAINED_ON = "the tokenizer trained on"   # (a spec's name for a tokenizer given in memory)


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
    min_frequency, prune, num_merges, end_of_word, lines, special_text).
    ``progress(phase, done, total)`` reports "pretokenize" (input bytes read) then
    "merge" (steps). ``encoding``: the corpus files' (converted as they are read). ``workers``: the threads that count the
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
    if return_trainer:
        return trainer  # type: ignore[return-value]
    trainer.release_core()
    return trainer.vocab, trainer.merges


def train_from_iterator(iterator: "Iterable[str | Sequence[str]]", vocab_size: int = 1000,
                        special_tokens: Sequence[str] | None = None, *,
                        length: int | None = None,
                        progress: Callable[[str, int, int], None] | None = None,
                        cancel: CancelFn | None = None, **options) -> "Tokenizer":
    """Train on texts from any iterable (a list, a generator, a dataset's column, an
    open file), streamed: read a block at a time, so memory grows with the unique words,
    not with the texts. Each text is its own document, as in tokenizers'
    ``train_from_iterator``; an item may also be a batch of texts (a list or tuple, as
    HF's tutorial yields ``dataset[i:i + 1000]["text"]``). ``length``: the number of
    texts in all, for progress: "pretokenize" then counts texts read out of it (without
    it, characters read out of 0). ``options``: the other TrainSettings fields (as
    train_bpe). Returns the tokenizer.

    The merges equal train_bpe's on the same texts written to a file, one per line,
    with ``lines=True`` (each line its own text), or as the documents of a .jsonl file.

    Example::

        tok = train_from_iterator((row["text"] for row in rows), vocab_size=8000,
                                  special_tokens=["<|endoftext|>"])
        tok = train_from_iterator((ds[i:i + 1000]["text"] for i in range(0, len(ds), 1000)),
                                  length=len(ds))
    """
    if isinstance(iterator, (str, bytes, bytearray)) or not isinstance(iterator, Iterable):
        checks.iterable_texts(iterator, "train_from_iterator(iterator)")   # (it says why)
    checks.whole(length, "train_from_iterator(length)", 0, checks.MAX_COUNT, none_ok=True)
    _check_train_bpe(None, vocab_size, special_tokens, None, options)
    settings = TrainSettings(vocab_size=vocab_size,
                             special_tokens=tuple(special_tokens or ()), **options)
    read = [0]
    ptok = (lambda d, t: progress("pretokenize", *((read[0], length) if length is not None
                                                   else (d, t)))) if progress else None
    trainer = Trainer.from_texts(_texts(iterator, read), settings, ptok, cancel, undo=False)
    trainer.release_table()   # its words are in the core now
    pmerge = (lambda d, t: progress("merge", d, t)) if progress else None
    trainer.advance(progress=pmerge, cancel=cancel, detail=False)
    trainer.release_core()
    return trainer.tokenizer()


def _texts(items: Iterable, read: list[int]) -> Iterator[str]:
    """The texts of train_from_iterator's items, each a text or a batch of texts (a list
    or tuple); ``read[0]`` counts the texts given so far."""
    where = "train_from_iterator(iterator)"
    for k, item in enumerate(items):
        batch = (item,) if isinstance(item, str) else item
        if not isinstance(batch, (list, tuple)):
            checks.text(item, f"{where}[{k}]")   # (not a text, nor a batch: it says so)
        for j, text in enumerate(batch):
            if not isinstance(text, str):
                checks.text(text, f"{where}[{k}][{j}]")
            read[0] += 1
            yield text


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


def train_on(tokenizer: Tokenizer,
             corpus: "str | Path | Sequence[str | Path] | PretokenTable | None" = None,
             settings: TrainSettings | None = None, *, text: str | None = None,
             pattern: str | None = None, progress: Progress | None = None,
             cancel: CancelFn | None = None, detail: bool = False) -> InheritedTrainer:
    """Train on from ``tokenizer``: keep its merges and ids, learn more on ``corpus``
    (files, or a table from ``count_corpus`` made with its pattern and special tokens)
    or ``text``, until ``settings``' target (``num_merges`` new merges, or a total
    ``vocab_size``); every tie rule works. Returns the trainer, run: ``.tokenizer()``,
    ``.vocab``, ``.merges``, ``.n_inherited``, ``.steps`` (the new merges).
    ``pattern``: a pre-tokenizer of the caller's instead of the tokenizer's (its merge
    list is then the rule, not its own encoder).

    ``progress(phase, done, total)`` reports "pretokenize", "segment" then "merge", as
    build_run and train_bpe do.

    Example::

        t = train_on(load_tokenizer("gpt2/"), "chinese.txt", TrainSettings(num_merges=2000))
        t.n_inherited, t.n_steps          # 50000 kept, 2000 new
    """
    from .inherited import merge_list_tokenizer
    if corpus is None and text is None:
        raise SettingsError("Give the corpus to train on: files, a count table, or text=.")
    if pattern is not None and pattern != tokenizer.pattern:
        counts = (tokenizer.meta or {}).get("merge_counts")
        tokenizer = merge_list_tokenizer(tokenizer, pattern)
        tokenizer.meta = {"merge_counts": counts} if counts else {}
    table = corpus if isinstance(corpus, PretokenTable) else None
    spec = _spec(TRAIN_ON, corpus, text, settings or TrainSettings(num_merges=1000), (table,))
    return cast("InheritedTrainer", _run(spec, progress, cancel, detail, base=tokenizer,
                                         table=table))


def stage2(tokenizer: Tokenizer,
           corpus: "str | Path | Sequence[str | Path] | PretokenTable | None" = None,
           settings: TrainSettings | None = None, *, text: str | None = None,
           progress: Progress | None = None, cancel: CancelFn | None = None,
           detail: bool = False) -> SuperBPETrainer:
    """SuperBPE's stage 2 on top of any byte-level tokenizer (all its merges; pass
    ``tok.at_step(T)`` for the first T): the reference's ``extend_existing_tokenizer``.
    ``settings``' target counts the stage-2 merges (``num_merges``) or the whole vocab.
    ``corpus``: files, or a table counted with ``stage2_pretokenizer``."""
    if corpus is None and text is None:
        raise SettingsError("Give the corpus for stage 2: files, a count table, or text=.")
    s = replace(settings or TrainSettings(num_merges=1000), superbpe_from=None)
    table = corpus if isinstance(corpus, PretokenTable) else None
    spec = _spec(SUPERBPE, corpus, text, s, (table,))
    return cast("SuperBPETrainer", _run(spec, progress, cancel, detail, base=tokenizer,
                                        table2=table))


def train_superbpe(corpus: "str | Path | Sequence[str | Path] | None" = None,
                   settings: TrainSettings | None = None, *, text: str | None = None,
                   stage1_table: PretokenTable | None = None,
                   stage2_table: PretokenTable | None = None,
                   progress: Progress | None = None,
                   cancel: CancelFn | None = None) -> SuperBPETrainer:
    """Both stages: ordinary BPE to merge ``settings.superbpe_from`` (T), then stage 2 to
    the target (``vocab_size`` or ``num_merges``, counting both stages). The corpus is
    files or ``text``; or the two word-count tables (``count_corpus`` with the stage-1
    pattern, and with ``stage2_pretokenizer``). Returns the stage-2 trainer:
    ``.tokenizer()`` is the SuperBPE tokenizer, ``.n_inherited`` = T, ``.stage1_steps``
    stage 1's records. ``progress(phase, done, total)`` reports "pretokenize", "merge"
    (both stages' steps) and, at T, "pretokenize stage 2"."""
    from .superbpe import check_transition
    s = (settings or TrainSettings()).validated()
    check_transition(s)   # (before the spec puts pruning back: refused, not ignored)
    spec = _spec(SUPERBPE, corpus, text, s, (stage1_table, stage2_table), on=False)
    run = cast("SuperBPERun", _run(spec, progress, cancel, False, table=stage1_table,
                                   table2=stage2_table))
    if run.stage2 is None:   # cancelled in stage 1
        raise Cancelled()
    return run.stage2


def train_parity(languages: Named, *, num_merges: int, variant: str = "base",
                 dev: Named | None = None, ratios: Named | None = None,
                 global_merges: int = 0, window_size: int = 100, alpha: float = 2.0,
                 min_frequency: int = 0, lines: bool = False,
                 progress: Callable[[int, int], None] | None = None,
                 cancel: CancelFn | None = None) -> ParityTrainer:
    """The command line's ``bpe-gui train --parity`` as one call: ``languages`` maps each
    name to its training file, ``dev`` each name to its dev file, or ``ratios`` each name
    to its target ratio (one of the two, for every language). Returns the trainer, run
    to the end (``.merges``, ``.tokenizer()``, ``.steps``); its count tables are let go
    (as the command line's are).

    Example::

        t = train_parity({"en": "en.txt", "de": "de.txt"}, num_merges=8000,
                         dev={"en": "en.dev", "de": "de.dev"}, lines=True)
        export_tokenizer(t.tokenizer(), "out", "hf")
    """
    spec = TrainingSpec(mode=PARITY, settings=TrainSettings(
        num_merges=num_merges, lines=lines,
        min_frequency=min_frequency or 1),   # (HF's 0: every pair occurs at least once)
        parity=ParityOptions(named_languages(languages, dev, ratios), variant,
                             global_merges, window_size, alpha))
    run = cast("ParityTrainer", build_run(spec, None, cancel, undo=False))
    run.run(progress=progress, cancel=cancel, detail=False)
    return run


def _spec(mode: str, corpus, text: str | None, s: TrainSettings, tables: tuple,
          on: bool = True) -> TrainingSpec:
    """The spec of a one-call function's corpus: its files or text; or, when every table
    it needs is given (nothing left to read), the last table's name (as word-count
    tables when the mode reads them, else as the corpus: SuperBPE's tables are given
    to build_run apart). ``on``: on top of a tokenizer given to build_run."""
    spec = TrainingSpec(mode=mode, settings=s, base=TRAINED_ON if on else None)
    why = unused(spec)
    # (the spec would put them back unasked: refused)
    for key, off in (("prune", "off"), ("lines", "off"), ("special_text", "at 'cut'")):
        if getattr(s, key) != getattr(TrainSettings, key) and key in why:
            raise SettingsError(f"{why[key]}: leave {key} {off}.")
    if all(t is not None for t in tables):
        name = (getattr(tables[-1], "source", None) or "the count table",)
        return replace(spec, counts=name) if mode == TRAIN_ON else replace(spec, corpus=name)
    if text is not None:
        return replace(spec, text=text)
    if corpus is None:
        return spec   # (validated says to give the corpus)
    paths = [corpus] if isinstance(corpus, (str, Path)) else corpus
    return replace(spec, corpus=tuple(str(p) for p in paths))


def _run(spec: TrainingSpec, progress: Progress | None, cancel: CancelFn | None,
         detail: bool, **kw):
    """``spec``'s run from build_run, forward only, run to its target."""
    run = build_run(spec, progress, cancel, undo=False, **kw)
    run.run(progress=(lambda d, n: progress("merge", d, n)) if progress else None,
            cancel=cancel, detail=detail)
    return run
