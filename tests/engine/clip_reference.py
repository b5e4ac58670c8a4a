"""CLIP's SimpleTokenizer written out slowly: the oracle of CLIP's merges file (OpenAI
CLIP and open_clip are not installed here: they need torch). Its cleaning is open_clip's
``_clean_lower``, step for step: ``ftfy.fix_text``, ``html.unescape`` twice, strip,
whitespace runs joined by one space, lowercase."""
from __future__ import annotations

import html
from pathlib import Path

import ftfy
import regex

from bpe_gui.engine.formats.clip_fmt import byte_alphabet, read_clip_merges


def clip_reference(path: Path):
    """CLIP's SimpleTokenizer (open_clip's tokenizer.py), written out slowly."""
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
        text = ftfy.fix_text(text)                          # basic_clean
        text = html.unescape(html.unescape(text)).strip()
        text = " ".join(text.split()).strip().lower()       # whitespace_clean, lower
        out: list[int] = []
        for piece in pat.findall(text):
            out += [enc[t] for t in bpe("".join(b2u[b] for b in piece.encode("utf-8")))]
        return out
    return encode
