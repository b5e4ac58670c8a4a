"""``python -m bpe_gui.cli``: the ``bpe-gui`` command."""
from . import command   # (it imports the command, out of memory and Ctrl-C handled: __init__.py)

command()
