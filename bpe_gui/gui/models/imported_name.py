"""The one name every view gives the imported tokenizer."""
from __future__ import annotations


def imported_name(path: str | None) -> str:
    r"""The imported tokenizer's file name (a folder's name for GPT-2 files read from one).

    Example: '/models/o200k_base.tiktoken' -> 'o200k_base.tiktoken';
    'C:\\tok\\gpt2' -> 'gpt2'; None -> 'imported'
    """
    return (path or "imported").replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
