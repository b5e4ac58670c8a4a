"""tiktoken ranks: ``NAME.tiktoken`` plus ``NAME.tiktoken.json`` (byte-level only).

``NAME.tiktoken`` is tiktoken's own format: one token per line, base64 of its bytes, a
space, its rank. Ranks are our ids, so ``tiktoken.Encoding`` returns our ids.
``NAME.tiktoken.json`` holds what the ranks file cannot: ``pat_str`` (the pattern),
``special_tokens`` ({text: id}) and ``name``; build the encoding with::

    meta = json.load(open("NAME.tiktoken.json"))
    ranks = tiktoken.load.load_tiktoken_bpe("NAME.tiktoken")
    enc = tiktoken.Encoding(meta["name"], pat_str=meta["pat_str"],
                            mergeable_ranks=ranks, special_tokens=meta["special_tokens"])

tiktoken keeps no merge list: it merges the adjacent pair whose *concatenation* has the
lowest rank. That is our merge order as long as every merged token's id grows with its
merge rank and every multi-byte token comes from a merge, which the export checks.
Loading runs the file as tiktoken does (tokenizers/imported/ranks.py): a piece that is a
token is taken whole, else the lowest-rank concatenation merges; a bare file of a
well-known encoding gets its pattern and special tokens (known_encodings.py).
"""
from __future__ import annotations

import base64
import warnings
from pathlib import Path
from typing import Any, Sequence

from ..tokenizers.base import BaseTokenizer
from ..display import readable
from ..errors import ExportError, FormatError, PatternAssumedWarning, PatternError
from .known_encodings import recognise
from ..tokenizers.imported.ranks import load_ranks
from ..text.dialects import DialectError, matches_empty, translate
from ..text.unicode_versions import TIKTOKEN
from ..text.pretokenize import Pretokenizer, resolve_pattern
from ..io.reading import as_id
from .snapshot import PROBE_TEXT, Snapshot, byte_level_only, preset_name, words_differ
from ._json import json_bytes, need
from ..io.reading import read_bytes, read_json
from . import spm_json

SUFFIX = ".tiktoken"
META_SUFFIX = ".tiktoken.json"


def file_names(name: str = "tokenizer") -> list[str]:
    return [name + SUFFIX, name + META_SUFFIX]


def settings_problem(mode: str, end_of_word: str, pattern: str) -> str | None:
    """Why this format cannot hold a tokenizer of these settings (None: it may); known
    before training (the command line asks, through formats.settings_problem)."""
    return byte_level_only("tiktoken", mode)


def dump(snap: Snapshot, name: str = "tokenizer") -> dict[str, bytes]:
    """File name -> content. Raises ExportError for tokenizers tiktoken cannot reproduce."""
    spm_json.refuse(snap.spm, "A .tiktoken file")
    why = settings_problem(snap.mode, snap.end_of_word, snap.pattern)
    if why is not None:
        raise ExportError(why)
    check_pattern(snap.pattern)
    for s in snap.special_tokens:
        longer = next((t for t in snap.special_tokens if t != s and t.startswith(s)), None)
        if longer is not None:
            raise ExportError(f"Special token {s!r} begins {longer!r}. tiktoken finds special "
                              "tokens in no fixed order, so it may cut the longer one as the "
                              "shorter one plus text; this tokenizer always takes the longest. "
                              "Rename one of them, or export Hugging Face files instead.")
    specials = set(snap.special_ids.values())
    dup = snap.duplicates()
    ranks = {i: t for i, t in snap.vocab.items() if i not in specials and i not in dup}
    made = set(snap.merge_ids)
    stray = [i for i, t in ranks.items() if len(t) > 1 and i not in made]
    if stray:
        i = min(stray)
        raise ExportError(f"Token {i} ({readable(ranks[i])!r}) is longer than one byte but no "
                          "merge makes it; tiktoken would still build it from its parts, so it "
                          "would encode differently. Export GPT-2 or Hugging Face files instead.")
    last = -1
    for k, i in enumerate(snap.merge_ids):
        if i in dup:
            continue  # a token made twice: tiktoken (like our encoder) uses the first id
        if i <= last:
            raise ExportError(f"Merge #{k + 1} makes token id {i}, lower than an earlier merge's "
                              f"id {last}; tiktoken applies merges in id order, so it would "
                              "encode differently. Export GPT-2 or Hugging Face files instead.")
        last = i
    lines = [f"{base64.b64encode(t).decode('ascii')} {i}" for i, t in sorted(ranks.items())]
    meta: dict[str, Any]
    meta = {"name": name, "pat_str": fancy_pattern(snap.pattern),
            "special_tokens": dict(snap.special_ids),
            "format": "bpe-gui tiktoken", "pattern": snap.pattern_setting}
    ids = sorted([*ranks, *specials])
    if ids == list(range(len(ids))):
        meta["explicit_n_vocab"] = len(ids)
    ranks_name, meta_name = file_names(name)
    return {ranks_name: ("\n".join(lines) + "\n").encode("ascii"), meta_name: json_bytes(meta)}


