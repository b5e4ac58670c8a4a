"""Hugging Face ``tokenizer.json``: loads with ``tokenizers.Tokenizer.from_file`` and
encodes to exactly this tokenizer's ids.

Byte-level tokenizers are written the way GPT-4-style tokenizers are published: a BPE
model over GPT-2's byte-to-unicode alphabet, a pre-tokenizer ``Sequence`` of a regex
``Split`` (our pattern) and ``ByteLevel(use_regex=False)``, a ByteLevel decoder, and the
special tokens as ``added_tokens`` (``special: true``, split out before anything else).

Character-level tokenizers need care, because Hugging Face's BPE glues its
``end_of_word_suffix`` onto the last *character* (``l o w</w>``) while this app keeps
``</w>`` a symbol of its own (``l o w </w>``), so that option would cut words
differently. Instead ``</w>`` is written as a space inside the tokens and the
pipeline puts that space where our ``</w>`` goes:

* prefix mode (a space before a word becomes a leading ``</w>``): split with our
  pattern, drop trailing whitespace, keep one leading whitespace character; every
  whitespace character is an alias of the ``</w>`` id (``" low"`` = ``</w>low``).
* suffix mode (``</w>`` after every word): possible when words are whitespace-separated
  (the whitespace preset, classic Sennrich BPE): a ``Replace`` normalizer inserts a
  space after every word and a ``Split`` keeps each word with that one space
  (``"low "`` = ``low</w>``). Other patterns cannot be expressed: a pre-tokenizer can
  prepend to a word but never append, so that export raises ExportError.

Loading accepts BPE models only (``merges`` as ``"a b"`` strings or ``["a", "b"]``
lists), byte-level ones from anywhere and character-level ones written here.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..display import gpt2_bytes, gpt2_text, pair_text, readable
from ..errors import ExportError, FormatError
from ..text.presets import CJK_PATTERN, CL100K_PATTERN, GPT2_PATTERN, WHITESPACE_PATTERN
from ..tokenizers.symbols import EOW
from ..io.reading import as_id
from .snapshot import PROBE_TEXT, Snapshot, build_tokenizer, prefixed, preset_name, words_differ
from ._json import json_strs, model_kind, need, not_bpe
from .gpt2 import merge_half_texts, vocab_keys as gpt2_vocab_keys
from ..io.reading import check_depth, read_json
from ..text.pretokenize import Pretokenizer
from . import spm_json
from .onig_presets import preset_onig, translated_onig

if TYPE_CHECKING:
    from ..tokenizers.base import BaseTokenizer
    from ..tokenizers.trained import Tokenizer

EOW_KEY = " "


def _cls(chars: str) -> str:
    """Chars -> a class body Oniguruma and `regex` both read. Example: ' \\t' -> '\\x{20}\\x{9}'."""
    return "".join(f"\\x{{{ord(c):X}}}" for c in chars)


@lru_cache(maxsize=1)
def _ws() -> dict[str, str]:
    """The whitespace sets and the char-mode patterns made of them (also this module's
    attributes of those names: ``hf.STRIP_WS``). Made at first use, not at import:
    finding the sets scans every code point.

    Whitespace as Python's str.strip() sees it (char mode strips words with it), STRIP_WS,
    and as the `regex` module's \\s sees it (the whitespace preset splits with it),
    REGEX_WS. They differ in U+001C..U+001F, which strip() removes and \\s does not match.
    (re's \\s on a str is str.isspace, character by character: one scan of every code
    point, where calling isspace on each takes several times as long.)
    """
    import regex

    from ..text.unicode_classes import all_code_points
    strip_ws = "".join(re.findall(r"\s", all_code_points()))
    regex_ws = "".join(c for c in strip_ws if regex.match(r"\s", c))
    iss, rws = _cls(strip_ws), _cls(regex_ws)
    return {
        "STRIP_WS": strip_ws, "REGEX_WS": regex_ws, "ISS": iss, "RWS": rws,
        # Suffix mode, whitespace preset: a space after the last non-strip-whitespace
        # character of every word, then keep each word from its first such character
        # through that space.
        "SUFFIX_INSERT": rf"(?<=[^{iss}])(?=[\x{{1C}}-\x{{1F}}]*(?:[{rws}]|\z))",
        "SUFFIX_WORD": rf"[^{iss}](?:[^{rws}]*[^{iss}])? ",
        # Prefix mode: drop trailing whitespace (whole whitespace words vanish), then all
        # but the last leading whitespace character.
        "PREFIX_TRAIL": rf"[{iss}]+\z",
        "PREFIX_LEAD": rf"\A[{iss}]+(?=[{iss}])",
    }


def __getattr__(name: str) -> str:
    try:
        return _ws()[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def file_names(name: str = "tokenizer") -> list[str]:
    return [prefixed(name, "tokenizer.json")]


# ----- export ---------------------------------------------------------------------------
def settings_problem(mode: str, end_of_word: str, pattern: str) -> str | None:
    """Why this format cannot hold a tokenizer of these settings (None: it may); known
    before training (the command line asks, through formats.settings_problem)."""
    if mode == "char" and end_of_word == "suffix" and pattern != WHITESPACE_PATTERN:
        return ("Hugging Face tokenizers cannot reproduce a character-level tokenizer with "
                "</w> after each word unless words are split on whitespace: its BPE glues "
                "end_of_word_suffix onto the last character (l o w</w>, not l o w </w>) and "
                "no pre-tokenizer can append to a word. Train with the whitespace preset or "
                "with </w> as a prefix, or export the native JSON.")
    return None


def dump(snap: Snapshot, name: str = "tokenizer") -> dict[str, bytes]:
    """File name -> content. Raises ExportError for tokenizers this format cannot hold."""
    if snap.spm is not None:   # a SentencePiece model: Metaspace-style with byte fallback
        return spm_json.dump(snap.spm, name)
    check_pattern(snap.pattern)
    model_extra: dict[str, Any] = {}
    aliases: dict[str, int] = {}
    if snap.mode == "byte":
        keys = gpt2_vocab_keys(snap)
        halves = merge_half_texts(snap, keys)
        normalizer, pre = None, _byte_pre(snap.pattern)
        decoder = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                   "use_regex": True}
    else:
        keys, aliases = char_keys(snap)
        halves = [t for m in _char_merges(snap, keys) for t in m]
        normalizer, pre, decoder = _char_pipeline(snap)
        if snap.unk_id in keys:
            model_extra["unk_token"] = keys[snap.unk_id]
    by_id = {i: s for s, i in snap.special_ids.items()}
    added = [{"id": i, "content": by_id[i], "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": True} for i in sorted(by_id)]
    if snap.meta.get("ignore_merges"):   # an imported file whose words that are tokens stay whole
        model_extra["ignore_merges"] = True
    model = {"type": "BPE", "dropout": None, "unk_token": None,
             "continuing_subword_prefix": None, "end_of_word_suffix": None,
             "fuse_unk": False, "byte_fallback": False, "ignore_merges": False, **model_extra,
             "vocab": "@VOCAB@", "merges": "@MERGES@"}
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": normalizer, "pre_tokenizer": pre, "post_processor": None,
           "decoder": decoder, "model": model}
    # vocab and merges one entry per line: readable, and far shorter than indent=2 lists
    if aliases:
        entries = sorted([(i, 0, k) for i, k in keys.items()] +
                         [(i, 1, k) for k, i in aliases.items()])
        ids, texts = [i for i, _, _ in entries], [k for _, _, k in entries]
    else:
        ids = sorted(keys)
        texts = list(map(keys.__getitem__, ids))
    text = json.dumps(doc, ensure_ascii=False, indent=2)
    # the model comes last, its vocab before its merges: the placeholders' last
    # occurrences cut the text in three, and the file is its pieces joined once (each
    # line made by C-level joins: str.format per line took twice as long)
    head, _, tail = text.rpartition('"@MERGES@"')
    head, _, middle = head.rpartition('"@VOCAB@"')
    halves = json_strs(halves)
    parts = [head]
    if ids:
        parts += ["{\n      ", ",\n      ".join(map(": ".join, zip(json_strs(texts),
                                                                   map(str, ids)))), "\n    }"]
    else:
        parts.append("{}")
    parts.append(middle)
    if halves:   # a pair is spelled as json_str spells it: [left, right]
        parts += ["[\n      [", "],\n      [".join(map(", ".join, zip(halves[::2], halves[1::2]))),
                  "]\n    ]"]
    else:
        parts.append("[]")
    parts += [tail, "\n"]
    return {file_names(name)[0]: "".join(parts).encode("utf-8")}


def onig_pattern(pattern: str) -> str:
    """:func:`translated_onig`, read from the data of ``onig_presets`` for the presets."""
    return preset_onig(preset_name(pattern)) or translated_onig(pattern)


def check_pattern(pattern: str) -> None:
    """The pattern, written for Oniguruma (the regex engine of ``tokenizers``), must
    compile there and cut a test text as ours does. (A preset written from the data of
    ``onig_presets`` is not checked here: tests/engine/formats/test_onig_presets.py
    compiles each entry in tokenizers and cuts text with it, as ours does.)"""
    if preset_onig(preset_name(pattern)) is not None:
        return
    onig = onig_pattern(pattern)
    try:
        from tokenizers import Regex
    except ImportError:  # nothing to check against; the pattern is written as it is
        return
    try:
        Regex(onig)
    except Exception as e:
        raise ExportError(f"The pre-tokenizer pattern cannot be used by Hugging Face "
                          f"tokenizers, whose regex engine (Oniguruma) rejects it: {e}. Use a "
                          "preset or a pattern without `regex`-module-only syntax.") from e
    if preset_name(pattern):
        return  # the presets are tested to cut identically
    from tokenizers import pre_tokenizers
    split = pre_tokenizers.Split(Regex(onig), behavior="removed", invert=True)
    diff = words_differ(pattern, [w for w, _ in split.pre_tokenize_str(PROBE_TEXT)])
    if diff:
        raise ExportError("The pre-tokenizer pattern means something else in Hugging Face "
                          f"tokenizers' regex engine (Oniguruma): on a test text, {diff}. Use a "
                          "preset, or a pattern both engines read the same way.")


def _split(pattern: str) -> dict:
    """Our words exactly: presets cover all text (Isolated); a custom pattern may skip
    text, which our tokenizer drops, so keep only its matches (invert + Removed)."""
    onig = onig_pattern(pattern)
    if preset_name(pattern):
        return {"type": "Split", "pattern": {"Regex": onig}, "behavior": "Isolated",
                "invert": False}
    return {"type": "Split", "pattern": {"Regex": onig}, "behavior": "Removed",
            "invert": True}


def _byte_pre(pattern: str) -> dict:
    return {"type": "Sequence", "pretokenizers": [
        _split(pattern),
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
         "use_regex": False}]}


def _remove(pattern: str) -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Removed",
            "invert": False}


# U+001C..U+001F: whitespace to str.strip() (so a word that starts with them gets </w>)
# but not to \s, so GPT-2's pattern keeps them inside words (".\x1f." is one word, and
# \x1f in it is a character). tokenizers' BPE cannot tell a word's first character from
# the others, so they cannot be aliases of </w> there. Instead a normalizer turns a run
# of them that starts a word into one space (which then is the </w>) -- under GPT-2's
# and the CJK preset's patterns that is a run not after punctuation and before
# punctuation (before anything else it makes a word of its own, which strip() empties).
SEPARATORS = "\x1c\x1d\x1e\x1f"
_SEP = _cls(SEPARATORS)
# cl100k's pattern also lets one non-letter lead a run of letters, so there a single one
# before a letter starts a word too, unless a space (which ` ?` punctuation takes, with
# it, into a word strip() empties) is just before. (o200k's letters include marks, which
# its punctuation rule also takes: no lookaround says where its words start, so it keeps
# the aliases, and a separator inside a word still reads as </w> there.)
_GPT2_LEAD = rf"(?<![^\s\p{{L}}\p{{N}}])[{_SEP}]+(?=[^\s\p{{L}}\p{{N}}{_SEP}])"
_CL100K_LEAD = _GPT2_LEAD + rf"|(?<![^\s\p{{L}}\p{{N}}])(?<! )[{_SEP}](?=\p{{L}})"
SEPARATOR_LEAD = {GPT2_PATTERN: _GPT2_LEAD, CJK_PATTERN: _GPT2_LEAD,
                  CL100K_PATTERN: _CL100K_LEAD}


def _char_pipeline(snap: Snapshot) -> tuple[dict | None, dict, dict]:
    if snap.end_of_word == "suffix":
        why = settings_problem(snap.mode, snap.end_of_word, snap.pattern)
        if why is not None:
            raise ExportError(why)
        normalizer: dict | None = {"type": "Replace", "pattern": {"Regex": _ws()["SUFFIX_INSERT"]},
                      "content": EOW_KEY}
        pre = {"type": "Split", "pattern": {"Regex": _ws()["SUFFIX_WORD"]}, "behavior": "Removed",
               "invert": True}
        return normalizer, pre, {"type": "BPEDecoder", "suffix": EOW_KEY}
    pre = {"type": "Sequence", "pretokenizers": [
        _split(snap.pattern), _remove(_ws()["PREFIX_TRAIL"]), _remove(_ws()["PREFIX_LEAD"])]}
    steps: list[dict] = [{"type": "Fuse"},
                         {"type": "Strip", "content": EOW_KEY, "start": 1, "stop": 0}]
    lead = SEPARATOR_LEAD.get(snap.pattern)
    normalizer = None if lead is None else {
        "type": "Replace", "pattern": {"Regex": lead}, "content": EOW_KEY}
    others = eow_aliases(snap.pattern).replace(EOW_KEY, "")
    if others:  # </w> may come back as any of its aliases: decode each as a space
        steps.insert(0, {"type": "Replace", "pattern": {"Regex": f"[{_cls(others)}]"},
                         "content": EOW_KEY})
    decoder = {"type": "Sequence", "decoders": steps}
    return normalizer, pre, decoder


def char_keys(snap: Snapshot) -> tuple[dict[int, str], dict[str, int]]:
    """id -> tokenizer.json key for a character-level tokenizer, and whitespace aliases.

    Base characters are themselves, </w> is a space, a merged token is the keys of its
    two halves joined (so a literal '</w>' typed in the corpus stays distinct).
    """
    eow = snap.eow_id
    by_id = {i: s for s, i in snap.special_ids.items()}
    made = dict(zip(snap.merge_ids, snap.merges))
    t2i = {t: i for i, t in sorted(snap.vocab.items(), reverse=True) if i not in by_id}
    keys: dict[int, str] = {}
    for i in sorted(snap.vocab):
        if i in by_id:
            keys[i] = by_id[i]
        elif i == eow:
            keys[i] = EOW_KEY
        elif i not in made:
            keys[i] = snap.vocab[i].decode("utf-8", errors="replace")
    for n, ((a, b), i) in enumerate(zip(snap.merges, snap.merge_ids)):
        joined = keys[t2i[a]] + keys[t2i[b]]
        if keys.setdefault(i, joined) != joined:
            # a merge of ordinary characters that spells '</w>' or '<unk>': the tokenizer
            # maps it onto that symbol's id, which tokenizer.json cannot express
            raise ExportError(f"Merge #{n + 1} ({pair_text(a, b)}) makes {readable(a + b)!r}, "
                              f"the same bytes as token {i} ({keys[i]!r} in tokenizer.json): the "
                              "corpus contains that marker as literal text. Remove it from the "
                              "corpus, or export the native JSON.")
    dup = snap.duplicates()
    keys = {i: k for i, k in keys.items() if i not in dup}
    seen: dict[str, int] = {}
    for i, k in keys.items():
        if k in seen:
            raise ExportError(f"Tokens {seen[k]} and {i} would both be written as {k!r} in "
                              "tokenizer.json, which cannot hold a token twice. Export the "
                              "native JSON instead.")
        seen[k] = i
    aliases: dict[str, int] = {}
    if eow is not None and snap.end_of_word == "prefix":
        lead = eow_aliases(snap.pattern)
        inner = [c for c in lead if seen.get(c, eow) != eow]
        if inner:
            raise ExportError(f"The vocabulary has whitespace character(s) "
                              f"{', '.join(f'U+{ord(c):04X}' for c in inner)} as tokens, so "
                              "Hugging Face tokenizers could not tell one that starts a word "
                              "(</w> here) from one inside a word. Export the native JSON.")
        # Only whitespace the pattern can put before a word stands for </w>: for GPT-2's
        # pattern that is the space alone, so </w> keeps one key and the vocabulary its size
        aliases = {c: eow for c in lead if c != EOW_KEY}
    return keys, aliases


def eow_aliases(pattern: str) -> str:
    """The characters tokenizer.json reads as </w> in prefix mode: the whitespace that can
    start a word, less U+001C..U+001F where a normalizer turns them into a space."""
    lead = word_leading_ws(pattern)
    if pattern in SEPARATOR_LEAD:
        lead = "".join(c for c in lead if c not in SEPARATORS)
    return lead


_PROBES = ("a{}b", "{}b", "1{}b", ".{}b", "a {}b", "a{}1", "a{}.", "a{}\u4e2d", "\n{}b")


def word_leading_ws(pattern: str) -> str:
    """The whitespace characters the pattern can put at the start of a word that has
    more than whitespace (a word that prefix mode marks with </w>).

    Example: GPT-2's pattern -> ' ' (only ` ?\\p{L}+` and its like take one);
    cl100k's -> every whitespace character but CR and LF.
    """
    pre = Pretokenizer(pattern)
    found = [" "]
    for c in _ws()["STRIP_WS"]:
        if c == " ":
            continue
        for probe in _PROBES:
            if any(w[0] == c and w.strip() for w in pre.words(probe.format(c))):
                found.append(c)
                break
    return "".join(found)


def _char_merges(snap: Snapshot, keys: dict[int, str]) -> list[list[str]]:
    t2i = {t: i for i, t in sorted(snap.vocab.items(), reverse=True)
           if i not in snap.special_ids.values()}
    return [[keys[t2i[a]], keys[t2i[b]]] for a, b in snap.merges]


# ----- loading --------------------------------------------------------------------------
def load(path: str | Path, special_tokens: Sequence[str] | None = None,
         **kwargs) -> BaseTokenizer:
    """Load a BPE ``tokenizer.json``.

    Files from anywhere run through :mod:`bpe_gui.engine.tokenizers.pipeline`, exactly as Hugging
    Face ``tokenizers`` runs them (or are refused naming the part that cannot be run).
    bpe-gui's own character-level exports load back as character-level tokenizers, and
    asking for other special tokens or another ``pattern`` gives a byte-level tokenizer
    of this app's own (the file's vocabulary and merges with those settings).
    """
    from .hf_json import load_hf, read_fast
    path = Path(path)
    extra = kwargs.pop("extra_special_tokens", None)
    own = special_tokens is not None or "pattern" in kwargs or "mode" in kwargs
    fast = None if own or extra else read_fast(path)
    data = fast[0] if fast else read_json(path)
    if not isinstance(data, dict):
        raise FormatError(path, "should be a JSON object (a Hugging Face tokenizer.json).")
    _check_nesting(data, path)
    model = need(data, "model", dict, path, "the tokenizer model, an object")
    if extra:
        data["added_tokens"] = with_special_tokens(data, model, extra, path)
    if _is_own_char_export(data) or own:
        if fast:   # this path needs the vocabulary and merges as JSON
            data = read_json(path)
            model = data["model"]
        return _load_own(path, data, model, special_tokens, kwargs)
    return load_hf(data, path, meta=kwargs.get("meta"),
                   tables=(fast[1], fast[2]) if fast else None)


def _check_nesting(data: dict, path) -> None:
    """The parts that are walked (normalizers, pre-tokenizers, decoders...) must not nest
    deeper than tokenizers allows; the vocabulary and merges are flat and are skipped."""
    rest = {k: v for k, v in data.items() if k != "model"}
    model = data.get("model")
    if isinstance(model, dict):
        rest["model"] = {k: v for k, v in model.items() if k not in ("vocab", "merges")}
    check_depth(rest, path)


def _is_own_char_export(data: dict) -> bool:
    steps = _flatten(data.get("pre_tokenizer"), "pretokenizers")
    regexes = [(s.get("pattern") or {}).get("Regex") for s in steps]
    norm = data.get("normalizer")
    if isinstance(norm, dict) and norm.get("type") == "Replace" and \
            _is_suffix_layout(norm, regexes):
        return True
    return _own_prefix(norm, steps, regexes)


def _is_suffix_layout(norm: dict, regexes: list) -> bool:
    """The suffix layout :func:`dump` writes (``norm``: a Replace normalizer)."""
    return (norm.get("pattern") or {}).get("Regex") == _ws()["SUFFIX_INSERT"] and \
        regexes == [_ws()["SUFFIX_WORD"]]


def _own_prefix(norm: Any, steps: list[dict], regexes: list) -> bool:
    """The prefix layout :func:`dump` writes: a Split by the pattern, the two whitespace
    trims, and no normalizer or the separators' Replace for that pattern."""
    if len(steps) != 3 or regexes[1:] != [_ws()["PREFIX_TRAIL"], _ws()["PREFIX_LEAD"]] or \
            steps[0].get("type") != "Split":
        return False
    if norm is None:
        return True
    return isinstance(norm, dict) and norm.get("type") == "Replace" and \
        (norm.get("pattern") or {}).get("Regex") == SEPARATOR_LEAD.get(_from_onig(regexes[0]))


