"""A GGUF ``gpt2`` vocabulary as llama.cpp runs it: the tokenizer of a GGUF file.

:func:`build_bpe` takes what the file holds (tokens in GPT-2's byte alphabet, merges
``"a b"``, token types, the ``.pre`` name, special ids and flags; read by
``formats/gguf_fmt.py``) and assembles a :class:`PipelineTokenizer` that encodes as
llama.cpp's ``llama_tokenize`` does:

1. special tokens are cut out of the text (``llama_cpp.LlamaSpecials``): tokens of type
   CONTROL, USER_DEFINED or UNKNOWN, after llama.cpp's own corrections by name
   (``<|im_end|>``, ``<|eot_id|>``, FIM tokens ... become CONTROL; gpt-oss' channel
   tokens USER_DEFINED; Phi-3's get RSTRIP). With ``parse_special`` (llama.cpp's
   ``llama-tokenize`` default) all of them are matched; without it (the
   ``test-tokenizer-0`` setting) only the USER_DEFINED ones.
2. the rest is cut by the ``.pre`` type's regex sequence (``llama_cpp.LlamaPreTokenizer``),
3. each piece, byte-encoded, is merged by rank (the leftmost lowest-rank pair first; a
   merge listed twice keeps its first rank; types with ``ignore_merges`` take a piece
   that is a token whole); a symbol that is no token becomes its bytes' tokens.

BOS/EOS are added by llama.cpp's caller when ``add_special``; encode here gives the
text's tokens only (as with tokenizer.json), and ``meta`` reports ``add_bos``/``add_eos``.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...errors import FormatError
from ..model import Word
from ...text.presets import KIND_PATTERNS
from .decoders import decoder
from .hf_parts import pre_tokenizer
from .imported_tokenizer import LazyMerges, PipelineTokenizer
from .llama_cpp import (NEWLINES, LlamaPreTokenizer, LlamaSpecials, Special, main_regex,
                        pre_type)
from ..pipeline import Pipeline
from .word_model import PipelineModel, model_class

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

# Tokens llama.cpp makes CONTROL by their text (llama-vocab.cpp, "auto-detect special
# tokens by text"): end of generation, and the FIM tokens when the file names none.
EOG_TEXTS = frozenset({
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]",
    "[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<｜end▁of▁sentence｜>", "[e~["})
FIM_TEXTS = {
    "fim_pre": ("<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>",
                "▁<PRE>", "<|code_prefix|>", "<|prefix|>"),
    "fim_suf": ("<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>",
                "▁<SUF>", "<|code_suffix|>", "<|suffix|>"),
    "fim_mid": ("<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>",
                "▁<MID>", "<|code_middle|>", "<|middle|>"),
    "fim_pad": ("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"),
    "fim_rep": ("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"),
    "fim_sep": ("<|file_sep|>",),
}
_GPT_OSS = ("<|channel|>", "<|message|>", "<|start|>", "<|constrain|>")
# every text token_attrs asks the index about
NAMED_TEXTS = sorted(EOG_TEXTS | {t for ts in FIM_TEXTS.values() for t in ts} | set(_GPT_OSS))


@dataclass
class LlamaVocab:
    """What a GGUF file's ``tokenizer.ggml.*`` keys hold, as plain data."""

    path: str | None
    tokens: Sequence[str]     # a list, or formats.gguf_fmt.GGUFStrings (bytes read in place)
    token_types: list[int] | None
    merges: Sequence[str]
    pre: str | None
    special_ids: dict[str, int] = field(default_factory=dict)
    flags: dict[str, bool] = field(default_factory=dict)
    name: str | None = None
    architecture: str | None = None
    notes: list[str] = field(default_factory=list)


def token_attrs(v: LlamaVocab, index: dict[str, int]) -> list[int]:
    """Each token's type after llama.cpp's corrections by name (see the module docstring);
    ``index``: token text -> id (at least for the NAMED_TEXTS)."""
    n = len(v.tokens)
    types = list(v.token_types) if v.token_types is not None else [NORMAL] * n
    control = set(EOG_TEXTS)
    for slot, texts in FIM_TEXTS.items():
        if slot not in v.special_ids:
            control.update(texts)
    for text in control:
        i = index.get(text)
        if i is not None and types[i] != CONTROL:
            types[i] = CONTROL
    for text in _GPT_OSS:
        if text in index:
            types[index[text]] = USER_DEFINED
    eog = {t for t in EOG_TEXTS if t in index}
    if "<|end|>" in eog and ({"<|return|>", "<|call|>"} <= eog or {"<|calls|>", "<|flush|>"} <= eog):
        types[index["<|end|>"]] = USER_DEFINED
    if "</s>" in eog and eog & {"<|tool_response>", "<|plamo:eos|>"}:
        types[index["</s>"]] = NORMAL
    return types


