"""The special tokens a format adds around an encoded text (``add_special_tokens``):
a tokenizer.json's post-processor (TemplateProcessing's single template, Bert's and
Roberta's), a GGUF's BOS / EOS flags.

tokenizers adds them by default (``encode(text, add_special_tokens=True)``), each
with the empty span at 0 (``(0, 0)``), as its ``Encoding.offsets`` shows them.

Example (Llama 3's template ``<|begin_of_text|> $A``)::

    >>> p = PostProcessor(((128000, "<|begin_of_text|>"),), (), default=True)
    >>> p.apply([6151])
    [128000, 6151]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any



@dataclass(frozen=True)
class PostProcessor:
    """``before`` and ``after``: (id, token text) added before and after the text's ids;
    ``default``: whether the format's library adds them unless told not to."""

    before: tuple[tuple[int, str], ...]
    after: tuple[tuple[int, str], ...]
    default: bool = False

    def apply(self, ids: list[int]) -> list[int]:
        if not self.before and not self.after:
            return ids
        return [i for i, _ in self.before] + ids + [i for i, _ in self.after]

    def then(self, other: "PostProcessor") -> "PostProcessor":
        """This one, then ``other`` around its result (a Sequence of processors)."""
        return PostProcessor(other.before + self.before, self.after + other.after,
                             self.default or other.default)


NONE = PostProcessor((), ())


class PostError(ValueError):
    """A post-processor this reader cannot follow: ``key`` is its JSON path."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


def from_hf(node: Any, where: str = "post_processor") -> PostProcessor:
    """A tokenizer.json post-processor node -> the tokens it adds around one text
    (tokenizers' default: added). Raises PostError on what it cannot read."""
    if node is None:
        return NONE
    kind = node.get("type") if isinstance(node, dict) else None
    if kind == "TemplateProcessing":
        return _template(node, where)
    if kind in ("BertProcessing", "RobertaProcessing"):
        names = ("cls", "sep")
        got = []
        for n in names:
            pair = node.get(n)
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                    and isinstance(pair[1], int)):
                raise PostError(f"{where}.{n}", f"{where}.{n} should be [token, id]")
            got.append((pair[1], pair[0]))
        return PostProcessor((got[0],), (got[1],), True)
    if kind == "Sequence":
        out = NONE
        for k, child in enumerate(node.get("processors") or []):
            out = out.then(from_hf(child, f"{where}.processors[{k}]"))
        return PostProcessor(out.before, out.after, True)
    return PostProcessor((), (), True)   # ByteLevel: offsets only (trimmed elsewhere)


def _template(node: dict, where: str) -> PostProcessor:
    single = node.get("single")
    specials = node.get("special_tokens") or {}
    if not isinstance(single, list) or not isinstance(specials, dict):
        raise PostError(f"{where}.single", f"{where}.single should be a list of pieces")
    before: list[tuple[int, str]] = []
    after: list[tuple[int, str]] = []
    seen_a = False
    for k, item in enumerate(single):
        key = f"{where}.single[{k}]"
        if isinstance(item, dict) and "Sequence" in item:
            seen_a = True
            continue
        name = (item.get("SpecialToken") or {}).get("id") if isinstance(item, dict) else None
        entry = specials.get(name) if isinstance(name, str) else None
        ids = entry.get("ids") if isinstance(entry, dict) else None
        toks = entry.get("tokens") if isinstance(entry, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            raise PostError(key, f"{key} names the special token {name!r}, which "
                            f"{where}.special_tokens does not give ids for")
        toks = toks if isinstance(toks, list) and len(toks) == len(ids) else [name] * len(ids)
        (after if seen_a else before).extend(zip(ids, map(str, toks)))
    return PostProcessor(tuple(before), tuple(after), True)
