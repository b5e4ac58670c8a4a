"""Line-local token colours and the encode view's incremental re-colouring after a step.

``group_parity(offsets, line_starts)`` restarts the alternating colour at each line, so
a merge changes the colours of its own lines only; the encode view then re-colours only
the lines whose tokens changed (``_colour_visible_now``). Checked here against an
independent re-implementation of the rule, a fresh encode by the engine, and a full
re-colouring of the view (``colour_all``).
"""
from __future__ import annotations

from bisect import bisect_right

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtWidgets import QApplication

from bpe_gui.engine.tokenizers.trained import Tokenizer
from bpe_gui.gui.models.encoding import group_parity
from bpe_gui.gui.panels.encode.encode_view import EncodeView


# ----- the colour rule, written again here ------------------------------------------------

def parity_oracle(offsets, line_starts) -> list[int]:
    """Tokens that share a character form a group; groups alternate 0/1 along a line;
    the first group on a line gets 0 unless the group before it reaches into that line
    (then it alternates with it)."""
    def line_of(c: int) -> int:          # the start of the line holding character c
        k = bisect_right(line_starts, c)
        return line_starts[k - 1] if k else 0

    out: list[int] = []
    colour = None
    reach = None          # the furthest end of any token so far
    group_line = None     # the line the current group begins on
    for s, e in offsets:
        if reach is not None and s < reach:
            out.append(colour)                      # shares a character: same group
        else:
            here = line_of(s)
            if colour is None:
                colour = 0
            elif here == group_line or reach > here:
                colour = 1 - colour
            else:
                colour = 0
            group_line = here
            out.append(colour)
        reach = e if reach is None else max(reach, e)
    return out


def groups_of(offsets) -> list[list[int]]:
    """Token indices by group (tokens sharing a character, transitively)."""
    groups: list[list[int]] = []
    reach = None
    for i, (s, e) in enumerate(offsets):
        if reach is not None and s < reach:
            groups[-1].append(i)
        else:
            groups.append([i])
        reach = e if reach is None else max(reach, e)
    return groups


@st.composite
def offsets_and_lines(draw):
    """Token spans with non-decreasing starts: touching, overlapping (a character split
    over several byte tokens) or with gaps; and ascending line starts."""
    n = draw(st.integers(0, 40))
    s = draw(st.integers(0, 3))
    offsets = []
    for _ in range(n):
        length = draw(st.integers(1, 4))
        offsets.append((s, s + length))
        # next start: inside this token (shared characters), right after it, or a gap
        s = draw(st.sampled_from([s, s + length - 1, s + length, s + length,
                                  s + length, s + length + 1]))
        s = max(s, offsets[-1][0])
    top = (offsets[-1][1] if offsets else 0) + 3
    lines = sorted(draw(st.sets(st.integers(1, top), max_size=12)))
    if draw(st.booleans()):
        lines = [0] + lines
    return offsets, lines


def test_docstring_examples():
    assert group_parity([(0, 2), (2, 3), (2, 3), (3, 4)]) == [0, 1, 1, 0]
    assert group_parity([(0, 2), (2, 3), (3, 5)], [0, 3]) == [0, 1, 0]
    assert group_parity([]) == []
    assert group_parity([], [0, 5]) == []


def test_hand_made_cases():
    # a line break between every token: every group begins a line and gets 0
    assert group_parity([(0, 1), (2, 3), (4, 5)], [0, 2, 4]) == [0, 0, 0]
    # a token reaching over the line start: the next line continues its alternation
    assert group_parity([(0, 1), (1, 4), (4, 5)], [0, 3]) == [0, 1, 0]
    assert group_parity([(0, 4), (4, 5)], [0, 3]) == [0, 1]
    # a split character (three byte tokens on one character) is one group
    assert group_parity([(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)], [0]) == [0, 1, 1, 1, 0]
    # a group on a line after empty lines starts at 0 too
    assert group_parity([(0, 2), (2, 3), (6, 8)], [0, 4, 5, 6]) == [0, 1, 0]
    # without line starts: one long line
    assert group_parity([(0, 1), (2, 3), (4, 5)]) == [0, 1, 0]


@settings(max_examples=150, deadline=None)
@given(offsets_and_lines())
def test_group_parity_matches_the_rule(case):
    offsets, lines = case
    assert group_parity(offsets, lines) == parity_oracle(offsets, lines)
    assert group_parity(offsets) == parity_oracle(offsets, [])


@settings(max_examples=150, deadline=None)
@given(offsets_and_lines())
def test_neighbouring_groups_on_a_line_differ(case):
    offsets, lines = case
    par = group_parity(offsets, lines)
    assert len(par) == len(offsets) and set(par) <= {0, 1}
    groups = groups_of(offsets)
    for g in groups:                                  # one colour per group
        assert len({par[i] for i in g}) == 1
    for g, h in zip(groups, groups[1:]):
        a, b = offsets[g[0]][0], offsets[h[0]][0]
        same_line = bisect_right(lines, a) == bisect_right(lines, b)
        reach = max(offsets[i][1] for i in range(h[0]))
        line_start = lines[bisect_right(lines, b) - 1] if bisect_right(lines, b) else 0
        if same_line or reach > line_start:
            assert par[g[0]] != par[h[0]], (offsets, lines, g, h)
        else:
            assert par[h[0]] == 0                     # a fresh line starts at 0


