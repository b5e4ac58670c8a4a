"""Files replaced as a set, all or none (an export's vocab.json + merges.txt + ...).

Renaming each file into place is atomic per file only: a failure (or a signal) after the
second of seven renames would leave two new files beside five old ones, a tokenizer no
run ever made. So :func:`replace_set`

1. writes every new file to a hidden temporary file in the target folder (``.NAME.XXXX.part``,
   flushed and fsynced), and nothing else yet;
2. takes an exclusive lock on the folder (``flock`` on the folder itself, so no lock file
   is left behind), so two runs writing one folder swap their sets one after the other;
3. keeps a hard link to each file it replaces (``.NAME.XXXX.old``: the old file stays in
   place meanwhile), renames the new files into place, and on any failure, an exception or
   a signal turned into one (the command line raises on SIGTERM and SIGINT), puts the
   old files back and removes the new ones: the folder holds the old set or the new set.

Temporary files are removed in every case that reaches Python (a ``kill -9`` cannot be
cleaned up after: names starting with a dot and ending ``.part``/``.old`` are ours).
While the swap and the removal of temporaries run in the main thread SIGINT and SIGTERM
are held back (they arrive after it), so neither is interrupted half-way; so is the moment
between creating a temporary file and noting it for removal. Every atomic writer of the
package goes through this module (:func:`temp_beside` for a single streamed file).
"""
from __future__ import annotations

import os
import shutil
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from ..errors import ExportError

try:
    import fcntl
except ImportError:   # Windows: no folder lock (one run per folder at a time there)
    fcntl = None  # type: ignore[assignment]

_HELD = {signal.SIGINT, getattr(signal, "SIGTERM", signal.SIGINT)}