def _from_onig(text: Any) -> Any:
    """A file's Oniguruma pattern in ``regex`` syntax, the classes :func:`onig_pattern`
    wrote out read back (itself if it cannot be read)."""
    if not isinstance(text, str):
        return text
    from ..text.dialects import DialectError, read_pattern
    from ..text.unicode_versions import TOKENIZERS
    try:
        return read_pattern(text, "oniguruma", TOKENIZERS)[0]
    except DialectError:
        return text


def with_special_tokens(data: dict, model: dict, extra: Sequence[str], path) -> list:
    """The file's added_tokens and ``extra`` as special tokens, as tokenizers'
    ``add_special_tokens`` adds them: a text already a token keeps its id (made special),
    a new one gets the next id after the vocabulary; the file's ids never change."""
    added = list(data.get("added_tokens") or [])
    if not all(isinstance(t, dict) for t in added):
        raise FormatError(path, "'added_tokens' should be a list of objects.",
                          key="added_tokens")
    vocab = model.get("vocab")
    vocab = vocab if isinstance(vocab, dict) else {}
    by_text = {t.get("content"): t for t in added}
    for text in extra:
        if text in by_text:
            by_text[text]["special"] = True
            continue
        ids = [t.get("id") for t in added if isinstance(t.get("id"), int)]
        top = max(ids, default=-1)
        size = len(vocab)
        new_id = vocab.get(text)
        if not isinstance(new_id, int):   # tokenizers: after the model's ids and the added
            new_id = top + 1 if top >= size or size == 0 else size
        token = {"id": new_id, "content": text, "single_word": False, "lstrip": False,
                 "rstrip": False, "normalized": False, "special": True}
        added.append(token)
        by_text[text] = token
    return added


