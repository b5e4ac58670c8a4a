"""First start on a Linux desktop without the X11 libraries Qt's xcb plugin needs: one
line naming the packages, exit code 2, instead of Qt's abort (issue 21 item 7)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_gui.gui import platform_check

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
LDD_OUT = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f92)
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-cursor.so.0 => not found
"""


def test_ldd_output_names_each_missing_library_once(monkeypatch):
    class Done:
        stdout = LDD_OUT
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: Done())
    assert platform_check.missing_libraries(Path("libqxcb.so")) == [
        "libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"]


def test_without_ldd_dlopen_names_the_first_missing(monkeypatch):
    def no_ldd(*a, **k):
        raise FileNotFoundError("ldd")

    def dlopen(path):
        raise OSError("libxcb-cursor.so.0: cannot open shared object file: No such file "
                      "or directory")
    monkeypatch.setattr(subprocess, "run", no_ldd)
    monkeypatch.setattr(platform_check.ctypes, "CDLL", dlopen)
    assert platform_check.missing_libraries(Path("libqxcb.so")) == ["libxcb-cursor.so.0"]


def test_the_plugin_here_loads():
    plugin = platform_check.xcb_plugin()
    assert plugin is not None and platform_check.missing_libraries(plugin) == []


@pytest.mark.parametrize("env, argv, xcb", [
    ({"DISPLAY": ":0"}, [], True),
    ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, [], False),
    ({"QT_QPA_PLATFORM": "xcb"}, [], True),
    ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, [], False),
    ({}, [], False),
    ({"DISPLAY": ":0"}, ["-platform", "offscreen"], False),
])
def test_only_an_xcb_start_is_checked(env, argv, xcb):
    assert platform_check.uses_xcb(argv, env) is xcb


def test_main_says_which_packages_and_exits_2(monkeypatch, capsys):
    from bpe_gui.gui import app
    monkeypatch.setattr(platform_check, "missing_libraries",
                        lambda plugin: ["libxcb-cursor.so.0", "libxcb-icccm.so.4"])
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert app.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4" in err


def test_the_command_prints_one_line_and_exits_2():
    code = ("import sys; from bpe_gui.gui import platform_check as p; "
            "p.missing_libraries = lambda plugin: ['libxcb-cursor.so.0', "
            "'libxcb-keysyms.so.1']; from bpe_gui.cli import main; sys.exit(main([]))")
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env["DISPLAY"] = ":4242"   # no X server there: Qt would abort if it got that far
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "libxcb-cursor0 libxcb-keysyms1" in lines[0]
    assert "Traceback" not in r.stderr and r.stdout == ""
