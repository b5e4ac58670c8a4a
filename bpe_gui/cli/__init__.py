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
from .oom import out_of_memory_exit

try:
    from .entry import main
except MemoryError:   # importing the engine (it builds Unicode tables) ran out of memory
    main = out_of_memory_exit

__all__ = ["main"]
