"""transformers' apply_chat_template as the oracle of the jinja renderer, set up once for
the chat tests: its clock fixed (``strftime_now`` reads the module's datetime when it
runs), a fast tokenizer over the chat tests' tokenizer.json, the text and ids it renders,
and the test's own reading of whose text each token is."""
from __future__ import annotations

import contextlib
import copy
import json
from datetime import datetime
from typing import Iterator

import pytest

FIXED = datetime(2026, 3, 14, 15, 9, 26)
HF_KEYS = ("tools", "documents", "add_generation_prompt", "continue_final_message")


def hf_kwargs(body: dict, kw: dict) -> dict:
    """What apply_chat_template is given besides the messages: the request's keys it
    reads, its ``chat_template_kwargs`` as template variables, then ``kw``."""
    return {**{k: body[k] for k in HF_KEYS if k in body},
            **copy.deepcopy(body.get("chat_template_kwargs", {})), **kw}


@contextlib.contextmanager
def fixed_clock() -> Iterator[object]:
    """transformers (skipped without it) with its chat templates' clock at FIXED."""
    transformers = pytest.importorskip("transformers")
    ctu = pytest.importorskip("transformers.utils.chat_template_utils")

    class Fixed(datetime):
        @classmethod
        def now(cls, tz=None):
            return FIXED
    old, ctu.datetime = ctu.datetime, Fixed
    try:
        yield transformers
    finally:
        ctu.datetime = old


def hf_tokenizer(transformers, tokenizer_file, specials: dict):
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file), **specials)


def hf_ids(t, body: dict, **kw) -> list[int]:
    """The ids of ``body`` by ``t.apply_chat_template``; ``kw`` passed on."""
    return list(t.apply_chat_template(copy.deepcopy(body["messages"]), tokenize=True,
                                      return_dict=False, **hf_kwargs(body, kw)))


def hf_render(t, body: dict, **kw) -> tuple[str, list[int]]:
    """(text, ids) of ``body`` by ``t.apply_chat_template``; ``kw`` passed on."""
    text = t.apply_chat_template(copy.deepcopy(body["messages"]), tokenize=False,
                                 **hf_kwargs(body, kw))
    return text, hf_ids(t, body, **kw)


def _content_ranges(text: str, body: dict) -> list[tuple[int, int, int]]:
    """(start, end, message) of each message's content: its first occurrence (as given,
    else with its ends' spaces stripped) that no earlier message's took; the test's own
    reading of where the text went (templates may move a system prompt to the end)."""
    out: list[tuple[int, int, int]] = []
    for i, m in enumerate(body["messages"]):
        c = m.get("content")
        if not isinstance(c, str) or not c.strip():
            continue
        for cand in (c, c.strip()):
            k = text.find(cand)
            while k >= 0 and any(s < k + len(cand) and k < e for s, e, _ in out):
                k = text.find(cand, k + 1)
            if k >= 0:
                out.append((k, k + len(cand), i))
                break
    return out


def check_origins(got, body: dict) -> None:
    """A token inside a message's text is that message's (a control token there is an
    injection); one outside every message's text is the template's, or the documents'
    where the request gives them (a word of theirs is one the documents hold). With
    tools, what lies outside the messages is not read: templates rewrite the tools."""
    ranges = _content_ranges(got.text, body)
    given = json.dumps(body.get("documents"), ensure_ascii=False)
    for tok in got.tokens:
        inside = [i for s, e, i in ranges if s <= tok.start and tok.end <= e and tok.end > s]
        if inside:
            i = inside[0]
            assert (tok.message, tok.role) == (i, body["messages"][i]["role"]), tok
        elif tok.role == "documents":
            assert body.get("documents"), tok
            piece = got.text[tok.start:tok.end].strip()
            assert piece in given or not piece.isalnum(), tok
        elif "tools" not in body and not any(s < tok.end and tok.start < e for s, e, _ in ranges):
            assert tok.role == "template", tok
        assert tok.injected == (bool(inside) and tok.special), tok
