"""The one entry's refusals (the renderers against their libraries: test_harmony_oracle.py,
test_llama3_oracle.py, test_mistral_oracle.py)."""
from __future__ import annotations

import pytest

from bpe_gui.engine.chat import ChatError, encode_chat
from bpe_gui.engine.formats import load_tokenizer

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