def make_folder(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; returns the ones this call created.
    A folder another process creates at the same moment is fine (it exists: use it)."""
    missing = [p for p in [folder, *folder.parents] if not p.exists()]
    created: list[Path] = []
    try:
        for p in reversed(missing):
            try:
                p.mkdir()
                created.append(p)
            except FileExistsError:
                if not p.is_dir():
                    raise
    except OSError:
        remove_folders(created)
        raise
    return created


def remove_folders(created: list[Path]) -> None:
    for p in reversed(created):
        try:
            p.rmdir()
        except OSError:
            pass


def create_temp(folder: Path, fname: str, suffix: str = ".part") -> tuple[int, str]:
    """A new hidden file beside the target. Unlike mkstemp (mode 0600) it gets the
    usual permissions (0666 less the umask), which the rename then carries over."""
    for _ in range(100):
        tmp = str(folder / f".{fname}.{os.urandom(4).hex()}{suffix}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                           0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a temporary file in {folder}")


def _unlink(path: str | Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends (main thread, POSIX only): a signal
    is then delivered as usual, once the files are all in place or all back."""
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` among the processes that take it (this module)."""
    if fcntl is None:
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:   # a filesystem without locks: swap unlocked
            pass
        yield
    finally:
        os.close(fd)   # closing releases the lock


def _keep_old(dest: Path) -> str | None:
    """A hard link to the file at ``dest`` (None if there is none), to put it back."""
    if not dest.exists():
        return None
    for _ in range(100):
        old = str(dest.parent / f".{dest.name}.{os.urandom(4).hex()}.old")
        try:
            os.link(dest, old)
            return old
        except FileExistsError:
            continue
        except OSError:   # no hard links on this filesystem: a copy does
            shutil.copy2(dest, old)
            return old
    raise FileExistsError(f"cannot keep the old {dest}")


def swap_in(temps: list[tuple[str, Path]], remove: Sequence[Path] = ()) -> list[Path]:
    """Rename each temporary file onto its target, all or none (see the module docstring),
    then remove the files ``remove`` (an earlier set's that this one replaces). On failure
    the targets are as they were, nothing is removed and the temporary files are gone."""
    folder = temps[0][1].parent if temps else None
    if folder is None:
        return []
    olds: list[tuple[Path, str | None]] = []   # (target, its old file's link) per rename done
    kept: list[str] = []
    # the cleanup is held too: a signal that waited for the renames is delivered only
    # once every kept link and temporary file is gone
    with signals_held():
        try:
            with folder_lock(folder):
                try:
                    for tmp, dest in temps:
                        old = _keep_old(dest)
                        if old is not None:
                            kept.append(old)
                        os.replace(tmp, dest)
                        olds.append((dest, old))
                except BaseException:
                    _put_back(olds, kept)
                    raise
                for gone in remove:
                    _unlink(gone)
        finally:
            for old in kept:
                _unlink(old)
            for tmp, _ in temps:
                _unlink(tmp)   # gone already if renamed
    return [dest for _, dest in temps]


def _put_back(olds: list[tuple[Path, str | None]], kept: list[str]) -> None:
    """Undo the renames done: old files back, new ones gone."""
    for dest, old in reversed(olds):
        try:
            if old is None:
                os.unlink(dest)
            else:
                os.replace(old, dest)
                kept.remove(old)
        except OSError:   # cannot put it back: leave the old file's copy be
            if old in kept:
                kept.remove(old)


@contextmanager
def temp_beside(dest: Path, suffix: str = ".part") -> Iterator[str]:
    """A new hidden temporary file beside ``dest`` (closed, empty) for the block to fill
    and rename into place. If the block fails in any way (an exception, Ctrl-C, SIGTERM
    turned into an exception by the command line) the file is removed: its creation and
    its removal run with signals held, so no signal falls between them and the cleanup."""
    tmp = None
    try:
        with signals_held():   # a signal held here arrives once ``tmp`` is set
            fd, tmp = create_temp(dest.parent, dest.name, suffix)
            os.close(fd)
        yield tmp
    except BaseException:
        if tmp is not None:
            with signals_held():
                _unlink(tmp)
        raise


def replace_set(folder: Path, files: dict[str, bytes], remove: Sequence[Path] = ()) -> list[Path]:
    """Write ``files`` ({name: content}) into ``folder`` (existing) as one set, and remove
    the files ``remove`` once it is in place (:func:`swap_in`)."""
    temps: list[tuple[str, Path]] = []
    try:
        for fname, data in files.items():
            with signals_held():   # no signal between creating it and noting it
                fd, tmp = create_temp(folder, fname)
                temps.append((tmp, folder / fname))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
    except BaseException:
        with signals_held():
            for tmp, _ in temps:
                _unlink(tmp)
        raise
    return swap_in(temps, remove)


# ----- the writers the rest of the engine uses -------------------------------------------
def check_name(name: str) -> str:
    if not name or name.strip() != name or any(c in name for c in '/\\:*?"<>|\0'):
        raise ExportError(f"The export name {name!r} cannot be used in a file name. Use "
                          "letters, digits, '-', '_' or '.', e.g. 'tokenizer'.")
    return name


def ensure_folder(folder: str | Path) -> tuple[Path, list[Path]]:
    """Create ``folder`` if needed; returns it and the folders created (for cleanup)."""
    folder = Path(folder).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"Cannot export to {folder}: it is a file, not a folder. Pick a "
                          "folder (or a new folder name) instead.")
    try:
        created = make_folder(folder)
    except OSError as e:
        raise ExportError(f"Cannot create the folder {folder} ({e.strerror or e}). Pick a "
                          "folder you can write to, or create it first.") from e
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ExportError(f"Cannot write to the folder {folder} (permission denied). Pick "
                          "another folder, or make this one writable.")
    return folder, created


def write_files(folder: str | Path, files: dict[str, bytes],
                remove: Sequence[Path] = ()) -> list[Path]:
    """Write all files or none (:func:`replace_set`): the folder ends with either the old
    files or the new ones, never some of each, and no temporary file is left behind.
    ``remove``: files that go once the new ones are in place (not if they are not).

    On failure any folder this call created is removed again.
    """
    folder, created = ensure_folder(folder)
    try:
        return replace_set(folder, files, remove)
    except OSError as e:
        remove_folders(created)
        raise ExportError(f"Cannot write the export to {folder} ({e.strerror or e}). Check "
                          "that the disk is not full and the folder is writable, or pick "
                          "another folder.") from e
    except BaseException:
        remove_folders(created)
        raise


def write_atomic(path: Path, data: bytes) -> Path:
    """Write one file through a temporary file and a rename: never a half-written file."""
    return write_files(path.parent, {path.name: data})[0]
