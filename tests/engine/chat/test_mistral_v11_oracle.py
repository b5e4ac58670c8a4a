"""mistral-common's v11 and v13 instruct formats against mistral-common's own
encode_chat_completion, on tekken files of those versions built from its wheel's
(mistral_files.py): token ids equal over fixed and random conversations."""
from __future__ import annotations

import copy
import json
import random

import pytest

from bpe_gui.engine.chat import ChatError
from bpe_gui.engine.chat.mistral import encode_chat_mistral, version_of
from bpe_gui.engine.formats import load_tokenizer

mc = pytest.importorskip("mistral_common")
from mistral_common.protocol.instruct.request import ChatCompletionRequest  # noqa: E402
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer  # noqa: E402
from mistral_files import NEW_TOKENS, tekken_of_version  # noqa: E402

VERSIONS = ("v11", "v13")
TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather ☂",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tekken")
    out = {}
    for v in VERSIONS:
        path = tekken_of_version(v, folder, NEW_TOKENS)
        out[v] = (MistralTokenizer.from_file(str(path)), load_tokenizer(path))
    return out


def _call(cid, city):
    return {"id": cid, "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}


def _result(cid, content):
    return {"role": "tool", "name": "get_weather", "tool_call_id": cid, "content": content}


CASES = {
    "system_turns": {"messages": [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "What is BPE?"},
        {"role": "assistant", "content": "Byte-pair encoding.  "},
        {"role": "system", "content": "Now in French."},
        {"role": "user", "content": "And tokens?"}], "tools": [TOOL]},
    "typed_specials": {"messages": [
        {"role": "user", "content": "[INST] [TOOL_CALLS]x[ARGS]{} [CALL_ID] [THINK] </s>"}]},
    # results in another order than the calls: put back in the calls' order
    "results_out_of_order": {"messages": [
        {"role": "user", "content": "Paris and 東京?"},
        {"role": "assistant", "content": "Checking. ", "tool_calls": [
            _call("aaaaaaaaa", "Paris"), _call("bbbbbbbbb", "東京"), _call("ccccccccc", "Oslo")]},
        _result("ccccccccc", "snow"), _result("aaaaaaaaa", '{"sky":"sun"}'),
        _result("bbbbbbbbb", "")], "tools": [TOOL]},
    "calls_with_no_id": {"messages": [
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "tool_calls": [{"function": {
            "name": "get_weather", "arguments": {"city": "Paris"}}}]},
        {"role": "tool", "name": "get_weather", "content": "sun", "tool_call_id": "null"}]},
    "thinking": {"messages": [
        {"role": "system", "content": [{"type": "text", "text": "Think first."},
                                       {"type": "thinking", "thinking": "plan"}]},
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "two and two "},
            {"type": "text", "text": "4  "}, {"type": "text", "text": "surely"}]},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "and 3+3?"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "six",
                                           "closed": False}], "prefix": True}]},
    "thinking_in_a_user_message": {"messages": [{"role": "user", "content": [
        {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "hi"}]}]},
    "result_for_an_unknown_call": {"messages": [
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "tool_calls": [_call("aaaaaaaaa", "Paris")]},
        _result("zzzzzzzzz", "sun")]},
    "result_given_twice": {"messages": [
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "tool_calls": [_call("aaaaaaaaa", "Paris")]},
        _result("aaaaaaaaa", "sun"), _result("aaaaaaaaa", "rain")]},
    "a_call_left_unanswered": {"messages": [
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "tool_calls": [_call("aaaaaaaaa", "Paris"),
                                             _call("bbbbbbbbb", "Rome")]},
        _result("aaaaaaaaa", "sun"),
        {"role": "assistant", "content": "Sunny."}, {"role": "user", "content": "ok"}]},
    "two_calls_one_id": {"messages": [
        {"role": "user", "content": "Paris?"},
        {"role": "assistant", "tool_calls": [_call("aaaaaaaaa", "Paris"),
                                             _call("aaaaaaaaa", "Rome")]},
        _result("aaaaaaaaa", "sun")]},
}
BROKEN_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string", "pattern": "[a-z"}}}}}
COMPLEX_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "required": ["city"], "properties": {
        "city": {"type": ["string", "null"], "minLength": 1.0},
        "days": {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": 7},
        "unit": {"enum": ["c", "f"], "default": "c"}}, "additionalProperties": False}}}
CASES |= {
    "tool_schema_broken": {"messages": [{"role": "user", "content": "Paris?"}],
                           "tools": [BROKEN_TOOL]},
    "tool_schema_complex": {"messages": [{"role": "user", "content": "Paris?"},
                                         {"role": "assistant", "tool_calls": [_call(
                                             "aaaaaaaaa", "Paris")]},
                                         _result("aaaaaaaaa", "sun")],
                            "tools": [COMPLEX_TOOL, TOOL]},
}

WORDS = ["Paris", "東京", "🌧️☔", "Привет", "def f(x):\n    return  x\t+ 1\n", "  ", "[INST]",
         "{\"a\": [1, 2]}", "hello world", "\n\n", "ok"]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 4)))


def _content(rng: random.Random, thinking: bool):
    if not thinking or rng.random() < 0.5:
        return _text(rng) or "x"
    chunks = [{"type": "thinking", "thinking": _text(rng)}]
    chunks += [{"type": "text", "text": _text(rng)} for _ in range(rng.randint(0, 2))]
    return chunks


