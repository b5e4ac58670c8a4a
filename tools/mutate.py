"""A small mutation tester: flips one operator or constant at a time in a module and runs
the tests that execute that line; a mutant no test fails on "survives".

    python tools/mutate.py bpe_gui/engine/check/causes.py --tests tests/engine/check \
        --out mutants-causes.json

Why not mutmut: it copies the package into mutants/ and re-imports it, which loses the
C extensions built in place, and it runs the whole suite to map tests; this runs a few
test files on 2 shared cores.

How it works:
1. The tests are run once in-process under coverage, one coverage context per test
   (its pytest node id), to learn which tests run each line and how long each takes.
2. Each mutant is one textual edit of one AST node (the operators below). It is written
   into a private copy of the tree (the checkout is never touched), its stale bytecode
   removed, and the tests that cover its line run fastest first with ``-x`` under
   ``nice`` and a timeout. ``--always`` tests run for every mutant after those (tests
   whose work runs in a QThread or subprocess, which coverage does not see).
3. Results: killed (a test failed), timeout (counted as killed: the mutant hangs),
   survived, or uncovered (no test runs the line; not run). Written as JSON, and the
   survivors listed on stdout as ``path:line  original -> mutant``.

Operators: comparison boundaries, reversals and negations (< <= >, > >= <, == !=, in / not in, is /
is not), and / or, ``not x`` -> x, an if/while/ternary condition negated (a swapped
branch), integers n -> n+1 (0 <-> 1), True <-> False, + <-> -, unary minus dropped,
min <-> max.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLIP = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">", ast.Eq: "!=", ast.NotEq: "==",
        ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is"}
OP_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
           ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}


@dataclass
class Mutant:
    line: int
    kind: str
    original: str
    mutated: str
    start: int       # character offsets into the source
    end: int
    status: str = ""
    killer: str = ""
    tests: list[str] = field(default_factory=list)


def _offsets(src: str) -> list[int]:
    out, n = [0], 0
    for ln in src.splitlines(keepends=True):
        n += len(ln)
        out.append(n)
    return out


class _Finder(ast.NodeVisitor):
    def __init__(self, src: str):
        self.src, self.lines, self.found = src, _offsets(src), []
        self.skip: set[int] = set()   # ids of Constant nodes that are docstrings/annotations

    def pos(self, lineno: int, col: int) -> int:
        # col_offset counts UTF-8 bytes
        line = self.src[self.lines[lineno - 1]:self.lines[lineno]]
        return self.lines[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.pos(node.lineno, node.col_offset),       # type: ignore[attr-defined]
                self.pos(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def add(self, node: ast.AST, kind: str, start: int, end: int, new: str) -> None:
        self.found.append(Mutant(node.lineno, kind, self.src[start:end], new,  # type: ignore
                                 start, end))

    def generic_visit(self, node):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant):
            self.skip.add(id(body[0].value))
        for name in ("annotation", "returns"):
            ann = getattr(node, name, None)
            if ann is not None:
                for sub in ast.walk(ann):
                    self.skip.add(id(sub))
        super().generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            a, b = self.span(left)[1], self.span(right)[0]
            gap = self.src[a:b]
            word = OP_TEXT[type(op)]
            i = gap.find(word) if " " not in word else gap.find(word.split()[0])
            if type(op) is ast.In and "not" in gap[:i]:
                i = -1
            if i >= 0:
                end = a + i + len(word) if " " not in word else a + gap.rfind(
                    word.split()[1]) + len(word.split()[1])
                self.add(node, "compare", a + i, end, FLIP[type(op)])
                if type(op) in (ast.Lt, ast.Gt):   # the order reversed
                    self.add(node, "compare", a + i, end, ">" if word == "<" else "<")
            left = right
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        word, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        for x, y in zip(node.values, node.values[1:]):
            a, b = self.span(x)[1], self.span(y)[0]
            i = self.src[a:b].find(word)
            if i >= 0:
                self.add(node, "boolop", a + i, a + i + len(word), new)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, (ast.Not, ast.USub)) and id(node) not in self.skip:
            s, e = self.span(node)
            o, _ = self.span(node.operand)
            self.add(node, "unary", s, o, "" if isinstance(node.op, ast.USub) else "")
        self.generic_visit(node)

    def _negate(self, test: ast.expr) -> None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return   # the unary operator removes it already
        s, e = self.span(test)
        self.found.append(Mutant(test.lineno, "negate", self.src[s:e],
                                 f"not ({self.src[s:e]})", s, e))

    def visit_If(self, node: ast.If) -> None:
        if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            self._negate(node.test)
            self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self._negate(node.test)
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._negate(node.test)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, (ast.Add, ast.Sub)) and id(node) not in self.skip:
            a, b = self.span(node.left)[1], self.span(node.right)[0]
            word, new = ("+", "-") if isinstance(node.op, ast.Add) else ("-", "+")
            i = self.src[a:b].find(word)
            if i >= 0:
                self.add(node, "arith", a + i, a + i + 1, new)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if id(node) in self.skip:
            return
        s, e = self.span(node)
        v = node.value
        if isinstance(v, bool):
            self.add(node, "constant", s, e, str(not v))
        elif isinstance(v, int) and self.src[s:e].isdigit():
            self.add(node, "constant", s, e, "0" if v == 1 else str(v + 1))

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in ("min", "max") and id(node) not in self.skip:
            s, e = self.span(node)
            self.add(node, "minmax", s, e, "max" if node.id == "min" else "min")

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        self.generic_visit(node)


def mutants_of(src: str) -> list[Mutant]:
    f = _Finder(src)
    f.visit(ast.parse(src))
    out = []
    for m in sorted(f.found, key=lambda m: (m.start, m.kind)):
        new = src[:m.start] + m.mutated + src[m.end:]
        try:
            ast.parse(new)
        except SyntaxError:
            continue
        out.append(m)
    return out


# ----- coverage map ---------------------------------------------------------------------------
PLUGIN = '''
import time, coverage, pytest
_cov = coverage.Coverage(data_file={data!r}, include={source!r}, branch=False)
_times = {{}}
def pytest_configure(config):
    _cov.start()
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _cov.switch_context(item.nodeid)
    t = time.perf_counter()
    yield
    _times[item.nodeid] = time.perf_counter() - t
def pytest_unconfigure(config):
    _cov.stop(); _cov.save()
    import json; open({times!r}, "w").write(json.dumps(_times))
'''


def coverage_map(tree: Path, modules: list[str], tests: list[str], work: Path):
    data, times = work / "cov.data", work / "times.json"
    (work / "mutcov_plugin.py").write_text(PLUGIN.format(
        data=str(data), source=[str(tree / m) for m in modules], times=str(times)))
    subprocess.run(["nice", "-n", "10", sys.executable, "-m", "pytest", "-q", "-n", "0",
                    "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "mutcov_plugin",
                    *tests], cwd=tree, env=_env(tree, work), check=False)
    return read_map(data, times, modules)


def read_map(data: Path, times: Path, modules: list[str]):
    """{module: {line: tests that run it}}, {test: seconds}."""
    import coverage
    timed = json.loads(times.read_text())
    every = sorted(timed)
    cov = coverage.CoverageData(str(data))
    cov.read()
    by_line: dict[str, dict[int, list[str]]] = {}
    for m in modules:
        fname = next((f for f in cov.measured_files() if f.endswith("/" + m)), None)
        ctx = cov.contexts_by_lineno(fname) if fname else {}
        # a line run at import time (context "") is run by every test
        by_line[m] = {ln: every if "" in cs else sorted(cs) for ln, cs in ctx.items()}
    return by_line, timed


def _env(tree: Path, work: Path) -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(work)])
    return env


# ----- running ----------------------------------------------------------------------------
def copy_tree(work: Path) -> Path:
    tree = work / "tree"
    ignore = shutil.ignore_patterns(".git", "build", "*.egg-info", ".pytest_cache",
                                    ".mypy_cache", ".ruff_cache", ".hypothesis")
    for name in ("bpe_gui", "tests", "resources"):
        shutil.copytree(ROOT / name, tree / name, ignore=ignore, copy_function=shutil.copy2)
    for name in ("pyproject.toml", "setup.py"):
        shutil.copy2(ROOT / name, tree / name)
    return tree


class Forker:
    """Runs each mutant in a fork of one process that has imported pytest, its plugins
    and the engine already (a fresh interpreter costs seconds on a busy machine). The
    child executes the mutated source in the module's own namespace, points every
    other loaded module's reference to a replaced object at the new one (``from .x
    import f`` copies), then runs pytest on the tests; the parent waits, and kills the
    child's process group at the timeout. The mutant is written to the tree's copy of
    the file as well (a subprocess, such as a command-line test, imports it from
    there), and the original written back after."""

    def __init__(self, tree: Path, work: Path):
        os.chdir(tree)
        os.environ.update(_env(tree, work))
        sys.path[:0] = [str(tree), str(work)]
        os.nice(10)
        import importlib
        import pytest  # noqa: F401  (imported once, before the forks)
        for name in ("pytestqt.plugin", "hypothesis", "xdist.plugin", "regex", "tokenizers",
                     "tiktoken", "bpe_gui.engine", "bpe_gui.engine.check",
                     "bpe_gui.engine.analysis"):
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        self.tree = tree

    def run(self, module: str, src: str, m: Mutant, tests: list[str], timeout: float
            ) -> tuple[str, str]:
        name = module[:-3].replace("/", ".").removesuffix(".__init__")
        mutated = src[:m.start] + m.mutated + src[m.end:]
        out = self.tree.parent / "child.txt"
        # on disk too, for the tests that run the command line in a subprocess
        path = self.tree / module
        for pyc in (path.parent / "__pycache__").glob(path.stem + ".*.pyc"):
            pyc.unlink()
        path.write_text(mutated, "utf-8")
        try:
            return self._fork(name, mutated, module, tests, timeout, out)
        finally:
            path.write_text(src, "utf-8")

    def _fork(self, name: str, mutated: str, module: str, tests: list[str], timeout: float,
              out: Path) -> tuple[str, str]:
        pid = os.fork()
        if pid == 0:   # the child: never returns
            os.setsid()
            rc = 3
            try:
                _install(name, mutated, str(self.tree / module))
                import pytest
                with open(out, "w") as f:
                    os.dup2(f.fileno(), 1)
                    os.dup2(f.fileno(), 2)
                    rc = int(pytest.main(["-q", "-x", "-n", "0", "-p", "no:randomly",
                                          "-p", "no:cacheprovider", "-m", "slow or not slow",
                                          "--tb=no", "-rf", *tests]))
            except BaseException:   # the mutant breaks its own import: killed
                rc = 3
            finally:
                os._exit(rc)
        deadline = time.monotonic() + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.killpg(pid, 9)
                os.waitpid(pid, 0)
                return "timeout", ""
            time.sleep(0.05)
        rc = os.waitstatus_to_exitcode(status)
        if rc in (0, 5):
            return "survived", ""
        text = out.read_text(errors="replace") if out.exists() else ""
        failed = [ln.split(" ", 2)[1] for ln in text.splitlines() if ln.startswith("FAILED ")]
        return "killed", failed[0] if failed else f"exit {rc}"


def _install(name: str, source: str, filename: str) -> None:
    """Execute ``source`` as module ``name`` in its own namespace, and repoint copies of
    the objects it replaced in every loaded module."""
    mod = sys.modules.get(name)
    if mod is None:
        import importlib
        mod = importlib.import_module(name)
    before = dict(mod.__dict__)
    exec(compile(source, filename, "exec"), mod.__dict__)
    swap = {id(v): mod.__dict__[k] for k, v in before.items()
            if k in mod.__dict__ and mod.__dict__[k] is not v and not k.startswith("__")}
    if not swap:
        return
    for other in list(sys.modules.values()):
        d = getattr(other, "__dict__", None)
        if d is None or other is mod:
            continue
        for k, v in list(d.items()):
            new = swap.get(id(v))
            if new is not None:
                d[k] = new


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="+", help="modules to mutate, relative to the checkout")
    ap.add_argument("--tests", nargs="+", required=True,
                    help="test files or node ids to map and run (the module's own tests)")
    ap.add_argument("--always", nargs="*", default=[],
                    help="tests run for every covered mutant after the covering ones")
    ap.add_argument("--out", required=True, help="JSON report")
    ap.add_argument("--timeout-factor", type=float, default=3.0)
    ap.add_argument("--lines", default="", help="only mutate lines A-B (one module)")
    ap.add_argument("--tests-from", metavar="REV",
                    help="run the tests as they are in this git revision (a run before new "
                    "tests, to compare)")
    ap.add_argument("--skip", nargs="*", default=[], metavar="TEXT",
                    help="leave out covering tests whose id holds TEXT (the slowest ones)")
    ap.add_argument("--map", nargs="*", default=[],
                    help="reuse the coverage maps in these JSON files (joined), or save "
                    "the one made to the one file named")
    ap.add_argument("--rerun", help="only the mutants that survived in this earlier report "
                    "(they passed every test it ran, so only new tests need run: give "
                    "those as --tests / --always)")
    args = ap.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="mutate-"))
    tree = copy_tree(work)
    if args.tests_from:
        shutil.rmtree(tree / "tests")
        archive = subprocess.run(["git", "archive", args.tests_from, "tests"], cwd=ROOT,
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    by_line: dict = {}
    times: dict = {}
    if args.map and all(Path(f).exists() for f in args.map):
        for f in args.map:
            saved = json.loads(Path(f).read_text())
            for m, lines in saved["by_line"].items():
                for k, v in lines.items():
                    by_line.setdefault(m, {}).setdefault(int(k), []).extend(v)
            times.update(saved["times"])
    else:
        by_line, times = coverage_map(tree, args.modules, args.tests, work)
        if args.map:
            Path(args.map[0]).write_text(json.dumps({"by_line": by_line, "times": times}))
    earlier: dict = {}
    if args.rerun:
        for module, rs in json.loads(Path(args.rerun).read_text())["modules"].items():
            for r in rs:
                if r["status"] in ("survived", "uncovered"):
                    earlier[(module, r["start"], r["mutated"])] = r["status"]
    forker = Forker(tree, work)
    lo, hi = map(int, args.lines.split("-")) if args.lines else (0, 10**9)
    report: dict = {"modules": {}, "tests": args.tests, "always": args.always}
    for module in args.modules:
        src = (tree / module).read_text("utf-8")
        results = []
        for m in mutants_of(src):
            if not lo <= m.line <= hi:
                continue
            if args.rerun and (module, m.start, m.mutated) not in earlier:
                continue
            covering = sorted(set(by_line.get(module, {}).get(m.line, ())),
                              key=lambda t: times.get(t, 0))
            covering = [t for t in covering if not any(x in t for x in args.skip)]
            m.tests = covering
            if not covering and not args.always:
                m.status = "uncovered"
            else:
                tests = covering + args.always
                budget = sum(times.get(t, 5.0) for t in covering) + 20 * len(args.always)
                m.status, m.killer = forker.run(module, src, m, tests,
                                                args.timeout_factor * budget + 30)
            results.append(m)
            report["modules"][module] = [asdict(r) for r in results]
            Path(args.out).write_text(json.dumps(report, indent=1))
            print(f"{module}:{m.line} {m.kind} {m.original!r} -> {m.mutated!r}: {m.status}"
                  f" {m.killer}", flush=True)
        report["modules"][module] = [asdict(r) for r in results]
        Path(args.out).write_text(json.dumps(report, indent=1))
    os.chdir(ROOT)
    shutil.rmtree(work, ignore_errors=True)
    summary(report)
    return 0


def summary(report: dict) -> None:
    for module, results in report["modules"].items():
        count = {s: sum(1 for r in results if r["status"] == s)
                 for s in ("killed", "timeout", "survived", "uncovered")}
        print(f"{module}: {len(results)} mutants, " + ", ".join(
            f"{n} {s}" for s, n in count.items()))
        for r in results:
            if r["status"] in ("survived", "uncovered"):
                print(f"  {r['status']:9} {module}:{r['line']}  {r['original']!r} -> "
                      f"{r['mutated']!r}")


if __name__ == "__main__":
    started = time.time()
    rc = main()
    print(f"{time.time() - started:.0f} s")
    sys.exit(rc)