def _load_own(path, data, model, special_tokens, kwargs) -> Tokenizer:
    """This app's own encoder over the file's vocabulary and merges."""
    kind = model_kind(model)
    if kind != "BPE":
        raise FormatError(path, not_bpe(kind), key="model.type")
    raw_vocab = need(model, "vocab", dict, path, "an object mapping token -> id", "model")
    raw_merges = need(model, "merges", list, path, "a list of merges", "model")
    for opt in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(opt):
            raise FormatError(path, f"uses {opt}={model[opt]!r}, which glues a marker onto a "
                              "character; this app's BPE keeps </w> a symbol of its own, so it "
                              "would encode differently.", key=f"model.{opt}")
    added = _added_tokens(data, path)
    pairs = [_merge_pair(m, i, path) for i, m in enumerate(raw_merges)]
    steps = _flatten(data.get("pre_tokenizer"), "pretokenizers")
    if any(s.get("type") == "ByteLevel" for s in steps) or \
            (data.get("decoder") or {}).get("type") == "ByteLevel":
        return _load_byte(path, raw_vocab, pairs, added, steps, special_tokens, kwargs)
    return _load_char(path, data, raw_vocab, pairs, added, special_tokens, kwargs)


def _added_tokens(data: dict, path) -> dict[str, int]:
    out: dict[str, int] = {}
    items = data.get("added_tokens") or []
    if not isinstance(items, list):
        raise FormatError(path, "'added_tokens' should be a list.", key="added_tokens")
    for n, item in enumerate(items):
        where = f"added_tokens[{n}]"
        if not isinstance(item, dict):
            raise FormatError(path, "should be an object with 'id' and 'content'.", key=where)
        content = need(item, "content", str, path, "the token text", where)
        if not content:
            continue   # tokenizers ignores an added token with no text
        out[content] = as_id(need(item, "id", int, path, "the token id", where), path,
                             f"{where}.id")
    return out


