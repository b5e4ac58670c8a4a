"""Build a :class:`Pipeline` from a Hugging Face ``tokenizer.json`` (a BPE model).

Supported, as ``tokenizers`` runs them: the BPE model with ``ignore_merges``,
``byte_fallback`` (``<0xNN>`` tokens), ``unk_token``/``fuse_unk``; normalizers NFC, NFKC,
NFD, NFKD, Lowercase, Replace, Prepend, Sequence; pre-tokenizers Split (every behavior,
``invert``), ByteLevel (``add_prefix_space``, ``use_regex``), Metaspace
(``prepend_scheme``, ``split``), Sequence; added tokens with every flag; the ByteLevel
and Roberta post-processors' offset trimming; the tokens TemplateProcessing, Bert and
Roberta add around a text (``encode(..., add_special_tokens=True)``, tokenizers'
default: ``tokenizers/post.py``); decoders (see decoders.py). ``truncation`` and
``padding`` are batching settings and are not applied. Anything else raises
FormatError naming the component and its JSON path.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..checks import MAX_ID
from ..display import gpt2_bytes
from ..errors import FormatError
from ._json import model_kind, not_bpe
from ..io.reading import read_bytes, read_json
from ..tokenizers.pipeline import Pipeline
from ..tokenizers.imported.added_tokens import AddedToken, AddedTokens
from ..tokenizers.imported.imported_tokenizer import LazyMerges, PipelineTokenizer
from ..tokenizers.imported.lazy import lazy_tables
from ..tokenizers import post
from ..tokenizers.imported.decoders import decoder
from ..tokenizers.imported.normalized import NStr
from ..tokenizers.imported.word_model import PipelineModel, find_model_tables, model_class
from ..text.dialects import DialectError, read_pattern
from ..text.unicode_versions import Classes
from ..tokenizers.imported.hf_parts import (
    BYTE_LEVEL_PATTERN, Unsupported, need, normalizer, pre_tokenizer)

_FALLBACK = re.compile(r"<0x[0-9A-Fa-f]{2}>")
POST_PROCESSORS = "ByteLevel, TemplateProcessing, BertProcessing, RobertaProcessing, Sequence"


def read_fast(path: Path) -> tuple[dict, bytes, tuple] | None:
    """tokenizer.json without its two big tables, which the C model reads from the text
    (json makes ~700k objects of a 128k-token file's vocab and merges): (the rest as
    JSON, the file's bytes, the tables' spans), or None to read it all with json."""
    raw = read_bytes(path, "JSON")   # refuses garbage from its head, before reading it all
    spans = find_model_tables(raw)
    if spans is None:
        return None
    (vs, ve), (ms, me) = spans
    if vs > ms:
        return None
    rest = raw[:vs] + b"{}" + raw[ve:ms] + b"[]" + raw[me:]
    try:
        data = json.loads(rest.decode("utf-8-sig"))
    except (ValueError, RecursionError):   # malformed: json.loads on the whole file says where
        return None
    return (data, raw, spans) if isinstance(data, dict) else None


def load_hf(data: dict, path: Path, meta: dict | None = None,
            tables: tuple[bytes, tuple] | None = None) -> PipelineTokenizer:
    """tokenizer.json content -> a tokenizer that encodes as ``tokenizers`` does.
    ``tables``: (file bytes, spans) from :func:`read_fast`, whose ``data`` lacks them."""
    try:
        return _build(data, path, meta or {}, tables)
    except Refused as e:
        raise FormatError(path, str(e), key=e.key) from None
    except Unsupported as e:
        raise FormatError(path, f"{e}. This app runs tokenizer.json files exactly or not at "
                          "all, and cannot run this part.", key=e.key) from None


def _build(data: dict, path: Path, meta: dict, tables) -> PipelineTokenizer:
    model_node = data.get("model")
    if not isinstance(model_node, dict):
        raise Unsupported("model", "model should be an object (the tokenizer model)")
    opts = _model_options(model_node)
    norm = normalizer(data.get("normalizer"), source=str(path))
    pre = pre_tokenizer(data.get("pre_tokenizer"), source=str(path))
    trim = _post(data.get("post_processor"), "post_processor")
    dec = decoder(data.get("decoder"))
    added = _added(data.get("added_tokens"))
    raw_vocab = need(model_node, "vocab", dict, "model")
    raw_merges = need(model_node, "merges", list, "model")
    Model = model_class()
    made = Model.from_hf_text(tables[0], *tables[1], pre.byte_level) if tables else None
    if made is None and tables:   # something the text reader does not take: read it all
        full = read_json(path)["model"]
        raw_vocab = need(full, "vocab", dict, "model")
        raw_merges = need(full, "merges", list, "model")
    native, problem = made or Model.from_hf(raw_vocab, raw_merges, pre.byte_level)
    if problem is not None:
        where, index, msg = problem
        key = "model.vocab" if where == "vocab" else f"model.merges[{index}]"
        raise FormatError(path, msg + ".", key=key)
    unk = opts["unk_token"]
    unk_id = native.text_id(unk) if isinstance(unk, str) else -1
    native.configure(opts["ignore_merges"], opts["byte_fallback"], unk_id, opts["fuse_unk"])
    suffix = _suffix_key(opts["end_of_word_suffix"], pre.byte_level)
    if suffix:
        native.set_end_of_word_suffix(suffix)
    replacement = pre.replacement or _replacement_of(data.get("normalizer"))
    added = hf_added_ids(added, native.text_id, native.n_tokens)

    def make_tables() -> tuple[dict[int, bytes], dict[bytes, int]]:
        vocab, t2i = native.tables(replacement, opts["byte_fallback"])
        for t in added:
            if not (t.id in vocab and opts["byte_fallback"] and _FALLBACK.fullmatch(t.content)):
                vocab[t.id] = t.content.encode("utf-8")   # a <0xNN> token still shows its byte
            t2i.setdefault(vocab[t.id], t.id)
        return vocab, t2i

    vocab, t2i = lazy_tables(make_tables)   # made when first read: encoding needs neither
    model = PipelineModel(native, vocab, byte_level=pre.byte_level,
                          ignore_merges=opts["ignore_merges"],
                          byte_fallback=opts["byte_fallback"], unk_id=unk_id,
                          fuse_unk=opts["fuse_unk"], end_of_word=suffix)
    specials = {t.content: t.id for t in added if t.special}
    # tokenizers decodes a normalized added token as its normalized text
    added_ids = {t.id: (norm(NStr.of(t.content)).text if t.normalized and norm else t.content)
                 for t in added}

    def key_of(i: int) -> str | None:   # the token's string, as tokenizers decodes it
        return added_ids.get(i) or model.key_text(i)

    added_by_text = {t.content: t.id for t in reversed(added)}

    def id_of(token: str) -> int | None:   # tokenizers: the added tokens, then the model's
        got = added_by_text.get(token)
        if got is None:
            got = native.text_id(token)
        return got if got >= 0 else None

    pipe = Pipeline(model, vocab=vocab,
                    added=AddedTokens(added, norm) if added else None, normalize=norm,
                    pre=pre, trim_offsets=trim, decode=dec, key_of=key_of, id_of=id_of,
                    specials=frozenset(specials.values()),
                    stream_safe=_stream_safe(data, pre, norm))
    merges = LazyMerges(lambda: model.n_merges, model.merge_at, vocab)
    info = {"format": "hf", "source": str(path), "model": "BPE", **_describe(data, opts),
            **meta}
    if opts["end_of_word_suffix"]:   # CLIP's '</w>': no written format here keeps it
        info["export_problem"] = (
            f"This tokenizer.json ends each word's last token with "
            f"{opts['end_of_word_suffix']!r} (model.end_of_word_suffix), which the files "
            "written here (tokenizer.json, GPT-2 files, .tiktoken, bpe-gui JSON) do not "
            "hold. Share the tokenizer.json itself.")
    pattern, classes = _pattern_of(data, pre)
    tok = PipelineTokenizer(pipe, vocab=vocab, bytes_to_id=t2i, merges=merges,
                            special_ids=specials, pattern=pattern, meta=info, classes=classes)
    try:   # tokenizers' defaults: the template's tokens added, special tokens not decoded
        tok.post = post.from_hf(data.get("post_processor"))
    except post.PostError as e:
        raise Unsupported(e.key, str(e)) from None
    tok.skip_special_default = True
    return tok


def _suffix_key(suffix: str, byte_level: bool) -> bytes:
    """end_of_word_suffix as the model's keys hold it: GPT-2 alphabet text decoded to
    bytes under ByteLevel ('</w>' -> b'</w>'), else UTF-8."""
    if not byte_level:
        return suffix.encode("utf-8")
    try:
        return gpt2_bytes(suffix)
    except KeyError:
        raise Unsupported("model.end_of_word_suffix", "model.end_of_word_suffix = "
                          f"{json.dumps(suffix)} is not written in GPT-2's byte alphabet, "
                          "though the tokenizer is byte-level") from None


class Refused(Unsupported):
    """Not something this app cannot run, but a file it must refuse (another kind of
    model, an id no machine holds): the message stands alone."""


def _model_options(node: dict) -> dict:
    kind = model_kind(node)
    if kind != "BPE":
        raise Refused("model.type", not_bpe(kind))
    dropout = node.get("dropout")
    if dropout not in (None, 0, 0.0):
        raise Unsupported("model.dropout", f"model.dropout = {dropout} is not supported "
                          "(BPE dropout makes encoding random)")
    opt = "continuing_subword_prefix"
    if node.get(opt):
        raise Unsupported(f"model.{opt}", f"model.{opt} = {json.dumps(node[opt])} is not "
                          "supported")
    suffix = node.get("end_of_word_suffix") or ""
    if not isinstance(suffix, str):
        raise Unsupported("model.end_of_word_suffix", "model.end_of_word_suffix should be a "
                          "string")
    return {"end_of_word_suffix": suffix,
            "ignore_merges": bool(node.get("ignore_merges", False)),
            "byte_fallback": bool(node.get("byte_fallback", False)),
            "fuse_unk": bool(node.get("fuse_unk", False)), "unk_token": node.get("unk_token")}


def _post(node: Any, where: str) -> tuple[bool, bool] | None:
    """(trim_offsets, add_prefix_space) of the offset-trimming post-processor, if any."""
    if node is None:
        return None
    if not isinstance(node, dict):
        raise Unsupported(where, f"{where} should be an object or null")
    kind = node.get("type")
    if kind in ("ByteLevel", "RobertaProcessing"):
        return (bool(node.get("trim_offsets", True)), bool(node.get("add_prefix_space", True)))
    if kind in ("TemplateProcessing", "BertProcessing"):
        return None
    if kind == "Sequence":
        found = None
        for i, child in enumerate(need(node, "processors", list, where)):
            found = _post(child, f"{where}.processors[{i}]") or found
        return found
    raise Unsupported(f"{where}.type", f"{where}.type = {json.dumps(kind)} is not supported "
                      f"(supported: {POST_PROCESSORS})")


def _added(items: Any) -> list[AddedToken]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise Unsupported("added_tokens", "added_tokens should be a list")
    out = []
    for n, item in enumerate(items):
        where = f"added_tokens[{n}]"
        if not isinstance(item, dict):
            raise Unsupported(where, f"{where} should be an object with 'id' and 'content'")
        tid = need(item, "id", int, where)
        if tid < 0:
            raise Refused(f"{where}.id", f"the id {tid} is negative; ids are whole numbers "
                          "from 0.")
        if tid > MAX_ID:
            raise Refused(f"{where}.id", f"the id {tid} is too large: ids go up to {MAX_ID:,} "
                          "(token ids are 32-bit).")
        out.append(AddedToken(tid, need(item, "content", str, where),
                              bool(item.get("single_word", False)), bool(item.get("lstrip", False)),
                              bool(item.get("rstrip", False)), bool(item.get("normalized", True)),
                              bool(item.get("special", False))))
    return out


def hf_added_ids(added: list[AddedToken], text_id, n_model: int) -> list[AddedToken]:
    """The added tokens with the ids ``tokenizers`` gives them, which are not always the
    file's: it adds them one by one (``AddedVocabulary.add_tokens``) and takes a token's
    id from the model's vocabulary when its text is there (an added token whose id clashes
    with another token's does not take that id), else the next id after the model's
    ``n_model`` and the added tokens so far. A token with empty text is ignored, and so
    is one given twice with the same flags. ``text_id(text)``: the model's id, or -1."""
    ids: dict[str, int] = {}
    top = None   # max(ids.values()): ids are never lowered
    by_id: dict[int, AddedToken] = {}
    by_text: dict[str, list[AddedToken]] = {}   # (some since replaced in by_id)
    for t in added:
        if not t.content or any(by_id.get(o.id) is o and replace(o, id=t.id) == t
                                for o in by_text.get(t.content, ())):
            continue
        i = ids.get(t.content)
        if i is None:
            i = text_id(t.content)
        if i is None or i < 0:
            i = n_model if top is None or (top < n_model and n_model) else top + 1
        ids[t.content] = i
        top = i if top is None else max(top, i)
        by_id[i] = made = replace(t, id=i)
        by_text.setdefault(t.content, []).append(made)
    return list(by_id.values())