@settings(max_examples=80, deadline=None)
@given(offsets_and_lines(), offsets_and_lines())
def test_a_line_colours_independently_of_the_lines_before(head, tail):
    """What makes line-by-line re-colouring sound: when no token crosses a line start,
    the colours after it do not depend on the tokens before it."""
    (h_off, h_lines), (t_off, t_lines) = head, tail
    cut = (max((e for _, e in h_off), default=0) + max(h_lines, default=0)) + 1
    shifted = [(s + cut, e + cut) for s, e in t_off]
    lines = sorted(set(h_lines) | {cut} | {x + cut for x in t_lines})
    alone = group_parity(shifted, [x for x in lines if x >= cut])
    assert group_parity(h_off + shifted, lines)[len(h_off):] == alone
    other_head = [(s, s + 1) for s, _ in h_off[::2]]   # a different tokenization before
    assert group_parity(other_head + shifted, lines)[len(other_head):] == alone


# ----- the encode view ---------------------------------------------------------------------

LINES = [
    "low lower lowest",
    "newest widest",
    "你好世界",
    "the wider newer low",
    "世界 new 你好",
    "lowest widest newest",
    "old older oldest",
    "你 好 世 界",
    "newer lower wider",
    "we sell the widest low",
    "好世界你",
    "newest 你好 lowest",
    "low low low",
    "widest newest oldest",
    "界世好你 wide",
    "new lows",
    "the end",
    "你好, 世界!",
]
TEXT = "\n".join(LINES)
CORPUS = "\n".join(LINES * 4) + "\nlowest newest widest 你好世界 你好 世界\n" * 6


# A custom pre-tokenizer whose words run over line ends (6-character chunks): then a
# token can reach into the next line, and a merge on one line can change the colours of
# the next one (the view must see that, not only compare token spans).
CROSSING = r"[\s\S]{1,6}"


pytestmark = pytest.mark.controller(CORPUS)
BOTH_PATTERNS = pytest.mark.parametrize("controller", [dict(pattern="gpt2"),
                                                       dict(pattern=CROSSING)],
                                        ids=["gpt2", "crossing-lines"], indirect=True)


def make_view(qtbot, controller, width: int, height: int, text_share: float) -> EncodeView:
    v = EncodeView(controller)
    qtbot.addWidget(v)
    v.resize(width, height)
    v.show()
    qtbot.waitExposed(v)
    total = sum(v.splitter.sizes())
    v.splitter.setSizes([int(total * text_share), total - int(total * text_share)])
    QApplication.processEvents()
    return v


def fresh_encoding(controller, text: str):
    t = controller.trainer
    s = t.settings
    tok = Tokenizer(t.vocab, t.merges, list(s.special_tokens), pattern=s.pattern, mode=s.mode,
                    end_of_word=s.end_of_word)
    return tok.encode_with_offsets(text, allowed_special="all")


def expected_formats(controller, text: str) -> list[int]:
    """The format index each character should show (as ``format_kinds`` reports it),
    from a fresh encode and the colour rule above: 0/1 plain, 2/3 part of a character,
    -1 for the line breaks (no format: they end a block)."""
    enc = fresh_encoding(controller, text)
    lines = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    par = parity_oracle(enc.offsets, lines)
    out = [-1] * len(text)
    for i, ((s, e), token) in enumerate(zip(enc.offsets, enc.tokens)):
        try:
            token.decode("utf-8")
            kind = 0
        except UnicodeDecodeError:
            kind = 2
        fmt = 4 if enc.special and enc.special[i] else kind + par[i]
        for ch in range(s, e):
            if text[ch] != "\n":
                out[ch] = fmt
    return out


def visible_blocks(view: EncodeView) -> list[int]:
    edit = view.edit
    block = edit.firstVisibleBlock()
    out = []
    while block.isValid():
        top = edit.blockBoundingGeometry(block).translated(edit.contentOffset()).top()
        if top > edit.viewport().height():
            break
        out.append(block.blockNumber())
        block = block.next()
    return out


def block_chars(view: EncodeView, n: int) -> range:
    block = view.edit.document().findBlockByNumber(n)
    return range(block.position(), block.position() + block.length() - 1)


def line_signatures(controller, text: str) -> list[tuple]:
    """Per line: its tokens' spans and the formats its characters should show."""
    enc = fresh_encoding(controller, text)
    fmts = expected_formats(controller, text)
    out, pos = [], 0
    for line in text.split("\n"):
        end = pos + len(line)
        spans = tuple((s, e) for s, e in enc.offsets if s < end + 1 and e > pos)
        out.append((spans, tuple(fmts[pos:end])))
        pos = end + 1
    return out


