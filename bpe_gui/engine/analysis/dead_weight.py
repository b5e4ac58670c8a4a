"""Which tokens are dead weight: formed on a corpus, but almost always merged further.

PickyBPE (Chizhov et al. 2024) calls a token whose occurrences nearly all end inside a
larger token an intermediate token: the vocabulary pays for an id the model almost never
sees. Its measure, intersection over self (IoS), is the share of a token's occurrences
in which it is merged further. Here, on a corpus encoded by the tokenizer, every token
gets two counts:

* ``output``: how often it is a token of the encoding (what the model sees);
* ``merged``: how often it is formed while a word is merged and then merged again into a
  larger token (it is one side of a merge applied).

Every symbol that appears while a word is merged ends in one of the two, so the token's
occurrences are ``output + merged`` and ``IoS = merged / (output + merged)``. A token
taken whole by a rule (tiktoken's whole-word lookup, ``ignore_merges``) is an output and
its parts were never formed; symbols a rule replaces (a SentencePiece ``<unk>`` turned
into byte pieces) are neither.

How it is counted fast: the corpus is cut into the pieces the tokenizer's model gets
(for trained tokenizers, GPT-2 files and tiktoken files by the native scanner) and
counted; each distinct piece is merged by the model in C. The merges inside an output
token do not depend on the piece around it: merges apply lowest rank first, and a pair
across the token's edges is never merged (else the edge would not be there), so the
merges inside the token are those of its own symbols merged alone. So each output
token's build (which tokens it consumed) is learned once, from the playback of the first
piece that produces it, and every other piece only adds its output tokens' builds. A
SentencePiece model with UNUSED pieces (which are split back after merging) breaks
that rule: its pieces are each played back (``WordModel.context_free``).

The slow reference (tests/engine/analysis/test_dead_weight.py) replays every word's
merges one by one and counts.

Example::

    >>> dw = dead_weight_of(tok, [text])
    >>> dw.ios(tok.bytes_to_id[b" th"])
    0.98
    >>> [(t.id, t.merged, t.output) for t in dw.dead()[:3]]
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from .. import checks
from ..corpus.files import read_text_chunks
from ..errors import ArgumentError, Cancelled, CancelFn
from ..tokenizers.base import BaseTokenizer
from ..tokenizers.explain import safe_end, safe_start
from ..tokenizers.model import Playback, clean_text

THRESHOLD = 0.9          # PickyBPE's default
PART_CHARS = 1 << 20     # a long text is read in parts of about this many characters
_BATCH = 4096            # distinct pieces between progress reports and cancel checks

# (stage, done, total): "reading" (characters of the corpus), "merging" (distinct pieces)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class DeadToken:
    """One token over the threshold: its id, bytes and counts."""

    id: int
    token: bytes
    merged: int
    output: int

    @property
    def ios(self) -> float:
        return self.merged / (self.merged + self.output)


@dataclass(frozen=True)
class DeadWeight:
    """Each token's counts on a corpus (see the module docstring).

    ``output[i]``, ``merged[i]``: the counts of id ``i`` (absent: 0). ``removable``: the
    ids a merge makes (not base symbols, not special or added tokens): the tokens that
    could be dropped from a vocabulary, which :meth:`dead` lists.
    """

    output: Mapping[int, int]
    merged: Mapping[int, int]
    vocab: Mapping[int, bytes]
    removable: frozenset[int]
    n_pieces: int            # pieces of text the model merged (with repeats)
    n_chars: int             # characters read

    def occurrences(self, i: int) -> int:
        return self.output.get(i, 0) + self.merged.get(i, 0)

    def ios(self, i: int) -> float | None:
        """The share of token ``i``'s occurrences in which it is merged further, or None
        when it never occurs."""
        n = self.occurrences(i)
        return self.merged.get(i, 0) / n if n else None

    def dead(self, threshold: float = THRESHOLD, min_count: int = 1) -> list[DeadToken]:
        """The removable tokens whose IoS is at least ``threshold`` and that occur at
        least ``min_count`` times, the highest IoS first (then the most merged)."""
        threshold = checks.real(threshold, "DeadWeight.dead(threshold)")
        if not 0 <= threshold <= 1:
            raise ArgumentError(f"DeadWeight.dead(threshold): {threshold:g} is not an IoS; "
                                "give a share from 0 to 1 (PickyBPE's default is 0.9)")
        out = []
        for i in self.removable:
            m, o = self.merged.get(i, 0), self.output.get(i, 0)
            if m + o >= max(1, min_count) and m >= threshold * (m + o):
                out.append(DeadToken(i, self.vocab.get(i, b""), m, o))
        out.sort(key=lambda t: (-t.ios, -t.merged, t.id))
        return out

    def never_seen(self) -> int:
        """How many removable tokens never occur on this corpus."""
        return sum(1 for i in self.removable if not self.occurrences(i))

    def summary(self, threshold: float = THRESHOLD) -> str:
        """'312 of 1,744 merged tokens (17.9%) have IoS >= 0.9 on 120,431 pieces; 25
        never occur'"""
        n = len(self.removable)
        d = len(self.dead(threshold))
        share = f" ({100 * d / n:.1f}%)" if n else ""
        return (f"{d:,} of {n:,} merged tokens{share} have IoS ≥ {threshold:g} on "
                f"{self.n_pieces:,} pieces of text; {self.never_seen():,} never occur")


