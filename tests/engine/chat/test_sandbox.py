"""A chat template is untrusted code: the sandbox, the time limit, and one-line messages
naming the template line; transformers' helpers (tojson, raise_exception, strftime_now)."""
from __future__ import annotations

import json
from datetime import datetime

import pytest

from bpe_gui.engine.chat import ChatError, CompiledTemplate


def _render(src: str, **kw) -> str:
    return CompiledTemplate(src, "t.jinja", now=lambda: datetime(2024, 7, 1, 9, 30),
                            time_limit_s=0.5).render(**kw)


def test_runaway_loop_stops_at_the_time_limit_naming_the_line():
    src = "a\n{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}" \
          "{% endfor %}"
    with pytest.raises(ChatError, match=r"t\.jinja, line 2 ran past 0\.5 s"):
        _render(src)


@pytest.mark.parametrize("src", [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__ }}",
    "{% set ns = namespace(_secret=1) %}",
    "{{ 'x' * 100000000 }}",
    "{{ 10 ** 100000000 }}",
])
def test_escapes_and_bombs_are_refused(src):
    with pytest.raises(ChatError) as err:
        _render(src, messages=[{"role": "user", "content": "x"}])
    assert "\n" not in str(err.value)


def test_unsafe_attributes_read_as_nothing():
    assert _render("[{{ messages.__class__ }}][{{ messages.__init__ }}]", messages=[]) == "[][]"


def test_mutating_inputs_is_refused():
    with pytest.raises(ChatError, match="line 1"):
        _render("{% set _ = messages.append(1) %}", messages=[])


def test_syntax_error_names_the_line():
    with pytest.raises(ChatError, match=r"t\.jinja, line 3: .*Fix the template"):
        CompiledTemplate("ok\nok\n{% if %}", "t.jinja")


def test_raise_exception_message_reaches_the_user_with_its_line():
    with pytest.raises(ChatError, match=r"line 2: roles must alternate"):
        _render("x\n{{ raise_exception('roles must alternate') }}")


def test_tojson_keeps_key_order_and_non_ascii_like_json_dumps():
    data = {"z": 1, "a": ["é", "東京", "🌧"], "m": {"y": None, "b": True}}
    assert _render("{{ d | tojson }}", d=data) == json.dumps(data, ensure_ascii=False)
    assert _render("{{ d | tojson(indent=2) }}", d=data) == \
        json.dumps(data, ensure_ascii=False, indent=2)
    assert _render("{{ d | tojson(separators=(',', ':'), sort_keys=true) }}", d=data) == \
        json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def test_trim_and_lstrip_blocks_and_loop_controls():
    src = "  {% for i in range(5) %}\n{% if i == 3 %}{% break %}{% endif %}" \
          "{% if i == 1 %}{% continue %}{% endif %}{{ i }}\n{% endfor %}"
    assert _render(src) == "0\n2\n"


def test_strftime_now_reads_the_fixed_date():
    assert _render("{{ strftime_now('%d %b %Y %H:%M') }}") == "01 Jul 2024 09:30"


def test_generation_block_renders_its_body():
    assert _render("a{% generation %}b{{ x }}{% endgeneration %}c", x=1) == "ab1c"


def test_namespace_and_dict_work():
    src = "{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set ns.n = ns.n + i %}" \
          "{% endfor %}{{ ns.n }} {{ dict(a=1)['a'] }}"
    assert _render(src) == "3 1"


def test_empty_template_is_refused():
    with pytest.raises(ChatError, match="empty"):
        CompiledTemplate("  \n", "t.jinja")
