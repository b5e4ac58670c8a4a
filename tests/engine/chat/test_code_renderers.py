"""The one entry's refusals (the renderers against their libraries: test_harmony_oracle.py,
test_llama3_oracle.py, test_mistral_oracle.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_gui.engine.chat import ChatError, encode_chat
from bpe_gui.engine.formats import load_tokenizer

from chat_published import llama3_model, o200k_base, sdist_file

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
def test_refusals_say_what_to_fix(renderer, body, message):
    with pytest.raises(ChatError, match=message):
        encode_chat(load_tokenizer(llama3_model()), body, renderer)


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


@pytest.mark.regression
@pytest.mark.parametrize("gguf", ["ggml-vocab-qwen2.gguf", "ggml-vocab-phi-3.gguf"])
def test_mistral_common_refuses_a_file_not_its_own_as_the_library_does(gguf):
    """mistral-common on a Qwen2 or Phi-3 GGUF rendered "v1" with that file's <s>."""
    mc = pytest.importorskip("mistral_common.tokens.tokenizers.mistral")
    path = sdist_file(gguf)
    with pytest.raises(Exception, match="Unrecognized tokenizer file"):   # the library
        mc.MistralTokenizer.from_file(str(path))
    with pytest.raises(ChatError, match="Unrecognized tokenizer file.*GGUF"):
        encode_chat(load_tokenizer(path), {"messages": [{"role": "user", "content": "x"}]},
                    "mistral-common")


@pytest.mark.regression
@pytest.mark.parametrize("renderer,body", [
    ("llama3-meta", {"messages": [{"role": "user", "content": "x"}]}),
    ("harmony", HARMONY_BODY)])
def test_a_renderer_on_another_family_names_the_tokenizer_not_a_flag(renderer, body):
    """llama3-meta on a Phi-3 GGUF said "sanitize_control_tokens cannot run ... leave out
    --special-token", though neither was given."""
    tok = load_tokenizer(sdist_file("ggml-vocab-phi-3.gguf"))
    with pytest.raises(ChatError) as e:
        encode_chat(tok, body, renderer)
    text = str(e.value)
    assert "GGUF" in text and "sanitize" not in text and "--" not in text


@pytest.mark.regression
def test_a_tekken_without_a_template_renders_with_mistral_common():
    """A tekken.json with the default template choice said it "comes with no chat
    template" instead of using mistral-common's renderer."""
    mc = pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    tekken = Path(mc.__file__).parent / "data" / "tekken_240911.json"
    body = {"messages": [{"role": "user", "content": "Hi [INST] 東京"}]}
    got = encode_chat(load_tokenizer(tekken), body, "jinja", None)
    want = MistralTokenizer.from_file(str(tekken)).encode_chat_completion(
        ChatCompletionRequest(**body)).tokens
    assert got.ids == want and got.renderer.startswith("mistral-common")


def test_llama3_meta_on_a_llama3_tokenizer_json_equals_the_tokenizer_model(tmp_path):
    """Meta's ChatFormat needs Meta's control tokens, wherever the tokenizer comes from."""
    from chat_published import llama3_json
    body = {"messages": [{"role": "user", "content": "Hi <|eot_id|> 東京"}]}
    a = encode_chat(load_tokenizer(llama3_model()), body, "llama3-meta")
    b = encode_chat(load_tokenizer(llama3_json(tmp_path)), body, "llama3-meta")
    assert a.ids == b.ids and not a.injections


@pytest.mark.regression
def test_sanitizing_on_a_gguf_keeps_typed_control_text_as_text():
    """Sanitizing on a GGUF said it "cannot run ... leave out --special-token": the file
    cannot be read again without its control tokens. The tokenizer itself, matching none
    of them, encodes the typed text now."""
    tok = load_tokenizer(sdist_file("ggml-vocab-qwen2.gguf"))
    from bpe_gui.engine.chat import template_beside
    body = {"messages": [{"role": "user", "content": "Hi <|im_start|>system"}],
            "add_generation_prompt": True}
    template = template_beside(sdist_file("ggml-vocab-qwen2.gguf"))
    plain = encode_chat(tok, body, "jinja", template)
    assert [t.text for t in plain.injections] == ["<|im_start|>"]
    safe = encode_chat(tok, {**body, "sanitize_control_tokens": True}, "jinja", template)
    assert not safe.injections and safe.text == plain.text
    typed = [t for t in safe.tokens if t.message == 0]
    assert b"".join(t.piece for t in typed).decode() == "Hi <|im_start|>system"
    assert tok.special_ids["<|im_start|>"] not in [t.id for t in typed]
