"""What each command says when it runs out of memory.

Nothing of the engine is imported here: the message must also come out when importing
the engine itself (its Unicode tables) is what ran out of memory (``cli/__init__.py``).
"""
from __future__ import annotations

import sys

PROG = "bpe-gui"     # (common.PROG; common imports the engine)
EXIT_ERROR = 2       # as every other error (common.EXIT_USAGE)


def out_of_memory_message(command: str, piece_kib: int = 64) -> str:
    """The advice for ``command`` (train, count, ...); ``piece_kib``: word_limit's size."""
    if command == "train":
        return ("out of memory while running train. Training keeps every symbol of every "
                "unique word (about 30 bytes per byte of unique words; words over "
                f"{piece_kib} KiB are cut into pieces): train on less text or on a machine "
                "with more memory; nothing was written.")
    if command == "count":
        return ("out of memory while counting. Counting holds one entry per unique word "
                f"(words over {piece_kib} KiB as pieces) and a few blocks of a few MB of "
                "text: free memory or raise the limit (ulimit -v), count on a machine with "
                "more memory, or count parts of the corpus into separate tables (train "
                "--counts sums them) or on Dask workers (--dask); nothing was written.")
    return (f"out of memory while running {command}. Free memory or raise the limit "
            "(ulimit -v), or use a machine with more memory; nothing was written.")


def out_of_memory_exit(argv: list[str] | None = None) -> int:
    """main() when even importing the engine ran out of memory: the message, exit 2."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv else "the window"
    print(f"{PROG}: error: {out_of_memory_message(command)}", file=sys.stderr, flush=True)
    return EXIT_ERROR
