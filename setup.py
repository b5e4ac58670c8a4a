"""Only here to declare the C extensions; all metadata lives in pyproject.toml."""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "bpe_gui.engine._core",
            sources=["bpe_gui/engine/_core.c"],
            extra_compile_args=["-O2", "-std=c99"],
            optional=True,  # no compiler: install anyway, the engine falls back to Python
        ),
        Extension(
            "bpe_gui.engine._encode",
            sources=["bpe_gui/engine/_encode.c"],
            extra_compile_args=["-O2", "-std=c99"],
            optional=True,  # no compiler: install anyway, the engine falls back to Python
        ),
        Extension(
            "bpe_gui.engine._scan",
            sources=["bpe_gui/engine/csrc/scanmodule.c", "bpe_gui/engine/csrc/scan.c"],
            depends=["bpe_gui/engine/csrc/scan.h", "bpe_gui/engine/csrc/scan_cut.inc",
                     "bpe_gui/engine/csrc/scan_tables.inc",
                     "bpe_gui/engine/csrc/unicode_tables.h"],
            extra_compile_args=["-O2", "-std=c99"],
            optional=True,  # no compiler: install anyway, pretokenize falls back to regex
        ),
    ]
)
