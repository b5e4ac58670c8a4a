"""The ``bpe-gui`` command run inside the test process, as a child process would run it.

Starting ``python -m bpe_gui.cli`` costs about a second of imports per run, and the CLI
tests run it hundreds of times. :func:`run_in_process` calls the command's ``main`` with
the child's view of the world instead: the arguments, the working folder, the environment
variables, standard streams over byte buffers with the encodings and error handlers the
child would get (asked once of a real child: :func:`child_stdio`), the warning filters a
fresh interpreter has; it returns what the process would: the exit status, and the bytes
on standard output and error. Everything it changes is put back afterwards.

What only a real process can show (signals, the interpreter's start-up settings, its
exit, memory limits, a terminal) stays a subprocess: ``run(..., process=True)`` in
test_cli.py, and :func:`needs_process` for the environments that act at start-up.
"""
from __future__ import annotations

import functools
import gc
import io
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import traceback
import warnings
from pathlib import Path
from typing import Mapping, Sequence

from bpe_gui.cli.entry import COMMANDS

# read when the interpreter starts or when a module is imported (PYTHONIOENCODING, the
# locale, BPE_GUI_PURE, BPE_GUI_PATTERN_TIMEOUT, ...): a run that sets one needs a process
START_ONLY_PREFIXES = ("PYTHON", "LC_", "LANG", "BPE_GUI_")
# the commands that run headless (any other first argument may open the window)
HEADLESS = tuple(c for c in COMMANDS if c != "gui")

# a fresh interpreter's warning filters (no -W, no PYTHONWARNINGS; release build)
DEFAULT_FILTERS = (("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
                   ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                   ("ignore", ResourceWarning, ""))

PROBE = ("import json, sys, warnings\n"
         "print(json.dumps({'streams': [[s.encoding, s.errors, s.write_through]\n"
         "                              for s in (sys.stdin, sys.stdout, sys.stderr)],\n"
         "                  'filters': len(warnings.filters)}))\n")


def needs_process(args: Sequence[str], cwd: Path, env: Mapping[str, str] | None) -> bool:
    """True when only a process runs it as a process does: the window (no command, gui, or
    files: entry.py), or an environment variable read when the interpreter starts or a
    module imports."""
    if not args or args[0] == "gui" or args[0] not in HEADLESS and (cwd / args[0]).exists():
        return True
    return any(k.startswith(START_ONLY_PREFIXES) and k != "PYTHONPATH" for k in env or {})


@functools.cache
def child_stdio(repo: str) -> tuple[tuple[str, str, bool], ...] | None:
    """The (encoding, errors, write_through) of a child's stdin, stdout and stderr when
    they are pipes, as this environment gives them; None when the child's start-up is not
    a plain one (e.g. PYTHONWARNINGS set), and every run then takes a process."""
    env = dict(os.environ, PYTHONPATH=repo)
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, env=env,
                       stdin=subprocess.PIPE, timeout=60, check=True)
    got = json.loads(p.stdout)
    if got["filters"] != len(DEFAULT_FILTERS):
        return None
    return tuple(tuple(s) for s in got["streams"])


class _Sink(io.BytesIO):
    """A byte buffer that keeps its bytes when closed (a stream closed by the command)."""

    def close(self) -> None:
        pass


def _text(buffer: io.BytesIO, setting: tuple[str, str, bool]) -> io.TextIOWrapper:
    encoding, errors, write_through = setting
    return io.TextIOWrapper(buffer, encoding=encoding, errors=errors, newline="\n",
                            write_through=write_through)


def _exit_status(code: object, stderr) -> int:
    """The exit status of a process ending with ``sys.exit(code)`` (what ``bpe_gui.cli``'s
    ``command`` does with main's result: process_end.py)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=stderr)
    return 1


def _signal_handlers() -> dict[int, object]:
    handlers = {}
    for s in signal.valid_signals():
        try:
            handlers[s] = signal.getsignal(s)
        except (OSError, ValueError):
            pass
    return handlers


def run_in_process(args: Sequence[str], cwd: Path, stdin: bytes | None,
                   env: Mapping[str, str] | None, repo: Path,
                   stdio: tuple[tuple[str, str, bool], ...]) -> subprocess.CompletedProcess:
    """``python -m bpe_gui.cli ARGS`` in ``cwd`` with ``env`` added to this environment,
    ``stdin`` on standard input (none: empty), in this process (see the module's text)."""
    from bpe_gui.cli import main
    from bpe_gui.cli.common import QUIET

    out_bytes, err_bytes = _Sink(), _Sink()
    streams = (_text(io.BytesIO(stdin or b""), stdio[0]), _text(out_bytes, stdio[1]),
               _text(err_bytes, stdio[2]))
    saved_streams = (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__,
                     sys.__stderr__)
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_handlers, saved_limit = _signal_handlers(), sys.getrecursionlimit()
    root = logging.getLogger()
    saved_logging = (root.level, list(root.handlers), logging.root.manager.disable)
    saved_quiet, gc_on = dict(QUIET), gc.isenabled()
    threads = set(threading.enumerate())
    os.environ["PYTHONPATH"] = str(repo)
    os.environ.update(env or {})
    try:
        os.chdir(cwd)
        # (the originals too: e.g. argparse's help is as wide as sys.__stdout__'s terminal)
        sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__ = \
            streams
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in reversed(DEFAULT_FILTERS):
                warnings.filterwarnings(action, category=category, module=module)
            try:
                code = _exit_status(main(list(args)), sys.stderr)
            except SystemExit as e:
                code = _exit_status(e.code, sys.stderr)
            except BaseException as e:   # noqa: BLE001 - what Python prints, and its status
                traceback.print_exception(type(e), e, e.__traceback__.tb_next)
                # (Python ends by the signal itself after a KeyboardInterrupt)
                code = -signal.SIGINT if isinstance(e, KeyboardInterrupt) else 1
            for t in set(threading.enumerate()) - threads:   # (as the interpreter's exit)
                if not t.daemon:
                    t.join()
        for s in streams[1:]:
            s.flush()
    finally:
        (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__,
         sys.__stderr__) = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for s, handler in saved_handlers.items():
            if handler is not None and signal.getsignal(s) != handler:
                signal.signal(s, handler)
        sys.setrecursionlimit(saved_limit)
        root.setLevel(saved_logging[0])
        root.handlers[:] = saved_logging[1]
        logging.disable(saved_logging[2])
        QUIET.clear()
        QUIET.update(saved_quiet)
        (gc.enable if gc_on else gc.disable)()
    return subprocess.CompletedProcess([sys.executable, "-m", "bpe_gui.cli", *args], code,
                                       out_bytes.getvalue(), err_bytes.getvalue())
