"""The ``bpe-gui`` command: no arguments opens the window; ``train``, ``encode``, ``count``,
``inspect`` and ``cost`` run headless (one module each; ``entry.py`` puts them together).

Examples::

    bpe-gui                                   # the window
    bpe-gui book.txt                          # the window, with book.txt loaded
    bpe-gui train book.txt --vocab-size 5000 --out tok/ --special-token '<|endoftext|>'
    bpe-gui encode --tokenizer tok/ "Hello world"
    bpe-gui count book.txt --out book.counts.tsv [--dask local:4]
    bpe-gui train --counts book.counts.tsv --vocab-size 5000 --out tok/
    echo "Hello" | bpe-gui encode --tokenizer tok/tokenizer.json --ids-only
    python -m bpe_gui train ...               # the same without the installed script

User errors (a missing file, an empty corpus, a bad pattern, a folder that cannot be
written, a malformed tokenizer file, an output that is one of the inputs) print one line,
``bpe-gui: error: ...``, and exit with status 2. The headless commands never import Qt.
"""
from __future__ import annotations

import sys
from typing import NoReturn, Sequence

from .oom import PROG, out_of_memory_exit

__all__ = ["command", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """The command (``entry.main``), its modules imported here, inside the handlers: running
    out of memory or Ctrl-C while they import ends it as it would during the command."""
    try:
        from .entry import main as run
    except MemoryError:   # importing the engine (it builds Unicode tables) ran out of memory
        return out_of_memory_exit(None if argv is None else list(argv))
    except KeyboardInterrupt:   # Ctrl-C at start-up, while the modules import
        print(f"\n{PROG}: interrupted", file=sys.stderr, flush=True)
        return 130
    return run(argv)


def command() -> NoReturn:
    """The installed ``bpe-gui`` script and ``python -m bpe_gui``: :func:`main` on the
    process's arguments, and the process ends (``process_end``)."""
    rc = main()
    from .process_end import end_process
    end_process(rc)
