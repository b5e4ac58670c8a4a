"""Every chat template llama.cpp ships, and the ones its vocabulary GGUFs embed, rendered
here and by transformers' apply_chat_template: the same text and the same ids (over the
chat tests' tokenizer, which encodes any text), or both refuse the conversation."""
from __future__ import annotations

import copy
from datetime import datetime

import pytest

from bpe_gui.engine.chat import ChatError, TemplateSource, conversation_from_request, \
    encode_chat_jinja, template_beside
from bpe_gui.engine.formats import load_tokenizer
from bpe_gui.engine.formats.gguf_fmt import read_metadata

from llama_cpp_templates import templates_dir
from test_jinja_oracle import _check_origins

FOLDER, WHY = templates_dir()
# ~215 renders by each library (about two minutes here): CI's slow run
pytestmark = [pytest.mark.skipif(FOLDER is None, reason=WHY), pytest.mark.slow]
FIXED = datetime(2026, 3, 14, 15, 9, 26)
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
    "no_generation_prompt": {"messages": [
        {"role": "user", "content": "Say hello to Paris"},
        {"role": "assistant", "content": "Bonjour Paris, says the assistant"}],
        "add_generation_prompt": False},
}
NAMES = sorted(p.stem for p in FOLDER.glob("*.jinja")) if FOLDER else []


@pytest.fixture(scope="module")
def hf(chat_tokenizer_file):
    transformers = pytest.importorskip("transformers")
    ctu = pytest.importorskip("transformers.utils.chat_template_utils")

    class Fixed(datetime):
        @classmethod
        def now(cls, tz=None):
            return FIXED
    old, ctu.datetime = ctu.datetime, Fixed
    yield transformers.PreTrainedTokenizerFast(tokenizer_file=str(chat_tokenizer_file),
                                               **SPECIALS)
    ctu.datetime = old


@pytest.fixture(scope="module")
def ours(chat_tokenizer_file):
    return load_tokenizer(chat_tokenizer_file)


def _compare(hf, ours, template: str, body: dict, specials: dict) -> None:
    kw = {k: body[k] for k in ("tools", "add_generation_prompt") if k in body}
    try:
        want = hf.apply_chat_template(copy.deepcopy(body["messages"]), chat_template=template,
                                      tokenize=False, **kw)
        want_ids = hf.apply_chat_template(copy.deepcopy(body["messages"]),
                                          chat_template=template, tokenize=True,
                                          return_dict=False, **kw)
    except Exception:   # transformers refuses this conversation: so must we
        with pytest.raises(ChatError):
            encode_chat_jinja(ours, TemplateSource(template, "t", specials=specials),
                              conversation_from_request(body), now=lambda: FIXED)
        return
    got = encode_chat_jinja(ours, TemplateSource(template, "t", specials=specials),
                            conversation_from_request(body), now=lambda: FIXED)
    assert got.text == want
    assert got.ids == list(want_ids)
    _check_origins(got, body)


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