def specials_of(v: LlamaVocab, types: list[int], parse_special: bool) -> list[Special]:
    """The tokens cut out of text: llama.cpp's special-token cache, with LSTRIP/RSTRIP."""
    name = (v.name or "").lower()
    pre, arch = v.pre or "", v.architecture or ""
    out = []
    wanted = (CONTROL, USER_DEFINED, UNKNOWN) if parse_special else (USER_DEFINED,)
    for i in _ids_of_types(types, wanted):
        text = v.tokens[i]
        if not text:
            continue
        lstrip = rstrip = False
        if any(k in pre for k in ("jina-v2-de", "jina-v2-es", "jina-v2-code")) or \
                any(k in arch for k in ("nomic-bert-moe", "jina-bert-v3")):
            lstrip = text == "<mask>"
        elif "phi-3" in name or "phi3" in name:
            rstrip = text not in ("<unk>", "<s>", "<|endoftext|>")
        elif "modern-bert" in name:
            lstrip = text == "[MASK]"
        out.append(Special(i, text, lstrip, rstrip, types[i] != USER_DEFINED))
    return out


def _ids_of_types(types: list[int], wanted: tuple[int, ...]) -> list[int]:
    """The ids whose type is in ``wanted``, in order (a byte regex over the types: a
    vocabulary has 100k-260k tokens and a few dozen special ones)."""
    if not all(0 <= t < 256 for t in wanted) or min(types, default=0) < 0 or \
            max(types, default=0) > 255:
        return [i for i, t in enumerate(types) if t in wanted]
    cls = re.compile(b"[" + b"".join(re.escape(bytes([t])) for t in wanted) + b"]")
    return [m.start() for m in cls.finditer(bytes(types))]


def _merges(merges: Sequence[str]) -> list:
    """llama.cpp's merges for the C model: a merge listed twice keeps its first rank
    (``bpe_ranks.emplace``); split at the first space after the first character."""
    if not isinstance(merges, list):
        merges = list(merges)
    if len(set(merges)) != len(merges):
        merges = list(dict.fromkeys(merges))
    odd = [i for i, m in enumerate(merges) if m.count(" ") != 1 or m[:1] == " "]
    if not odd:
        return merges
    out: list = list(merges)
    for i in odd:
        m = merges[i]
        k = m.find(" ", 1)
        # no space: llama.cpp keeps ("", ""), which never applies
        out[i] = None if k < 0 else [m[:k], m[k + 1:]]
    return [m for m in out if m is not None]


def _native_model(v: LlamaVocab, *, byte_level: bool):
    """(the C model of the tokens and merges, text -> id for at least NAMED_TEXTS):
    straight from the GGUF bytes when the reader kept them (pipe_load_gguf.c), else
    from the lists."""
    Model = model_class()
    span, mspan = getattr(v.tokens, "span", None), getattr(v.merges, "span", None)
    if span is not None and mspan is not None and span[0] is mspan[0] and \
            hasattr(Model, "from_gguf"):
        # read in place: no Python object per token or merge
        native, problem, vocab = Model.from_gguf(span[0], span[1:3], mspan[1:3], span[3],
                                                 NAMED_TEXTS, byte_level)
    else:
        tokens = [tok if tok else f"[EMPTY_{i}]" for i, tok in enumerate(v.tokens)]
        vocab = {tok: i for i, tok in enumerate(tokens)}
        try:
            native, problem = Model.from_hf(vocab, _merges(v.merges), byte_level)
        except UnicodeEncodeError:
            bad = next(i for i, t in enumerate(tokens) if not _is_utf8(t))
            problem = ("vocab", bad, f"token {bad} is not UTF-8 text (it starts "
                       f"{tokens[bad].encode('utf-8', 'surrogateescape')[:60]!r})")
    if problem is not None:
        where, index, msg = problem
        key = "tokenizer.ggml.tokens" if where == "vocab" else "tokenizer.ggml.merges"
        raise FormatError(v.path, msg + ".", key=key)
    return native, vocab


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# .pre types whose split is one of the native presets exactly: their files export
EXPORTABLE = {"gpt2": "gpt2", "llama3": "llama3", "qwen2": "qwen2"}


