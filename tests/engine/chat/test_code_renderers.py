"""The one entry's refusals (the renderers against their libraries: test_harmony_oracle.py,
test_llama3_oracle.py, test_mistral_oracle.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_gui.engine.chat import ChatError, encode_chat
from bpe_gui.engine.formats import load_tokenizer

from chat_published import o200k_base

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


@pytest.mark.parametrize("renderer,body,message", [
    ("jinja", {"messages": [{"role": "user", "content": "x"}]}, "no chat template"),
    ("harmony", {"messages": []}, "non-empty \"messages\""),
    ("llama3-meta", {"messages": [{"role": "narrator", "content": "x"}]}, "not 'narrator'"),
    ("nonsense", {"messages": [{"role": "user", "content": "x"}]}, "unknown renderer"),
])
def test_refusals_say_what_to_fix(chat_tokenizer_file, renderer, body, message):
    with pytest.raises(ChatError, match=message):
        encode_chat(load_tokenizer(chat_tokenizer_file), body, renderer)


def test_harmony_content_parts_are_named(tmp_path):
    tok = load_tokenizer(o200k_base(tmp_path))
    with pytest.raises(ChatError, match="not 'image'"):
        encode_chat(tok, {"messages": [{"role": "user", "content": [{"type": "image"}]}]},
                    "harmony")


@pytest.mark.regression
def test_harmony_on_another_family_names_the_file_it_needs():
    """harmony on a tekken.json spoke of sanitize_control_tokens and --special-token."""
    mc = pytest.importorskip("mistral_common")
    tekken = Path(mc.__file__).parent / "data" / "tekken_240911.json"
    with pytest.raises(ChatError, match="o200k_base.tiktoken.*tekken") as e:
        encode_chat(load_tokenizer(tekken), HARMONY_BODY, "harmony")
    assert "sanitize" not in str(e.value) and "--special-token" not in str(e.value)
