"""The "What was it trained on?" dialog's tables (dialogs/training_mixture.py), over an
immutable :class:`~bpe_gui.engine.analysis.mixture.MixtureResult`:

- :class:`MixtureStepsModel`: one row per merge (step, the pair, the category that
  explains it best, the runner-up pair), optionally only the steps one category explains
  best (the result's ``evidence``);
- :class:`PairCountsModel`: for one step, each category's count of the merged pair and
  of the runner-up, and what the difference weighs in the mixture (share x difference):
  why the merge points to a category.
"""
from __future__ import annotations

from ...engine.analysis import MixtureResult, MixtureStep
from ...engine.display import readable
from .roles import ALIGN, ALIGN_RIGHT, DISPLAY, TOOLTIP, HeaderedTableModel

# MixtureStep's counts are per million bytes of each sample (mixture.PER)
PER_TEXT = "per million bytes of sample"


def pair_text(pair: tuple[bytes, bytes] | None) -> str:
    """'th + e' (readable bytes: · a space, ↵ a newline), or '—' for no pair."""
    if pair is None:
        return "—"
    return f"{readable(pair[0])} + {readable(pair[1])}"


class MixtureStepsModel(HeaderedTableModel):
    HEADERS = ("Step", "Merge", "Explained best by", "Runner-up")
    TIPS = ("The merge's rank in the merge list (1: learned first)",
            "The pair merged at this step",
            "The category that adds the most to the merge's lead over the runner-up: its "
            "share x (its count of the merge - its count of the runner-up) is the largest",
            "The pair that came closest to beating the merge under the inferred mixture")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result: MixtureResult | None = None
        self.rows: list[MixtureStep] = []
        self.category = ""

    def set_result(self, result: MixtureResult | None, category: str = "") -> None:
        """Show ``result``'s steps (only those ``category`` explains best, if given)."""
        self.beginResetModel()
        self.result, self.category = result, category
        steps = result.steps if result is not None else []
        if category and result is not None:
            keep = set(result.evidence.get(category, ()))
            steps = [s for s in steps if s.step in keep]
        self.rows = list(steps)
        self.endResetModel()

    def n_rows(self) -> int:
        return len(self.rows)

    def data(self, index, role=DISPLAY):
        if not index.isValid():
            return None
        s = self.rows[index.row()]
        col = index.column()
        if role == DISPLAY:
            return (f"{s.step:,}", pair_text(s.merge), s.best_category,
                    pair_text(s.runner_up))[col]
        if role == ALIGN and col == 0:
            return ALIGN_RIGHT
        if role == TOOLTIP:
            return f"Step {s.step:,}: {pair_text(s.merge)}; select it to compare the counts"
        return None

    def step_at(self, row: int) -> MixtureStep | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None


class PairCountsModel(HeaderedTableModel):
    HEADERS = ("Category", "Share", "Merge", "Runner-up", "Share × difference")
    TIPS = ("A category of the samples",
            "Its inferred share of the training data",
            f"Its sample's count of the merged pair just before this step, {PER_TEXT}",
            f"Its count of the runner-up pair, {PER_TEXT}",
            "Share × (merge count − runner-up count): what this category adds to the "
            "merge's lead in the mixture. The merge is explained when the sum is ≥ 0")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.step: MixtureStep | None = None
        self.shares: dict[str, float] = {}
        self.names: list[str] = []

    def set_step(self, step: MixtureStep | None, shares: dict[str, float]) -> None:
        self.beginResetModel()
        self.step, self.shares = step, dict(shares)
        self.names = list(shares) if step is not None else []
        self.endResetModel()

    def n_rows(self) -> int:
        return len(self.names)

    def values(self, name: str) -> tuple[float, float, float, float]:
        """(share, merge count, runner-up count, share x difference) of a category."""
        s = self.step
        assert s is not None
        share = self.shares.get(name, 0.0)
        m = s.counts.get(name, 0.0)
        r = s.runner_up_counts.get(name, 0.0)
        return share, m, r, share * (m - r)

    def data(self, index, role=DISPLAY):
        if not index.isValid() or self.step is None:
            return None
        name = self.names[index.row()]
        col = index.column()
        if role == DISPLAY:
            if col == 0:
                return name + (" ★" if name == self.step.best_category else "")
            share, m, r, w = self.values(name)
            return (f"{share:.1%}", f"{m:,.1f}", f"{r:,.1f}", f"{w:+,.1f}")[col - 1]
        if role == ALIGN and col > 0:
            return ALIGN_RIGHT
        if role == TOOLTIP and col == 0 and name == self.step.best_category:
            return "★: the category that explains this merge best"
        return None
