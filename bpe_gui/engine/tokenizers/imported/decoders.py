"""Decoders of a ``tokenizer.json``: token strings -> text, as ``tokenizers`` decodes.

Each decoder maps a list of token strings to a list of strings; the results are joined.
Without a decoder, tokenizers joins the tokens with spaces.

Example (Llama 2's decoder)::

    >>> d = decoder({"type": "Sequence", "decoders": [
    ...     {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
    ...     {"type": "ByteFallback"}, {"type": "Fuse"},
    ...     {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}, "decoder")
    >>> d(["▁Hi", "<0xE4>", "<0xBD>", "<0xA0>"])
    'Hi你'
"""
from __future__ import annotations

from typing import Any, Callable

from ...display import gpt2_bytes
from .hf_parts import Unsupported, compile_pattern, need, refuse

Chain = Callable[[list[str]], list[str]]
DECODERS = "ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, BPEDecoder, Sequence"


def decoder(node: Any, where: str = "decoder") -> Callable[[list[str]], str]:
    if node is None:
        return lambda tokens: " ".join(tokens)
    chain = _chain(node, where)
    return lambda tokens: "".join(chain(list(tokens)))


def _chain(node: Any, where: str) -> Chain:
    if not isinstance(node, dict):
        raise Unsupported(where, f"{where} should be an object or null")
    kind = node.get("type")
    if kind == "Sequence":
        items = need(node, "decoders", list, where)
        steps = [_chain(n, f"{where}.decoders[{i}]") for i, n in enumerate(items)]

        def run(tokens: list[str]) -> list[str]:
            for step in steps:
                tokens = step(tokens)
            return tokens
        return run
    if kind == "ByteLevel":
        return _byte_level
    if kind == "Metaspace":
        rep = need(node, "replacement", str, where, "▁")
        scheme = node.get("prepend_scheme") or (
            "always" if node.get("add_prefix_space", True) else "never")
        return lambda ts: [t.replace(rep, "" if i == 0 and scheme != "never" else " ")
                           for i, t in enumerate(ts)]
    if kind == "ByteFallback":
        return _byte_fallback
    if kind == "Fuse":
        return lambda ts: ["".join(ts)]
    if kind == "Strip":
        content = need(node, "content", str, where)
        start = need(node, "start", int, where, 0)
        stop = need(node, "stop", int, where, 0)
        return lambda ts: [_strip(t, content, start, stop) for t in ts]
    if kind == "Replace":
        pat = compile_pattern(node.get("pattern"), f"{where}.pattern")
        content = need(node, "content", str, where)
        return lambda ts: [pat.sub(lambda _m: content, t) for t in ts]
    if kind == "BPEDecoder":
        suffix = need(node, "suffix", str, where, "</w>")
        return lambda ts: [t.replace(suffix, "" if i == len(ts) - 1 else " ")
                           for i, t in enumerate(ts)]
    raise refuse(node, where, DECODERS)


def _byte_level(tokens: list[str]) -> list[str]:
    data = bytearray()
    for t in tokens:
        try:
            data += gpt2_bytes(t)
        except KeyError:        # not GPT-2 alphabet text (an added token): its own bytes
            data += t.encode("utf-8")
    return [data.decode("utf-8", errors="replace")]


def _fallback_byte(t: str) -> int | None:
    if len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
        try:
            return int(t[3:5], 16)
        except ValueError:
            return None
    return None


def _byte_fallback(tokens: list[str]) -> list[str]:
    out: list[str] = []
    pending = bytearray()

    def flush() -> None:
        if pending:
            try:
                out.append(pending.decode("utf-8"))
            except UnicodeDecodeError:   # tokenizers: one U+FFFD per byte
                out.extend("\ufffd" * len(pending))
            pending.clear()
    for t in tokens:
        b = _fallback_byte(t)
        if b is not None:
            pending.append(b)
        else:
            flush()
            out.append(t)
    flush()
    return out


def _strip(t: str, content: str, start: int, stop: int) -> str:
    a = 0
    while a < min(start, len(t)) and t[a] == content:
        a += 1
    b = len(t)
    for _ in range(stop):
        if b > a and t[b - 1] == content:
            b -= 1
        else:
            break
    return t[a:b]