def dead_weight_of(tok: BaseTokenizer, texts: str | Iterable[str], *,
                progress: Progress | None = None, cancel: CancelFn | None = None,
                total_chars: int | None = None) -> DeadWeight:
    """Count every token of ``tok`` on ``texts`` (a text, or texts each encoded on its
    own: documents, files). A text longer than PART_CHARS is read in parts cut after a
    line break that ends every word of the preset patterns.

    ``progress(stage, done, total)``: "reading" in characters (``total_chars``, if given,
    else 0), then "merging" in distinct pieces; ``cancel()`` returning True raises
    :class:`~bpe_gui.engine.errors.Cancelled` between parts.
    """
    checks.instance(tok, BaseTokenizer, "dead_weight_of(tok)", "a Tokenizer")
    if isinstance(texts, str):
        texts = [texts]
    words: Counter[str] = Counter()
    specials: Counter[int] = Counter()
    count = _piece_counter(tok)
    done = 0
    for text in texts:
        checks.text(text, "dead_weight_of(texts) item")
        for part in _parts(text):
            if cancel is not None and cancel():
                raise Cancelled()
            count(clean_text(part), words, specials)
            done += len(part)
            if progress is not None:
                progress("reading", done, total_chars or 0)
    return dead_weight_of_pieces(tok, words, specials, n_chars=done, progress=progress,
                                 cancel=cancel)


def dead_weight_of_files(tok: BaseTokenizer, paths: Sequence[str | Path], *,
                         progress: Progress | None = None,
                         cancel: CancelFn | None = None) -> DeadWeight:
    """The same over files, each one text, streamed in chunks of about a MB (never held
    whole): UTF-8, .xz/.gz, a .jsonl file's ``text`` fields joined by newlines (as the
    corpus editor joins them). A chunk is counted up to the last line break that ends
    every word of the preset patterns (the rest waits for the next chunk), as
    :func:`dead_weight_of` reads a long text; a stretch of 4 * PART_CHARS characters
    without one is counted as it is. ``progress("files", bytes read on disk, their
    total)``, then "merging"; errors name the file (not UTF-8, binary, missing)."""
    files = [Path(checks.path(p, "dead_weight_of_files(paths) item")) for p in paths]
    sizes = []
    for f in files:
        try:
            sizes.append(f.stat().st_size)
        except OSError:
            sizes.append(0)   # reading it says what is wrong
    total = sum(sizes)
    words: Counter[str] = Counter()
    specials: Counter[int] = Counter()
    count = _piece_counter(tok)
    before = n_chars = 0
    for f, size in zip(files, sizes):
        carry = ""
        read = [0]

        def on_read(n: int) -> None:
            read[0] = n
        for chunk in read_text_chunks(f, on_read):
            if cancel is not None and cancel():
                raise Cancelled()
            buf = carry + chunk
            cut = safe_start(buf, len(buf)) if len(buf) < 4 * PART_CHARS else len(buf)
            if cut:
                count(clean_text(buf[:cut]), words, specials)
                n_chars += cut
            carry = buf[cut:]
            if progress is not None:
                progress("files", before + read[0], total)
        if carry:
            count(clean_text(carry), words, specials)
            n_chars += len(carry)
        before += size
    return dead_weight_of_pieces(tok, words, specials, n_chars=n_chars, progress=progress,
                                 cancel=cancel)


