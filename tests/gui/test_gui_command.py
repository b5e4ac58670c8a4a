"""``python -m bpe_gui gui`` opens the window as ``bpe-gui`` does (issue 67): the command's
own name was taken for a file to open ("gui: file not found")."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def launch(tmp_path: Path, *args: str) -> list[str]:
    """The lines a window opened by ``python -m bpe_gui ARGS`` prints once it has loaded
    what it opens with (BPE_GUI_STARTUP_PROBE=loaded closes it then)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BPE_GUI_STARTUP_PROBE="loaded",
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "bpe_gui", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return [ln for ln in proc.stdout.splitlines() if ln.startswith("loaded: ")]


@pytest.mark.regression
@pytest.mark.skipif(sys.platform == "win32", reason="uses a POSIX environment")
@pytest.mark.parametrize("args", [(), ("gui",)])
def test_gui_command_opens_the_window_with_the_sample(tmp_path, args):
    lines = launch(tmp_path, *args)
    assert len(lines) == 1, lines
    assert "tutorial" in lines[0] and lines[0].endswith("error shown: none"), lines


@pytest.mark.skipif(sys.platform == "win32", reason="uses a POSIX environment")
def test_gui_command_still_opens_the_files_it_is_given(tmp_path):
    (tmp_path / "mine.txt").write_text("hello hello world\n", encoding="utf-8")
    lines = launch(tmp_path, "gui", "mine.txt", "missing.txt")
    assert len(lines) == 1 and "missing.txt: file not found" in lines[0], lines
