"""Check my BPE, for the controller: a learner's result held against the reference on a
corpus (engine/check/), run as a job on the controller's one job runner (the status
bar's progress and Cancel), and an encoder's ids checked against the result's
tokenizer.

:class:`Checking` is a part of the controller, given what it uses of it
(:class:`CheckHost`): the corpus in the window, and ``start`` for jobs. The widgets ask
here and get engine records back (``CheckReport``, ``EncodeReport``); they never run
engine work themselves. A check only builds something new, so Cancel drops it at once.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

from ...engine.check import (CheckReport, EncodeReport, LearnerResult, check_ids,
                             check_merges, read_ids, read_result)
from ...engine.errors import BPEError
from .corpus_source import Corpus, FileCorpus, TableCorpus
from .jobs import Done, Ended, Job, refused



class CheckHost(Protocol):
    """What :class:`Checking` uses of the controller."""

    corpus: Corpus

    def start(self, job: Job) -> bool: ...


@dataclass(frozen=True)
class CheckOptions:
    """The settings a user gives the check (None: what the result implies)."""

    special_tokens: tuple[str, ...] | None = None
    pattern: str | None = None
    tie_rule: str | None = None
    vocab_size: int | None = None
    mode: str | None = None
    lines: bool | None = None   # one text per line (None: as the result records, else no)

    def kwargs(self) -> dict:
        return asdict(self)   # (each field is a keyword of check_merges)


@dataclass(frozen=True)
class MergeCheck:
    """A merge check's answer: the result read, the report, and the corpus's name."""

    result: LearnerResult = field(repr=False)
    report: CheckReport
    corpus_name: str


class Checking:
    """The controller's part for Check my BPE (see the module docstring)."""

    def __init__(self, host: CheckHost):
        self._host = host

    def window_corpus(self) -> tuple[str | list[Path] | None, str]:
        """The corpus in the window as a check's source (a text or file paths) and its
        name; (None, why) when it cannot be one (a word-count table holds no text)."""
        c = self._host.corpus
        if isinstance(c, TableCorpus):
            return None, ("The corpus in the window is a word-count table, which holds no "
                          "text; pick the corpus file instead.")
        if isinstance(c, FileCorpus):
            if c.encoding.lower().replace("-", "") not in ("utf8", "utf8sig"):
                return None, (f"The corpus in the window is read as {c.encoding}; the check "
                              "reads UTF-8 files only: pick a UTF-8 copy of it.")
            return [Path(p) for p in c.paths], c.names
        if not c.text.strip():
            return None, "The corpus in the window is empty: type or open one, or pick a file."
        name = Path(c.paths[0]).name if c.paths else (c.sample or "the corpus in the window")
        return c.text, name

    def check_merges(self, result_path: str, corpus_path: str | None, options: CheckOptions,
                     on_done: Done, on_end: Ended) -> bool:
        """Check the learner's merges in ``result_path`` against the reference trained on
        ``corpus_path`` (None: the corpus in the window); result: a MergeCheck."""
        source: str | list[Path] | None
        if corpus_path is None:
            source, name = self.window_corpus()
            if source is None:
                return refused(on_end, name)
        else:
            source, name = [Path(corpus_path)], Path(corpus_path).name
        if not result_path:
            return refused(on_end, "Pick your result first: vocab.json + merges.txt, a "
                            "tokenizer.json, a .tiktoken or a pickle of (vocab, merges).")

        def job(progress, cancelled):
            result = read_result(result_path, options.special_tokens)
            report = check_merges(result, source, progress=progress, cancel=cancelled,
                                  **options.kwargs())
            return MergeCheck(result, report, name)
        label = f"Checking {Path(result_path).name} against {name}"
        return self._host.start(Job(label, job, on_done, on_end, abandon=True,
                                    title="Cannot check these merges"))

    def check_ids(self, result_path: str, text: str, ids_text: str, options: CheckOptions,
                  on_done: Done, on_end: Ended) -> bool:
        """Check an encoder's ids (``ids_text``: numbers, or a JSON list) for ``text``
        against the tokenizer of the result at ``result_path`` (read again: the file may
        have changed since the last check); result: an EncodeReport."""
        if not result_path:
            return refused(on_end, "Pick your result first: its merges are the tokenizer.")
        if not text:
            return refused(on_end, "Paste the text your encoder encoded.")
        try:
            ids = read_ids(ids_text)
        except BPEError as e:
            return refused(on_end, str(e))
        if not ids:
            return refused(on_end, "Paste the ids your encoder produced for the text.")

        def job(progress, cancelled) -> EncodeReport:
            learner = read_result(result_path, options.special_tokens)
            return check_ids(learner, text, ids, pattern=options.pattern,
                             special_tokens=options.special_tokens)
        return self._host.start(Job("Checking your encoder's ids", job, on_done, on_end,
                                    abandon=True, title="Cannot check these ids"))
