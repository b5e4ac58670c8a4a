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
