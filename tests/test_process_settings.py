"""Importing the GUI changes nothing process-wide; only the application's main() does
(gui/app.py: apply_process_settings says what and why)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import gc, sys
    before = (sys.getswitchinterval(), gc.isenabled(), gc.get_freeze_count())
    import bpe_gui.gui, bpe_gui.gui.app, bpe_gui.gui.controller.gc_policy, bpe_gui.gui.window.main_window
    assert (sys.getswitchinterval(), gc.isenabled(), gc.get_freeze_count()) == before
    assert not bpe_gui.gui.controller.gc_policy.GCPause.freeze_after_jobs
    bpe_gui.gui.app.apply_process_settings()
    assert sys.getswitchinterval() == bpe_gui.gui.app.GIL_SWITCH_INTERVAL_S
    assert bpe_gui.gui.controller.gc_policy.GCPause.freeze_after_jobs
    print("ok")
''')


def test_importing_the_gui_changes_no_process_setting():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