def _merge_pair(m: Any, i: int, path) -> tuple[str, str]:
    if isinstance(m, str):
        parts = m.split(" ")
    elif isinstance(m, list):
        parts = m
    else:
        parts = []
    if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
        raise FormatError(path, f"merge {m!r} should be \"left right\" or [\"left\", \"right\"].",
                          key=f"model.merges[{i}]")
    return parts[0], parts[1]


def _flatten(node: Any, child_key: str) -> list[dict]:
    if not isinstance(node, dict):
        return []
    if node.get("type") == "Sequence":
        return [s for child in node.get(child_key) or [] for s in _flatten(child, child_key)]
    return [node]


def _pattern_of(split: dict, path) -> str:
    import regex

    from ..text.dialects import DialectError, read_pattern
    from ..text.unicode_versions import TOKENIZERS
    pat = split.get("pattern") or {}
    if "Regex" in pat:
        try:
            regex_text = read_pattern(pat["Regex"], "oniguruma", TOKENIZERS)[0]
        except DialectError as e:
            raise FormatError(path, f"the Split pattern cannot be read as Oniguruma reads "
                              f"it: {e}.", key="pre_tokenizer") from None
    elif "String" in pat:
        regex_text = regex.escape(pat["String"])
    else:
        raise FormatError(path, "a Split pre-tokenizer has no pattern.", key="pre_tokenizer")
    behavior, invert = split.get("behavior"), bool(split.get("invert"))
    if behavior == "Removed" and invert:
        return regex_text  # keep matches only: exactly our pattern's words
    if behavior == "Isolated" and not invert:
        if preset_name(regex_text):
            return regex_text
        # text between matches becomes words too
        return rf"(?s:{regex_text})|(?s:(?:(?!(?:{regex_text})).)+)"
    raise FormatError(path, f"a Split pre-tokenizer with behavior {behavior!r} (invert={invert}) "
                      "is not supported; use behavior 'Isolated'.", key="pre_tokenizer")


