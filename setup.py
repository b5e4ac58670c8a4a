"""Only here to declare the C extensions; all metadata lives in pyproject.toml."""
from setuptools import Extension, setup

# hidden visibility: the files of one extension share plain names (grow, sort_i32...);
# only PyInit_* is exported, so no other library's symbol can stand in for them
CFLAGS = ["-O2", "-std=c99", "-fvisibility=hidden"]
SCAN = ["bpe_gui/engine/csrc/scan.c"]   # the native scanner, compiled into _scan only
# the others call _scan's scanner through the function table it exports (csrc/scan.h)
SCAN_SHARED = ["bpe_gui/engine/csrc/scan_shared.c"]
SCAN_DEPS = ["bpe_gui/engine/csrc/" + f for f in
             ("scan.h", "scan_python.h", "scan_cut.inc", "scan_tables.inc", "scan_giant.inc",
              "scan_stage2.inc", "unicode_tables.h",
              "tsv.h", "wordtable.h", "merge.h", "wordcache.h", "cached_words.h")]
PIPELINE = ["bpe_gui/engine/csrc/" + f for f in
            ("pipelinemodule.c", "pipe_tables.c", "pipe_load_hf.c", "pipe_load_tiktoken.c",
             "json_scan.c", "b64.c", "pipe_encode.c", "merge.c", "merge_cut.c")]
PIPELINE_DEPS = ["bpe_gui/engine/csrc/" + f for f in ("pipeline.h", "json_scan.h", "merge.h")]
CORE = ["bpe_gui/engine/csrc/" + f for f in
        ("coremodule.c", "core_build.c", "core_step.c", "core_heap.c", "core_tables.c",
         "core_lists.c", "core_query.c", "core_check.c")]


def ext(name: str, *sources: str) -> Extension:
    # optional: without a compiler the package installs anyway and the engine falls back
    # to slower Python code (the test suite refuses that unless BPE_GUI_ALLOW_PYCORE=1)
    return Extension(f"bpe_gui.engine.{name}", sources=list(sources),
                     include_dirs=["bpe_gui/engine/csrc"], extra_compile_args=CFLAGS,
                     depends=(SCAN_DEPS if {SCAN[0], SCAN_SHARED[0]} & set(sources) else [])
                     + (["bpe_gui/engine/csrc/core.h"] if CORE[0] in sources else [])
                     + (PIPELINE_DEPS if PIPELINE[0] in sources else []),
                     optional=True)


setup(
    ext_modules=[
        # the training core: coremodule.c is the Python type, core.h the data structures
        ext("train._core", *CORE),
        ext("tokenizers._encode", "bpe_gui/engine/csrc/encodemodule.c", "bpe_gui/engine/csrc/merge.c",
            "bpe_gui/engine/csrc/merge_cut.c",
            "bpe_gui/engine/csrc/wordcache.c", "bpe_gui/engine/csrc/wordcache_type.c",
            *SCAN_SHARED),
        ext("corpus._count", "bpe_gui/engine/csrc/countmodule.c", "bpe_gui/engine/csrc/wordtable.c",
            "bpe_gui/engine/csrc/tsv.c", *SCAN_SHARED),
        ext("text._scan", "bpe_gui/engine/csrc/scanmodule.c", *SCAN),
        # imported tokenizers (without it they use engine/pipeline/pymodel.py)
        ext("tokenizers.imported._pipeline", *PIPELINE),
    ]
)