class RehighlightSpy:
    """Records the lines the view re-colours (wraps highlighter.rehighlightBlock)."""

    def __init__(self, view: EncodeView):
        hl = view.highlighter
        self.real = hl.rehighlightBlock
        self.lines: list[int] = []
        hl.rehighlightBlock = self

    def __call__(self, block):
        self.lines.append(block.blockNumber())
        return self.real(block)

    def take(self) -> set[int]:
        got, self.lines = set(self.lines), []
        return got


@BOTH_PATTERNS
def test_step_recolours_only_changed_lines_and_matches_a_full_recolour(qtbot, controller):
    view = make_view(qtbot, controller, 1000, 1500, 0.85)
    view.set_text(TEXT)
    n_lines = len(LINES)
    assert view.edit.document().blockCount() == n_lines
    assert visible_blocks(view) == list(range(n_lines)), "every line must be on screen"
    assert not TEXT.isascii()
    spy = RehighlightSpy(view)
    path = list(range(1, 41)) + list(range(39, -1, -1)) + [25, 3, 40, 0]
    sig = line_signatures(controller, TEXT)
    partial_seen = reused_steps = crossing_seen = 0
    for k in path:
        controller.goto(k)
        QApplication.processEvents()
        assert controller.step_index == k
        assert view.state.last_mode == "step", k        # followed merge by merge, not re-encoded
        shown = view.format_kinds()               # incrementally updated
        redone = spy.take()
        assert shown == expected_formats(controller, TEXT), k
        new_sig = line_signatures(controller, TEXT)
        changed = {n for n in range(n_lines) if new_sig[n] != sig[n]}
        # every line whose colours changed was re-coloured; no line whose tokens and
        # colours stayed the same was
        must = {n for n in range(n_lines) if new_sig[n][1] != sig[n][1]}
        assert must <= redone, (k, must - redone)
        assert redone <= changed, (k, redone - changed)
        if redone and len(redone) < n_lines:
            reused_steps += 1
        partial_seen += 2 in shown or 3 in shown
        crossing_seen += any("\n" in TEXT[s:e - 1] for s, e in view.encoding.offsets)
        sig = new_sig
        view.colour_all()                          # a full re-colouring agrees
        spy.take()
        assert view.format_kinds() == shown, k
    assert reused_steps >= 10                      # most steps touched only some lines
    assert partial_seen                            # Chinese split over byte tokens
    if controller.trainer.settings.pattern == CROSSING:
        assert crossing_seen >= 10                 # tokens ran over line ends


@BOTH_PATTERNS
def test_lines_scrolled_into_view_are_coloured_for_the_current_step(qtbot, controller):
    lines = (LINES * 3)[:45]
    text = "\n".join(lines)
    view = make_view(qtbot, controller, 700, 330, 0.6)
    view.set_text(text)
    shown0 = visible_blocks(view)
    assert 0 in shown0 and len(shown0) < len(lines) // 2, "the view must be too small"
    spy = RehighlightSpy(view)
    bar = view.edit.verticalScrollBar()

    def check_on_screen(tag):
        QApplication.processEvents()
        want = expected_formats(controller, text)
        got = view.format_kinds()
        on = visible_blocks(view)
        assert on
        for n in on:
            chars = block_chars(view, n)
            assert got[chars.start:chars.stop] == want[chars.start:chars.stop], (tag, n)
        return on

    for k in range(1, 13):                         # steps while the top is shown
        controller.goto(k)
        check_on_screen(("top", k))
    redone_top = spy.take()
    assert redone_top and max(redone_top) < len(lines) // 2   # only lines on screen

    bar.setValue(bar.maximum())                    # the bottom: coloured as of step 12
    on = check_on_screen("bottom")
    assert len(lines) - 1 in on
    assert spy.take() >= {n for n in on if n not in shown0}

    for k in (13, 14, 15, 30, 31):                 # steps while the bottom is shown
        controller.goto(k)
        check_on_screen(("bottom", k))
    bar.setValue(0)                                # the top again: coloured as of step 31
    on = check_on_screen("top again")
    assert 0 in on

    bar.setValue(bar.maximum() // 2)               # the middle, never shown before
    check_on_screen("middle")
    controller.goto(4)                             # back, then to the bottom again
    check_on_screen(("middle", 4))
    bar.setValue(bar.maximum())
    check_on_screen("bottom again")
    # everything shown now agrees with a full re-colouring
    shown = view.format_kinds()
    view.colour_all()
    full = view.format_kinds()
    for n in visible_blocks(view):
        chars = block_chars(view, n)
        assert shown[chars.start:chars.stop] == full[chars.start:chars.stop], n
    assert full == expected_formats(controller, text)
