"""The C sources keep the layout of bpe_gui/engine/csrc/README.md: folders by extension and
shared code, Python only in python/ (one *module.c per extension and the glue they
share), every .c file built by setup.py from the folder it lies in."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CSRC = ROOT / "bpe_gui" / "engine" / "csrc"
SOURCES = ("*.c", "*.h", "*.inc")
EXTENSIONS = {"_core", "_encode", "_count", "_scan", "_pipeline"}
PYTHON_USE = re.compile(r"#\s*include\s*[<\"]Python\.h[>\"]|\bPy[A-Z_]\w*|\bPyObject\b")


def _c_files() -> list[Path]:
    return sorted(p for pat in SOURCES for p in CSRC.rglob(pat))


def _built_by_setup() -> list[str]:
    """Every "folder/name.c" that setup.py names (its files() takes paths under csrc/)."""
    return re.findall(r'"(\w+/\w+\.c)"', (ROOT / "setup.py").read_text("utf-8"))


def test_every_c_file_is_built_from_its_folder():
    on_disk = sorted(p.relative_to(CSRC).as_posix() for p in CSRC.rglob("*.c"))
    assert on_disk, "no C sources found"
    assert sorted(set(_built_by_setup())) == on_disk


def test_only_python_folder_knows_python():
    """No file outside python/ includes Python.h or names a Py* API: the core, the
    scanner, the merge engine, the counters and the imported tables are plain C."""
    leaks = [p.relative_to(CSRC).as_posix() for p in _c_files()
             if p.parent.name != "python" and PYTHON_USE.search(_code_only(p))]
    assert leaks == []


def test_one_module_file_per_extension():
    modules = sorted(p.relative_to(CSRC).as_posix() for p in CSRC.rglob("*module.c"))
    assert modules == sorted(f"python/{name[1:]}module.c" for name in EXTENSIONS)
    for name in EXTENSIONS:
        text = (CSRC / "python" / f"{name[1:]}module.c").read_text("utf-8")
        assert f"PyInit_{name}" in text


# (_PyBytes_Resize is the documented way to shrink a new bytes object)
PRIVATE_CPYTHON = re.compile(r"\bob_item\b|->\s*allocated\b|\b(PyListObject|PyTupleObject|"
                             r"PyBytesObject|PyUnicodeObject|PyLongObject)\b|"
                             r"\b_Py(?!Bytes_Resize\b)[A-Za-z]\w*")


def test_bindings_use_only_cpythons_public_api():
    """No binding reaches into CPython's objects (a list's item array, its allocated
    size, the layout of a tuple, bytes, str or int) or calls its private _Py functions:
    lists are made by PyList_New and filled by PyList_SET_ITEM."""
    reach = [(p.relative_to(CSRC).as_posix(), m.group(0)) for p in _c_files()
             for m in PRIVATE_CPYTHON.finditer(_code_only(p))]
    assert reach == []


def test_the_private_api_check_sees_a_reach():
    assert PRIVATE_CPYTHON.search("((PyListObject *)list)->ob_item = items;")
    assert PRIVATE_CPYTHON.search("_PyLong_Copy(x)")
    assert not PRIVATE_CPYTHON.search("PyList_SET_ITEM(list, i, v); Py_ssize_t allocated;")


def test_csrc_readme_names_every_folder():
    readme = (CSRC / "README.md").read_text("utf-8")
    folders = sorted(p.name for p in CSRC.iterdir() if p.is_dir())
    assert folders and all(f"{name}/" in readme for name in folders)


def _code_only(path: Path) -> str:
    """The file without its comments (which may name Python freely)."""
    text = path.read_text("utf-8")
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def test_no_c_file_directly_in_engine():
    """C sources live in csrc/, never beside the engine's Python modules."""
    engine = ROOT / "bpe_gui" / "engine"
    assert sorted(p.relative_to(engine).as_posix() for p in engine.rglob("*.c")
                  if "csrc" not in p.relative_to(engine).parts) == []