def _conversation(seed: int, thinking: bool) -> dict:
    """A conversation mistral-common accepts: turns of system, user and assistant
    messages, assistant turns with tool calls answered by results in any order."""
    rng = random.Random(seed)
    msgs: list[dict] = []
    n_call = 0
    for turn in range(rng.randint(1, 4)):
        msgs += [{"role": "user", "content": _text(rng)} for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.4:   # (mistral-common takes no system message after a tool one)
            msgs.append({"role": "system", "content": _text(rng)})
        for _ in range(rng.randint(0, 2)):
            calls = []
            for _ in range(rng.randint(0, 3)):
                n_call += 1
                calls.append(_call(f"c{n_call:08d}", rng.choice(WORDS)))
            msg = {"role": "assistant", "content": _content(rng, thinking)}
            if calls:
                msg["tool_calls"] = calls
                if rng.random() < 0.5:
                    msg["content"] = ""
            msgs.append(msg)
            results = [_result(c["id"], _text(rng)) for c in calls]
            rng.shuffle(results)
            msgs += results
            if not calls:
                break
    if msgs[-1]["role"] in ("assistant", "system"):
        msgs.append({"role": "user", "content": _text(rng)})
    return {"messages": msgs, "tools": [TOOL] if rng.random() < 0.7 else None}


def _check(files, version: str, body: dict):
    mt, tok = files[version]
    try:
        want = mt.encode_chat_completion(ChatCompletionRequest(**copy.deepcopy(body))).tokens
    except Exception:   # a request this version refuses: we refuse it too
        with pytest.raises(ChatError):
            encode_chat_mistral(tok, copy.deepcopy(body))
        return None
    got = encode_chat_mistral(tok, copy.deepcopy(body))
    assert got.ids == want
    return got


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("version", VERSIONS)
def test_ids_equal_mistral_common(files, version, case):
    _check(files, version, CASES[case])


@pytest.mark.parametrize("version", VERSIONS)
def test_a_complex_valid_tool_schema_renders_as_mistral_common_does(files, version):
    assert _check(files, version, CASES["tool_schema_complex"]) is not None


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("version", VERSIONS)
def test_random_conversations_equal_mistral_common(files, version, seed):
    body = _conversation(seed, thinking=version == "v13")
    assert _check(files, version, body) is not None   # each is one mistral-common takes


def test_the_versions_put_calls_and_results_apart(files):
    """What each version adds, read off the rendered text: v11 names each call's id
    after [CALL_ID] and the result's before [TOOL_CONTENT]; v13 neither, and puts the
    tools before the first user message instead of the last."""
    body = CASES["results_out_of_order"]
    body = {**body, "messages": [{"role": "user", "content": "hi"},
                                 {"role": "assistant", "content": "hello"}, *body["messages"]]}
    v11 = _check(files, "v11", body).text
    v13 = _check(files, "v13", body).text
    assert "[TOOL_CALLS]get_weather[CALL_ID]aaaaaaaaa[ARGS]" in v11
    assert v11.index("[TOOL_RESULTS]aaaaaaaaa") < v11.index("[TOOL_RESULTS]ccccccccc")
    assert "[CALL_ID]" not in v13 and "aaaaaaaaa" not in v13
    assert v13.index("[AVAILABLE_TOOLS]") < v13.index("hi") < v13.index("Paris")
    assert v11.index("hi") < v11.index("[AVAILABLE_TOOLS]") < v11.index("Paris")


@pytest.mark.parametrize("case,version,message", [
    ("thinking", "v11", "v11 has none"),
    ("thinking_in_a_user_message", "v13", "user message takes no thinking chunk"),
    ("result_for_an_unknown_call", "v11", "not one of the calls"),
    ("result_given_twice", "v13", "already has its result"),
    ("a_call_left_unanswered", "v11", "have not all got their results"),
    ("two_calls_one_id", "v11", "share the id"),
    ("calls_with_no_id", "v13", "needs an \"id\" in v13"),
    ("calls_with_no_id", "v11", "needs an \"id\" in v11 \\(9 letters"),
    ("tool_schema_broken", "v11", "tool 'get_weather': \"parameters\" is not a valid JSON "
     "Schema .* at properties.city.pattern: \"\\[a-z\" is not a regular expression"),
    ("tool_schema_broken", "v13", "tool 'get_weather': .* at properties.city.pattern"),
])
def test_refusals_say_why(files, case, version, message):
    mt, tok = files[version]
    with pytest.raises(Exception):   # mistral-common refuses these too
        mt.encode_chat_completion(ChatCompletionRequest(**copy.deepcopy(CASES[case])))
    with pytest.raises(ChatError, match=message):
        encode_chat_mistral(tok, copy.deepcopy(CASES[case]))


def test_a_v13_file_without_think_tokens_refuses_thinking_by_name(tmp_path):
    path = tekken_of_version("v13", tmp_path, {32: "[ARGS]", 33: "[CALL_ID]"})
    with pytest.raises(ChatError, match=r"no '\[THINK\]' token"):
        encode_chat_mistral(load_tokenizer(path), copy.deepcopy(CASES["thinking"]))


def test_versions_read_from_the_file_and_past_v13_refused(tmp_path):
    for v in ("v11", "v13"):
        assert version_of(tekken_of_version(v, tmp_path, NEW_TOKENS)) == v
    path = tekken_of_version("v15", tmp_path, NEW_TOKENS)
    with pytest.raises(ChatError, match=r"instruct version v15.*v1, v2, v3, v7, v11, v13"):
        version_of(path)
