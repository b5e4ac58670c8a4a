"""Templates held in bounds: each hostile template (hostile_templates.py) is refused in
one line saying why, in a process whose memory is capped (so a template that would take
gigabytes fails the test instead of the machine); templates and requests nested too
deeply for Python are refused when read; and the sizes the bounds count, against what
Python actually makes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_gui.engine.chat import ChatError, CompiledTemplate
from bpe_gui.engine.chat.bounds import MAX_CHARS, Budget

from hostile_templates import HOSTILE

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
CAP = 1 << 30   # the address space the cases run in

# (nested_value: a list nested 100,000 deep is either still being built at the time limit
# or printed too deeply: which comes first depends on the machine's speed)
WHY = {"nested_parentheses": ("too deeply",), "nested_for": ("too deeply",),
       "nested_if": ("too deeply",), "macro_recursion": ("recurses too deeply",),
       "endless_loop": ("ran past",), "nested_value": ("ran past", "recurses too deeply")}


def _capped(names: list[str]) -> dict[str, dict]:
    """Each case run in one child process capped at CAP bytes of address space."""
    code = ("import resource, runpy, sys; "
            f"resource.setrlimit(resource.RLIMIT_AS, ({CAP}, {CAP})); "
            f"sys.argv = ['hostile_templates.py', *{names!r}]; "
            f"runpy.run_path({str(HERE / 'hostile_templates.py')!r}, run_name='__main__')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=600, cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": ""})
    got = {}
    for line in p.stdout.splitlines():
        d = json.loads(line)
        got[d["name"]] = d
    assert set(got) == set(names), p.stderr[-2000:]
    return got


@pytest.fixture(scope="module")
def results():
    pytest.importorskip("resource")
    return _capped(list(HOSTILE))


@pytest.mark.regression
@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_template_is_refused_in_one_line(results, name):
    """Templates that took 1.7-4 GB (a string doubled by ~, '%2000000000d' % 1,
    tojson(indent=10**9), a 4 MB string printed in a loop), or raised a traceback (3,000
    nested parentheses, 30 nested for, 200 nested if), are refused in one line."""
    got = results[name]
    assert "error" in got, got
    message = got["error"]
    assert "\n" not in message and message.startswith(f"{name}.jinja")
    assert any(w in message for w in WHY.get(name, ("refused by the sandbox",))), message


def test_the_output_is_counted_as_it_grows():
    src = "{% for i in range(2000) %}{{ 'x' * 4000 }}{% endfor %}"
    with pytest.raises(ChatError, match=f"writes more than {MAX_CHARS:,} characters"):
        CompiledTemplate(src, "t").render()
    # just under: rendered whole
    ok = "{% for i in range(1000) %}{{ 'x' * 4000 }}{% endfor %}"
    assert len(CompiledTemplate(ok, "t").render()) == 4_000_000


@pytest.mark.regression
def test_a_long_message_renders_and_growth_beyond_it_is_refused():
    """A 10 MB message (about 2.5 M tokens) was refused: "the trim filter makes
    10,799,999 characters, more than 4,194,304". The bound is on what a template makes
    beyond its inputs: the message renders whole, trimmed and printed as published
    templates do; repeating it three times is still refused."""
    content = "word " * 2_000_000 + "end"
    messages = [{"role": "user", "content": content}]
    t = CompiledTemplate("{% for m in messages %}<{{ m.role }}>{{ m.content | trim }}"
                         "{% endfor %}", "t")
    assert t.render(messages=messages) == "<user>" + content
    with pytest.raises(ChatError, match="refused by the sandbox"):
        CompiledTemplate("{{ messages[0].content * 3 }}", "t").render(messages=messages)
    with pytest.raises(ChatError, match="indent would make"):
        CompiledTemplate("{{ messages[0].content | replace(' ', '\n') | indent(100) }}",
                         "t").render(messages=messages)


def test_a_render_after_a_refusal_starts_afresh():
    t = CompiledTemplate("{% if big %}{{ 'x' * 3000000 ~ 'x' * 3000000 }}{% endif %}ok", "t")
    with pytest.raises(ChatError):
        t.render(big=True)
    assert t.render(big=False) == "ok"


@pytest.mark.parametrize("value", [
    [1, 2.5, None, True, "é", "a\x00b"], {"a": [1, {"b": "c"}], "d": ()},
    [["x"] * 3] * 4, {"k": "\U0001F600" * 10}, list(range(1000)),
    {"a": {1, 2}}, ("t", [b"\xff\x00"]),
])
def test_a_size_is_never_below_what_python_prints(value):
    """What the bounds count for a value is at least its repr (and its JSON with an
    indent), so a refusal is never too late."""
    b = Budget()
    assert b.size(value) >= len(str(value))
    try:
        text = json.dumps(value, indent=3, ensure_ascii=False)
    except TypeError:
        return
    assert Budget().size(value, indent=3) >= len(text)


def test_a_size_stops_walking_once_past_the_limit():
    b = Budget()
    huge = [["x" * 1000] * 1000] * 1000   # 1e9 characters, shared
    assert b.size(huge) == MAX_CHARS + 1
    assert b.size(huge, limit=10) == 11


def _json_values():
    from hypothesis import strategies as st
    leaves = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | \
        st.text(max_size=8)
    return st.recursive(leaves, lambda kids: st.lists(kids, max_size=4)
                        | st.dictionaries(st.text(max_size=4), kids, max_size=4), max_leaves=30)


def test_a_size_bounds_repr_and_json_of_any_json_value():
    """Python's own repr and json.dumps, against the bounds' count, on random data."""
    from hypothesis import given, settings

    @settings(max_examples=300, deadline=None)
    @given(_json_values(), st_indent())
    def check(value, indent):
        value = [value]   # (a string on its own prints as itself, not as its repr)
        assert Budget().size(value) >= len(str(value))
        assert Budget().size(value, indent=indent) >= \
            len(json.dumps(value, indent=indent or None, ensure_ascii=False))
    check()


def st_indent():
    from hypothesis import strategies as st
    return st.integers(0, 6)
