"""CLIP's SimpleTokenizer written out slowly: the oracle of CLIP's merges file (OpenAI
CLIP and open_clip are not installed here: they need torch and ftfy)."""
from __future__ import annotations

import html
import re
import unicodedata
from pathlib import Path

import regex

from bpe_gui.engine.formats.clip_fmt import byte_alphabet, read_clip_merges


def clip_reference(path: Path):
    """CLIP's SimpleTokenizer, written out slowly, with ftfy.fix_text replaced by the NFC
    it does (this app does not do ftfy's other repairs)."""
    cm = read_clip_merges(path)
    enc = {t: i for i, t in enumerate(cm.vocab())}
    ranks = {m: i for i, m in enumerate(cm.merges)}
    b2u = byte_alphabet()
    pat = regex.compile(r"""<start_of_text>|<end_of_text>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+"""
                        r"""|[\p{N}]|[^\s\p{L}\p{N}]+""", regex.IGNORECASE)

    def bpe(token: str) -> list[str]:
        if token in ("<start_of_text>", "<end_of_text>"):
            return [token]
        word = tuple(token[:-1]) + (token[-1] + "</w>",)
        while len(word) > 1:
            pairs = set(zip(word, word[1:]))
            best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
            if best not in ranks:
                break
            out, i = [], 0
            while i < len(word):
                if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            word = tuple(out)
        return list(word)

    def encode(text: str) -> list[int]:
        text = unicodedata.normalize("NFC", text)
        text = html.unescape(html.unescape(text)).strip()
        text = re.sub(r"\s+", " ", text).strip().lower()
        out: list[int] = []
        for piece in pat.findall(text):
            out += [enc[t] for t in bpe("".join(b2u[b] for b in piece.encode("utf-8")))]
        return out
    return encode
