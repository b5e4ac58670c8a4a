"""The chat view driven as a user drives it: the ids it shows equal transformers' and
mistral-common's, each chip's colour is its role's (the message text found by the test
in the rendered text), typed control tokens are outlined and named, bad templates get a
message. The controller is a stand-in giving no tokenizer (the view opens its own), and a
real one trained on a small corpus for the trained tokenizer's case."""
from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, Signal

from chat_fixtures import SPECIALS, build_tokenizer, template_text
from bpe_gui.gui.controller.chat_jobs import ChatJobs
from bpe_gui.gui.panels.chat.chat_view import FILE, ROLE_FILLS, SAMPLE, ChatView


def settled(v: ChatView) -> None:
    """Wait for the render asked for last to be shown (renders are jobs, off the GUI
    thread)."""
    from PySide6.QtTest import QTest
    for _ in range(12000):
        if not v.rendering and not v.timer.isActive():
            return
        QTest.qWait(5)
    raise AssertionError("the chat view's render never came back")


class NoTokenizer(QObject):
    """The controller as the chat view sees it (ChatHost), with no tokenizer of its own:
    its chat jobs are the controller's own."""
    tokenizerChanged = Signal()
    message = Signal(str)
    imported = None
    imported_path = None
    use_imported = False
    step_index = 0

    def __init__(self):
        super().__init__()
        self.chat = ChatJobs(self)

    def tokenizer(self):
        return None


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("chat_view")
    build_tokenizer(d / "tokenizer.json")
    (d / "tokenizer_config.json").write_text(json.dumps(
        {"chat_template": template_text("qwen25"), **SPECIALS["qwen25"]}), encoding="utf-8")
    return d


def opened_view(qtbot, tokenizer: Path, template: Path | None = None) -> ChatView:
    """A chat view of its own (no window's tokenizer), this tokenizer and template file
    opened in it, rendered."""
    v = ChatView(NoTokenizer())
    qtbot.addWidget(v)
    v.resize(1100, 700)
    v.show()
    v.set_tokenizer_file(str(tokenizer))
    settled(v)
    if template is not None:
        v.set_template_file(str(template))
        settled(v)
    # (the tokenizer is read by the render, a job: a 10 MB tokenizer.json takes a while)
    qtbot.waitUntil(lambda: v.result is not None, timeout=60_000)
    return v


@pytest.fixture
def view(qtbot, model_dir):
    return opened_view(qtbot, model_dir / "tokenizer.json")


def _hf(model_dir):
    transformers = pytest.importorskip("transformers")
    hf = transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(model_dir / "tokenizer.json"), **SPECIALS["qwen25"])
    hf.chat_template = template_text("qwen25")
    return hf


def test_ids_and_role_colours_follow_transformers(view, model_dir):
    hf = _hf(model_dir)
    messages = copy.deepcopy(SAMPLE["messages"])
    text = hf.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    want = hf.apply_chat_template(messages, tokenize=True, return_dict=False,
                                  add_generation_prompt=True)
    enc = view.result
    assert list(view.flow.ids) == list(want)
    assert enc.text == text
    light = {role: pair[0] for role, pair in ROLE_FILLS.items()}
    at = 0
    for m in messages:
        s = text.index(m["content"], at)
        at = s + len(m["content"])
        inside = [k for k, t in enumerate(enc.tokens) if s <= t.start and t.end <= at
                  and not t.special]
        assert inside
        assert {view.flow.fills[k].name() for k in inside} == {light[m["role"]]}
    # the typed <|im_start|> in the last message: outlined, and named under the chips
    typed = [k for k, t in enumerate(enc.tokens) if t.start >= text.index("Thanks!")
             and t.special and t.end <= at]
    assert typed and all(view.flow.marks[k] for k in typed)
    assert "typed '<|im_start|>'" in view.warnings.text()
    assert view.counts.text().startswith(f"{len(want):,} tokens")
    # the template's control tokens in a fill that no role's text has
    wrote = {view.flow.fills[k].name() for k, t in enumerate(enc.tokens)
             if t.origin == "special"}
    assert len(wrote) == 1 and not wrote & set(light.values())