def fancy_pattern(pattern: str) -> str:
    """Our pattern (``regex`` syntax) as fancy-regex must read it to mean the same
    (text.dialects): the presets are written as they are (tiktoken's own) but for the
    classes, which get the code points they lack in tiktoken's Unicode version written
    out; a ``$`` becomes ``(?=\\n?\\z)`` (fancy-regex's ``$`` is only the end of the text)."""
    try:
        if matches_empty(pattern):
            raise DialectError("it can match empty text (an alternative such as \\w* or a "
                               "lone anchor; make each match a character at least, "
                               "\\w+), which tiktoken cannot encode")
        return translate(pattern, "regex", "fancy", widen=TIKTOKEN)
    except DialectError as e:
        raise ExportError(f"The pre-tokenizer pattern cannot be written for tiktoken's regex "
                          f"engine (fancy-regex) with the same meaning: {e}. Use a preset, or "
                          "leave that part out of the pattern.") from e


def check_pattern(pattern: str) -> None:
    """The pattern, written for fancy-regex (the regex engine inside tiktoken), must
    compile there and cut a test text as ours does."""
    fancy = fancy_pattern(pattern)
    try:
        import tiktoken
    except ImportError:  # nothing to check against; the pattern is written as it is
        return
    ranks = {bytes([b]): b for b in range(256)}
    try:
        tiktoken.Encoding("bpe-gui-check", pat_str=fancy, mergeable_ranks=ranks,
                          special_tokens={})
    except Exception as e:
        raise ExportError(f"The pre-tokenizer pattern cannot be used by tiktoken, whose regex "
                          f"engine (fancy-regex) rejects it: {str(e).splitlines()[0]}. Use a "
                          "preset or a pattern without `regex`-module-only syntax.") from e
    if preset_name(pattern):
        return  # the presets are tested to cut identically
    # tiktoken shows no word boundaries, but it emits a whole word as one token when the
    # word is in the vocabulary: make each of our words a token and compare
    ours = Pretokenizer(pattern).words(PROBE_TEXT)
    for w in ours:
        ranks.setdefault(w.encode("utf-8"), len(ranks))
    enc = tiktoken.Encoding("bpe-gui-check", pat_str=fancy, mergeable_ranks=ranks,
                            special_tokens={})
    got = enc.encode_ordinary(PROBE_TEXT)
    if got != [ranks[w.encode("utf-8")] for w in ours]:
        theirs = [enc.decode_single_token_bytes(t).decode("utf-8", "replace") for t in got]
        raise ExportError("The pre-tokenizer pattern means something else in tiktoken's regex "
                          f"engine (fancy-regex): on a test text, {words_differ(pattern, theirs)}. "
                          "Use a preset, or a pattern both engines read the same way.")


# ----- loading --------------------------------------------------------------------------
def meta_beside(path: Path) -> Path | None:
    """NAME.tiktoken -> NAME.tiktoken.json, else NAME.json, else None."""
    cands = [path.with_name(path.name + ".json")]
    if path.suffix == SUFFIX:   # not tokenizer.model -> tokenizer.json (a Hugging Face file)
        cands.append(path.with_suffix(".json"))
    for cand in cands:
        if cand.is_file():
            return cand
    return None


