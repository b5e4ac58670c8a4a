"""The C extensions must be built: without them training falls back to a slow core.

Set BPE_GUI_ALLOW_PYCORE=1 to run the suite on a machine without a C compiler.
"""
from __future__ import annotations

import os

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
