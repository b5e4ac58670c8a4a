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
            "bpe_gui.engine._pipeline",
            sources=["bpe_gui/engine/_pipeline.c"],
            extra_compile_args=["-O2", "-std=c99"],
            optional=True,  # no compiler: imported tokenizers use engine/pipeline/pymodel.py
        ),
    ]
)