def test_editing_rows_rerenders(view, qtbot):
    before = len(view.result.tokens)
    row = view.editor.rows[-1]
    row.content.setPlainText("short")
    qtbot.waitUntil(lambda: "short" in view.result.text, timeout=5_000)
    view.editor.add.click()
    view.editor.rows[-1].content.setPlainText("a brand new question")
    qtbot.waitUntil(lambda: "a brand new question" in view.result.text, timeout=5_000)
    assert view.editor.rows[-1].role.currentText() == "assistant"
    view.editor.rows[0].remove.click()
    qtbot.waitUntil(lambda: "You answer in one line." not in view.result.text, timeout=5_000)
    assert len(view.result.tokens) != before
    counts = [r.count.text() for r in view.editor.rows]
    assert all(c.endswith("tokens") for c in counts)


@pytest.mark.parametrize("call,shown", [
    ({"type": "function", "function": {"name": "get_weather", "arguments": {"city": "東京"}}},
     'get_weather({"city": "東京"})'),
    ({"tool_name": "get_weather", "arguments": '{"city": "Paris"}'},
     'get_weather({"city": "Paris"})'),
])
def test_a_tool_call_row_says_what_it_holds(view, call, shown):
    view.editor.set_body({"messages": [{"role": "user", "content": "Weather?"},
                                       {"role": "assistant", "tool_calls": [call]}]})
    row = view.editor.rows[1]
    assert row.content.toPlainText() == ""
    assert shown in row.content.placeholderText()
    assert view.editor.rows[0].content.placeholderText() == "message text"


def test_sanitize_keeps_typed_control_tokens_as_text(view, qtbot, model_dir):
    view.editor.sanitize.setChecked(True)
    qtbot.waitUntil(lambda: not view.result.injections, timeout=5_000)
    want = _hf(model_dir).apply_chat_template(
        copy.deepcopy(SAMPLE["messages"]), tokenize=True, return_dict=False,
        add_generation_prompt=True, sanitize_control_tokens=True)
    assert list(view.flow.ids) == list(want)
    assert "typed" not in view.warnings.text()


def test_mistral_common_renderer(view, qtbot):
    mc = pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    tekken = Path(mc.__file__).parent / "data" / "tekken_240911.json"
    view.set_tokenizer_file(str(tekken))
    settled(view)
    view.renderer.setCurrentText("mistral-common")
    view.render_now()
    settled(view)
    want = MistralTokenizer.from_file(str(tekken)).encode_chat_completion(
        ChatCompletionRequest(messages=copy.deepcopy(SAMPLE["messages"]))).tokens
    assert list(view.flow.ids) == want
    assert view.origin.text() == "Template: mistral-common"


def test_what_mistral_common_refuses_shows_why_and_no_tokens(view, qtbot):
    """A conversation that ends with an assistant's answer: mistral-common refuses it, so
    the view shows the reason and no ids (never ids mistral-common would not give)."""
    mc = pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    tekken = Path(mc.__file__).parent / "data" / "tekken_240911.json"
    view.set_tokenizer_file(str(tekken))
    settled(view)
    view.renderer.setCurrentText("mistral-common")
    view.render_now()
    settled(view)
    assert len(view.flow.ids) > 0
    view.editor.add.click()
    view.editor.rows[-1].content.setPlainText("Sure.")
    assert view.editor.rows[-1].role.currentText() == "assistant"
    body = {"messages": [*copy.deepcopy(SAMPLE["messages"]),
                         {"role": "assistant", "content": "Sure."}]}
    with pytest.raises(Exception):
        MistralTokenizer.from_file(str(tekken)).encode_chat_completion(
            ChatCompletionRequest(**body))
    qtbot.waitUntil(lambda: "prefix" in view.warnings.text(), timeout=5_000)
    assert view.result is None and len(view.flow.ids) == 0


