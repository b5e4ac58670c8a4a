"""Tokenizer files for the controller: export the trained tokenizer, import one (at
once, or on the worker thread for a big file) and choose which the views use.

:class:`TokenizerFiles` is a part of the controller, given what it uses of it
(:class:`TokenizerFilesHost`) and how to report an error.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol

from PySide6.QtCore import SignalInstance

from ...engine.errors import BPEError
from ...engine.formats import describe_source, export_tokenizer, load_tokenizer
from ...engine.tokenizers import BaseTokenizer
from ...engine.train import RunCommon
from ..models.vocab_model import prepare_imported
from .jobs import Job, JobEnd


def imported_what(tok: BaseTokenizer) -> str:
    """' (GGUF (llama.cpp): gpt2 BPE, pre-tokenizer 'qwen2')', ' (tiktoken ranks
    (.tiktoken) — cl100k_base (GPT-4, GPT-3.5))': the format it was read from, else ''."""
    label = describe_source(tok)
    return f" ({label})" if label else ""


class TrainerJobEnds(Protocol):
    """The training part, told the end of a job that may have left the trainer."""

    def trainer_job_ended(self, end: JobEnd) -> None: ...


class TokenizerFilesHost(Protocol):
    """What :class:`TokenizerFiles` uses of the controller it serves."""

    trainer: RunCommon | None
    imported: BaseTokenizer | None        # these four are set here
    imported_path: str | None
    imported_pattern: str | None
    use_imported: bool
    message: SignalInstance
    tokenizerChanged: SignalInstance
    importFinished: SignalInstance

    @property
    def busy(self) -> bool: ...
    def start(self, job: Job) -> bool: ...
    @property
    def training(self) -> TrainerJobEnds: ...


