"""Questions widgets ask about the corpus and the training run (``controller.queries``),
so no widget reads the trainer's tables or pre-tokenizes text itself. :class:`Queries`
is given what it reads: the trainer, its view, whether it is stale, the corpus and the
settings.

Each answer is either known cheaply (from the trainer's pre-token table, a word-count
table, or a small text counted at once) or None ("not known yet": the widget says
when it will be).
"""
from __future__ import annotations

from typing import Callable

from ...engine import analysis
from ...engine.corpus import table_from_text
from ...engine.errors import BPEError
from ...engine.text import Pretokenizer
from ...engine.train import RunCommon, TrainSettings, n_base_symbols
from .corpus_source import Corpus
from .trainer_view import TrainerView

TINY_CHARS = 20_000            # a text this short is pre-tokenized at once when asked
CHAR_BASE_LIMIT = 5_000_000    # a longer text's character alphabet is not counted here


class Queries:
    """Corpus and run queries of the controller (see the module docstring)."""

    def __init__(self, trainer: Callable[[], RunCommon | None],
                 view: Callable[[], TrainerView | None], stale: Callable[[], bool],
                 corpus: Callable[[], Corpus],
                 settings: Callable[[], TrainSettings]):
        self._trainer, self.view, self._stale = trainer, view, stale
        self._corpus, self._settings = corpus, settings
        self._char_base_cache: tuple | None = None

    def _view_of_corpus(self) -> TrainerView | None:
        """The trainer's view if it was built from this corpus and these settings (and
        may be read: view() is None while a job runs the trainer)."""
        if self._trainer() is None or self._stale():
            return None
        return self.view()

    def corpus_pretokens(self) -> tuple[int, int] | None:
        """(pre-tokens, unique pre-tokens) of the corpus: the trainer's counts when it
        was built from this corpus and these settings, a word-count table's, or
        counted now for a tiny text; else None."""
        v = self._view_of_corpus()
        if v is not None:
            counts = v.corpus_counts()
            return counts.words, counts.unique
        corpus, settings = self._corpus(), self._settings()
        table = corpus.table
        if table is not None:
            return table.total, len(table)
        text = corpus.text
        if len(text) <= TINY_CHARS and not corpus.streamed:
            try:
                words = Pretokenizer(settings.pattern, settings.cut_at).words(text)
            except Exception:  # a bad pattern is reported by the settings panel
                return None
            return len(words), len(set(words))
        return None

    def corpus_text_counts(self) -> tuple[int, int] | None:
        """(characters, bytes) of the text of the corpus as training read it (a
        streamed corpus is only counted by training), or None before that."""
        v = self._view_of_corpus()
        if v is not None:
            counts = v.corpus_counts()
            return counts.chars, counts.bytes
        return None

    def char_alphabet_size(self) -> int | None:
        """How many base symbols character mode has on this corpus (the trainer's rule,
        ``trainer.n_base_symbols``, on the corpus's words under the current pattern and
        special tokens), or None when the whole corpus is not at hand (streamed, or
        longer than CHAR_BASE_LIMIT characters) or the pattern does not compile."""
        v = self.view()
        if v is not None and not self._stale() and v.settings.mode == "char":
            return v.n_base
        corpus = self._corpus()
        text = corpus.text
        if len(text) > CHAR_BASE_LIMIT or corpus.streamed:
            return None
        s = self._settings()
        key = (text, s.pattern, tuple(s.cut_at))
        cached = self._char_base_cache
        if cached is None or cached[0] != key:
            try:   # the trainer's own rule, on the words the trainer would see
                table = table_from_text(text, Pretokenizer(s.pattern, s.cut_at))
            except BPEError:  # a bad pattern or special token: the settings panel says so
                return None
            cached = self._char_base_cache = (key, n_base_symbols(table, "char"))
        return cached[1]

    def corpus_special_counts(self) -> dict[str, int] | None:
        """How often each special token occurs in the corpus the trainer was built from,
        or None when that is not known: a streamed corpus (only its start is in the
        window) or a word-count table (it does not record them). Counted in the text
        when it is the trainer's (the same number of bytes)."""
        t, corpus = self._trainer(), self._corpus()
        if t is None:
            return None
        specials = t.settings.special_tokens
        if not specials:
            return {}
        text = corpus.text
        if corpus.table is not None or corpus.streamed:
            return None
        n_bytes = t.table.n_bytes
        if len(text) > 4 * n_bytes + 4 or len(text.encode("utf-8", "surrogatepass")) != n_bytes:
            return None
        return analysis.special_counts(text, specials)