def test_a_broken_template_shows_its_line_and_no_tokens(view, tmp_path):
    bad = tmp_path / "bad.jinja"
    bad.write_text("{% for m in messages %}\n{{ m.content }\n{% endfor %}", encoding="utf-8")
    view.set_template_file(str(bad))
    settled(view)
    assert view.renderer.currentText() == "File: bad.jinja"
    assert "line 2" in view.warnings.text()
    assert view.result is None and len(view.flow.ids) == 0


def test_a_runaway_template_is_stopped(view, tmp_path):
    loop = tmp_path / "loop.jinja"
    loop.write_text("{% for i in range(99999) %}{% for j in range(99999) %}x{% endfor %}"
                    "{% endfor %}", encoding="utf-8")
    view.set_template_file(str(loop))
    settled(view)
    assert "ran past" in view.warnings.text()


pytestmark_trained = pytest.mark.controller("hello world, the user and the assistant " * 20,
                                            vocab_size=300, step=10)


@pytestmark_trained
def test_the_trained_tokenizer_asks_for_a_template(qtbot, controller):
    v = ChatView(controller)
    qtbot.addWidget(v)
    v.render_now()
    settled(v)
    assert "no chat template" in v.warnings.text()
    v.renderer.setCurrentText("llama3-meta")
    v.render_now()
    settled(v)
    assert "<|begin_of_text|>" in v.warnings.text()   # the control token it lacks, named


def test_side_by_side_renders_with_the_other_tokenizers_template(view, tmp_path):
    transformers = pytest.importorskip("transformers")
    build_tokenizer(tmp_path / "tokenizer.json")
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(
        {"chat_template": template_text("chatml")}), encoding="utf-8")
    view.set_other_tokenizer_file(str(tmp_path / "tokenizer.json"))
    settled(view)
    hf = transformers.PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    hf.chat_template = template_text("chatml")
    want = hf.apply_chat_template(copy.deepcopy(SAMPLE["messages"]), tokenize=True,
                                  return_dict=False, add_generation_prompt=True)
    assert view.other.isVisible() and list(view.other.flow.ids) == list(want)
    # each side its own template: without a system message only Qwen's writes a default one
    view.editor.rows[0].remove.click()
    view.render_now()
    settled(view)
    assert "You are a helpful assistant." in view.result.text
    assert "You are a helpful assistant." not in view.other.result.text
    view.compare.setChecked(False)
    assert not view.other.isVisible()