class TokenizerFiles:
    """Import and export of the controller (see the module docstring)."""

    def __init__(self, host: TokenizerFilesHost, fail: Callable[[str, object], None]):
        self.c, self._fail = host, fail
        self.last_export_error = ""   # the message of the last quiet export that failed
        # why the views left the imported tokenizer without the user choosing it ("" when
        # the user's own choice is on show): the encode view keeps it in sight
        self.switch_note = ""

    def export(self, fmt: str, folder: str, name: str = "tokenizer",
               quiet: bool = False) -> list[Path] | None:
        """Write one format; on failure report it (or, ``quiet``, only keep the message
        in ``last_export_error`` for a caller that reports several formats at once)."""
        c = self.c
        fail = self._export_failed if quiet else self._fail
        if c.trainer is None or c.busy:
            fail("Export", "Nothing to export yet: train first (Step or Run).")
            return None
        try:
            files = export_tokenizer(c.trainer.tokenizer(), folder, fmt, name=name)
        except BPEError as e:
            fail("Export failed", e)
            return None
        c.message.emit(f"Exported {', '.join(p.name for p in files)} to {folder}.")
        return files

    def export_in_background(self, fmts: list[str], folder: str, name: str,
                             on_done: Callable[[list[tuple[str, list[Path] | None, str]]], None],
                             on_end: Callable[[bool], None]) -> bool:
        """Write each format on the worker thread, with progress (a big vocabulary froze
        the window while it was written): ``on_done`` gets (format, files or None, why
        not) for each format tried, ``on_end(finished)`` comes in every case (cancelled:
        the formats written so far stay, each file whole: the engine writes a temporary
        file and renames it). False if nothing to export or another job runs."""
        c = self.c
        if c.trainer is None or c.busy:
            self._fail("Export", "Nothing to export yet: train first (Step or Run).")
            return False
        tok = c.trainer.tokenizer()   # as of this step, before the worker starts
        out: list[tuple[str, list[Path] | None, str]] = []   # read once the job ended

        def job(progress, cancelled):
            for k, fmt in enumerate(fmts):
                if cancelled():
                    break
                progress(k, len(fmts))
                try:
                    out.append((fmt, export_tokenizer(tok, folder, fmt, name=name), ""))
                except BPEError as e:   # the others are still written
                    out.append((fmt, None, str(e)))
            progress(len(fmts), len(fmts))
            return out

        def done(results) -> None:
            files = [p.name for _fmt, got, _why in results if got for p in got]
            if files:
                c.message.emit(f"Exported {', '.join(files)} to {folder}.")
            on_done(results)

        def ended(end: JobEnd) -> None:
            if not end.done and out:   # cancelled: still say what was written
                done(list(out))
            on_end(end.done)

        return c.start(Job(f"Exporting {len(tok.vocab):,} tokens", job, done, ended))

    def _export_failed(self, _title: str, e: object) -> None:
        self.last_export_error = str(e)

    def import_tokenizer(self, path: str, pattern: str | None = None) -> BaseTokenizer | None:
        """Load a tokenizer file on this thread (small files; see import_in_background).
        ``pattern``: the one a bare .tiktoken runs with (None: as it is recognised)."""
        try:
            tok = load_tokenizer(path, **_with_pattern(pattern))
        except BPEError as e:
            self._fail("Import failed", e)
            return None
        self._imported(tok, str(path), pattern)
        return tok

    def import_in_background(self, path: str, pattern: str | None = None) -> bool:
        """Load a (big) tokenizer file on the worker thread, with progress; the result
        arrives through importFinished (None if it failed or was cancelled). False if
        another job is running."""
        c = self.c

        def job(progress, cancelled):
            progress(0, 1000)
            tok = load_tokenizer(path, **_with_pattern(pattern))
            progress(100, 1000)
            len(tok.merges)        # a tiktoken file's merges are derived here, not later
            progress(250, 1000)
            # the vocabulary browser's rows, search texts and order, off the GUI thread
            prepare_imported(tok, lambda share: progress(250 + int(750 * share), 1000))
            return tok

        def done(tok: BaseTokenizer) -> None:
            self._imported(tok, str(path), pattern)
            c.importFinished.emit(tok)

        def ended(end: JobEnd) -> None:
            c.training.trainer_job_ended(end)
            if not end.done:
                c.importFinished.emit(None)
        return c.start(Job(f"Loading {Path(path).name}", job, done, ended))

    def _imported(self, tok: BaseTokenizer, path: str, pattern: str | None = None) -> None:
        c = self.c
        c.imported, c.imported_path, c.imported_pattern = tok, path, pattern
        if c.use_imported:   # another imported tokenizer was in use: views must switch
            c.tokenizerChanged.emit()
        self.set_use_imported(True)
        c.message.emit(f"Imported {Path(path).name}{imported_what(tok)}: "
                       f"{len(tok.vocab):,} tokens, {len(tok.merges):,} merges.")

    def set_use_imported(self, on: bool, note: str = "") -> None:
        """The user's choice (``note`` empty), or a switch the user did not make: then
        ``note`` says why, and stays in ``switch_note`` until the user chooses again."""
        c = self.c
        on = bool(on and c.imported is not None)
        new_note = note if (c.use_imported or self.switch_note) and not on else ""
        changed = on != c.use_imported or new_note != self.switch_note
        self.switch_note = new_note
        if changed:
            c.use_imported = on
            c.tokenizerChanged.emit()

    def drop_note(self, note: str) -> None:
        """``note`` (a switch's reason) holds no more, the mode that made it left."""
        if self.switch_note == note:
            self.switch_note = ""
            self.c.tokenizerChanged.emit()

    def give_way_to_trained(self, why: str) -> bool:
        """Show the trained tokenizer instead of an imported one on show, keeping ``why``
        in sight; False (nothing changed) if the trained one was on show already."""
        if not self.c.use_imported:
            return False
        self.set_use_imported(False, note=why)
        return True


def _with_pattern(pattern: str | None) -> dict:
    return {} if pattern is None else {"pattern": pattern}
