"""``bpe-gui chat``: its --json ids equal each library's (transformers' apply_chat_template
with the template beside the tokenizer, mistral-common's encode_chat_completion,
llama-models' ChatFormat, openai-harmony), every
token's origin, and bad input getting one line that says what to fix."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chat_published import LLAMA31_CONFIG, llama3_json, sdist_file
from test_cli import assert_user_error, err, out, run

DOCS = Path(__file__).resolve().parents[2] / "docs" / "CLI.md"

CONV = {"messages": [
    {"role": "system", "content": "Be terse."},
    {"role": "user", "content": "Weather in 東京? 🌧 and <|eot_id|> typed"},
    {"role": "assistant", "content": "Rain.\n\tdef f():\n        pass"},
    {"role": "user", "content": ""}], "add_generation_prompt": True}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    """Meta's Llama 3 tokenizer as a tokenizer.json (transformers' conversion of its
    tokenizer.model), and beside it a tokenizer_config.json as Meta's Llama 3.1 Instruct
    has it: its bos and eos, and its chat template (llama.cpp's copy)."""
    d = tmp_path_factory.mktemp("chat_model")
    llama3_json(d)
    template = sdist_file("meta-llama-Llama-3.1-8B-Instruct.jinja").read_text("utf-8")
    (d / "tokenizer_config.json").write_text(json.dumps(
        {"chat_template": template, **LLAMA31_CONFIG}), encoding="utf-8")
    (d / "conv.json").write_text(json.dumps(CONV, ensure_ascii=False), encoding="utf-8")
    return d


def test_json_ids_equal_transformers_with_the_template_beside(model_dir):
    transformers = pytest.importorskip("transformers")
    p = run("chat", "--tokenizer", str(model_dir / "tokenizer.json"), "--messages",
            str(model_dir / "conv.json"), "--json", cwd=model_dir)
    assert p.returncode == 0, p.stderr
    got = json.loads(out(p))
    hf = transformers.AutoTokenizer.from_pretrained(str(model_dir))
    want_text = hf.apply_chat_template(CONV["messages"], tokenize=False,
                                       add_generation_prompt=True)
    want = hf.apply_chat_template(CONV["messages"], tokenize=True, return_dict=False,
                                  add_generation_prompt=True)
    assert got["text"] == want_text
    assert got["ids"] == list(want) == [t["id"] for t in got["tokens"]]
    assert got["template"] == "tokenizer_config.json: chat_template"
    # the typed <|eot_id|> became the control token: flagged, and the user's
    flagged = [got["tokens"][k] for k in got["injections"]]
    assert [(t["text"], t["role"], t["message"]) for t in flagged] == [("<|eot_id|>", "user", 1)]
    # every token of each message's text is that message's, the rest the template's
    at = 0
    for i, m in enumerate(CONV["messages"]):
        if not m["content"]:
            continue
        s = want_text.index(m["content"], at)
        e = at = s + len(m["content"])
        inside = [t for t in got["tokens"] if s <= t["start"] and t["end"] <= e]
        assert inside and all((t["role"], t["message"]) == (m["role"], i) for t in inside)
    assert sum(got["counts"].values()) == len(got["ids"])
    # the offsets cover the text in order (tokens holding parts of one character share it)
    covered = set()
    for a, b in zip(got["tokens"], got["tokens"][1:]):
        assert a["start"] <= b["start"]
    for t in got["tokens"]:
        covered.update(range(t["start"], t["end"]))
    assert covered == set(range(len(want_text)))


def test_mistral_common_renderer_equals_the_library(tmp_path):
    mc = pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    tekken = Path(mc.__file__).parent / "data" / "tekken_240911.json"
    shutil.copy(tekken, tmp_path / "tekken.json")
    body = {"messages": [{"role": "system", "content": "Be terse."},
                         {"role": "user", "content": "Hi [INST] 東京"}]}
    (tmp_path / "conv.json").write_text(json.dumps(body), encoding="utf-8")
    p = run("chat", "--tokenizer", str(tmp_path / "tekken.json"), "--template",
            "mistral-common", "--messages", str(tmp_path / "conv.json"), "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    want = MistralTokenizer.from_file(str(tekken)).encode_chat_completion(
        ChatCompletionRequest(**body)).tokens
    assert json.loads(out(p))["ids"] == want


def test_mistral_common_v13_from_a_tekken_of_that_version(tmp_path):
    """A v13 file (built as mistral_files.py says): thinking and tool calls rendered as
    mistral-common renders them, results in the calls' order."""
    pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    from mistral_files import tekken_of_version
    tekken = tekken_of_version("v13", tmp_path)
    calls = [{"id": f"call{k}", "function": {"name": "f", "arguments": {"k": k}}}
             for k in (1, 2)]
    body = {"messages": [{"role": "user", "content": "Hi [THINK] 東京"},
                         {"role": "assistant", "tool_calls": calls, "content": [
                             {"type": "thinking", "thinking": "call f twice"}]},
                         {"role": "tool", "tool_call_id": "call2", "content": "two"},
                         {"role": "tool", "tool_call_id": "call1", "content": "one"}]}
    (tmp_path / "conv.json").write_text(json.dumps(body), encoding="utf-8")
    p = run("chat", "--tokenizer", str(tekken), "--template", "mistral-common",
            "--messages", str(tmp_path / "conv.json"), "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    want = MistralTokenizer.from_file(str(tekken)).encode_chat_completion(
        ChatCompletionRequest(**body)).tokens
    assert json.loads(out(p))["ids"] == want


def test_llama3_meta_renderer_equals_chat_format(tmp_path):
    lm = pytest.importorskip("llama_models")
    from llama_models.datatypes import RawMessage
    from llama_models.llama3.chat_format import ChatFormat
    from llama_models.llama3.tokenizer import Tokenizer
    model = Path(lm.__file__).parent / "llama3" / "tokenizer.model"
    messages = [{"role": "system", "content": "Be terse."},
                {"role": "user", "content": "Weather in 東京? <|eot_id|> typed"},
                {"role": "assistant", "content": "", "stop_reason": "end_of_message",
                 "tool_calls": [{"call_id": "c", "tool_name": "get_weather",
                                 "arguments": {"city": "東京"}}]},
                {"role": "tool", "content": "rain"}]
    (tmp_path / "conv.json").write_text(json.dumps({"messages": messages}), encoding="utf-8")
    p = run("chat", "--tokenizer", str(model), "--template", "llama3-meta", "--messages",
            str(tmp_path / "conv.json"), "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    want = ChatFormat(Tokenizer(model)).encode_dialog_prompt(
        [RawMessage(**m) for m in messages]).tokens
    got = json.loads(out(p))
    assert got["ids"] == want and not got["injections"]
    assert got["counts"]["tool"] == len([t for t in got["tokens"] if t["message"] == 3])


@pytest.mark.regression
def test_harmony_renderer_equals_openai_harmony(tmp_path, monkeypatch):
    """From o200k_base.tiktoken, the one file OpenAI publishes, as openai-harmony reads it."""
    oh = pytest.importorskip("openai_harmony")
    from chat_published import o200k_base
    ours = o200k_base(tmp_path)
    base = ours.parent
    messages = [{"role": "developer", "content": [{"type": "developer_content",
                                                   "instructions": "Be terse."}]},
                {"role": "user", "content": "東京? <|end|> typed"},
                {"role": "assistant", "channel": "commentary", "recipient": "functions.f",
                 "content_type": "<|constrain|>json", "content": '{"city": "東京"}'},
                {"role": "tool", "name": "functions.f", "channel": "commentary",
                 "content": "rain"}]
    (tmp_path / "conv.json").write_text(json.dumps({"messages": messages}), encoding="utf-8")
    p = run("chat", "--tokenizer", str(ours), "--template", "harmony", "--messages",
            str(tmp_path / "conv.json"), "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    monkeypatch.setenv("TIKTOKEN_ENCODINGS_BASE", str(base))
    enc = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    want = enc.render_conversation_for_completion(
        oh.Conversation.from_json(json.dumps({"messages": messages})), oh.Role.ASSISTANT)
    got = json.loads(out(p))
    assert got["ids"] == list(want) and not got["injections"]
    # the last message, for each of openai-harmony's renders by its name
    last = {"role": "assistant", "channel": "final", "content": "Rain."}
    (tmp_path / "final.json").write_text(json.dumps({"messages": messages + [last]}),
                                         encoding="utf-8")
    convo = oh.Conversation.from_json(json.dumps({"messages": messages + [last]}))
    for render in ("render_conversation", "render_conversation_for_training"):
        p = run("chat", "--tokenizer", str(ours), "--template", "harmony", "--harmony-render",
                render, "--messages", str(tmp_path / "final.json"), "--json", cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        assert json.loads(out(p))["ids"] == list(getattr(enc, render)(convo))


@pytest.mark.regression
def test_readable_output_has_counts_and_the_injection_warning_on_stderr(model_dir):
    """The injection warning was printed on stdout, among the data."""
    p = run("chat", "--tokenizer", str(model_dir), "--messages", str(model_dir / "conv.json"),
            "--color", "never", cwd=model_dir)
    assert p.returncode == 0, p.stderr
    text = out(p)
    assert "per role: " in text and "message 2 (user)" in text
    assert "warning" not in text
    assert "bpe-gui: warning: user message 2 typed '<|eot_id|>'" in err(p)


@pytest.mark.regression
def test_json_has_its_schema_and_notes(model_dir):
    """chat --json had no schema field (every --json output has one)."""
    p = run("chat", "--tokenizer", str(model_dir / "tokenizer.json"), "--messages",
            str(model_dir / "conv.json"), "--json", cwd=model_dir)
    assert p.returncode == 0, err(p)
    data = json.loads(out(p))
    assert data["schema"] == "bpe-gui.chat/1"
    fields = {"ids": list, "tokens": list, "counts": dict, "message_counts": list,
              "injections": list, "renderer": str, "template": str, "text": str, "notes": list}
    for key, kind in fields.items():
        assert isinstance(data[key], kind), key
        assert f"`{key}`" in DOCS.read_text(encoding="utf-8"), key
    assert set(data["tokens"][0]) == {"id", "text", "role", "origin", "message", "injected",
                                      "start", "end"}


@pytest.fixture(scope="module")
def llama3_dir(tmp_path_factory) -> Path:
    """Meta's Llama 3 tokenizer as a tokenizer.json, with Meta's tokenizer_config.json's
    bos and eos beside it, and llama.cpp's copy of the Llama 3.1 template."""
    from chat_published import write_json
    d = llama3_json(tmp_path_factory.mktemp("llama3"))
    write_json(d.parent / "tokenizer_config.json", LLAMA31_CONFIG)
    shutil.copy(sdist_file("meta-llama-Llama-3.1-8B-Instruct.jinja"), d.parent / "llama31.jinja")
    write_json(d.parent / "conv.json", CONV)
    return d.parent


@pytest.mark.regression
def test_template_file_gets_the_bos_of_the_tokenizer_config(llama3_dir):
    """--template FILE rendered {{ bos_token }} empty: the prompt began without BOS."""
    transformers = pytest.importorskip("transformers")
    p = run("chat", "--tokenizer", str(llama3_dir / "tokenizer.json"), "--template",
            "llama31.jinja", "--messages", "conv.json", "--json", "--date", "2026-03-14",
            cwd=llama3_dir)
    assert p.returncode == 0, err(p)
    got = json.loads(out(p))
    hf = transformers.AutoTokenizer.from_pretrained(str(llama3_dir))
    want = hf.apply_chat_template(CONV["messages"], tokenize=True, return_dict=False,
                                  add_generation_prompt=True,
                                  chat_template=(llama3_dir / "llama31.jinja").read_text("utf-8"))
    assert got["ids"] == list(want) and got["ids"][0] == 128000
    assert got["notes"] == [] and "bos_token" not in err(p)


@pytest.mark.regression
def test_a_bos_the_tokenizer_lacks_is_said_on_stderr(llama3_dir, tmp_path):
    """The template's bos_token rendered empty with no word when the tokenizer had none."""
    (tmp_path / "tokenizer.json").symlink_to(llama3_dir / "tokenizer.json")
    p = run("chat", "--tokenizer", str(tmp_path / "tokenizer.json"), "--template",
            str(llama3_dir / "llama31.jinja"), "--messages", str(llama3_dir / "conv.json"),
            "--json", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert json.loads(out(p))["ids"][0] == 128006
    assert "bpe-gui: warning: the template prints bos_token, which this tokenizer does " \
           "not define" in err(p)
    q = run("chat", "--tokenizer", str(tmp_path / "tokenizer.json"), "--template",
            str(llama3_dir / "llama31.jinja"), "--messages", str(llama3_dir / "conv.json"),
            "--json", "-q", cwd=tmp_path)
    assert "bos_token" in err(q)   # a warning, said even with -q


def test_quiet_drops_the_note_naming_the_file_a_folder_gave(model_dir):
    args = ("chat", "--tokenizer", str(model_dir), "--messages", str(model_dir / "conv.json"),
            "--json")
    loud, quiet = run(*args, cwd=model_dir), run(*args, "-q", cwd=model_dir)
    assert loud.returncode == quiet.returncode == 0, err(loud) + err(quiet)
    assert f"loaded {model_dir / 'tokenizer.json'}" in err(loud)
    # (-q drops notes; a warning, such as the typed control token, is said even so)
    assert [ln for ln in err(quiet).splitlines() if "warning" not in ln] == []
    assert json.loads(out(loud))["ids"] == json.loads(out(quiet))["ids"]


@pytest.mark.parametrize("args,needle", [
    (["--messages", "missing.json"], "not found"),
    (["--messages", "bad.json"], "not JSON at line 1"),
    (["--messages", "conv.json", "--template", "none.jinja"], "template file not found"),
    (["--messages", "conv.json", "--template", "loop.jinja"], "line 1 ran past"),
    (["--messages", "conv.json", "--date", "soon"], "--date"),
    # a JSON number or text for the conversation raised a TypeError with a traceback
    (["--messages", "number.json"], "the conversation is 5; it must be a JSON object"),
    (["--messages", "text.json"], 'the conversation is "hi"; it must be a JSON object'),
    (["--messages", "number.json", "--template", "harmony"], "must be an object"),
    (["--messages", "conv.json", "--harmony-render", "render_conversation"],
     "add --template harmony"),
])
def test_bad_input_gets_one_line(model_dir, args, needle):
    (model_dir / "bad.json").write_text("{", encoding="utf-8")
    (model_dir / "number.json").write_text("5", encoding="utf-8")
    (model_dir / "text.json").write_text('"hi"', encoding="utf-8")
    (model_dir / "loop.jinja").write_text(
        "{% for i in range(99999) %}{% for j in range(99999) %}x{% endfor %}{% endfor %}",
        encoding="utf-8")
    p = run("chat", "--tokenizer", str(model_dir / "tokenizer.json"), *args, cwd=model_dir)
    assert_user_error(p, needle)


def test_no_template_beside_says_how_to_pick_one(tmp_path):
    llama3_json(tmp_path)
    (tmp_path / "conv.json").write_text(json.dumps(CONV), encoding="utf-8")
    p = run("chat", "--tokenizer", str(tmp_path / "tokenizer.json"), "--messages",
            str(tmp_path / "conv.json"), cwd=tmp_path)
    assert_user_error(p, "no chat template", "--template")


@pytest.mark.regression
@pytest.mark.parametrize("name,text,needle", [
    ("parens.jinja", "{{" + "(" * 3000 + "1" + ")" * 3000 + "}}", "too deeply"),
    ("for30.jinja", "{% for i in range(1) %}" * 30 + "x" + "{% endfor %}" * 30, "too deeply"),
    ("if200.jinja", "{% if 1 %}" * 200 + "x" + "{% endif %}" * 200, "too deeply"),
    ("percent.jinja", "{{ '%2000000000d' % 1 }}", "wider than"),
])
def test_a_template_nested_too_deep_or_too_big_is_one_line(model_dir, name, text, needle):
    """3,000 nested parentheses (RecursionError), 30 nested for (SyntaxError), 200 nested
    if (IndentationError) were tracebacks; '%2000000000d' % 1 took 4 GB and 17 s."""
    (model_dir / name).write_text(text, encoding="utf-8")
    p = run("chat", "--tokenizer", str(model_dir / "tokenizer.json"), "--template", name,
            "--messages", "conv.json", cwd=model_dir)
    assert_user_error(p, name, needle)


@pytest.mark.regression
def test_messages_nested_too_deep_are_one_line(model_dir):
    """--messages nested 100,000 deep (json.loads) or a content 900 deep (_plain) raised
    RecursionError."""
    (model_dir / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert_user_error(run("chat", "--tokenizer", str(model_dir), "--messages", "deep.json",
                          cwd=model_dir), "deep.json", "nested more than 128 levels")
    content: list = []
    for _ in range(900):
        content = [content]
    (model_dir / "deep900.json").write_text(json.dumps(
        {"messages": [{"role": "user", "content": content}]}), encoding="utf-8")
    assert_user_error(run("chat", "--tokenizer", str(model_dir), "--messages", "deep900.json",
                          cwd=model_dir), "nested more than 128 levels")


@pytest.mark.regression
def test_decode_of_a_list_nested_too_deep_is_one_line(model_dir):
    """decode given a list nested 100,000 deep on stdin raised RecursionError."""
    p = run("decode", "--tokenizer", str(model_dir / "tokenizer.json"), cwd=model_dir,
            stdin=("[" * 100_000 + "]" * 100_000).encode())
    assert_user_error(p, "nested more than 128 levels")


@pytest.mark.regression
def test_a_lone_surrogate_gives_valid_json_and_a_warning(model_dir):
    """chat --json with "\\ud800" in a content raised UnicodeEncodeError on output."""
    (model_dir / "sur.json").write_text(
        '{"messages": [{"role": "user", "content": "a\\ud800b"}]}', encoding="utf-8")
    p = run("chat", "--tokenizer", str(model_dir), "--messages", "sur.json", "--json",
            cwd=model_dir)
    assert p.returncode == 0, err(p)
    got = json.loads(p.stdout.decode("utf-8"))   # (strict UTF-8)
    assert "a\ufffdb" in got["text"] and any("lone surrogate" in n for n in got["notes"])
    assert "lone surrogate" in err(p)


@pytest.mark.regression
def test_latin1_on_standard_input_is_refused_as_in_a_file(model_dir):
    """Latin-1 bytes on --messages - were read in the locale's encoding (surrogateescape),
    and the --json output was not UTF-8; the same bytes in a file were refused."""
    data = '{"messages": [{"role": "user", "content": "café"}]}'.encode("latin-1")
    (model_dir / "latin1.json").write_bytes(data)
    piped = run("chat", "--tokenizer", str(model_dir), "--messages", "-", "--json",
                cwd=model_dir, stdin=data, env={"LC_ALL": "C", "PYTHONIOENCODING": ""})
    line = assert_user_error(piped, "not UTF-8", "0xE9")
    filed = assert_user_error(run("chat", "--tokenizer", str(model_dir), "--messages",
                                  "latin1.json", cwd=model_dir), "not UTF-8", "0xE9")
    assert line.split(":", 2)[2].replace("standard input", "X") == \
        filed.split(":", 2)[2].replace("latin1.json", "X")


@pytest.mark.regression
def test_a_string_for_a_boolean_option_is_refused(model_dir):
    """"add_generation_prompt": "false" (a string) was read as true."""
    (model_dir / "strbool.json").write_text(json.dumps(
        {**CONV, "add_generation_prompt": "false"}), encoding="utf-8")
    p = run("chat", "--tokenizer", str(model_dir), "--messages", "strbool.json", cwd=model_dir)
    assert_user_error(p, '"add_generation_prompt" must be true or false')


@pytest.mark.regression
def test_urls_links_and_compressed_files_are_named_as_what_they_are(model_dir, tmp_path):
    """--template https://... said "https:/...: template file not found" and --tokenizer
    https://... "file or folder not found" (the // folded); a link to nothing "file or
    folder not found"; a .tiktoken.gz "not a tokenizer file this app knows"."""
    url = "https://huggingface.co/org/model/resolve/main/tokenizer.json"
    assert_user_error(run("chat", "--tokenizer", url, "--messages", "conv.json",
                          cwd=model_dir), url, "is a URL", "download")
    assert_user_error(run("chat", "--tokenizer", str(model_dir), "--template",
                          "https://example.com/t.jinja", "--messages", "conv.json",
                          cwd=model_dir), "https://example.com/t.jinja is a URL")
    (tmp_path / "gone.json").symlink_to(tmp_path / "nowhere.json")
    assert_user_error(run("chat", "--tokenizer", str(tmp_path / "gone.json"), "--messages",
                          str(model_dir / "conv.json"), cwd=model_dir),
                      "is a link to", "nowhere.json", "does not exist")
    (tmp_path / "t.jinja").symlink_to(tmp_path / "none.jinja")
    assert_user_error(run("chat", "--tokenizer", str(model_dir), "--template",
                          str(tmp_path / "t.jinja"), "--messages", "conv.json",
                          cwd=model_dir), "is a link to", "none.jinja")
    import gzip
    (tmp_path / "cl100k_base.tiktoken.gz").write_bytes(gzip.compress(b"IQ== 0\n"))
    assert_user_error(run("chat", "--tokenizer", str(tmp_path / "cl100k_base.tiktoken.gz"),
                          "--messages", str(model_dir / "conv.json"), cwd=model_dir),
                      "compressed (gzip)", "cl100k_base.tiktoken")


@pytest.mark.regression
def test_a_tekken_without_a_template_uses_mistral_common(tmp_path):
    """A tekken.json and no --template said "comes with no chat template"."""
    mc = pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    tekken = Path(mc.__file__).parent / "data" / "tekken_240911.json"
    body = {"messages": [{"role": "user", "content": "Hi 東京"}]}
    (tmp_path / "conv.json").write_text(json.dumps(body), encoding="utf-8")
    p = run("chat", "--tokenizer", str(tekken), "--messages", "conv.json", "--json",
            cwd=tmp_path)
    assert p.returncode == 0, err(p)
    got = json.loads(out(p))
    want = MistralTokenizer.from_file(str(tekken)).encode_chat_completion(
        ChatCompletionRequest(**body)).tokens
    assert got["ids"] == want and got["renderer"].startswith("mistral-common")
