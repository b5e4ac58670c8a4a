"""Hostile chat templates: nesting, growth, recursion and the sandbox escapes. Each must be
refused in one line, quickly and in bounded memory (test_bounds.py runs them under a
memory limit; bench/bench_chat_hostile.py measures each one's peak memory and time).

Run as a script, ``python hostile_templates.py NAME...`` renders each named case and
prints one JSON line per case: its name, the error's message (or the output's length)
and the seconds it took.
"""
from __future__ import annotations

import json
import sys
import time

BIG = "{% set s = 'x' * 4000000 %}"
HOSTILE = {
    # what issue 80 measured: 2.3 GB, 1.7 GB, 4.0 GB and 17 s, 4.0 GB
    "print_4mb_in_a_loop": BIG + "{% for i in range(600) %}{{ s }}{% endfor %}",
    "double_with_tilde": "{% set ns = namespace(s='xx') %}{% for i in range(40) %}"
                         "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
    "percent_width": "{{ '%2000000000d' % 1 }}",
    "tojson_indent": "{{ [[1]] | tojson(indent=10**9) }}",
    # more ways to ask for gigabytes in one step
    "tojson_indent_literal": "{{ [[1]] | tojson(indent=1000000000) }}",
    "print_shared_references": BIG + "{{ [s] * 1000 }}",
    "join_filter_of_references": BIG + "{{ ([s] * 1000) | join }}",
    "str_join_of_references": BIG + "{{ ''.join([s] * 1000) }}",
    "center": "{{ 'x'.center(2000000000) }}",
    "zfill": "{{ 'x'.zfill(2000000000) }}",
    "format_width": "{{ '{:>2000000000}'.format(1) }}",
    "format_nested_width": "{{ '{:{}}'.format(1, 2000000000) }}",
    "format_repeated": BIG + "{{ ('{0}' * 1000).format(s) }}",
    "percent_repeated": BIG + "{{ ('%s' * 1000) % ((s,) * 1000) }}",
    "replace_grows": BIG + "{{ s.replace('x', s) }}",
    "translate_grows": BIG + "{{ s.translate({120: s}) }}",
    "expandtabs": "{{ ('\t' * 4000000).expandtabs(65536) }}",
    "lipsum": "{{ lipsum(n=1000000000) }}",
    "sum_of_lists": "{{ ([[0] * 4000000] * 4000000) | sum(start=[]) | length }}",
    "square_a_number": "{% set ns = namespace(x=2**4000000) %}{% for i in range(30) %}"
                       "{% set ns.x = ns.x * ns.x %}{% endfor %}{{ ns.x > 1 }}",
    "dict_view_of_references": BIG + "{{ dict.fromkeys(range(100000), s).items() }}",
    "keep_many_alive": BIG + "".join(f"{{% set a{i} = s ~ '{i}' %}}" for i in range(200)),
    "batch_fill": "{{ [1] | batch(1000000000, 'x') | list }}",
    "indent_width": "{{ 'x\ny' | indent(1000000000) }}",
    # filters that multiply their input: each line indented, each word wrapped (issue 88:
    # indent reached 1,094 MB before the time limit)
    "indent_lines": "{{ ('x\n' * 1000000) | indent(1000) }}",
    "indent_lines_text": "{{ ('x\n' * 1000000) | indent('y' * 1000) }}",
    "center_lines": "{% for i in range(200) %}{{ 'x' | center(65536) }}{% endfor %}",
    "replace_filter": BIG + "{{ s | replace('x', 'yyyy') }}",
    "format_filter": BIG + "{{ ('%s' * 100) | format(*([s] * 100)) }}",
    "join_filter_separator": "{{ (['x'] * 1000000) | join('y' * 100) }}",
    "wordwrap_lines": "{% set s = 'x ' * 2000000 %}{{ s | wordwrap(1) | indent(100) }}",
    "wordwrap_string": "{% set s = 'x ' * 2000000 %}{{ s | wordwrap(1, wrapstring='y' * 1000) }}",
    "grow_a_list": "{% set ns = namespace(l=[]) %}{% for i in range(1000) %}"
                   "{% set ns.l = ns.l + [[0] * 4000000] %}{% endfor %}",
    "block_set": BIG + "{% set b %}{% for i in range(100) %}{{ s }}{% endfor %}{% endset %}",
    "macro_output": BIG + "{% macro m() %}{{ s }}{{ s }}{% endmacro %}"
                    "{% for i in range(100) %}{{ m() }}{% endfor %}",
    "filter_block": BIG + "{% filter upper %}{% for i in range(100) %}{{ s }}{% endfor %}"
                    "{% endfilter %}",
    # recursion and nesting
    "macro_recursion": "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
    "nested_parentheses": "{{" + "(" * 3000 + "1" + ")" * 3000 + "}}",
    "nested_for": "{% for i in range(1) %}" * 30 + "x" + "{% endfor %}" * 30,
    "nested_if": "{% if 1 %}" * 200 + "x" + "{% endif %}" * 200,
    "nested_value": "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}"
                    "{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}",
    "endless_loop": "{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}"
                    "{% endfor %}{% endfor %}",
    # the sandbox escapes
    "subclasses": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "globals": "{{ cycler.__init__.__globals__ }}",
    "namespace_underscore": "{% set ns = namespace(_secret=1) %}",
    "mutate_input": "{% set _ = messages.append(1) %}",
    "format_escape": "{{ '{0.__class__.__mro__}'.format('') }}",
}


def run(name: str) -> dict:
    """Render one case; what happened."""
    from bpe_gui.engine.chat import ChatError, CompiledTemplate
    t0 = time.monotonic()
    try:
        out = CompiledTemplate(HOSTILE[name], f"{name}.jinja").render(
            messages=[{"role": "user", "content": "hi"}])
        got = {"rendered": len(out)}
    except ChatError as e:
        got = {"error": str(e)}
    except BaseException as e:   # (what the test reports: anything but a ChatError)
        got = {"raised": f"{type(e).__name__}: {e}"[:300]}
    return {"name": name, **got, "seconds": round(time.monotonic() - t0, 3)}


if __name__ == "__main__":
    for name in sys.argv[1:] or list(HOSTILE):
        print(json.dumps(run(name)), flush=True)
