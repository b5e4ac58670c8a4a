"""Only here to declare the C extensions; all metadata lives in pyproject.toml."""
from pathlib import Path

from setuptools import Extension, setup

# hidden visibility: the files of one extension share plain names (grow, sort_i32...);
# only PyInit_* is exported, so no other library's symbol can stand in for them
CFLAGS = ["-O2", "-std=c99", "-fvisibility=hidden"]
CSRC = "bpe_gui/engine/csrc"    # every #include "folder/file.h" is relative to it


def files(*paths: str) -> list[str]:
    # paths under csrc/, folder included: tests/test_csrc_layout.py checks that every .c
    # file there is named here once
    return [f"{CSRC}/{p}" for p in paths]


def headers(*folders: str) -> list[str]:
    # `depends`: a change to any header or .inc of these folders rebuilds the extension
    found = [str(p) for f in folders for pat in ("*.h", "*.inc")
             for p in Path(CSRC, f).glob(pat)]
    if "scan" in folders:
        found.append(f"{CSRC}/unicode_tables.h")   # where unicode_classes.py writes it
    return sorted(found)


# csrc/README.md says what each folder holds; python/ is the only one with Python in it
CORE = files("core/core_build.c", "core/core_step.c", "core/core_heap.c", "core/core_tables.c",
             "core/core_lists.c", "core/core_query.c", "core/core_check.c")
SCAN = files("scan/scan.c")   # the native scanner, compiled into _scan only
# the others call _scan's scanner through the function table it exports (scan/scan.h)
SCAN_SHARED = files("scan/scan_shared.c")
MERGE = files("merge/route.c", "merge/merge.c", "merge/reference.c", "merge/strategies.c",
              "merge/token_boundaries.c", "merge/lanes.c")   # the merge engine (_encode, _pipeline)
WORDCACHE = files("merge/wordcache.c", "merge/encoder.c")
COUNT = files("count/wordtable.c", "count/tsv.c")
IMPORTED = files("imported/pipe_tables.c", "imported/pipe_load_hf.c",
                 "imported/pipe_load_tiktoken.c", "imported/pipe_load_gguf.c",
                 "imported/pipe_load_spm.c",
                 "imported/json_scan.c", "imported/b64.c", "imported/pipe_encode.c",
                 "imported/pipe_spm.c", "imported/charsmap.c")


def ext(name: str, sources: list[str], folders: tuple[str, ...]) -> Extension:
    # optional: without a compiler the package installs anyway and the engine falls back
    # to slower Python code (the test suite refuses that unless BPE_GUI_ALLOW_PYCORE=1)
    return Extension(f"bpe_gui.engine.{name}", sources=sources, include_dirs=[CSRC],
                     extra_compile_args=CFLAGS, depends=headers("python", "util", *folders),
                     optional=True)


setup(
    ext_modules=[
        # the training core (plain C in core/) and its Python type
        ext("train._core", files("python/coremodule.c") + CORE, ("core",)),
        ext("tokenizers._encode", files("python/encodemodule.c") + MERGE + WORDCACHE + SCAN_SHARED,
            ("merge", "scan")),
        ext("corpus._count", files("python/countmodule.c") + COUNT + SCAN_SHARED,
            ("count", "scan")),
        ext("text._scan", files("python/scanmodule.c", "text/normal_form.c") + SCAN,
            ("scan", "text")),
        # imported tokenizers (without it they use engine/tokenizers/imported/_pymodel.py)
        ext("tokenizers.imported._pipeline", files("python/pipelinemodule.c") + IMPORTED + MERGE,
            ("imported", "merge")),
    ]
)