def build_bpe(v: LlamaVocab, *, parse_special: bool = True,
              meta: dict | None = None) -> PipelineTokenizer:
    """The tokenizer of a ``gpt2`` GGUF vocabulary (see the module docstring)."""
    t = pre_type(v.pre)
    if t.kind is None:
        raise FormatError(v.path, f"{t.why}. Pre-tokenizers this app runs: see "
                          "docs/FORMATS.md.", key="tokenizer.ggml.pre")
    native, vocab = _native_model(v, byte_level=True)
    ignore = t.ignore_merges
    native.configure(ignore, False, -1, False)
    table, t2i = native.tables(None, False)
    model = PipelineModel(native, table, byte_level=True, ignore_merges=ignore)
    types = token_attrs(v, vocab)
    specials = specials_of(v, types, parse_special)
    every = specials_of(v, types, True)
    pre = LlamaPreTokenizer(t.kind)
    pipe = Pipeline(model, vocab=table,
                    added=LlamaSpecials(specials) if specials else None, pre=pre,
                    specials=frozenset(s.id for s in every if s.special))
    special_ids = {s.text: s.id for s in every if s.special}
    add_bos = v.flags.get("add_bos_token", t.add_bos)
    adds = [f"{what} {v.special_ids[key]}" for what, key, on in (
        ("BOS", "bos", add_bos), ("EOS", "eos", v.flags.get("add_eos_token", False)))
        if on and key in v.special_ids]
    info = {"format": "gguf", "source": str(v.path), "model": "gpt2", "pre": v.pre,
            "pre_type": t.kind, "ignore_merges": ignore, "parse_special": parse_special,
            "add_bos": add_bos, "add_eos": v.flags.get("add_eos_token", False),
            "special_token_ids": dict(v.special_ids), "notes": list(v.notes),
            "label": f"GGUF (llama.cpp): gpt2 BPE, pre-tokenizer {v.pre or 'default'!r}"
                     + (f"; llama.cpp adds {' and '.join(adds)} around a prompt" if adds else ""),
            **(meta or {})}
    if v.pre is None:
        info["notes"].append("tokenizer.ggml.pre is missing: llama.cpp uses its 'default' "
                             "pre-tokenizer and warns that the file predates it.")
    preset = EXPORTABLE.get(t.kind)
    if preset is None:
        info["export_problem"] = (
            f"llama.cpp cuts this vocabulary's text with its {v.pre or 'default'!r} "
            f"pre-tokenizer: {len(pre.sequence)} regex(es) read its own way (Unicode classes "
            "collapsed to one character each), which tokenizer.json, GPT-2 files and tiktoken "
            "cannot write exactly. Only GGUF files whose split is GPT-2's, Llama 3's or "
            "Qwen2's export.")
    elif preset != "gpt2":
        info["export_problems"] = {"gpt2": (
            "GPT-2 files record no pre-tokenizer, and whatever reads them splits with "
            f"GPT-2's pattern; this vocabulary splits with {preset}'s. Export tokenizer.json "
            "or .tiktoken instead.")}
    merges = LazyMerges(lambda: model.n_merges, model.merge_at, table)
    return PipelineTokenizer(pipe, vocab=table, bytes_to_id=t2i, merges=merges,
                             special_ids=special_ids,
                             pattern=KIND_PATTERNS[preset] if preset else main_regex(t.kind),
                             meta=info,
                             matched_specials=[s.text for s in specials])


# ----- Gemma 4 ---------------------------------------------------------------------------------
class NewlineRunModel(PipelineModel):
    """llama.cpp's Gemma 4 rule (llama-vocab.cpp, llama.cpp PR 21343): a piece of newlines
    only that is itself a token is that token; every other piece is merged."""

    def __init__(self, *a, runs: dict[str, int], **kw):
        super().__init__(*a, **kw)
        self.runs = runs   # "\n" * k -> id, for the k that are tokens

    def _run(self, w: Word) -> int | None:
        return self.runs.get(w) if isinstance(w, str) and w[:1] == "\n" else None

    def encode_words(self, words: list[str] | list[Word], cache: dict, cache_limit: int) -> list[int]:
        if not any(w in self.runs for w in words):
            return super().encode_words(words, cache, cache_limit)
        out: list[int] = []
        run: list[Word] = []
        for w in words:
            t = self._run(w)
            if t is None:
                run.append(w)
                continue
            if run:
                out += super().encode_words(run, cache, cache_limit)
                run = []
            out.append(t)
        if run:
            out += super().encode_words(run, cache, cache_limit)
        return out

    def encode_cut(self, word: str) -> list[int] | None:
        t = self._run(word)
        return [t] if t is not None else super().encode_cut(word)

    def tokenize(self, piece: Word):
        t = self._run(piece)
        if t is not None:
            return (t,), (0,), (len(piece),)   # (newlines: one byte each)
        return super().tokenize(piece)


