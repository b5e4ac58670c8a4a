"""``python -m bpe_gui``: the ``bpe-gui`` command (the window without arguments)."""
import sys

from .cli import main   # (or its out-of-memory stand-in: see cli/__init__.py)

sys.exit(main())