def dead_weight_of_pieces(tok: BaseTokenizer, pieces: Mapping[str, int] | Iterable[
                              tuple[str, int]],
                          specials: Mapping[int, int] | None = None, *, n_chars: int = 0,
                          progress: Progress | None = None,
                          cancel: CancelFn | None = None) -> DeadWeight:
    """The same from pieces already counted: ``pieces`` maps the text the model gets
    (a word of the tokenizer's pattern, for trained tokenizers: a training run's word
    table) to its count; ``specials`` maps special (and added) token ids to theirs."""
    items = list(pieces.items()) if isinstance(pieces, Mapping) else list(pieces)
    model = tok.model
    merge, whole = model.merge, model.whole
    context_free = model.context_free
    output: Counter[int] = Counter(specials or {})
    merged: Counter[int] = Counter()
    builds: dict[int, Counter[int]] = {}     # id -> the tokens its build consumed
    n_pieces = sum(specials.values()) if specials else 0
    total = len(items)
    for start in range(0, total, _BATCH):
        if cancel is not None and cancel():
            raise Cancelled()
        for word, n in items[start:start + _BATCH]:
            if n <= 0:
                continue
            n_pieces += n
            ids = merge(word)
            if len(ids) == 1 and whole(word) is not None:
                output[ids[0]] += n          # taken whole: its parts never formed
                continue
            if not context_free or any(c not in builds for c in ids):
                played = model.playback(word)
                consumed, finals, learned = _replay(played)
                if not context_free or learned is None:   # a rule rewrote the symbols
                    for c in ids:
                        output[c] += n
                    for c, k in consumed.items():
                        merged[c] += k * n
                    continue
                for c, build in zip(finals, learned):
                    builds.setdefault(c, build)
            for c in ids:
                output[c] += n
                for t, k in builds[c].items():
                    merged[t] += k * n
        if progress is not None:
            progress("merging", min(start + _BATCH, total), total)
    return DeadWeight(dict(output), dict(merged), tok.vocab, _removable(tok), n_pieces,
                      n_chars)


def _replay(played: Playback) -> tuple[Counter[int], tuple[int, ...],
                                       list[Counter[int]] | None]:
    """(the tokens the playback's merges consumed, its final ids, the build of each
    final token, or None when a rule step other than taking the piece whole rewrote
    the symbols)."""
    consumed: Counter[int] = Counter()
    ids = list(played.ids)
    builds: list[Counter[int]] | None = [Counter() for _ in ids]
    for st in played.steps:
        if st.rank is None:   # a rule
            if st.token_id >= 0 and len(st.ids) == 1:
                builds = [Counter()] if builds is not None else None   # taken whole
            else:
                builds = None
            ids = list(st.ids)
            continue
        new_builds: list[Counter[int]] = []
        last = 0
        for k in st.at:
            a, b = ids[k], ids[k + 1]
            consumed[a] += 1
            consumed[b] += 1
            if builds is not None:
                new_builds += builds[last:k]
                made = builds[k] + builds[k + 1]
                made[a] += 1
                made[b] += 1
                new_builds.append(made)
            last = k + 2
        if builds is not None:
            builds = new_builds + builds[last:]
        ids = list(st.ids)
    return consumed, tuple(ids), builds


def _removable(tok: BaseTokenizer) -> frozenset[int]:
    """The ids whose bytes some merge of the tokenizer makes, special tokens aside."""
    made = {a + b for a, b in tok.merges}
    special = set(tok.special_ids.values())
    return frozenset(i for i, t in tok.vocab.items() if t in made and i not in special)


def _parts(text: str) -> Iterable[str]:
    """The text in parts of about PART_CHARS characters, cut at :func:`safe_end`."""
    pos, n = 0, len(text)
    while pos < n:
        end = n if n - pos <= PART_CHARS else safe_end(text, pos + PART_CHARS)
        yield text[pos:end]
        pos = end


Count = Callable[[str, Counter, Counter], None]


def _piece_counter(tok: BaseTokenizer) -> Count:
    """A function adding a text's pieces (model input -> count) and special tokens (id
    -> count) to two counters: the words its pipeline's encode cuts without offsets
    (a pattern's words for trained tokenizers, GPT-2 and tiktoken files; a
    tokenizer.json's pre-tokenizer's), else the tokenizer's own
    :meth:`~BaseTokenizer.split`."""
    pipeline = getattr(tok, "pipeline", None)
    if pipeline is not None and getattr(pipeline, "plain", False):
        def by_plain_words(text: str, words: Counter, specials: Counter) -> None:
            for got, tid in pipeline.plain_words(text):
                if tid is not None:
                    specials[tid] += 1
                else:
                    words.update(w for w in got if w)
        return by_plain_words

    def by_split(text: str, words: Counter, specials: Counter) -> None:
        for p in tok.split(text):
            if p.special_id is not None:
                specials[p.special_id] += 1
            elif p.text:
                words[p.text] += 1
    return by_split


def ios_text(value: float | None) -> str:
    """An IoS as shown: '0.97', '1', or '' when the token never occurs."""
    if value is None:
        return ""
    return "1" if value == 1 else f"{value:.2f}"


__all__ = ["DeadToken", "DeadWeight", "PART_CHARS", "THRESHOLD", "dead_weight_of",
           "dead_weight_of_files", "dead_weight_of_pieces", "ios_text"]

