"""``python -m bpe_gui``: the ``bpe-gui`` command (the window without arguments)."""
from .cli import command   # (it imports the command, out of memory and Ctrl-C handled: cli/__init__.py)

command()
