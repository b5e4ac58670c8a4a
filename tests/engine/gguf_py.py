"""llama.cpp's own gguf-py as a test oracle, read faster: its GGUFReader, parsing
untouched, over the file's bytes in memory instead of a numpy.memmap. The reader takes a
numpy view for each part of each string (about 500,000 for a vocab GGUF); a memmap's view
costs about 3 times a plain array's, and the fields come out the same, part for part."""
from __future__ import annotations

from pathlib import Path

import pytest


def gguf_reader(path: Path):
    """gguf.GGUFReader(path) (skipped without gguf-py), its bytes a plain ndarray."""
    import numpy as np
    gguf = pytest.importorskip("gguf")

    class InMemory(gguf.GGUFReader):
        @property
        def data(self):
            return self._bytes

        @data.setter
        def data(self, mapped):
            self._bytes = np.array(mapped)   # a copy, a plain ndarray

    return InMemory(str(path))
