"""Tools for developers, run by hand from the checkout (not tests, not installed).

    python -m tools.screenshots [OUT_DIR] [--big]   # the README's screenshots, into screenshots/
    python -m tools.show_panel merge --shot out.png   # one panel alone, on a real controller

Run from the repository's root: `python -m` puts it on the import path, so `bpe_gui`
(built in place) and `tools` import without editing sys.path.
"""
