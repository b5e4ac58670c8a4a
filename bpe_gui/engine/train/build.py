"""The one place a training run is built: :func:`build_run` (a spec in, a run out). The
window, every ``bpe-gui train`` route and :func:`~.calls.train_bpe` come here.

Example::

    run = build_run(TrainingSpec(corpus=("c.txt",), settings=TrainSettings(num_merges=50)))
    run.run()
    run.tokenizer().encode("text")
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from ..corpus.table import PretokenTable
from ..corpus.table_sums import check_settings, read_tables
from ..errors import Cancelled, CancelFn, CorpusError, SettingsError
from .spec import PARITY, STDIN, SUPERBPE, TRAIN_ON, TrainingSpec
from .trainer import Trainer, TrainSettings, _table_name, source_table

if TYPE_CHECKING:
    from ..tokenizers.base import BaseTokenizer
    from .trainer import RunCommon

# what build_run reports, through progress(phase, done, total)
READING = "pretokenize"        # the corpus read and cut into words (bytes)
STAGE2 = "pretokenize stage 2"  # SuperBPE: the corpus cut again for stage 2 (bytes)
SEGMENTING = "segment"         # training on: the words segmented by the tokenizer's merges
PREPARING = "prepare stage 2"  # SuperBPE: stage 1 run to T and back, stage 2 built

Progress = Callable[[str, int, int], None]
TABLE = "the word-count table"


def build_run(spec: TrainingSpec, progress: Progress | None = None,
              cancel: CancelFn | None = None, *, undo: bool = True,
              base: BaseTokenizer | None = None, table: PretokenTable | None = None,
              table2: PretokenTable | None = None,
              reuse: RunCommon | Lent | None = None, prepare: bool = True,
              where: str | None = None) -> RunCommon:
    """The run ``spec`` asks for, at step 0, its ``spec`` the one it trains (with what
    the tokenizer trained on decides filled in).

    ``progress(phase, done, total)``: the phases above; ``cancel()`` polled while
    reading (raises Cancelled). ``undo=False``: a run that only goes forward (the
    command line's: less memory). ``base``: the tokenizer ``spec.base`` names, loaded
    (the engine's formats read files; this layer does not). ``table``: the word counts
    of ``spec.counts`` read already (``where``: what messages call it); ``table2``:
    SuperBPE's stage-2 word counts read already (its corpus is then not read again
    for them). ``reuse``: a run (or what :func:`lend` kept of one) whose words are
    read the same way (``spec.table_key()``) lends its tables instead of a new reading.
    ``prepare``: SuperBPE's stage 2 built now (the window's: not at the step that
    crosses T)."""
    spec = resolve(spec, base)
    if spec.mode == PARITY:
        return _parity(spec, progress, cancel, undo)
    if spec.mode == SUPERBPE and spec.corpus == (STDIN,):   # read twice: held once
        read = build_run(replace(spec, corpus=(), text=_stdin_text(spec.encoding)),
                         progress, cancel, undo=undo, base=base, prepare=prepare)
        read.spec = spec
        return read
    src = base if spec.base else None
    s = spec.settings

    def phase(name: str):
        return None if progress is None else (lambda d, t: progress(name, d, t))

    def words() -> PretokenTable:
        old = _reused(reuse, spec, "table")
        if old is not None:
            return old
        got = table or _table(spec, s, phase(READING), cancel)
        if spec.counts or table is not None:   # a table counted apart: its way of cutting
            check_settings(got.meta, s, where or (_table_name(list(spec.counts))
                                                       if spec.counts else TABLE))
        return got
    run: RunCommon
    if spec.mode == SUPERBPE:
        from .superbpe import TRAIN_PATTERN, stage2_pretokenizer
        from .superbpe_run import SuperBPERun

        def words2() -> PretokenTable:
            if table2 is not None:   # counted apart: with stage 2's pattern
                check_settings(table2.meta, replace(s, pattern=TRAIN_PATTERN),
                               "the stage-2 count table")
                return table2
            old = _reused(reuse, spec, "table2")
            if old is not None:
                return old
            if spec.text is not None:
                from ..corpus.counting import table_from_text
                return table_from_text(spec.text, stage2_pretokenizer(s.special_tokens),
                                       progress=phase(STAGE2), cancel=cancel)
            from ..corpus.counting import count_corpus
            return count_corpus(list(spec.corpus), stage2_pretokenizer(s.special_tokens),
                                encoding=spec.encoding, progress=phase(STAGE2), cancel=cancel)
        if src is not None:   # stage 2 on the tokenizer's first T merges, or on all
            from .inherited import merge_list_tokenizer
            from .superbpe import SuperBPETrainer
            first = src if s.superbpe_from is None else \
                merge_list_tokenizer(src).at_step(s.superbpe_from)
            run = SuperBPETrainer(first, words2(), _stage2_on(s, src))
        else:
            run = SuperBPERun(words(), words2, s, undo=undo)
            if prepare and undo:
                if progress is not None:
                    progress(PREPARING, 0, 0)
                run.prepare(cancel)
    elif spec.mode == TRAIN_ON:
        from .inherited import InheritedTrainer
        if progress is not None:
            progress(SEGMENTING, 0, 0)
        assert src is not None   # (validated: training on names its tokenizer)
        run = InheritedTrainer(src, words(), s)
    else:
        run = Trainer(words(), s, undo=undo)
        if not undo:   # its words are in the core now (train_bpe's and the command line's)
            run.release_table()
    if cancel is not None and cancel():
        raise Cancelled()
    run.spec = spec
    return run


def resolve(spec: TrainingSpec, base: BaseTokenizer | None = None) -> TrainingSpec:
    """``spec`` validated, with what the tokenizer trained on decides filled in (its
    mode, pattern and special tokens): the spec a run of it trains, and what the window
    shows greyed. ``base``: the tokenizer ``spec.base`` names, loaded."""
    spec = spec.validated()
    if not spec.base:
        return spec
    if base is None:
        raise SettingsError(f"Load the tokenizer {spec.base} (formats.load_tokenizer) and "
                            "give it as base=tokenizer.")
    return replace(spec, settings=_effective(spec, base))


def _stdin_text(encoding: str) -> str:
    """The standard input, whole, as text (a UTF-8 byte order mark left out, as a file's
    is)."""
    import sys
    data = sys.stdin.buffer.read()
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        raise CorpusError(f"the standard input is not {encoding} (byte {e.start:,}): give "
                          "its encoding with --encoding.") from None
    return text[1:] if text.startswith("\ufeff") else text


def _effective(spec: TrainingSpec, src: BaseTokenizer) -> TrainSettings:
    """The settings the run trains with: a tokenizer trained on decides how the corpus
    is cut (its mode, pattern, special tokens)."""
    s = spec.settings
    from .inherited import inherited_settings, merge_list_tokenizer
    if s.superbpe_from is not None and s.superbpe_from > src.n_merges:
        raise SettingsError(f"Stage 2 from merge {s.superbpe_from:,}: {spec.base} has "
                            f"only {src.n_merges:,} merges.")
    start = src if s.superbpe_from is None else \
        merge_list_tokenizer(src).at_step(s.superbpe_from)
    n_ids = max(start.vocab) + 1
    if s.num_merges is None and s.vocab_size is not None and s.vocab_size <= n_ids:
        raise SettingsError(f"A vocabulary size of {s.vocab_size:,} leaves no room for new "
                            f"merges: {spec.base} has {n_ids:,} ids already. Give a larger "
                            "size, or a number of merges.")
    if spec.mode == SUPERBPE:
        if src.mode != "byte":
            raise SettingsError(f"SuperBPE needs a byte-level tokenizer; {spec.base} is "
                                f"{src.mode}-level.")
        return replace(s, mode=src.mode, end_of_word=src.end_of_word,
                       special_tokens=tuple(src.special_tokens))
    return inherited_settings(src, s)


def _stage2_on(s: TrainSettings, src: BaseTokenizer) -> TrainSettings:
    """Stage 2's settings on top of a tokenizer (its first T merges, or all)."""
    from .superbpe import ENCODE_PATTERN
    n = src.n_merges if s.superbpe_from is None else s.superbpe_from
    return replace(s, pattern=ENCODE_PATTERN, superbpe_from=n).validated()


