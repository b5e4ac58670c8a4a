"""``python -m bpe_gui.cli``: the ``bpe-gui`` command."""
import sys

from .entry import main

sys.exit(main())