PREFETCH_HELPER = re.compile(r"(static|BPE_FORCE_INLINE)\s+([^;{}]*?)\b(\w*prefetch\w*)\s*\(([^;{}]*)\)\s*\{",
                             re.S)


@pytest.mark.regression
def test_prefetch_helpers_are_always_inlined():
    """A prefetch helper (a static function named *prefetch*) is always inlined
    (BPE_FORCE_INLINE, util/portable.h): gcc counts __builtin_prefetch as no side effect,
    so a function of prefetches alone is "pure" to it and its calls are dropped (merge.c's
    pair_prefetch left no instruction in the build until it was always_inline)."""
    helpers = [(p.relative_to(CSRC).as_posix(), m.group(3), m.group(1) + " " + m.group(2))
               for p in _c_files() for m in PREFETCH_HELPER.finditer(_code_only(p))]
    assert helpers, "no prefetch helper found: the pattern no longer matches the sources"
    assert [(f, name) for f, name, head in helpers if "BPE_FORCE_INLINE" not in head] == []


_DEFINITION = re.compile(r"^(?!typedef\b)[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{}]*\)\s*\{", re.M)
_PROTOTYPE = re.compile(r"^[A-Za-z_][^;{}#]*?\([^;{}]*\)\s*;", re.M)
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([\w./]+\.(?:h|inc))"', re.M)


def _module(path: str) -> str:
    """A file's module: a header and the .c of the same name are one (its interface and
    its code); .inc files are part of the file that includes them."""
    return path.rsplit(".", 1)[0]


def _resolve(name: str, where: str, files: set[str]) -> str | None:
    """An include's file under csrc/: as named (the folder given), else beside the file
    that includes it (as the compiler looks first); None for one outside csrc/."""
    if name in files:
        return name
    beside = f"{where.rsplit('/', 1)[0]}/{name}" if "/" in where else name
    return beside if beside in files else None


def _dependencies(csrc: Path = CSRC) -> dict[str, set[str]]:
    """module -> the modules it includes or calls a non-static function of (a header's
    prototypes call nothing; its inline functions do). An .inc file's includes, calls
    and functions are its includer's."""
    raw_texts = {}
    for p in sorted(p for pat in SOURCES for p in csrc.rglob(pat)):
        raw = re.sub(r"/\*.*?\*/", " ", p.read_text("utf-8"), flags=re.S)
        raw_texts[p.relative_to(csrc).as_posix()] = re.sub(r"//[^\n]*", " ", raw)
    names = set(raw_texts)

    def gathered(f: str, seen: tuple[str, ...] = ()) -> tuple[list[str], str]:
        includes, code = [], raw_texts[f]
        for name in _INCLUDE.findall(raw_texts[f]):
            got = _resolve(name, f, names)
            if got is None:
                continue
            if got.endswith(".inc") and got not in seen:
                inc_includes, inc_code = gathered(got, seen + (f,))
                includes += inc_includes
                code += "\n" + inc_code
            else:
                includes.append(got)
        return includes, code

    texts = {}
    for f in raw_texts:
        if not f.endswith(".inc"):
            includes, code = gathered(f)
            texts[f] = (includes, re.sub(r'"(?:\\.|[^"\\\n])*"', '""', code))
    owner: dict[str, str] = {}
    for f, (_, code) in texts.items():
        if f.endswith(".c"):
            for m in _DEFINITION.finditer(code):
                if not re.search(r"\bstatic\b", m.group(0).split("(")[0]):
                    owner.setdefault(m.group(1), _module(f))
    graph: dict[str, set[str]] = {}
    for f, (includes, code) in texts.items():
        deps = graph.setdefault(_module(f), set())
        deps.update(_module(i) for i in includes)
        body = _PROTOTYPE.sub(" ", code) if f.endswith(".h") else code
        deps.update(owner[name] for name in _CALL.findall(body) if name in owner)
    for name, deps in graph.items():
        deps.discard(name)
        deps.intersection_update(graph)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_c_files_depend_on_each_other_in_a_circle():
    """No module of csrc/ (a .c, a header, or the two of one name) includes or calls into
    another that, through others or directly, depends back on it: the merge engine's
    route.c chooses and the strategies below it call only the table (issue 54 found
    merge.c, token_boundaries.c and whitespace_runs.c in one circle, and
    pipe_encode.c, pipe_spm.c, pipe_tables.c, and core.h with core_lists.c)."""
    graph = _dependencies()
    assert {"merge/route", "merge/merge", "core/core", "imported/pipe_spm"} <= set(graph)
    assert "merge/merge" in graph["merge/route"]   # the scan sees calls at all
    assert _circles(graph) == []