def _table(spec: TrainingSpec, s: TrainSettings, progress, cancel) -> PretokenTable:
    if spec.counts:
        return read_tables(list(spec.counts))
    source = spec.text if spec.text is not None else list(spec.corpus)
    return source_table(source, s, progress, cancel, encoding=spec.encoding,
                        workers=spec.threads)


class Lent:
    """What a run lends the next one that reads the same words: its spec and tables,
    without its merge state (so the run itself can be let go of first)."""

    __slots__ = ("spec", "table", "table2")

    def __init__(self, spec: TrainingSpec, table: PretokenTable | None,
                 table2: PretokenTable | None):
        self.spec, self.table, self.table2 = spec, table, table2

    def serves(self, spec: TrainingSpec) -> bool:
        """True when ``spec`` reads the same words, cut the same way: its run borrows
        these tables instead of reading again."""
        return self.spec.table_key() == spec.table_key()


def lend(run: RunCommon | None) -> Lent | None:
    """``run``'s tables for :func:`build_run`'s ``reuse`` (None: none to lend). A
    SuperBPE stage-2 table is lent once counted."""
    spec = getattr(run, "spec", None)
    if run is None or spec is None or spec.mode == PARITY:
        return None
    table2 = getattr(run, "_table2", None)   # (SuperBPERun's: a table, or how to count it)
    return Lent(spec, run.table, table2 if isinstance(table2, PretokenTable) else None)


def _reused(run: RunCommon | Lent | None, spec: TrainingSpec, what: str):
    """``run``'s table (or SuperBPE's stage-2 table) when it read the same words."""
    lent = run if isinstance(run, Lent) else lend(run)
    if lent is None or not lent.serves(spec):
        return None
    return getattr(lent, what, None)


def _parity(spec: TrainingSpec, progress, cancel, undo: bool):
    from .parity import ParityData, ParityTrainer
    p = spec.parity
    assert p is not None   # (validated)
    train = [(lang.name, lang.train) for lang in p.languages]
    dev = [(lang.name, lang.dev) for lang in p.languages] if p.balance == "dev" else None
    if progress is not None:
        progress(READING, 0, 0)
    data = ParityData.from_files(train, dev, lines=spec.settings.lines, encoding=spec.encoding)
    if cancel is not None and cancel():
        raise Cancelled()
    run = ParityTrainer(data, spec.parity_settings(), undo=undo)
    if not undo:   # the core holds their words (the command line's run: less memory)
        run.release_tables()
    run.spec = spec
    return run
