"""Pure-Python stand-in for the C core (``_core``), used only if the extension is missing
or a test forces it: the same API and results, fit only for small corpora (it recounts
pairs on every call). It exists so the app still runs where no C compiler was available.
The plain core is ``_pyplain``'s, the core with columns (parity training's) ``_pycolumns``'.
"""
from __future__ import annotations

from ._pycolumns import ColumnCore
from ._pyplain import (FIRST_SEEN, GREATEST, GREATEST_HF, LOWEST_HF, LOWEST_IDS, Core,
                       hf_byte_ranks)

__all__ = ["Core", "ColumnCore", "GREATEST", "FIRST_SEEN", "LOWEST_IDS", "LOWEST_HF",
           "GREATEST_HF", "hf_byte_ranks"]
