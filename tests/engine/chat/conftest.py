"""The chat tests' tokenizer, trained once a session (chat_fixtures.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from chat_fixtures import ADDED, SPECIALS, build_tokenizer, template_text

__all__ = ["ADDED", "SPECIALS", "template_text"]


@pytest.fixture(scope="session")
def chat_tokenizer_file(tmp_path_factory) -> Path:
    return build_tokenizer(tmp_path_factory.mktemp("chat_tok") / "tokenizer.json")
