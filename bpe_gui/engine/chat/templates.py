"""Where a chat template comes from: the files beside a tokenizer, a GGUF's metadata, or
a file the user picks; and the special-token strings the template is given.

The special tokens (bos_token, eos_token ...) are the tokenizer's, whatever the
template's source, as transformers passes its tokenizer's ``special_tokens_map`` to any
template (:func:`tokenizer_specials`): beside a tokenizer file, tokenizer_config.json
(and special_tokens_map.json, which transformers reads when the config lists no
``added_tokens_decoder``, its values winning); in a GGUF, the metadata's token ids, as
llama.cpp gives its templates; else what the file's own library takes: SentencePiece's
bos and eos pieces, Llama 3's tokenizer.model's ``<|begin_of_text|>`` and
``<|end_of_text|>`` (Meta's tokenizer.py), a tekken.json's ``<s>`` and ``</s>``.

Beside a ``tokenizer.json`` (as transformers loads them): ``chat_template.jinja`` first,
then ``chat_template.json``, then ``tokenizer_config.json``'s ``chat_template`` (a
string, or a list of ``{"name", "template"}``). A GGUF holds ``tokenizer.chat_template``
and named ones as ``tokenizer.chat_template.NAME``. Of named templates, the one asked
for, else ``tool_use`` when the conversation has tools, else ``default``, as
transformers' ``get_chat_template`` picks.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .conversation import ChatError

SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token",
                "mask_token")
CONFIG = "tokenizer_config.json"
SPECIALS_MAP = "special_tokens_map.json"


@dataclass(frozen=True)
class TemplateSource:
    """A template's text and where it came from (``origin``, one line for the window and
    the command line); ``names``: every named template there; ``specials``: bos_token,
    eos_token ... as the tokenizer's config spells them (the template's variables)."""

    text: str
    origin: str
    path: str | None = None
    name: str | None = None
    names: tuple[str, ...] = ()
    specials: dict[str, str] = field(default_factory=dict)


def _content(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def config_specials(config: dict[str, Any]) -> dict[str, str]:
    """bos_token, eos_token ... of a tokenizer_config.json (a string or an AddedToken
    object ``{"content": ...}``; missing or null ones left out)."""
    out = {}
    for k in SPECIAL_KEYS:
        got = _content(config.get(k))
        if got is not None:
            out[k] = got
    return out


def _model_specific(config: dict[str, Any]) -> dict[str, str]:
    """transformers 5's ``extra_special_tokens`` given as a dict (``{"image_token": ...}``):
    each is a named special token, a template variable like bos_token."""
    extra = config.get("extra_special_tokens")
    if not isinstance(extra, dict):
        return {}
    return {k: got for k, v in extra.items()
            if isinstance(k, str) and (got := _content(v)) is not None}


def specials_beside(folder: Path) -> dict[str, str] | None:
    """The special tokens transformers reads from a tokenizer's folder, or None when it
    holds neither tokenizer_config.json nor special_tokens_map.json."""
    cfg, smap = folder / CONFIG, folder / SPECIALS_MAP
    if not cfg.is_file() and not smap.is_file():
        return None
    config = _read_json(cfg) if cfg.is_file() else {}
    config = config if isinstance(config, dict) else {}
    out = {**config_specials(config), **_model_specific(config)}
    if smap.is_file() and "added_tokens_decoder" not in config:
        mapped = _read_json(smap)
        if isinstance(mapped, dict):
            out.update(config_specials(mapped))
            out.update(_model_specific(mapped))
    return out


_LLAMA3_FILE = {"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>"}
_TEKKEN = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}


def _piece(tok, i: Any) -> str | None:
    got = tok.vocab.get(i) if isinstance(i, int) else None
    return None if got is None else got.decode("utf-8", errors="replace")


def tokenizer_specials(tok) -> dict[str, str]:
    """bos_token, eos_token ... of a loaded tokenizer, as its template is given them
    (the module's docstring says from where); {} for a tokenizer that names none.

    Example: Llama 3's tokenizer.json with Meta's tokenizer_config.json beside it ->
    {'bos_token': '<|begin_of_text|>', 'eos_token': '<|eot_id|>'}."""
    meta = tok.meta if isinstance(getattr(tok, "meta", None), dict) else {}
    fmt, source = meta.get("format"), meta.get("source")
    if fmt == "gguf":
        ids = meta.get("special_token_ids") or {}
        return {f"{k}_token": got for k, i in ids.items()
                if f"{k}_token" in SPECIAL_KEYS and (got := _piece(tok, i)) is not None}
    if isinstance(source, str) and source:
        beside = specials_beside(Path(source).parent)
        if beside is not None:
            return beside
    if fmt == "sentencepiece":
        return {k: got for k, key in (("bos_token", "bos_id"), ("eos_token", "eos_id"))
                if (got := _piece(tok, meta.get(key))) is not None}
    if meta.get("encoding") == "llama3":
        return dict(_LLAMA3_FILE)
    if fmt == "tekken":
        return {k: v for k, v in _TEKKEN.items() if v in tok.special_ids}
    return {}


def _pick(named: dict[str, str], name: str | None, tools: bool, where: str) -> tuple[str, str]:
    if name is not None:
        if name not in named:
            raise ChatError(f"{where} has no chat template named {name!r}; it has "
                            f"{', '.join(sorted(named))}.")
        return name, named[name]
    if tools and "tool_use" in named:
        return "tool_use", named["tool_use"]
    if "default" in named:
        return "default", named["default"]
    raise ChatError(f"{where} holds named chat templates ({', '.join(sorted(named))}) and no "
                    "'default'; pick one by name.")


def _read_json(p: Path) -> Any:
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ChatError(f"{p}: cannot be read as JSON ({e}).") from None


def _from_config(p: Path, data: Any, name: str | None, tools: bool,
                 specials: dict[str, str]) -> TemplateSource | None:
    if not isinstance(data, dict):
        raise ChatError(f"{p}: expected a JSON object with \"chat_template\".")
    tpl = data.get("chat_template")
    if tpl is None:
        return None
    if isinstance(tpl, str):
        _no_names(p, name)
        return TemplateSource(tpl, f"{p.name}: chat_template", str(p), None, (), specials)
    if isinstance(tpl, list) and all(isinstance(t, dict) and isinstance(t.get("name"), str)
                                     and isinstance(t.get("template"), str) for t in tpl):
        named = {t["name"]: t["template"] for t in tpl}
        chosen, text = _pick(named, name, tools, str(p))
        return TemplateSource(text, f"{p.name}: chat_template '{chosen}'", str(p), chosen,
                              tuple(named), specials)
    raise ChatError(f"{p}: \"chat_template\" must be a string or a list of "
                    "{\"name\", \"template\"} objects.")


def read_template_file(path: str | Path, name: str | None = None,
                       tools: bool = False) -> TemplateSource:
    """A template from a file: a .jinja text, or a JSON file holding ``chat_template``
    (tokenizer_config.json, chat_template.json)."""
    p = Path(path)
    if not p.is_file():
        if "://" in str(path):
            raise ChatError(f"{path} is a URL, and templates are read from files on this "
                            "machine: download it first and give that file.")
        if p.is_symlink():
            raise ChatError(f"{path}: is a link to {os.readlink(p)}, which does not exist. "
                            "Fix the link, or give the file it should point to.")
        raise ChatError(f"{p}: template file not found. Check the path.")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ChatError(f"{p}: cannot be read as UTF-8 text ({e}).") from None
    if p.suffix.lower() == ".json":
        data = _read_json(p)
        got = _from_config(p, data, name, tools, config_specials(data) if isinstance(data, dict)
                           else {})
        if got is None:
            raise ChatError(f"{p}: has no \"chat_template\".")
        return got
    _no_names(p, name)
    return TemplateSource(text, f"file {p.name}", str(p))


def _no_names(p: Path, name: str | None) -> None:
    """A template of one text has no names: asking for one by name is refused."""
    if name is not None:
        raise ChatError(f"{p} holds one chat template, not named ones, so none is named "
                        f"{name!r}: leave the name out to use it.")


def template_beside(tokenizer: str | Path, name: str | None = None,
                    tools: bool = False) -> TemplateSource | None:
    """The template that comes with a tokenizer file or folder, or None if it has none."""
    p = Path(tokenizer)
    if p.is_file() and p.suffix.lower() == ".gguf":
        return _gguf_template(p, name, tools)
    folder = p if p.is_dir() else p.parent
    cfg = folder / CONFIG
    data = _read_json(cfg) if cfg.is_file() else {}
    specials = specials_beside(folder) or {}
    jinja = folder / "chat_template.jinja"
    if jinja.is_file() and name is None:
        got = read_template_file(jinja)
        return TemplateSource(got.text, "chat_template.jinja", str(jinja), None, (), specials)
    ct_json = folder / "chat_template.json"
    if ct_json.is_file() and name is None:
        found = _from_config(ct_json, _read_json(ct_json), None, tools, specials)
        if found is not None:
            return found
    if cfg.is_file():
        return _from_config(cfg, data, name, tools, specials)
    return None


def _gguf_template(p: Path, name: str | None, tools: bool) -> TemplateSource | None:
    from ..formats.gguf_fmt import read_metadata, vocab_of
    meta = read_metadata(p)
    vocab = vocab_of(meta)
    specials = {f"{k}_token": vocab.tokens[i] for k, i in vocab.special_ids.items()
                if f"{k}_token" in SPECIAL_KEYS}
    key = "tokenizer.chat_template"
    named = {k[len(key) + 1:]: v for k, v in meta.values.items()
             if k.startswith(key + ".") and isinstance(v, str)}
    if vocab.chat_template is not None:
        named.setdefault("default", vocab.chat_template)
    if not named:
        return None
    chosen, text = _pick(named, name, tools, str(p))
    origin = f"GGUF {key}" + ("" if chosen == "default" else f".{chosen}")
    return TemplateSource(text, origin, str(p), chosen, tuple(named), specials)
