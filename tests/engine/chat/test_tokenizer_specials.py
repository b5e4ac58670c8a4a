"""The tokenizer's own special tokens (bos_token, eos_token ...) reach every template,
whatever its source, as transformers gives its tokenizer's to any template: from
tokenizer_config.json or special_tokens_map.json beside a tokenizer.json, from a GGUF's
metadata, from a known file. Oracles: transformers' apply_chat_template over Meta's
published Llama 3 tokenizer (converted by transformers) and llama.cpp's copies of the
Llama 3.1 and DeepSeek templates; a variable the tokenizer lacks is said, not dropped."""
from __future__ import annotations

import pytest

from bpe_gui.engine.chat import TemplateSource, encode_chat, read_template_file
from bpe_gui.engine.formats import load_tokenizer

from chat_published import LLAMA31_CONFIG, gguf_special, llama3_json, llama3_model, \
    sdist_file, write_json
from transformers_oracle import FIXED, fixed_clock

LLAMA31 = "meta-llama-Llama-3.1-8B-Instruct.jinja"
DEEPSEEK = "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja"
BODY = {"messages": [{"role": "system", "content": "Be terse."},
                     {"role": "user", "content": "Weather in 東京? 🌧"}],
        "add_generation_prompt": True}


@pytest.fixture(scope="module")
def llama3_dir(tmp_path_factory):
    """Meta's Llama 3 tokenizer as a tokenizer.json (transformers' conversion)."""
    return llama3_json(tmp_path_factory.mktemp("llama3")).parent


def _hf(folder, template: str, body: dict) -> tuple[str, list[int]]:
    """transformers' text and ids, its tokenizer loaded from ``folder`` as a user loads
    it (tokenizer_config.json and special_tokens_map.json read as transformers reads them)."""
    with fixed_clock() as transformers:
        t = transformers.AutoTokenizer.from_pretrained(str(folder))
        kw = dict(chat_template=template, add_generation_prompt=body["add_generation_prompt"])
        text = t.apply_chat_template(body["messages"], tokenize=False, **kw)
        ids = t.apply_chat_template(body["messages"], tokenize=True, return_dict=False, **kw)
    return text, list(ids)


def _ours(tokenizer_file, template_file, body=BODY):
    return encode_chat(load_tokenizer(tokenizer_file), body, "jinja",
                       read_template_file(template_file), now=lambda: FIXED)


@pytest.mark.regression
def test_a_template_file_gets_bos_from_tokenizer_config_beside_the_tokenizer(tmp_path,
                                                                          llama3_dir):
    """A .jinja template rendered {{ bos_token }} empty: read_template_file gave no specials."""
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer.json").symlink_to(llama3_dir / "tokenizer.json")
    write_json(folder / "tokenizer_config.json", LLAMA31_CONFIG)
    template = sdist_file(LLAMA31)
    want_text, want = _hf(folder, template.read_text(encoding="utf-8"), BODY)
    got = _ours(folder / "tokenizer.json", template)
    assert want[0] == 128000 and want_text.startswith("<|begin_of_text|>")
    assert got.text == want_text and got.ids == want
    assert got.notes == ()


@pytest.mark.regression
def test_special_tokens_map_beside_the_tokenizer_counts_too(tmp_path, llama3_dir):
    """special_tokens_map.json was never read: its bos_token rendered empty."""
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer.json").symlink_to(llama3_dir / "tokenizer.json")
    write_json(folder / "tokenizer_config.json", {"model_max_length": 131072})
    write_json(folder / "special_tokens_map.json",
               {"bos_token": {"content": "<|begin_of_text|>", "lstrip": False},
                "eos_token": "<|eot_id|>"})
    template = sdist_file(LLAMA31)
    want_text, want = _hf(folder, template.read_text(encoding="utf-8"), BODY)
    got = _ours(folder / "tokenizer.json", template)
    assert want[0] == 128000
    assert got.text == want_text and got.ids == want


@pytest.mark.regression
def test_a_known_file_gives_its_bos(tmp_path, llama3_dir):
    """Meta's tokenizer.model with a template file rendered no <|begin_of_text|>."""
    template = sdist_file(LLAMA31)
    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "tokenizer.json").symlink_to(llama3_dir / "tokenizer.json")
    # Meta's tokenizer.py: bos <|begin_of_text|>, eos <|end_of_text|>
    write_json(folder / "tokenizer_config.json", {"bos_token": "<|begin_of_text|>",
                                                  "eos_token": "<|end_of_text|>"})
    want_text, want = _hf(folder, template.read_text(encoding="utf-8"), BODY)
    got = _ours(llama3_model(), template)
    assert got.text == want_text and got.ids == want and got.ids[0] == 128000


@pytest.mark.regression
def test_deepseek_template_file_gets_the_gguf_bos(tmp_path):
    """DeepSeek's template given as a file lost the GGUF's BOS."""
    gguf = sdist_file("ggml-vocab-deepseek-llm.gguf")
    template = sdist_file(DEEPSEEK)
    bos_id, bos = gguf_special(gguf, "bos")
    _, eos = gguf_special(gguf, "eos")
    body = {"messages": [{"role": "user", "content": "2+2?"},
                         {"role": "assistant", "content": "4"},
                         {"role": "user", "content": "And 東京?"}], "add_generation_prompt": True}
    with fixed_clock():
        from transformers.utils.chat_template_utils import render_jinja_template
        want, _ = render_jinja_template(conversations=[body["messages"]],
                                        chat_template=template.read_text(encoding="utf-8"),
                                        add_generation_prompt=True, bos_token=bos,
                                        eos_token=eos)
    got = _ours(gguf, template, body)
    assert got.text == want[0] and got.text.startswith(bos)
    assert got.ids[0] == bos_id and got.tokens[0].origin == "special"


@pytest.mark.regression
def test_a_bos_the_tokenizer_lacks_is_said(llama3_dir):
    """A template's {{ bos_token }} on a tokenizer without one rendered empty in silence."""
    template = sdist_file(LLAMA31)
    want_text, _ = _hf(llama3_dir, template.read_text(encoding="utf-8"), BODY)
    got = _ours(llama3_dir / "tokenizer.json", template)
    assert got.text == want_text   # transformers renders it empty too ...
    assert len(got.notes) == 1     # ... and here the user is told
    assert "bos_token" in got.notes[0] and "tokenizer_config.json" in got.notes[0]


def test_an_undefined_special_token_in_an_expression_names_the_fix(llama3_dir):
    tok = load_tokenizer(llama3_dir / "tokenizer.json")
    from bpe_gui.engine.chat import ChatError
    with pytest.raises(ChatError, match=r"'eos_token' is undefined.*tokenizer_config\.json"):
        encode_chat(tok, BODY, "jinja", TemplateSource("{{ 'x' + eos_token }}", "t.jinja"))


def test_chat_template_kwargs_define_what_the_tokenizer_lacks(llama3_dir):
    tok = load_tokenizer(llama3_dir / "tokenizer.json")
    body = {**BODY, "chat_template_kwargs": {"bos_token": "<|begin_of_text|>"}}
    got = encode_chat(tok, body, "jinja", TemplateSource("{{ bos_token }}hi", "t.jinja"))
    assert got.ids[0] == 128000 and got.notes == ()
