"""``python -m bpe_gui``: the ``bpe-gui`` command (the window without arguments)."""
import sys

from .cli import main   # (it imports the command, out of memory and Ctrl-C handled: cli/__init__.py)

sys.exit(main())
