"""Before the window opens on Linux: can Qt's X11 platform plugin (xcb) load at all?

On a fresh desktop without ``libxcb-cursor0`` (and a few other small X11 libraries)
Qt aborts in ``QApplication()`` with "Could not load the Qt platform plugin xcb" and a
page of hints. This looks first: ``ldd`` on the plugin lists every shared library it
needs that the system cannot find (dlopen through ctypes, which names only the first,
when ``ldd`` is not there), and ``bpe-gui`` prints one line naming the packages to
install instead. Only QtCore is imported here (it needs no platform plugin).
"""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Sequence

# the libraries PySide6's xcb plugin needs that a minimal desktop may lack, and the
# Debian/Ubuntu packages that hold them (Qt's "X11 requirements" page lists the same)
PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
}
NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.M)
DLOPEN_MISSING = re.compile(r"^(\S+?\.so[.\d]*): cannot open shared object file")


def xcb_plugin() -> Path | None:
    from PySide6.QtCore import QLibraryInfo
    plugins = QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)
    path = Path(plugins) / "platforms" / "libqxcb.so"
    return path if path.exists() else None


def uses_xcb(argv: Sequence[str], env=os.environ) -> bool:
    """True when Qt would pick the xcb platform plugin for this start."""
    if not sys.platform.startswith("linux") or "-platform" in argv:
        return False
    chosen = env.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(":")[0].split(";")[0] == "xcb"
    # unset: xcb when there is an X display and no Wayland session Qt would prefer
    return bool(env.get("DISPLAY")) and not env.get("WAYLAND_DISPLAY")


def missing_libraries(plugin: Path) -> list[str]:
    """The shared libraries ``plugin`` needs that cannot be found (sonames)."""
    try:
        out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        out = None
    if out is not None:
        return list(dict.fromkeys(NOT_FOUND.findall(out)))
    try:
        ctypes.CDLL(str(plugin))
    except OSError as e:
        m = DLOPEN_MISSING.match(str(e))
        return [m.group(1)] if m else [str(e)]
    return []


def xcb_problem(argv: Sequence[str] = (), env=os.environ) -> str | None:
    """One line saying which packages to install, or None if the window can start."""
    if not uses_xcb(argv, env):
        return None
    plugin = xcb_plugin()
    if plugin is None:
        return None
    missing = missing_libraries(plugin)
    if not missing:
        return None
    packages = list(dict.fromkeys(PACKAGES.get(so, so) for so in missing))
    return ("bpe-gui: cannot open the window: Qt's X11 (xcb) platform plugin needs "
            f"{', '.join(missing)}, not installed. Install them (Debian/Ubuntu): "
            f"sudo apt install {' '.join(packages)}")
