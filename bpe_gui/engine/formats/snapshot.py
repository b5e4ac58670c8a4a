"""A tokenizer as plain data for the writers (:class:`Snapshot`), the rules formats share
(byte-level only, preset names, file-name prefixes), and a trained tokenizer built from a
file's vocabulary and merges for the readers.

Exports build each file's full content in memory first (so a tokenizer a format cannot
express fails before anything touches the disk), then ``io.write_files`` replaces the
set of files all or none.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress
from operator import ne
from typing import TYPE_CHECKING


from ..errors import BPEError, FormatError
from ..text.presets import PRESETS
from ..text.pretokenize import Pretokenizer, resolve_pattern
from ..tokenizers.symbols import EOW, UNK

if TYPE_CHECKING:
    from ..tokenizers.trained import Tokenizer



def byte_level_only(fmt: str, mode: str) -> str | None:
    """The rule of the formats that hold byte-level tokenizers only (GPT-2 files,
    tiktoken): why not, for a character-level one; None for a byte-level one."""
    if mode == "byte":
        return None
    return (f"{fmt} holds byte-level tokenizers only; this one is character-level. Export "
            "the native JSON or Hugging Face tokenizer.json instead, or train in byte mode.")

@dataclass
class Snapshot:
    """A tokenizer as plain data, cut at the step it is showing (``Tokenizer.at_step``).

    ``vocab`` holds every id in use (base symbols, special tokens, merged tokens);
    ``merge_ids[k]`` is the id merge k produces; ``counts[k]`` its pair count, or None
    when the tokenizer was not trained here.
    """

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    merge_ids: list[int]
    special_tokens: list[str]
    special_ids: dict[str, int]
    mode: str
    end_of_word: str
    pattern: str                 # the regex itself
    pattern_setting: str         # preset name if it is one, else the regex
    counts: list[int | None]
    meta: dict = field(default_factory=dict)
    spm: object | None = None    # a SentencePiece model (its SpmModel): formats/spm_json.py

    @cached_property
    def eow_id(self) -> int | None:
        return self.token_id(EOW) if self.mode == "char" else None

    @cached_property
    def unk_id(self) -> int | None:
        return self.token_id(UNK) if self.mode == "char" else None

    def token_id(self, token: bytes) -> int | None:
        """The lowest non-special id with these bytes (the one encoding uses)."""
        specials = set(self.special_ids.values())
        return min((i for i, t in self.vocab.items() if t == token and i not in specials),
                   default=None)

    def duplicates(self) -> dict[int, int]:
        """Ids whose bytes an earlier id already has -> that earlier id.

        Such an id is never produced by encoding (the tokenizer maps bytes to the first
        id), so formats keyed by token text keep the first one only.
        """
        specials = set(self.special_ids.values())
        ids = [i for i in sorted(self.vocab) if i not in specials]
        tokens = list(map(self.vocab.__getitem__, ids))
        # built from the last id to the first: each bytes keep their lowest id
        first = dict(zip(reversed(tokens), reversed(ids)))
        if len(first) == len(ids):
            return {}
        return {i: first[t] for i, t in zip(ids, tokens) if first[t] != i}


def snapshot(tok: Tokenizer) -> Snapshot:
    """The exportable view of ``tok`` at the step it shows."""
    if _loaded_instance(tok.model, "tokenizers.imported.spm", "SpmModel"):  # scored merges
        return Snapshot(vocab=dict(tok.vocab), merges=[], merge_ids=[],
                        special_tokens=list(tok.special_tokens),
                        special_ids=dict(tok.special_ids), mode="spm", end_of_word="",
                        pattern=tok.pattern, pattern_setting=tok.pattern, counts=[],
                        meta=dict(tok.meta), spm=tok.model)
    n = tok.n_merges
    merges = [(bytes(a), bytes(b)) for a, b in tok.merges[:n]]
    # at_step() clones already hold only the tokens in use; drop later merges' tokens in
    # case a tokenizer shares its tables with one that has grown since
    later = {tok.bytes_to_id.get(a + b) for a, b in tok.merges[n:]}
    if later:
        later -= {tok.bytes_to_id[a + b] for a, b in merges}
    vocab = {i: bytes(t) for i, t in tok.vocab.items() if i not in later}
    specials, special_ids = list(tok.special_tokens), dict(tok.special_ids)
    if tok.meta.get("special_text_is_text"):
        # special tokens that are ids only (a tekken's: their text in the input is
        # ordinary text): left out, so no written format matches them in text
        vocab = {i: t for i, t in vocab.items() if i not in set(special_ids.values())}
        specials, special_ids = [], {}
    t2i = tok.bytes_to_id
    merge_ids = [t2i[a + b] for a, b in merges]
    meta = dict(tok.meta)
    counts = list(meta.get("merge_counts") or [])[:n]
    counts += [None] * (n - len(counts))
    setting = meta.get("pattern") or tok.pattern
    pattern, preset = resolve_pattern(setting)
    if pattern != tok.pattern:  # meta disagrees with the tokenizer: trust the tokenizer
        preset = preset_name(tok.pattern)
    setting = preset or tok.pattern  # a preset by its canonical name ('gpt4' -> 'cl100k')
    return Snapshot(vocab=vocab, merges=merges, merge_ids=merge_ids,
                    special_tokens=specials, special_ids=special_ids,
                    mode=tok.mode, end_of_word=tok.end_of_word, pattern=tok.pattern,
                    pattern_setting=setting, counts=counts, meta=meta)


def trainer_snapshot(trainer) -> Snapshot:
    """``snapshot(trainer.tokenizer())`` at the trainer's last step, made from its merges
    without building the tokenizer (the command line exports this way). A plain
    :class:`~..train.trainer.Trainer` or a parity trainer
    (:class:`~..train.parity.ParityTrainer`); any other kind of trainer goes through its
    tokenizer. The tokenizer's rules, as they apply here: token bytes map to their
    first id, so a special token spelled like a base symbol is that symbol's id, and a
    merge that makes bytes an earlier token has yields that token (its new id is left
    out of the vocabulary); tests/engine/formats/test_trainer_snapshot.py holds the two
    against each other."""
    from ..train.trainer import Trainer
    if type(trainer) is not Trainer:
        if _loaded_instance(trainer, "train.parity", "ParityTrainer"):
            return _parity_snapshot(trainer)
        return snapshot(trainer.tokenizer())
    s = trainer.settings
    n0 = trainer.n_initial
    merges = trainer.merges
    # the trainer's bytes of every id so far: the initial tokens, then each merge's a + b
    tokens = trainer.vocab_bytes[:n0 + len(merges)]
    # each bytes' lowest id (built from the last id down): the id a merge yields is the
    # lowest with its bytes, its own unless an earlier token has them (then its id is
    # left out of the vocabulary)
    lowest = dict(zip(reversed(tokens), range(len(tokens) - 1, -1, -1)))
    special_ids = {sp: lowest[sp.encode("utf-8")] for sp in s.special_tokens}
    merge_ids = list(map(lowest.__getitem__, tokens[n0:]))
    vocab = dict(enumerate(tokens))
    for i in compress(range(n0, len(tokens)), map(ne, merge_ids, range(n0, len(tokens)))):
        del vocab[i]
    meta = trainer.metadata()
    pattern, preset = resolve_pattern(s.pattern)
    return Snapshot(vocab=vocab, merges=merges, merge_ids=merge_ids,
                    special_tokens=list(s.special_tokens), special_ids=special_ids,
                    mode=s.mode, end_of_word=s.end_of_word, pattern=pattern,
                    pattern_setting=preset or pattern, counts=list(meta["merge_counts"]),
                    meta=meta)


def _loaded_instance(obj, module: str, cls: str) -> bool:
    """Whether ``obj`` is an instance of engine ``module``'s class ``cls``, without
    importing that module (an instance exists only once it is loaded): a plain run's
    export loads neither parity training nor the SentencePiece reader."""
    import sys
    mod = sys.modules.get(f"bpe_gui.engine.{module}")
    return mod is not None and isinstance(obj, getattr(mod, cls))


def _parity_snapshot(trainer) -> Snapshot:
    """A ParityTrainer's snapshot at its last step: its ids are its own (a merge whose
    token an earlier one made keeps that token's id, and no two ids share bytes), GPT-2's
    pattern at byte level, no special tokens."""
    steps = trainer.steps
    meta = trainer.metadata()
    pattern, preset = resolve_pattern(meta["pattern"])
    return Snapshot(vocab=dict(enumerate(trainer.vocab_bytes)),
                    merges=[(st.left, st.right) for st in steps],
                    merge_ids=[st.new_id for st in steps], special_tokens=[], special_ids={},
                    mode=meta["mode"], end_of_word=meta["end_of_word"], pattern=pattern,
                    pattern_setting=preset or pattern, counts=list(meta["merge_counts"]),
                    meta=meta)


def preset_name(pattern: str) -> str | None:
    """The preset a regex is, if any. Example: GPT2_PATTERN -> 'gpt2'."""
    return next((k for k, v in PRESETS.items() if v == pattern), None)


# Text on which a custom pattern must cut the same words in another regex engine
# (Oniguruma for tokenizers, fancy-regex for tiktoken) before it is exported there.
PROBE_TEXT = (
    "Hello, World! It's 3:45pm; we'll see... don't I'M 'quoted' x2 12345 3.14 -7\n"
    "  two  spaces\tand\ttabs \r\n\n\n trailing   \u00a0nbsp\u3000ideographic\u2028ls\n"
    "café naïve Ελληνικά русский עברית العربية हिन्दी 日本語のテキスト 中文，标点！한국어\n"
    "emoji 🙂👍🏽 👨\u200d👩\u200d👧 🇨🇳 def f(x):\n    return x**2  # comment\n"
    "a_b snake_case CamelCase ＡＢＣ１２３ ①②③ ½ \x1cq\x1d\x00 <|tag|> ----- ___ ...\n")


def words_differ(pattern: str, theirs: list[str]) -> str | None:
    """Where our words of PROBE_TEXT differ from another engine's, as a short note."""
    ours = Pretokenizer(pattern).words(PROBE_TEXT)
    if ours == theirs:
        return None
    k = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
             min(len(ours), len(theirs)))
    return (f"after {ours[max(0, k - 2):k]!r} it cuts {theirs[k:k + 2]!r} where this app cuts "
            f"{ours[k:k + 2]!r}")


# ----- file names -----------------------------------------------------------------------
def prefixed(name: str, standard: str) -> str:
    """Standard file names get a 'NAME-' prefix unless the name is the default.

    Example: ('tokenizer', 'vocab.json') -> 'vocab.json'; ('shakespeare', 'vocab.json')
    -> 'shakespeare-vocab.json' (the prefix Hugging Face's ``model.save`` uses).
    """
    return standard if name == "tokenizer" else f"{name}-{standard}"

def build_tokenizer(path, vocab, merges, special_tokens, **kw) -> Tokenizer:
    """Tokenizer(...) with its complaints turned into a FormatError about ``path``."""
    try:
        from ..tokenizers.trained import Tokenizer
        return Tokenizer(vocab, merges, special_tokens, **kw)
    except BPEError as e:
        raise FormatError(path, str(e)) from None
