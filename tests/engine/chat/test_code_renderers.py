"""Llama 3's ChatFormat against Meta's reference rules written out here over HF
tokenizers' encoder; harmony against openai-harmony where its o200k file is on this
machine (TIKTOKEN_ENCODINGS_BASE); the one entry's refusals."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bpe_gui.engine.chat import ChatError, encode_chat
from bpe_gui.engine.formats import load_tokenizer

DIALOG = {"messages": [
    {"role": "system", "content": "  Be terse.\n"},
    {"role": "user", "content": "Weather in 東京? 🌧 typed <|eot_id|> stays text"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"tool_name": "get_weather", "arguments": {"city": "東京"}}]},
    {"role": "tool", "content": '{"sky": "rain"}'},
    {"role": "assistant", "content": "def f(x):\n    return x\n"},
    {"role": "user", "content": ""}]}


def _reference_llama3(hf, dialog) -> list[int]:
    """Meta's ChatFormat.encode_dialog_prompt: BOS, each message's header (role text and
    "\\n\\n" encoded apart) and stripped content with <|eot_id|> (tool calls as JSON with
    <|eom_id|>, tool results under 'ipython'), then an assistant header; text encoded with
    no special tokens allowed."""
    sp = hf.token_to_id
    hf.encode_special_tokens = True
    enc = lambda s: hf.encode(s, add_special_tokens=False).ids  # noqa: E731

    def header(role):
        return [sp("<|start_header_id|>")] + enc(role) + [sp("<|end_header_id|>")] + enc("\n\n")
    out = [sp("<|begin_of_text|>")]
    for m in dialog["messages"]:
        out += header("ipython" if m["role"] == "tool" else m["role"])
        if m.get("tool_calls"):
            c = m["tool_calls"][0]
            out += enc(json.dumps({"name": c["tool_name"], "parameters": c["arguments"]},
                                  ensure_ascii=False)) + [sp("<|eom_id|>")]
        else:
            out += enc(m["content"].strip()) + [sp("<|eot_id|>")]
    hf.encode_special_tokens = False
    return out + header("assistant")


def test_llama3_meta_equals_the_reference(chat_tokenizer_file):
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_file(str(chat_tokenizer_file))
    got = encode_chat(load_tokenizer(chat_tokenizer_file), DIALOG, "llama3-meta")
    assert got.ids == _reference_llama3(hf, DIALOG)
    assert not got.injections
    user = [t for t in got.tokens if t.message == 1]
    assert {t.role for t in user} == {"user"}
    assert b"".join(t.piece for t in user).decode("utf-8", "replace").startswith("Weather")


HARMONY_BODY = {"messages": [
    {"role": "system", "content": [{"type": "system_content", "knowledge_cutoff": "2024-06",
                                    "conversation_start_date": "2026-03-14",
                                    "reasoning_effort": "high"}]},
    {"role": "user", "content": [{"type": "text", "text": "Weather in 東京? 🌧"}]},
    {"role": "assistant", "channel": "commentary", "recipient": "functions.get_weather",
     "content_type": "<|constrain|>json",
     "content": [{"type": "text", "text": '{"city": "東京"}'}]},
    {"role": "tool", "name": "functions.get_weather", "recipient": "assistant",
     "channel": "commentary", "content": [{"type": "text", "text": '{"sky": "rain"}'}]}]}


def test_harmony_equals_openai_harmony():
    base = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    if not base or not (Path(base) / "o200k_base.tiktoken").is_file():
        pytest.skip("openai-harmony needs o200k_base.tiktoken in TIKTOKEN_ENCODINGS_BASE "
                    "(offline); set it to a folder that holds it")
    oh = pytest.importorskip("openai_harmony")
    enc = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    convo = oh.Conversation.from_json(json.dumps(HARMONY_BODY))
    want = enc.render_conversation_for_completion(convo, oh.Role.ASSISTANT)
    tok = load_tokenizer(Path(base) / "o200k_base.tiktoken")
    assert encode_chat(tok, HARMONY_BODY, "harmony").ids == list(want)


@pytest.mark.parametrize("renderer,body,message", [
    ("jinja", {"messages": [{"role": "user", "content": "x"}]}, "no chat template"),
    ("harmony", {"messages": []}, "non-empty \"messages\""),
    ("llama3-meta", {"messages": [{"role": "narrator", "content": "x"}]}, "not 'narrator'"),
    ("harmony", {"messages": [{"role": "user", "content": [{"type": "image"}]}]},
     "not 'image'"),
    ("nonsense", {"messages": [{"role": "user", "content": "x"}]}, "unknown renderer"),
])
def test_refusals_say_what_to_fix(chat_tokenizer_file, renderer, body, message):
    with pytest.raises(ChatError, match=message):
        encode_chat(load_tokenizer(chat_tokenizer_file), body, renderer)


def test_a_control_token_the_tokenizer_lacks_is_named(chat_tokenizer_file):
    with pytest.raises(ChatError, match="no '<\\|start\\|>' token"):
        encode_chat(load_tokenizer(chat_tokenizer_file), HARMONY_BODY, "harmony")