def _load_byte(path, raw_vocab, pairs, added, steps, special_tokens, kwargs) -> Tokenizer:
    unknown = [s.get("type") for s in steps if s.get("type") not in ("Split", "ByteLevel")]
    if unknown:
        raise FormatError(path, f"uses the pre-tokenizer {unknown[0]!r}, which this app cannot "
                          "reproduce (supported: Split with a regex, ByteLevel).",
                          key="pre_tokenizer")
    splits = [s for s in steps if s.get("type") == "Split"]
    levels = [s for s in steps if s.get("type") == "ByteLevel"]
    if len(splits) > 1 or (splits and levels and levels[0].get("use_regex", True)):
        raise FormatError(path, "splits words twice (several Split steps, or a Split and a "
                          "ByteLevel with use_regex=true); only one word pattern is supported.",
                          key="pre_tokenizer")
    if splits:
        pattern = _pattern_of(splits[0], path)
    elif levels and levels[0].get("use_regex", True):
        pattern = GPT2_PATTERN
    else:
        pattern = r"(?s).+"  # no pre-tokenizer: the whole text is one word
    specials = list(special_tokens) if special_tokens is not None else list(added)
    vocab: dict[int, bytes] = {}
    owner: dict[int, str] = {}
    for key, value in raw_vocab.items():
        i = as_id(value, path, f"model.vocab.{key}")
        if i in owner:
            continue  # an alias of an id already read: keep the first key
        owner[i] = key
        if key in specials:
            vocab[i] = key.encode("utf-8")
            continue
        try:
            vocab[i] = gpt2_bytes(key)
        except KeyError:
            raise FormatError(path, f"token {key!r} is not written in GPT-2's byte alphabet, "
                              "though the tokenizer is byte-level. Add it to added_tokens if "
                              "it is a special token.", key=f"model.vocab.{key}") from None
    for s in specials:
        if s in added and added[s] not in vocab:
            vocab[added[s]] = s.encode("utf-8")
    merges = []
    for n, (a, b) in enumerate(pairs):
        for part in (a, b, a + b):
            if part not in raw_vocab or part in specials:
                what = "merged token" if part == a + b else "token"
                raise FormatError(path, f"merge {a!r} {b!r}: its {what} {part!r} is not in the "
                                  "vocabulary.", key=f"model.merges[{n}]")
        merges.append((gpt2_bytes(a), gpt2_bytes(b)))
    have = {v[0] for v in vocab.values() if len(v) == 1}
    missing = [b for b in range(256) if b not in have]
    if missing:
        raise FormatError(path, f"the vocabulary lacks {len(missing)} of the 256 single-byte "
                          f"tokens (first: {gpt2_text(bytes([missing[0]]))!r}); a byte-level "
                          "tokenizer needs all 256.", key="model.vocab")
    kwargs.setdefault("pattern", pattern)
    meta = {"format": "hf", "source": str(path), **kwargs.pop("meta", {})}
    return build_tokenizer(path, vocab, merges, specials, mode="byte", meta=meta, **kwargs)


