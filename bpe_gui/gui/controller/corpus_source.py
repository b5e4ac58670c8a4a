"""The corpus as one value: text the window holds (:class:`TextCorpus`), files it
streams (:class:`FileCorpus`) or a word-count table (:class:`TableCorpus`). Each knows
its preview text, paths and whether it has unsaved edits, so nobody resets six fields
by hand; :func:`corpus_spec` says how a run reads it (its files, its tables or its
text), :func:`source_of` what it trains on.

Small files are read whole and stay editable in the corpus editor, as typed text is.
Files too big for that (more than ``EDIT_BYTES`` of text in all) are never read whole:
the controller keeps a :class:`FileCorpus` (paths, encoding, size on disk and the
start of the text for a read-only preview), and training streams the files in blocks
(the spec names its files: ``engine.corpus.count_corpus``), so the
app's memory depends on the number of unique words, not on the size of the files.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ...engine.corpus import PretokenTable
from ...engine.display import human_size
from ...engine.errors import Cancelled
from ...engine.corpus import read_documents, read_head
from ...engine.train import PLAIN, SUPERBPE, TRAIN_ON, TrainingSpec, TrainSettings

EDIT_BYTES = 4 << 20   # files holding at most this much text are read whole (editable:
                       # a corpus of 1.1 MB opened read-only, streamed)
PREVIEW_BYTES = 1 << 20   # the start of bigger ones shown read-only (at most)
PROBE_BYTES = 1 << 16  # at least this much of every file is read to check it is text
# what a table's settings errors call it (``Trainer.from_source(..., where=TABLE_NAME)``)
TABLE_NAME = "The word-count table"


@dataclass(frozen=True)
class TextCorpus:
    """Text held in the window (typed, pasted, a sample, or small files read whole, in
    ``encoding``)."""

    text: str = ""
    paths: tuple[str, ...] = ()
    sample: str | None = None
    dirty: bool = False           # edits not saved to a file
    encoding: str = "utf-8"
    table = None
    streamed = False


@dataclass(frozen=True)
class TableCorpus:
    """A word-count table (``bpe-gui count``): words and counts, no text."""

    table: PretokenTable
    paths: tuple[str, ...] = ()
    text = ""
    sample = None
    dirty = False
    streamed = False


@dataclass(frozen=True)
class FileCorpus:
    """A corpus streamed from its files; ``head`` is the start of its text (a preview)."""

    paths: tuple[str, ...]
    encoding: str
    disk_bytes: int
    head: str
    sample = None
    dirty = False
    table = None
    streamed = True

    @property
    def text(self) -> str:
        return self.head

    @property
    def names(self) -> str:
        return corpus_name(self)

    def banner(self) -> str:
        """What the preview shows, and that training reads everything."""
        compressed = any(p.endswith((".xz", ".gz")) for p in self.paths)
        size = human_size(self.disk_bytes) + (" compressed" if compressed else "")
        return (f"<b>Streamed corpus:</b> {self.names}, {size}. Shown: the first "
                f"{len(self.head):,} characters, read-only. Training reads the whole "
                "corpus from disk in blocks and never holds it in memory; counts, charts and "
                "the merge panel cover all of it. To edit, open a smaller file or Clear.")


def corpus_spec(settings: TrainSettings, corpus: "Corpus",
                base: str | None = None) -> TrainingSpec:
    """Training ``corpus``: on from the tokenizer ``base`` names, else from scratch
    (plain BPE, or SuperBPE when the settings give its transition). The spec reads the
    corpus where it is: its files as they are on disk (files opened unedited, small or
    streamed), its tables, or the text in the window (typed, pasted, edited, a sample).

    Example: TextCorpus("ab", paths=("/d/a.txt",)) -> corpus=('/d/a.txt',),
    encoding='utf-8'; TextCorpus("ab", dirty=True) -> text='ab'
    """
    if isinstance(corpus, TableCorpus):
        sources: dict = {"counts": corpus.paths or (TABLE_NAME,)}
    elif corpus.paths and not corpus.dirty:
        sources = {"corpus": corpus.paths, "encoding": corpus.encoding}
    else:
        sources = {"text": corpus.text}
    mode = TRAIN_ON if base else PLAIN if settings.superbpe_from is None else SUPERBPE
    return TrainingSpec(mode, settings=settings, base=base, **sources)


def sample_file(corpus: "Corpus") -> str | None:
    """The file of the built-in sample the corpus is, unedited (its text is the file's),
    else None: what a command names for it."""
    if not corpus.sample or corpus.dirty:
        return None
    from ..resources import resources
    res = resources()
    try:
        path = Path(str(res.__file__)).parent / "samples" / res.sample(corpus.sample).file
        same = path.read_text(encoding="utf-8") == corpus.text
    except (KeyError, OSError, TypeError, UnicodeError):
        return None
    return str(path) if same else None


def corpus_name(corpus: TextCorpus | TableCorpus | FileCorpus) -> str:
    """What a message calls the window's corpus: its files' names, else its sample's.

    Example: paths ('/d/en.txt',) -> 'en.txt'; five paths -> 'a.txt, b.txt, c.txt and
    2 more'; no path, sample 'shakespeare' -> 'the shakespeare sample'; neither -> 'the
    text typed in the window'.
    """
    if corpus.paths:
        names = ", ".join(Path(p).name for p in corpus.paths[:3])
        more = len(corpus.paths) - 3
        return names + (f" and {more} more" if more > 0 else "")
    if corpus.sample:
        return f"the {corpus.sample} sample"
    return "the text typed in the window"


def not_a_file(paths: Sequence[str]) -> str | None:
    """Why one of ``paths`` cannot be a corpus file, without opening it (None: each is
    a regular file, or missing, which reading reports with its fix).

    ``open()`` of a FIFO waits for a writer and a device may never end, and either
    froze the window; ``stat`` answers at once. Example: a folder ->
    'notes: a folder, not a file. Open the files inside it (select several at once).'
    """
    for p in paths:
        try:
            mode = os.stat(p).st_mode
        except OSError:
            continue
        name = Path(p).name or str(p)
        if stat.S_ISDIR(mode):
            return (f"{name}: a folder, not a file. Open the files inside it (select "
                    "several at once), or drop them on the window.")
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            return (f"{name}: a pipe, not a file, so it cannot be read as a corpus (it "
                    "could wait forever for a writer). Save what it gives to a file and "
                    "open that.")
        if not stat.S_ISREG(mode):
            return (f"{name}: a device, not a file, so it cannot be read as a corpus. "
                    "Copy the text you want into a file and open that.")
    return None


def disk_size(paths: Sequence[str]) -> int:
    total = 0
    for p in paths:
        try:
            total += Path(p).stat().st_size
        except OSError:
            pass   # read_head reports the missing file with a fix
    return total


def probe_files(paths: Sequence[str], encoding: str = "utf-8",
                cancelled: Callable[[], bool] = lambda: False) -> str | FileCorpus:
    """Read small files whole (their text), or only the start of big ones (a
    FileCorpus). Raises the engine's errors (missing, binary, not UTF-8) as reading
    would, for the first problem met in the files' first MiB."""
    heads, whole, used = [], True, 0
    for p in paths:
        if cancelled():
            raise Cancelled()
        # the rest of the room for whole files; at least 64 KB to check it is text
        text, complete = read_head(p, max(EDIT_BYTES - used, PROBE_BYTES), encoding)
        if whole:   # the preview goes on into the next file only after a whole one
            heads.append(text)
        used += len(text.encode("utf-8"))
        whole = whole and complete and used <= EDIT_BYTES
    if whole:   # small: the documents as the editor has always joined them
        return "\n".join(d for p in paths for d in read_documents(p, encoding=encoding))
    # too big to edit: the preview is the start of it (a character cut at the end of
    # the bytes is left out)
    cut = min(PREVIEW_BYTES, EDIT_BYTES)
    preview = "\n".join(heads).encode("utf-8")[:cut].decode("utf-8", "ignore")
    return FileCorpus(tuple(str(p) for p in paths), encoding, disk_size(paths), preview)


Corpus = TextCorpus | FileCorpus | TableCorpus


@dataclass(frozen=True)
class NotUtf8:
    """A corpus file is not UTF-8 (found while reading it): the window offers to read
    the files again with another encoding."""

    paths: list[str]
    bad: str            # the file
    offset: int | None  # its first bad byte
    message: str
    cut: bool = False   # UTF-8 cut inside its last character: no encoding would read it

    @classmethod
    def of(cls, e, paths: Sequence[str]) -> "NotUtf8":
        return cls(list(paths), e.path or paths[0], e.offset, str(e), bool(getattr(e, "cut",
                                                                                  False)))


def same_source(a: Corpus, b: Corpus) -> bool:
    """Whether two corpus values train alike: the same text, the same files (read with
    the same encoding) or the same table. Unsaved edits saved to a file change nothing.

    Example: same_source(TextCorpus("ab", dirty=True), TextCorpus("ab")) -> True
    """
    sa, sb = source_of(a), source_of(b)
    if sa is sb:
        return True
    if isinstance(sa, PretokenTable) or isinstance(sb, PretokenTable):
        return False   # (a table is itself: no two are compared word by word)
    return type(sa) is type(sb) and sa == sb


def source_of(corpus: Corpus) -> object:
    """What ``corpus`` trains on: its table, its files (the corpus itself) or its text."""
    return corpus.table if corpus.table is not None else corpus if corpus.streamed else \
        corpus.text