def test_the_dependency_scan_sees_through_inc_files_and_relative_includes(tmp_path: Path):
    """An include named without its folder, and an .inc file's calls, count for the file
    that includes them (else a circle through either would go unseen)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.h").write_text("int x_fn(void);\n")
    (tmp_path / "a" / "x.c").write_text('#include "y.inc"\nint x_fn(void) { return 1; }\n')
    (tmp_path / "a" / "y.inc").write_text("static int use(void) { return z_fn(); }\n")
    (tmp_path / "b" / "z.c").write_text('#include "a/x.h"\nint z_fn(void) { return x_fn(); }\n')
    (tmp_path / "b" / "w.c").write_text('#include "v.h"\n')
    (tmp_path / "b" / "v.h").write_text("int v;\n")
    graph = _dependencies(tmp_path)
    assert graph["a/x"] == {"b/z"} and graph["b/z"] == {"a/x"} and graph["b/w"] == {"b/v"}
    assert _circles(graph) == [["a/x", "b/z"]]


def test_the_circle_check_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# Each extension's binding measured as a whole (issue 90): its files under csrc/python/,
# the .c files setup.py names for it and the python/ headers only it includes; a header
# two extensions include (convert.h, ...) counts once, apart. The goal is 800 lines each;
# these ceilings are where each stands, so none grows while it is cut down to that.
BINDING_GOAL = 800
BINDING_CEILING = {"_core": 968, "_encode": 1092, "_count": 595, "_scan": 599,
                   "_pipeline": 1283}
INCLUDE = re.compile(r'#\s*include\s*"(python/\w+\.h)"')


def _binding_files() -> dict[str, set[str]]:
    """Extension -> its files under python/, from setup.py's ext("pkg._name", ...) calls
    and the python/ headers their .c files include (and those headers include)."""
    setup = (ROOT / "setup.py").read_text("utf-8")
    calls = re.split(r"\bext\(\"[\w.]*\.(_\w+)\"", setup)[1:]
    out: dict[str, set[str]] = {}
    for name, body in zip(calls[::2], calls[1::2]):
        todo = set(re.findall(r'"(python/\w+\.c)"', body))
        seen: set[str] = set()
        while todo:
            seen.add(path := todo.pop())
            todo |= set(INCLUDE.findall((CSRC / path).read_text("utf-8"))) - seen
        out[name] = seen
    return out


def test_each_extensions_binding_is_measured_as_a_whole():
    files = _binding_files()
    assert set(files) == EXTENSIONS
    shared = {f for f in set().union(*files.values())
              if sum(f in fs for fs in files.values()) > 1}
    assert "python/convert.h" in shared
    sizes = {name: sum(len((CSRC / f).read_text("utf-8").splitlines()) for f in fs - shared)
             for name, fs in files.items()}
    grown = {n: (s, BINDING_CEILING[n]) for n, s in sizes.items() if s > BINDING_CEILING[n]}
    assert grown == {}, f"bindings past their ceiling (goal {BINDING_GOAL}): {grown}"
