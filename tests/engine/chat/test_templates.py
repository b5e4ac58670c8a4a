"""Where templates come from (tokenizer_config.json, chat_template.jinja, a GGUF, a file)
and bad conversations and templates getting a message that says what to fix."""
from __future__ import annotations

import json

import pytest

from bpe_gui.engine.chat import (ChatError, conversation_from_request, read_conversation,
                                 read_template_file, template_beside)


def _config(d, **kw):
    (d / "tokenizer_config.json").write_text(json.dumps(kw), encoding="utf-8")


def test_config_string_and_specials(tmp_path):
    _config(tmp_path, chat_template="{{ bos_token }}x", bos_token={"content": "<s>"},
            eos_token="</s>", pad_token=None)
    got = template_beside(tmp_path / "tokenizer.json")
    assert got.text == "{{ bos_token }}x"
    assert got.origin == "tokenizer_config.json: chat_template"
    assert got.specials == {"bos_token": "<s>", "eos_token": "</s>"}


def test_named_templates_picked_as_transformers_picks(tmp_path):
    _config(tmp_path, chat_template=[{"name": "default", "template": "D"},
                                     {"name": "tool_use", "template": "T"}])
    assert template_beside(tmp_path).text == "D"
    assert template_beside(tmp_path, tools=True).text == "T"
    assert template_beside(tmp_path, name="default", tools=True).text == "D"
    with pytest.raises(ChatError, match="no chat template named 'rag'.*default, tool_use"):
        template_beside(tmp_path, name="rag")


def test_chat_template_jinja_wins_over_the_config(tmp_path):
    _config(tmp_path, chat_template="old", eos_token="</s>")
    (tmp_path / "chat_template.jinja").write_text("new", encoding="utf-8")
    got = template_beside(tmp_path / "tokenizer.json")
    assert (got.text, got.origin, got.specials) == ("new", "chat_template.jinja",
                                                     {"eos_token": "</s>"})


def test_no_template_beside_is_none(tmp_path):
    assert template_beside(tmp_path / "tokenizer.json") is None


def test_gguf_template_and_named_ones(tmp_path):
    gguf = pytest.importorskip("gguf")
    path = tmp_path / "m.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tokenizer_model("gpt2")
    w.add_token_list(["<s>", "a", "b"])
    w.add_bos_token_id(0)
    w.add_chat_template("{{ bos_token }}G")
    w.add_string("tokenizer.chat_template.tool_use", "TOOLS")
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    got = template_beside(path)
    assert (got.text, got.origin, got.specials) == ("{{ bos_token }}G",
                                                     "GGUF tokenizer.chat_template",
                                                     {"bos_token": "<s>"})
    assert template_beside(path, tools=True).text == "TOOLS"


def test_template_file_jinja_and_json(tmp_path):
    (tmp_path / "a.jinja").write_text("J", encoding="utf-8")
    assert read_template_file(tmp_path / "a.jinja").text == "J"
    (tmp_path / "b.json").write_text(json.dumps({"chat_template": "K"}), encoding="utf-8")
    assert read_template_file(tmp_path / "b.json").text == "K"
    (tmp_path / "c.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ChatError, match="has no \"chat_template\""):
        read_template_file(tmp_path / "c.json")
    with pytest.raises(ChatError, match="not found"):
        read_template_file(tmp_path / "none.jinja")


@pytest.mark.parametrize("body,message", [
    ({}, "no \"messages\""),
    ({"messages": []}, "no \"messages\""),
    ({"messages": [{"content": "x"}]}, "message 1 has no \"role\""),
    ({"messages": "hi"}, "\"messages\" must be a list"),
    ({"messages": [{"role": "user", "content": "x"}], "add_generation_prompt": True,
      "continue_final_message": True}, "cannot both be set"),
    ({"messages": [{"role": "user", "content": "x"}], "chat_template_kwargs": [1]},
     "\"chat_template_kwargs\" must be an object"),
    ("text", "must be a JSON object"),
])
def test_bad_conversations_say_what_to_fix(body, message):
    with pytest.raises(ChatError, match=message):
        conversation_from_request(body)


def test_conversation_file_errors_name_the_file_and_line(tmp_path):
    p = tmp_path / "c.json"
    p.write_text('{"messages": [\n  {"role": "user",}\n]}', encoding="utf-8")
    with pytest.raises(ChatError, match=r"c\.json: not JSON at line 2"):
        read_conversation(p)
    with pytest.raises(ChatError, match="not found"):
        read_conversation(tmp_path / "none.json")


def test_null_keys_are_dropped_and_a_bare_list_is_messages():
    conv = conversation_from_request([{"role": "assistant", "content": None, "name": "x"}])
    assert conv.messages == ({"role": "assistant", "name": "x"},)


@pytest.mark.regression
def test_a_conversation_nested_too_deep_is_refused_in_one_line(tmp_path):
    """--messages JSON nested 100,000 deep, or a content nested 900 deep, raised
    RecursionError (json.loads, conversation._plain)."""
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ChatError, match=r"deep\.json: .*nested more than 128 levels"):
        read_conversation(p)
    content: list = []
    for _ in range(900):
        content = [content]
    with pytest.raises(ChatError, match="more than 128 levels deep"):
        conversation_from_request({"messages": [{"role": "user", "content": content}]})


@pytest.mark.regression
def test_a_lone_surrogate_is_read_as_tiktoken_reads_it_and_said():
    """A content holding "\\ud800" reached the --json output, which is not UTF-8."""
    tiktoken = pytest.importorskip("tiktoken")
    text = "a\ud800b\ud83d\ude00"
    conv = conversation_from_request({"messages": [{"role": "user", "content": text}]})
    got = conv.messages[0]["content"]
    got.encode("utf-8")   # (valid text now)
    # tiktoken's own reading of the same text, seen through its bytes (a byte per token)
    enc = tiktoken.Encoding("bytes", pat_str=r"[\s\S]", special_tokens={},
                            mergeable_ranks={bytes([i]): i for i in range(256)})
    assert bytes(enc.encode(text)).decode("utf-8") == got == "a\ufffdb\U0001F600"
    assert len(conv.notes) == 1 and "lone surrogate" in conv.notes[0]


@pytest.mark.regression
@pytest.mark.parametrize("key,value", [("add_generation_prompt", "false"),
                                       ("sanitize_control_tokens", "true"),
                                       ("add_generation_prompt", 0),
                                       ("continue_final_message", "false")])
def test_options_are_json_booleans(key, value):
    """"add_generation_prompt": "false" (a string) was read as true."""
    with pytest.raises(ChatError, match=f'"{key}" must be true'):
        conversation_from_request({"messages": [{"role": "user", "content": "x"}],
                                   key: value})
