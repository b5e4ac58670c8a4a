"""The C extensions must be built: without them training falls back to a slow core.

Set BPE_GUI_ALLOW_PYCORE=1 to run the suite on a machine without a C compiler.
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys

import pytest

import bpe_gui.engine.text.scanner as scanner_module
import bpe_gui.engine.tokenizers.merge_model as merge_module
import bpe_gui.engine.train.trainer as trainer_module

pytestmark = pytest.mark.skipif(os.environ.get("BPE_GUI_ALLOW_PYCORE") == "1",
                                reason="pure-Python fallback allowed")


def test_training_core_is_the_c_extension():
    assert trainer_module._core.__name__ == "bpe_gui.engine.train._core", (
        "bpe_gui.engine.train._core was not built; reinstall with a C compiler available")


def test_encoder_is_the_c_extension():
    assert merge_module._Merger is not None, (
        "bpe_gui.engine.tokenizers._encode was not built; reinstall with a C compiler available")


def test_preset_scanner_is_the_c_extension():
    assert scanner_module._scan is not None, (
        "bpe_gui.engine.text._scan was not built; reinstall with a C compiler available")


EXTENSIONS = ["train._core", "tokenizers._encode", "corpus._count", "text._scan",
              "tokenizers.imported._pipeline"]
NO_SIMD = os.environ.get("BPE_GUI_NO_SIMD", "") not in ("", "0")


def _extensions():
    import importlib
    return [importlib.import_module(f"bpe_gui.engine.{name}") for name in EXTENSIONS]


def _vector_registers(path: str) -> set[str]:
    """The AVX (ymm) and AVX-512 (zmm) registers the machine code of a built extension
    names, by objdump's disassembly"""
    objdump = shutil.which("objdump")
    if not objdump:
        pytest.skip("objdump (binutils) is needed to read the extensions' machine code")
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    return set(re.findall(r"%(ymm|zmm)\d+", out))


def test_all_five_extensions_are_built():
    assert [m.__name__ for m in _extensions()] == [f"bpe_gui.engine.{n}" for n in EXTENSIONS]


def test_the_build_holds_the_vector_code_it_was_asked_for():
    """BPE_GUI_NO_SIMD=1 at install compiles every vector loop out (the build an ARM Mac
    or an old PC gets; tools/ci_variants.sh tests it with BPE_GUI_NO_SIMD=1 set here too):
    each extension says so in `simd`, and on x86-64 its machine code names no AVX or
    AVX-512 register. A default build on x86-64 with gcc or clang holds all of them."""
    mods = _extensions()
    encode = mods[EXTENSIONS.index("tokenizers._encode")]
    kinds = {m.__name__: m.simd for m in mods}
    if NO_SIMD:
        assert set(kinds.values()) == {""}, kinds
    elif platform.machine().lower() in ("x86_64", "amd64") and sys.platform != "win32":
        assert set(kinds.values()) == {"sse2,avx2,avx512"}, kinds
    if platform.machine().lower() not in ("x86_64", "amd64") or sys.platform == "win32":
        return
    registers = _vector_registers(encode.__file__)
    # (the flat loop is AVX2 and the UTF-8 conversion AVX-512: both are in _encode unless
    # compiled out)
    assert registers == (set() if NO_SIMD else {"ymm", "zmm"})