def _load_char(path, data, raw_vocab, pairs, added, special_tokens, kwargs) -> Tokenizer:
    """Character-level files written by :func:`dump` (the two layouts described above)."""
    norm = data.get("normalizer")
    steps = _flatten(data.get("pre_tokenizer"), "pretokenizers")
    regexes = [(s.get("pattern") or {}).get("Regex") for s in steps]
    if isinstance(norm, dict) and norm.get("type") == "Replace" and \
            _is_suffix_layout(norm, regexes):
        end_of_word, pattern = "suffix", WHITESPACE_PATTERN
    elif _own_prefix(norm, steps, regexes):
        end_of_word, pattern = "prefix", _pattern_of(steps[0], path)
    else:
        raise FormatError(path, "is a character-level BPE tokenizer not written by bpe-gui. Only "
                          "byte-level BPE tokenizers (with a ByteLevel pre-tokenizer) and "
                          "bpe-gui's own character-level exports can be loaded.",
                          key="pre_tokenizer")
    specials = list(special_tokens) if special_tokens is not None else list(added)
    vocab: dict[int, bytes] = {}
    key_of: dict[int, str] = {}
    for key, value in raw_vocab.items():
        i = as_id(value, path, f"model.vocab.{key}")
        if i in key_of and key != EOW_KEY:
            continue  # whitespace aliases of </w>
        key_of[i] = key
        vocab[i] = key.encode("utf-8") if key in specials else \
            key.replace(EOW_KEY, EOW.decode()).encode("utf-8")
    for s in specials:
        if s in added and added[s] not in vocab:
            vocab[added[s]] = s.encode("utf-8")
    t2b = {k: vocab[i] for i, k in key_of.items()}
    merges = []
    for n, (a, b) in enumerate(pairs):
        for part in (a, b, a + b):
            if part not in t2b:
                what = "merged token" if part == a + b else "token"
                raise FormatError(path, f"merge {a!r} {b!r}: its {what} {part!r} is not in the "
                                  "vocabulary.", key=f"model.merges[{n}]")
        merges.append((t2b[a], t2b[b]))
    kwargs.setdefault("pattern", pattern)
    meta = {"format": "hf", "source": str(path), **kwargs.pop("meta", {})}
    return build_tokenizer(path, vocab, merges, specials, mode="char", end_of_word=end_of_word,
                           meta=meta, **kwargs)
