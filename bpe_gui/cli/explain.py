"""``bpe-gui encode --explain``: an :class:`~bpe_gui.engine.tokenizers.explain.Explanation` as text.

Example (GPT-2 pattern, a tokenizer with the merges ``s t`` and ``e st``)::

    Pre-tokenizer: GPT-2, 6 rules, tried in order at each position
      rule 1  contraction  '(?:[sdmt]|ll|ve|re)
              an apostrophe and s, d, m, t, ll, ve or re: ...
      ...
    Merges: 2 (rank 0 was learned first)

    word 1  “lowest”  rule 2 · letters
      It ends where the text ends.
      start     l o w e s t
      rank 0    s + t → st       l o w e st
      rank 1    e + st → est     l o w est
      tokens    l o w est        ids 108 111 119 257
"""
from __future__ import annotations

from ..engine.display import readable
from ..engine.tokenizers import PLAYBACK_MAX, Explanation, ExplainedWord, show
from ..engine.text import PRESET_LABELS
from .render import render_tokens

DIM, BOLD, RESET = "\x1b[2m", "\x1b[1m", "\x1b[0m"
PREVIEW_IDS = 40   # the ids shown of a word too long to play back


def symbols_text(symbols, color: bool) -> str:
    """Symbols separated by spaces (or as coloured blocks on a terminal)."""
    return render_tokens(list(symbols), [False] * len(symbols), color)


def format_explanation(ex: Explanation, color: bool = False) -> str:
    label = PRESET_LABELS.get(ex.preset or "", "custom pattern")
    dim, bold, reset = (DIM, BOLD, RESET) if color else ("", "", "")
    n = len(ex.branches)
    lines = [f"Pre-tokenizer: {ex.title}" if ex.title else
             f"Pre-tokenizer: {label}, {n} rule{'s' if n != 1 else ''}, tried in order "
             "at each position"]
    width = max(len(b.name) for b in ex.branches)
    for b in ex.branches:
        lines.append(f"  rule {b.index + 1:<2} {b.name:<{width}}  {dim}{b.source}{reset}")
        lines.append(f"  {'':8}{b.about}")
    lines.append(f"Merges: {ex.n_merges:,} (rank 0 was learned first)")
    for k, w in enumerate(ex.words, 1):
        lines.append("")
        lines.extend(_word_lines(ex, k, w, color, bold, reset))
    return "\n".join(lines)


def _word_lines(ex: Explanation, k: int, w: ExplainedWord, color: bool, bold: str,
                reset: str) -> list[str]:
    if w.special:
        return [f"word {k}  {bold}“{w.text}”{reset}  special token, id {w.special_id}",
                f"  {w.reason}"]
    b = ex.branches[w.branch]
    out = [f"word {k}  {bold}“{show(w.text, 60)}”{reset}  {b.label}", f"  {w.reason}"]
    pb = w.playback
    if pb is None and w.token_ids is not None:
        ids = " ".join(map(str, w.token_ids[:PREVIEW_IDS]))
        more = f" … ({len(w.token_ids):,} in all)" if len(w.token_ids) > PREVIEW_IDS else ""
        return out + [f"  {len(w.text):,} characters: longer than the {PLAYBACK_MAX:,} a "
                      "merge-by-merge playback shows", f"  {'tokens':<9} ids {ids}{more}"]
    if pb is None:
        return out
    if not pb.symbols:
        return out + ["  (no symbols: a character-level tokenizer drops whitespace)"]
    rows = [("start", "", symbols_text(pb.symbols, color))]
    for st in pb.steps:
        if st.rank is None:
            rows.append(("rule", f"whole word → {readable(st.token)}",
                         symbols_text(st.symbols, color)))
            continue
        pair = f"{readable(st.pair[0])} + {readable(st.pair[1])} → {readable(st.token)}"
        rows.append((f"rank {st.rank}", pair, symbols_text(st.symbols, color)))
    pw = max(len(r[1]) for r in rows)
    for head, pair, syms in rows:
        out.append(f"  {head:<9} {pair:<{pw}}  {syms}".rstrip())
    for st in pb.steps:
        if st.rule:
            out.append(f"  {st.rule}")
    ids = " ".join(map(str, pb.final_ids))
    out.append(f"  {'tokens':<9} {'':<{pw}}  {symbols_text(pb.final_symbols, color)}  ids {ids}")
    return out
