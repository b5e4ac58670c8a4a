"""What every trainer offers: :class:`TrainerProtocol`, the one interface the window and
the command line use of a training run, whatever trains (in the spirit of HF
tokenizers' ``Trainer`` trait).

Four classes satisfy it:

- :class:`~.trainer.Trainer`: BPE from the base alphabet;
- :class:`~.inherited.InheritedTrainer`: training on from a tokenizer's merges
  (``n_inherited`` of them kept as they are);
- :class:`~.superbpe_run.SuperBPERun`: SuperBPE's two stages as one run of steps
  (``transition``: the last step of stage 1);
- :class:`~.parity.ParityTrainer`: parity-aware training on several languages
  (``parity``: whose turn each step was, each language's tokens).

What tells them apart is data, not their type: ``spec.mode``, ``n_inherited`` (0 unless
training on), ``transition`` (None unless SuperBPE), ``parity`` (None unless
parity-aware), ``skip_reason(a, b)`` (None unless SuperBPE's stage 2 would never merge the
pair). A caller asks these; it never checks which class it holds. What they answer alike
(goto over step and undo, the vocabulary as of now) is :class:`~.trainer.RunCommon`'s.

Step k is the state after k merges of this run (inherited merges are not steps); every
merge is a frozen :class:`~.trainer.MergeStep`. ``tokenizer(at_step=k)`` is the
tokenizer as of step k, with the inherited merges and the first k of this run.

The protocol is checked by mypy: the block at the end of this module assigns each of
each of the four to it, so a trainer that drifts (a member renamed, a return type
changed) fails the type check, and code typed with the protocol can use nothing else.

Example::

    def train_to(t: TrainerProtocol, k: int) -> Tokenizer:
        t.goto(k)
        return t.tokenizer()
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from ..corpus.table import PretokenTable
from ..errors import CancelFn
from ..tokenizers.trained import Tokenizer
from .trainer import MergeStep, PairRow, Stop, TrainSettings

if TYPE_CHECKING:
    from .parity import ParityTrainer
    from .spec import TrainingSpec


class TrainerProtocol(Protocol):
    """A training run of merge steps (see the module docstring)."""

    # ----- facts fixed for this run -------------------------------------------------------
    # what it trains (build_run, the one factory, sets it; None for a run made by hand)
    spec: TrainingSpec | None

    @property
    def settings(self) -> TrainSettings:
        """The settings it trains with (``retarget`` may change the stopping target)."""
    @property
    def table(self) -> PretokenTable:
        """The pre-token table of the corpus, counted with the settings' pattern and
        special tokens (SuperBPE: stage 1's)."""
    @property
    def n_initial(self) -> int:
        """Ids before the first step: base symbols and special tokens, or the whole
        vocabulary trained on from."""
    @property
    def n_base(self) -> int: ...
    @property
    def base(self) -> Sequence[bytes]: ...
    @property
    def special_ids(self) -> Sequence[int]: ...
    @property
    def n_inherited(self) -> int:
        """Merges taken as they are from another tokenizer before step 0 (0: none)."""
    @property
    def transition(self) -> int | None:
        """SuperBPE: the last step of stage 1 (stage 2's pattern cuts text after it);
        None for a run of one stage."""
    @property
    def parity(self) -> ParityTrainer | None:
        """Parity-aware training: the languages, whose turn each step was, their tokens
        step by step (the run's ParityTrainer); None for a run on one corpus."""

    # ----- the step it is at ----------------------------------------------------------------
    @property
    def steps(self) -> Sequence[MergeStep]:
        """The records of the steps made, in order (step k is ``steps[k - 1]``)."""
    @property
    def n_steps(self) -> int: ...
    @property
    def furthest_step(self) -> int:
        """The furthest step made, counting steps undone since (``tokenizer(redo=True)``)."""
    @property
    def target_steps(self) -> int | None:
        """Steps until the target, or None when it depends on pruning."""
    @property
    def vocab_size(self) -> int: ...
    @property
    def vocab_bytes(self) -> Sequence[bytes]:
        """Token bytes by id as of now."""
    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """Every merge as of now, the inherited ones first."""
    @property
    def corpus_tokens(self) -> int:
        """Tokens the training corpus is cut into now."""
    @property
    def word_texts(self) -> list[str]: ...

    def stop(self) -> Stop | None:
        """Why training stops at this step, or None while it goes on."""
    @property
    def is_done(self) -> bool: ...
    def best_pair(self) -> tuple[int, int, int] | None: ...
    def top_pairs(self, k: int = 200) -> list[PairRow]: ...
    def tied_now(self, limit: int = 50) -> tuple[int, list[tuple[int, int]]]: ...
    def next_choice(self, limit: int = 50) -> MergeStep | None: ...
    def skip_reason(self, a: int, b: int) -> str | None:
        """Why the next steps would never merge the pair (a, b) (SuperBPE's stage 2), or
        None."""
    def symbol_count(self, i: int) -> int: ...

    # ----- stepping -----------------------------------------------------------------------
    def step(self, detail: bool = True) -> MergeStep | None:
        """One merge: its record, or None when training is done."""
    def undo(self) -> MergeStep | None:
        """Back one merge: the record undone, or None at step 0."""
    def goto(self, k: int, *, detail: bool = True) -> None:
        """To step k: undo back, or run forward."""
    def run(self, until: int | None = None,
            progress: Callable[[int, int], None] | None = None,
            cancel: CancelFn | None = None, detail: bool = True) -> Sequence[MergeStep]:
        """Step until the target (or step ``until``); the new records."""
    def can_retarget(self, settings: TrainSettings) -> bool:
        """True when ``settings`` differ only in when to stop (see ``retarget``)."""
    def retarget(self, settings: TrainSettings) -> int:
        """A new stopping target on this run: back to it if past, else it goes on from
        here later. Returns the step it is at."""

    # ----- tokenizers ---------------------------------------------------------------------
    def tokenizer(self, at_step: int | None = None, redo: bool = False) -> Tokenizer:
        """The tokenizer as of step ``at_step`` (default: now); ``redo`` also serves
        undone steps up to ``furthest_step``."""


if TYPE_CHECKING:   # mypy: each trainer satisfies the protocol (a drift fails the check)
    from .inherited import InheritedTrainer
    from .superbpe_run import SuperBPERun
    from .trainer import Trainer

    def _satisfy(plain: Trainer, on: InheritedTrainer, superbpe: SuperBPERun,
                 parity: ParityTrainer) -> None:
        checked: TrainerProtocol = plain       # an error here names the missing member
        checked = on
        checked = superbpe
        checked = parity
        del checked