# ----- issue 80: the view with the files users have -----------------------------------------
LLAMA31 = "meta-llama-Llama-3.1-8B-Instruct.jinja"
TOOL_BODY = {"messages": [
    {"role": "user", "content": "Weather in 東京?"},
    {"role": "assistant", "tool_calls": [{"type": "function", "function": {
        "name": "get_weather", "arguments": {"city": "東京"}}}]},
    {"role": "tool", "content": "rain"}],
    "tools": [{"type": "function", "function": {
        "name": "get_weather", "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}}],
    "add_generation_prompt": True}


@pytest.fixture(scope="module")
def llama3_dir(tmp_path_factory) -> Path:
    """Meta's Llama 3 tokenizer as a tokenizer.json (transformers' conversion), Meta's
    tokenizer_config.json's bos and eos beside it, and llama.cpp's Llama 3.1 template."""
    from chat_published import LLAMA31_CONFIG, llama3_json, sdist_file, write_json
    d = llama3_json(tmp_path_factory.mktemp("llama3")).parent
    write_json(d / "tokenizer_config.json", LLAMA31_CONFIG)
    shutil.copy(sdist_file(LLAMA31), d / "llama31.jinja")
    return d


def _transformers(llama3_dir: Path, body: dict, template: Path) -> tuple[str, list[int]]:
    """(Llama 3.1's template reads no clock: its date is its own default.)"""
    transformers = pytest.importorskip("transformers")
    hf = transformers.AutoTokenizer.from_pretrained(str(llama3_dir))
    kw = dict(chat_template=template.read_text(encoding="utf-8"), tools=body.get("tools"),
              add_generation_prompt=body.get("add_generation_prompt", False))
    text = hf.apply_chat_template(copy.deepcopy(body["messages"]), tokenize=False, **kw)
    ids = hf.apply_chat_template(copy.deepcopy(body["messages"]), tokenize=True,
                                 return_dict=False, **kw)
    return text, list(ids)


@pytest.fixture
def llama_view(qtbot, llama3_dir):
    return opened_view(qtbot, llama3_dir / "tokenizer.json", llama3_dir / "llama31.jinja")


@pytest.mark.regression
def test_edit_as_json_renders_a_tool_call_as_transformers(llama_view, qtbot, llama3_dir):
    """Edit as JSON always failed ("the conversation JSON is not valid at line 1, column
    1"): turning it on parsed the still-empty JSON box. Tool calls are entered there."""
    view = llama_view
    view.editor.as_json.click()
    qtbot.waitUntil(lambda: view.result is not None, timeout=5_000)
    assert not view.warnings.text().startswith("the conversation JSON")
    body = json.loads(view.editor.json_edit.toPlainText())
    assert body["messages"] == SAMPLE["messages"]
    view.editor.json_edit.setPlainText(json.dumps(TOOL_BODY, ensure_ascii=False))
    qtbot.waitUntil(lambda: view.result is not None and "get_weather" in view.result.text,
                    timeout=5_000)
    text, ids = _transformers(llama3_dir, TOOL_BODY, llama3_dir / "llama31.jinja")
    assert view.result.text == text and list(view.flow.ids) == ids
    calls = [t for t in view.result.tokens if t.origin == "tool_calls"]
    assert calls and {t.message for t in calls} == {1}
    # back to the rows: the tool call's row says what it holds, and the prompt stays
    view.editor.as_json.click()
    qtbot.waitUntil(lambda: len(view.editor.rows) == 3, timeout=5_000)
    assert "get_weather" in view.editor.rows[1].content.placeholderText()
    qtbot.waitUntil(lambda: view.result is not None and list(view.flow.ids) == ids,
                    timeout=5_000)


@pytest.mark.regression
def test_template_files_each_get_an_entry_and_the_picker_always_opens(llama_view, qtbot,
                                                                       llama3_dir, tmp_path,
                                                                       monkeypatch):
    """"Template file…" worked once per run: picked again it opened no dialog and kept
    the first file."""
    view = llama_view
    second = tmp_path / "plain.jinja"
    second.write_text("{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}",
                      encoding="utf-8")
    asked = []

    def pick(*_a, **_k):
        asked.append(1)
        return (str(second), "") if len(asked) == 1 else ("", "")
    from PySide6.QtWidgets import QFileDialog
    monkeypatch.setattr(QFileDialog, "getOpenFileName", pick)
    view.renderer.setCurrentIndex(view.renderer.findText(FILE))
    view.renderer.activated.emit(view.renderer.currentIndex())
    qtbot.waitUntil(lambda: view.result is not None and view.result.text.startswith("[system]"),
                    timeout=5_000)
    assert view.renderer.currentText() == "File: plain.jinja"
    assert view.template_files() == [str(llama3_dir / "llama31.jinja"), str(second)]
    # picked again and cancelled: the dialog opened, the choice before stays
    view.renderer.setCurrentIndex(view.renderer.findText(FILE))
    view.renderer.activated.emit(view.renderer.currentIndex())
    assert len(asked) == 2 and view.renderer.currentText() == "File: plain.jinja"
    # the first file's entry renders with it again
    first = view.renderer.findData(str(llama3_dir / "llama31.jinja"))
    view.renderer.setCurrentIndex(first)
    view.renderer.activated.emit(first)
    qtbot.waitUntil(lambda: view.result is not None and view.result.ids[0] == 128000,
                    timeout=5_000)


@pytest.mark.regression
def test_the_conversation_tokenizer_and_template_come_back_after_a_relaunch(
        llama_view, qtbot, llama3_dir):
    """The conversation and its tokenizer were not restored after a relaunch."""
    view = llama_view
    view.editor.set_body(TOOL_BODY)
    view.render_now()
    settled(view)
    want = list(view.flow.ids)
    assert want and view.result.text.count("get_weather") >= 2
    again = ChatView(NoTokenizer())
    qtbot.addWidget(again)
    again.resize(1100, 700)
    again.show()
    qtbot.waitUntil(lambda: again.result is not None, timeout=30_000)
    assert again.own_path == str(llama3_dir / "tokenizer.json")
    assert again.renderer.currentText() == "File: llama31.jinja"
    assert again.editor.body() == view.editor.body()
    assert list(again.flow.ids) == want


@pytest.mark.regression
def test_a_tokenizer_gone_since_the_last_run_is_said(llama_view, qtbot, llama3_dir, tmp_path):
    view = llama_view
    gone = tmp_path / "tokenizer.json"
    shutil.copy(llama3_dir / "tokenizer.json", gone)
    view.set_tokenizer_file(str(gone))
    settled(view)
    view.render_now()
    settled(view)
    gone.unlink()
    again = ChatView(NoTokenizer())
    qtbot.addWidget(again)
    again.show()
    qtbot.waitUntil(lambda: "not found" in again.warnings.text(), timeout=30_000)
    assert again.result is None


@pytest.mark.regression
def test_a_tekken_with_the_default_choice_renders_with_mistral_common(view, qtbot):
    """A tekken.json with the default template choice said it "comes with no chat
    template" instead of using mistral-common's renderer."""
    mc = pytest.importorskip("mistral_common")
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    tekken = Path(mc.__file__).parent / "data" / "tekken_240911.json"
    body = {"messages": [{"role": "user", "content": "Hi 東京"}]}
    view.editor.set_body(body)
    view.set_tokenizer_file(str(tekken))
    settled(view)
    qtbot.waitUntil(lambda: view.result is not None, timeout=30_000)
    want = MistralTokenizer.from_file(str(tekken)).encode_chat_completion(
        ChatCompletionRequest(**body)).tokens
    assert list(view.flow.ids) == want
    assert "mistral-common" in view.origin.text()


@pytest.mark.regression
def test_harmony_on_a_gguf_names_the_file_it_needs_not_a_flag(view, qtbot):
    """Harmony on a Qwen2 GGUF told the window's user to leave out --special-token /
    --pattern / --preset."""
    from chat_published import sdist_file
    view.set_tokenizer_file(str(sdist_file("ggml-vocab-qwen2.gguf")))
    settled(view)
    view.renderer.setCurrentText("harmony")
    view.renderer.activated.emit(view.renderer.currentIndex())
    qtbot.waitUntil(lambda: "o200k_base.tiktoken" in view.warnings.text(), timeout=30_000)
    assert "--" not in view.warnings.text() and view.result is None


@pytest.mark.regression
def test_a_bos_the_tokenizer_lacks_is_said_under_the_chips(qtbot, llama3_dir, tmp_path):
    """A template's bos_token rendered empty in silence when the tokenizer had none."""
    (tmp_path / "tokenizer.json").symlink_to(llama3_dir / "tokenizer.json")
    v = ChatView(NoTokenizer())
    qtbot.addWidget(v)
    v.show()
    v.set_tokenizer_file(str(tmp_path / "tokenizer.json"))
    settled(v)
    v.set_template_file(str(llama3_dir / "llama31.jinja"))
    settled(v)
    qtbot.waitUntil(lambda: v.result is not None, timeout=30_000)
    assert "bos_token" in v.warnings.text() and v.result.ids[0] != 128000


@pytest.mark.regression
@pytest.mark.parametrize("size", [(800, 600), (1024, 700), (1920, 1080)])
def test_messages_are_readable_in_focus(make_window, qtbot, monkeypatch, size):
    """In Focus at 1024x700 the message column was about 160 pixels: messages unreadable,
    a scroll bar sideways."""
    from screens import in_focus
    win = in_focus(make_window, qtbot, monkeypatch, size, "chat")
    dl = win.dock_layout
    view = dl.chat_view
    qtbot.wait(50)   # (the splitter is shared once the panel has its size)
    area = view.editor_area
    text = view.editor.rows[0].content
    assert text.width() >= 250, (size, text.width())
    assert not area.horizontalScrollBar().isVisible()
    assert view.flow.width() >= 300, (size, view.flow.width())
    dl.unfocus()


@pytest.mark.regression
def test_a_huge_prompt_shows_its_first_chips_and_counts_all(view, qtbot, tmp_path, monkeypatch):
    """A template rendering millions of tokens grew the window to about 3 GB: every token
    was laid out as a chip. The chips stop at MAX_CHIPS; the counts are of every token."""
    import bpe_gui.gui.panels.chat.prompt_pane as pane
    monkeypatch.setattr(pane, "MAX_CHIPS", 50)
    many = tmp_path / "many.jinja"
    many.write_text("{% for i in range(300) %}{{ i }} word {% endfor %}", encoding="utf-8")
    view.set_template_file(str(many))
    settled(view)
    qtbot.waitUntil(lambda: view.result is not None, timeout=5_000)
    n = len(view.result.tokens)
    assert n > 300 and len(view.flow.ids) == 50
    assert list(view.flow.ids) == view.result.ids[:50]
    assert view.counts.text().startswith(f"{n:,} tokens (the first 50 shown")


@pytest.mark.regression
def test_renders_run_off_the_gui_thread_and_the_next_edit_supersedes(view, qtbot, monkeypatch):
    """The chat rendered on the GUI thread (issue 89): a render is a chat job, and an
    edit made while one runs supersedes it: its result is never shown."""
    import threading
    from bpe_gui.gui.panels.chat import chat_view
    real, threads, gate = chat_view.encode_chat, [], threading.Event()

    def held(tok, body, *args, **kw):
        threads.append(threading.current_thread())
        if len(threads) == 1:
            assert gate.wait(20)   # (the first render is held until the edit is made)
        return real(tok, body, *args, **kw)
    monkeypatch.setattr(chat_view, "encode_chat", held)
    shown = []
    monkeypatch.setattr(view.main, "show_encoding",
                        lambda enc, f=view.main.show_encoding: (shown.append(enc.text), f(enc)))
    view.editor.rows[-1].content.setPlainText("first edit")
    view.render_now()
    qtbot.waitUntil(lambda: len(threads) == 1, timeout=30_000)
    view.editor.rows[-1].content.setPlainText("second edit")
    view.render_now()
    gate.set()
    settled(view)
    assert threading.main_thread() not in threads and len(threads) == 2
    assert len(shown) == 1 and "second edit" in shown[0] and "first edit" not in shown[0]
    assert "second edit" in view.result.text


def test_copy_ids_and_copy_as_json(view, qtbot):
    """Copy ids puts the prompt's ids on the clipboard as a JSON list (also Ctrl+Shift+C);
    Copy as JSON what bpe-gui chat --json prints (its schema aside)."""
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest
    clip = QGuiApplication.clipboard()
    clip.setText("")
    said: list[str] = []
    view.controller.message.connect(said.append)
    view.copy_ids.click()
    assert json.loads(clip.text()) == list(view.flow.ids) == view.result.ids
    # the status bar says what was copied, the count as the clipboard holds it
    assert said == [f"Copied {len(json.loads(clip.text())):,} ids (a JSON list)"]
    clip.setText("")
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=5_000)
    view.editor.rows[0].content.setFocus()
    QTest.keyClick(view.editor.rows[0].content, Qt.Key.Key_C,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert json.loads(clip.text()) == view.result.ids
    view.copy_json.click()
    got = json.loads(clip.text())
    enc = view.result
    assert said[-1] == f"Copied {len(got['ids']):,} ids as JSON, with their tokens and counts"
    assert got["ids"] == enc.ids and got["text"] == enc.text
    assert [(t["id"], t["role"], t["origin"]) for t in got["tokens"]] == \
        [(t.id, t.role, t.origin) for t in enc.tokens]
    assert got["message_counts"] == enc.message_counts(len(view.editor.rows))


def test_harmony_offers_openai_harmonys_three_renders(view, qtbot, tmp_path):
    """Harmony's list names openai-harmony's renders; render_conversation ends the last
    final message with <|end|>, for training with <|return|>."""
    from chat_published import o200k_base
    view.set_tokenizer_file(str(o200k_base(tmp_path)))
    view.editor.show_json(json.dumps({"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "channel": "final", "content": "yo"}]}))
    view.renderer.setCurrentText("harmony")
    view.renderer.activated.emit(view.renderer.currentIndex())
    settled(view)
    assert view.harmony.isVisible()
    assert [view.harmony.itemText(i) for i in range(1, 4)] == [
        "render_conversation_for_completion", "render_conversation_for_training",
        "render_conversation"]
    last = {}
    for i in (2, 3):
        view.harmony.setCurrentIndex(i)
        view.harmony.activated.emit(i)
        settled(view)
        last[view.harmony.currentText()] = view.result.tokens[-1].piece
    assert last == {"render_conversation_for_training": b"<|return|>",
                    "render_conversation": b"<|end|>"}


@pytest.mark.regression
def test_copy_is_greyed_with_its_reason_until_a_prompt_is_rendered(qtbot, model_dir):
    """Copy ids and Copy as JSON were enabled with nothing rendered and did nothing."""
    v = ChatView(NoTokenizer())
    qtbot.addWidget(v)
    assert v.result is None
    for b in (v.copy_ids, v.copy_json):
        assert not b.isEnabled() and "no prompt is rendered" in b.statusTip()
    v.set_tokenizer_file(str(model_dir / "tokenizer.json"))
    settled(v)
    qtbot.waitUntil(lambda: v.result is not None, timeout=60_000)
    assert v.copy_ids.isEnabled() and v.copy_json.isEnabled() and not v.copy_ids.statusTip()


@pytest.mark.regression
def test_the_renderers_first_entry_reads_whole_in_a_narrow_dock(qtbot):
    """In the Chat dock of an 800x600 window (about 520 pixels) the list showed
    "Template that comes with the": its first entry is short enough to read whole."""
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox
    v = ChatView(NoTokenizer())
    qtbot.addWidget(v)
    v.resize(520, 500)
    v.show()
    qtbot.waitExposed(v)
    box = v.renderer
    assert box.currentIndex() == 0
    opt = QStyleOptionComboBox()
    box.initStyleOption(opt)
    field = box.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                       QStyle.SubControl.SC_ComboBoxEditField, box)
    assert field.width() >= box.fontMetrics().horizontalAdvance(box.currentText()), \
        (field.width(), box.currentText())


@pytest.mark.regression
def test_copy_is_greyed_while_the_prompt_shown_is_rendered_again(view, qtbot, monkeypatch):
    """A tokenizer opened in the view: until its render came back (a large tekken.json:
    seconds) the last tokenizer's prompt stayed shown, and Copy ids copied its ids."""
    import threading
    from bpe_gui.gui.panels.chat import chat_view
    real, gate = chat_view.encode_chat, threading.Event()

    def held(*args, **kw):
        assert gate.wait(20)
        return real(*args, **kw)
    monkeypatch.setattr(chat_view, "encode_chat", held)
    assert view.copy_ids.isEnabled()
    view.editor.rows[-1].content.setPlainText("an edit")
    view.render_now()
    for b in (view.copy_ids, view.copy_json):
        assert not b.isEnabled() and "being rendered again" in b.statusTip()
    gate.set()
    settled(view)
    assert "an edit" in view.result.text
    assert view.copy_ids.isEnabled() and view.copy_json.isEnabled()
    assert not view.copy_ids.statusTip()
