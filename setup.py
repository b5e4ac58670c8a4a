"""Only here to declare the C extensions; all metadata lives in pyproject.toml."""
from setuptools import Extension, setup

CFLAGS = ["-O2", "-std=c99"]
SCAN = ["bpe_gui/engine/csrc/scan.c"]   # the native scanner, compiled into each user
SCAN_DEPS = ["bpe_gui/engine/csrc/" + f for f in
             ("scan.h", "scan_cut.inc", "scan_tables.inc", "unicode_tables.h", "tsv.h")]


def ext(name: str, *sources: str) -> Extension:
    # optional: without a compiler the package installs anyway and the engine falls back
    # to slower Python code (the test suite refuses that unless BPE_GUI_ALLOW_PYCORE=1)
    return Extension(f"bpe_gui.engine.{name}", sources=list(sources),
                     include_dirs=["bpe_gui/engine/csrc"], extra_compile_args=CFLAGS,
                     depends=SCAN_DEPS if SCAN[0] in sources else [], optional=True)


setup(
    ext_modules=[
        ext("_core", "bpe_gui/engine/_core.c"),
        ext("_encode", "bpe_gui/engine/_encode.c", *SCAN),
        ext("_count", "bpe_gui/engine/csrc/countmodule.c", "bpe_gui/engine/csrc/tsv.c", *SCAN),
        ext("_scan", "bpe_gui/engine/csrc/scanmodule.c", *SCAN),
        # imported tokenizers (without it they use engine/pipeline/pymodel.py)
        ext("_pipeline", "bpe_gui/engine/_pipeline.c"),
    ]
)
