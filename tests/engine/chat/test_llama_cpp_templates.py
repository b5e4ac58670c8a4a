"""Every chat template llama.cpp ships, and the ones its vocabulary GGUFs embed, rendered
here and by transformers' apply_chat_template: the same text and the same ids (over the
chat tests' tokenizer, which encodes any text), or both refuse the conversation."""
from __future__ import annotations


import pytest

from bpe_gui.engine.chat import ChatError, TemplateSource, conversation_from_request, \
    encode_chat_jinja, template_beside
from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.formats.gguf_fmt import read_metadata

from llama_cpp_sdist import sdist_files
from transformers_oracle import FIXED, check_origins, fixed_clock, hf_render, hf_tokenizer

FOLDER, WHY = sdist_files()
# ~215 renders by each library (about two minutes here): CI's slow run
pytestmark = [pytest.mark.skipif(FOLDER is None, reason=WHY), pytest.mark.slow]
SPECIALS = {"bos_token": "<s>", "eos_token": "</s>"}
TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
CONVERSATIONS = {
    "multi_turn": {"messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Hi 東京 🌧 <|im_start|>"},
        {"role": "assistant", "content": "Hello!\n\n  def f():\n\treturn 1"},
        {"role": "user", "content": "And now?"}], "add_generation_prompt": True},
    "tools": {"messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
         "content": "rainy"}], "tools": [TOOL], "add_generation_prompt": True},
    "developer_documents_options": {"messages": [
        {"role": "developer", "content": "Answer from the documents, briefly."},
        {"role": "user", "content": "Where is it rainy? 東京?"}],
        "documents": [{"title": "Paris", "text": "Rainy, 12°C."},
                      {"title": "東京", "text": "晴れ, 20°C."}],
        "chat_template_kwargs": {"enable_thinking": False, "reasoning_effort": "low",
                                 "date_string": "26 Jul 2024", "builtin_tools": ["brave_search"],
                                 "tools_in_user_message": False},
        "add_generation_prompt": True},
    "no_generation_prompt": {"messages": [
        {"role": "user", "content": "Say hello to Paris"},
        {"role": "assistant", "content": "Bonjour Paris, says the assistant"}],
        "add_generation_prompt": False},
}
NAMES = sorted(p.stem for p in FOLDER.glob("*.jinja")) if FOLDER else []


@pytest.fixture(scope="module")
def hf(chat_tokenizer_file):
    with fixed_clock() as transformers:
        yield hf_tokenizer(transformers, chat_tokenizer_file, SPECIALS)


@pytest.fixture(scope="module")
def ours(chat_tokenizer_file):
    return load_tokenizer(chat_tokenizer_file)


def _compare(hf, ours, template: str, body: dict, specials: dict) -> None:
    try:
        want, want_ids = hf_render(hf, body, chat_template=template)
    except Exception:   # transformers refuses this conversation: so must we
        with pytest.raises(ChatError):
            encode_chat_jinja(ours, TemplateSource(template, "t", specials=specials),
                              conversation_from_request(body), now=lambda: FIXED)
        return
    got = encode_chat_jinja(ours, TemplateSource(template, "t", specials=specials),
                            conversation_from_request(body), now=lambda: FIXED)
    assert got.text == want
    assert got.ids == want_ids
    check_origins(got, body)


@pytest.mark.parametrize("case", list(CONVERSATIONS))
@pytest.mark.parametrize("name", NAMES)
def test_shipped_template_renders_as_transformers(hf, ours, name, case):
    template = (FOLDER / f"{name}.jinja").read_text(encoding="utf-8")
    _compare(hf, ours, template, CONVERSATIONS[case], SPECIALS)


GGUFS = sorted(p.name for p in FOLDER.glob("ggml-vocab-*.gguf")
               if read_metadata(p).get("tokenizer.chat_template")) if FOLDER else []


@pytest.mark.parametrize("name", GGUFS)
def test_gguf_template_is_found_and_renders_as_transformers(hf, ours, name):
    path = FOLDER / name
    found = template_beside(path)
    assert found is not None
    assert found.text == read_metadata(path).get("tokenizer.chat_template")
    assert found.origin == "GGUF tokenizer.chat_template"
    hf_specials = dict(found.specials)
    saved = {k: getattr(hf, k) for k in hf_specials}
    for k, v in hf_specials.items():
        setattr(hf, k, v)
    try:
        _compare(hf, ours, found.text, CONVERSATIONS["multi_turn"], found.specials)
    finally:
        for k, v in saved.items():
            setattr(hf, k, v)