def _replacement_of(node: Any) -> str | None:
    """The character a normalizer writes for a space (Llama 2's Replace ' ' -> '▁')."""
    if not isinstance(node, dict):
        return None
    if node.get("type") == "Sequence":
        for child in node.get("normalizers") or []:
            r = _replacement_of(child)
            if r:
                return r
    if node.get("type") == "Replace" and (node.get("pattern") or {}).get("String") == " " \
            and len(node.get("content") or "") == 1:
        return node["content"]
    return None


def _stream_safe(data: dict, pre, norm=None) -> bool:
    """Whether text may be encoded in pieces cut after line breaks (see Pipeline)."""
    if "Prepend" in json.dumps(data.get("normalizer")):
        return False
    if norm is not None and norm.text("a\nb") != "a\nb":   # nmt_nfkc: a line break is a space
        return False
    for s in _walk(data.get("pre_tokenizer") or {}):   # steps that prepend to each piece
        if s.get("type") == "ByteLevel" and s.get("add_prefix_space", True):
            return False
        if s.get("type") == "Metaspace" and _prepends_always(s):
            return False
    return bool(pre.steps)


def _prepends_always(node: dict) -> bool:
    scheme = node.get("prepend_scheme")
    return scheme == "always" or (scheme is None and node.get("add_prefix_space", True))


