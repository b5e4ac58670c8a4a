"""``python -m bpe_gui.cli``: the ``bpe-gui`` command."""
import sys

from . import main   # (or its out-of-memory stand-in: see __init__.py)

sys.exit(main())