# llama.cpp's Gemma 4 text path as tokenizer.json parts: spaces escaped to U+2581 (no
# prefix), the text cut into runs of newlines and runs of the rest, the decoder back
GEMMA4_PRE = {"type": "Sequence", "pretokenizers": [
    {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "never", "split": False},
    {"type": "Split", "pattern": {"Regex": NEWLINES}, "behavior": "Isolated", "invert": False}]}
GEMMA4_DECODER = {"type": "Sequence", "decoders": [
    {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
    {"type": "ByteFallback"}, {"type": "Fuse"}]}


def build_gemma4(v: LlamaVocab, *, parse_special: bool = True,
                 meta: dict | None = None) -> PipelineTokenizer:
    """A GGUF ``gemma4`` vocabulary as llama.cpp runs it (``tokenizer.ggml.model =
    gemma4``: its BPE tokenizer with ``byte_encode`` off): special tokens cut out first
    (as for ``gpt2``), then each text part with its spaces written U+2581, cut into runs
    of newlines and runs of other characters (pre type ``gemma4``: ``[^\n]+|[\n]+``),
    each run merged by rank over its UTF-8 characters (raw UTF-8 tokens, no GPT-2
    alphabet); a run of newlines that is a token is taken whole; a piece no token holds
    becomes its bytes' ``<0xNN>`` tokens. llama.cpp adds BOS (always, for Gemma 4)."""
    native, vocab = _native_model(v, byte_level=False)
    native.configure(False, True, -1, False)
    table, t2i = native.tables("\u2581", True)
    runs = {"\n" * k: i for k in range(1, 65) if (i := native.text_id("\n" * k)) >= 0}
    model = NewlineRunModel(native, table, byte_level=False, byte_fallback=True, runs=runs)
    types = token_attrs(v, vocab)
    specials = specials_of(v, types, parse_special)
    every = specials_of(v, types, True)
    pipe = Pipeline(model, vocab=table,
                    added=LlamaSpecials(specials) if specials else None,
                    pre=pre_tokenizer(GEMMA4_PRE, source=str(v.path)),
                    decode=decoder(GEMMA4_DECODER), key_of=native.key_text,
                    specials=frozenset(s.id for s in every if s.special))
    adds = [f"BOS {v.special_ids['bos']}"] if "bos" in v.special_ids else []
    if v.flags.get("add_eos_token", False) and "eos" in v.special_ids:
        adds.append(f"EOS {v.special_ids['eos']}")
    info = {"format": "gguf", "source": str(v.path), "model": "gemma4", "pre": v.pre,
            "pre_type": "gemma4", "parse_special": parse_special, "add_bos": True,
            "add_eos": v.flags.get("add_eos_token", False),
            "special_token_ids": dict(v.special_ids), "notes": list(v.notes),
            "label": "GGUF (llama.cpp): gemma4 BPE (SentencePiece-style: U+2581 for a space, "
                     "<0xNN> bytes), split at newlines"
                     + (f"; llama.cpp adds {' and '.join(adds)} around a prompt" if adds else ""),
            "export_problem": (
                "llama.cpp runs a Gemma 4 vocabulary with a rule of its own (a run of "
                "newlines that is a token is taken whole, never merged), which "
                "tokenizer.json, GPT-2 files and tiktoken cannot write."),
            **(meta or {})}
    merges = LazyMerges(lambda: model.n_merges, model.merge_at, table)
    return PipelineTokenizer(pipe, vocab=table, bytes_to_id=t2i, merges=merges,
                             special_ids={s.text: s.id for s in every if s.special},
                             pattern=NEWLINES,
                             meta=info, matched_specials=[s.text for s in specials])