def load(path: str | Path, special_tokens: Sequence[str] | None = None, *,
         pattern: str | None = None, **kwargs) -> BaseTokenizer:
    """Load NAME.tiktoken (+ NAME.tiktoken.json / NAME.json beside it, if present).

    It encodes as ``tiktoken`` does (see tokenizers/imported/ranks.py). Without the JSON,
    a well-known encoding (r50k, p50k, cl100k, o200k, Llama 3) is recognised by its
    content and gets its pattern and special tokens; any other file gets the cl100k
    pattern unless ``pattern`` is given, and ``meta['encoding']`` stays None.
    """
    path = Path(path)
    data = read_bytes(path, "ranks")
    meta_path = meta_beside(path)
    specials_map: dict[str, int] = {}
    name = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem
    known = None
    pattern_from: Path | None = None   # the metadata file, when the pattern is its pat_str
    if meta_path is not None:
        meta = read_json(meta_path)
        if not isinstance(meta, dict):
            raise FormatError(meta_path, "should be a JSON object with 'pat_str' and "
                              "'special_tokens'.")
        pat = need(meta, "pat_str", str, meta_path, "the pattern, a string")
        raw = meta.get("special_tokens") or {}
        if not isinstance(raw, dict):
            raise FormatError(meta_path, "'special_tokens' should map each token to its id.",
                              key="special_tokens")
        specials_map = {s: as_id(i, meta_path, f"special_tokens.{s}") for s, i in raw.items()}
        if "" in specials_map:
            raise FormatError(meta_path, "a special token is empty (\"\"); give it some text "
                              "or remove it.", key="special_tokens")
        if pattern is None:  # keep a preset's name when the file names one
            pattern_from = meta_path
            setting = meta.get("pattern")
            pattern = setting if isinstance(setting, str) and _same(setting, pat) else pat
        name = meta.get("name", name)
    else:
        known = recognise(data)
        if known is not None:
            specials_map = dict(known.special_tokens)
            pattern = pattern or known.pat_str
            name = known.name
    guessed = pattern is None
    pattern = pattern or "cl100k"
    to_add = kwargs.pop("extra_special_tokens", None)
    if to_add:   # added to the file's: as tiktoken's Encoding(special_tokens={**own, ...})
        special_tokens = [*(specials_map if special_tokens is None else special_tokens),
                          *(t for t in to_add if t not in specials_map and
                            (special_tokens is None or t not in special_tokens))]
    if special_tokens is not None:   # the caller's list: known ids kept, new ones appended
        given, specials_map = specials_map, {}
        next_id = max([*given.values(), -1]) + 1
        for s in special_tokens:
            if s in given:
                specials_map[s] = given[s]
    meta_out = {"format": "tiktoken", "source": str(path), "name": name,
                "encoding": known.name if known else None,
                "encoding_label": known.label if known else None, **kwargs.pop("meta", {})}
    if guessed:   # nothing says which pattern: the caller is told which was assumed
        why = "no NAME.tiktoken.json beside it and not a well-known encoding"
        meta_out["pattern_guessed"] = ("cl100k", why)
    try:
        tok = load_ranks(path, data, pattern=pattern, specials=specials_map, meta=meta_out,
                         source=f"{pattern_from}, key 'pat_str'" if pattern_from else None)
    except PatternError as e:
        if pattern_from is None:
            raise
        raise FormatError(pattern_from, str(e), key="pat_str") from None
    if special_tokens is not None:
        next_id = max(tok.vocab) + 1
        extra = {s: next_id + k for k, s in enumerate(s for s in special_tokens
                                                      if s not in specials_map)}
        if extra:
            tok = load_ranks(path, data, pattern=pattern, specials={**specials_map, **extra},
                             meta=meta_out)
    if guessed:   # (once loaded: a file refused for another reason warns of nothing)
        warnings.warn(PatternAssumedWarning(
            f"{path}: {meta_out['pattern_guessed'][1]}, so it splits text with the cl100k "
            "(GPT-4) pattern, assumed; ids differ from its own library's if it splits "
            "otherwise. Say which with pattern= (a preset name or a regex; on the command "
            "line --preset or --pattern)."),
            stacklevel=4)
    return tok


def _same(setting: str, pat: str) -> bool:
    return resolve_pattern(setting)[0] == pat
