"""``python -m bpe_gui.cli``: the ``bpe-gui`` command."""
import sys

from . import main   # (it imports the command, out of memory and Ctrl-C handled: __init__.py)

sys.exit(main())
