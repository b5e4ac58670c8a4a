"""``python -m bpe_gui``: the ``bpe-gui`` command (the window without arguments)."""
import sys

from .cli.entry import main

sys.exit(main())