def _pattern_of(data: dict, pre) -> tuple[str, Classes | None]:
    """The words' regex for the explain view, in ``regex`` syntax (the file's Split
    regex translated from Oniguruma's), and the Unicode tables of its classes."""
    node = data.get("pre_tokenizer") or {}
    text = json.dumps(node)
    if '"Split"' in text:
        for s in _walk(node):
            if s.get("type") == "Split" and isinstance((s.get("pattern") or {}).get("Regex"), str):
                try:
                    return read_pattern(s["pattern"]["Regex"], "oniguruma", pre.classes or None)
                except DialectError:
                    return r"(?s).+", None
    if pre.byte_level and '"use_regex": false' not in text:
        return BYTE_LEVEL_PATTERN, pre.classes
    return r"(?s).+", None


def _walk(node: Any):
    if isinstance(node, dict):
        yield node
        for child in node.get("pretokenizers") or []:
            yield from _walk(child)


def _describe(data: dict, opts: dict) -> dict:
    """A few facts for the window ('ignore_merges, byte_fallback; Metaspace')."""
    flags = [k for k in ("ignore_merges", "byte_fallback") if opts[k]]
    if opts["end_of_word_suffix"]:
        flags.append(f"end_of_word_suffix {opts['end_of_word_suffix']!r}")
    kinds = [s.get("type") for s in _walk(data.get("pre_tokenizer") or {})
             if s.get("type") != "Sequence"]
    return {"model_flags": flags, "pre_tokenizers": kinds,
            "normalizer": (data.get("normalizer") or {}).get("type")}
