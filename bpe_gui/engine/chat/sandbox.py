"""A chat template compiled and run as transformers runs it, as untrusted code.

The environment is jinja2's ``ImmutableSandboxedEnvironment`` with ``trim_blocks``,
``lstrip_blocks`` and the loop controls, transformers' ``tojson`` (keys in their order,
non-ASCII kept, ``indent``/``separators``/``sort_keys``), ``raise_exception``,
``strftime_now``, a ``dict`` and a ``namespace`` without underscore names, and the
``{% generation %}`` block (rendered as its body). On top of the sandbox: a render
stops at a time limit (a trace of the template's own frames), and at a memory ceiling:
every operation that can make a value bigger is sized before it runs, and the output as
it grows (bounds.py). A template too big, or nested too deeply for Python to compile
it, is refused when compiled; every refusal is one line naming the template line.
"""
from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from typing import Any, Callable

from . import bounds
from .conversation import ChatError

TIME_LIMIT_S = 2.0
SEQ = (str, bytes, list, tuple)
SCALARS = (str, int, float, type(None))
MAX_TEMPLATE_CHARS = 1 << 20   # published templates are under 40 KB
TEMPLATE_FILE = "<template>"


class TemplateRaised(ChatError):
    """A template's own code raised ``raised`` (a TypeError, a KeyError ...) while it
    rendered; the message names the template line."""

    def __init__(self, message: str, raised: type[BaseException]):
        super().__init__(message)
        self.raised = raised


class _Timeout(Exception):
    pass


def _jinja():
    try:
        import jinja2
        import jinja2.ext
        import jinja2.sandbox
    except ImportError:   # pragma: no cover - jinja2 is a dependency
        raise ChatError("rendering a chat template needs jinja2: pip install 'jinja2>=3.1.6'.") \
            from None
    return jinja2


def _environment(now: Callable[[], datetime], budget: bounds.Budget):
    """The sandbox, every operation that can make a value bigger sized first against
    ``budget`` (bounds.py)."""
    jinja2 = _jinja()
    from jinja2.compiler import CodeGenerator
    from jinja2.ext import Extension
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from jinja2.runtime import Undefined
    from jinja2.utils import Namespace as JinjaNamespace, missing

    class Generation(Extension):
        """``{% generation %}...{% endgeneration %}``: its body, as transformers renders
        it when no assistant mask is asked for."""
        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body) \
                .set_lineno(lineno)

        def _body(self, caller):
            return caller()

    class SizedJoin(CodeGenerator):
        """``a ~ b`` joined by the environment, which sizes it first."""

        def visit_Concat(self, node, frame):
            if frame.eval_ctx.volatile or frame.eval_ctx.autoescape:
                return super().visit_Concat(node, frame)
            self.write("environment.sized_join((")
            for arg in node.nodes:
                self.visit(arg, frame)
                self.write(", ")
            self.write("))")

    class Env(ImmutableSandboxedEnvironment):
        # (intercepted operators are never folded at compile time either)
        intercepted_binops = frozenset(("*", "**", "%", "+"))
        code_generator_class = SizedJoin

        # (a refusal is bounds.TooBig, which render() reports as the sandbox's)
        def call_binop(self, context, operator, left, right):
            seqs = isinstance(left, SEQ) or isinstance(right, SEQ)
            if operator == "*":
                bounds.sized_product(budget, left, right)
            elif operator == "**":
                bounds.sized_power(left, right)
            elif operator == "%" and isinstance(left, str):
                bounds.percent(budget, left, right)
            elif operator == "+" and seqs:
                bounds.sized_sum(budget, left, right, "+")
            got = super().call_binop(context, operator, left, right)
            return budget.add(got, f"'{operator}'") if seqs else got

        def sized_join(self, parts):
            texts = []
            n = 0
            for p in parts:
                if not isinstance(p, str):
                    budget.check(p, "'~'")
                    p = str(p)
                texts.append(p)
                n += len(p)
                if n > budget.limit:
                    raise bounds.TooBig(f"'~' would make more than {budget.limit:,} "
                                        "characters")
            return budget.add("".join(texts), "'~'")

        def call(__self, __context, __obj, *args, **kwargs):   # noqa: N805 (jinja's names)
            inner = getattr(__obj, "__wrapped__", __obj)   # (str.format's wrapper)
            owner = getattr(inner, "__self__", None)
            if isinstance(owner, (str, bytes)):
                if inner.__name__ in ("format", "format_map") and isinstance(owner, str):
                    fmt_args = (args, kwargs) if inner.__name__ == "format" else \
                        ((), args[0] if args and isinstance(args[0], dict) else {})
                    bounds.format_spec(budget, owner, *fmt_args)
                else:
                    bounds.str_method(budget, inner, args, kwargs)
            elif __obj is lipsum:
                bounds.lipsum(args, kwargs)
            if args:
                budget.checked(args, "a call's argument")
            if kwargs:
                budget.checked(kwargs.values(), "a call's argument")
            return budget.add(super().call(__context, __obj, *args, **kwargs), "a call")

    def finalize(value):
        """What ``{{ }}`` prints is sized first (a list prints all it holds)."""
        if not isinstance(value, SCALARS):
            budget.check(value, "what {{ }} prints")
        return value

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def strftime_now(fmt):
        return now().strftime(fmt)

    class TemplateDict:
        def __call__(self, *args, **kwargs):
            return dict(*args, **kwargs)

        def fromkeys(self, *args, **kwargs):
            return dict.fromkeys(*args, **kwargs)

    class Namespace(JinjaNamespace):
        def __init__(*args, **kwargs):
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                Namespace.no_underscore(name)
            JinjaNamespace.__init__(self, attrs)

        def __setitem__(self, name, value):
            Namespace.no_underscore(name)
            JinjaNamespace.__setitem__(self, name, value)

        @staticmethod
        def no_underscore(name):
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError(
                    f"a namespace cannot hold the underscore name {name!r}")

    class Printed(Undefined):
        """Jinja's Undefined (what transformers renders with), remembering the names of
        undefined variables printed as empty text: a bos_token the tokenizer lacks is said,
        never dropped in silence."""
        names: set[str] = set()

        def __str__(self) -> str:
            if self._undefined_obj is missing and self._undefined_name:
                Printed.names.add(self._undefined_name)
            return ""

    env = Env(trim_blocks=True, lstrip_blocks=True, undefined=Printed, finalize=finalize,
              extensions=[Generation, jinja2.ext.loopcontrols])
    env.concat = budget.output   # type: ignore[method-assign]  # (counted as it grows)
    env.filters["tojson"] = tojson
    env.filters.update({name: bounds.guarded(budget, name, f)
                        for name, f in env.filters.items()})
    lipsum = env.globals["lipsum"]
    env.globals.update(raise_exception=raise_exception, strftime_now=strftime_now,
                       dict=TemplateDict(), namespace=Namespace)
    return env


def _template_line(tb) -> int | None:
    """The template line of the innermost template frame of a traceback (jinja rewrites
    its frames to carry the template's line numbers)."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == TEMPLATE_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class CompiledTemplate:
    """A chat template compiled once; :meth:`render` runs it with a time limit.

    ``now``: what ``strftime_now`` reads (a fixed date makes output reproducible)."""

    def __init__(self, source: str, name: str = "chat template",
                 now: Callable[[], datetime] = datetime.now,
                 time_limit_s: float = TIME_LIMIT_S):
        jinja2 = _jinja()
        if not isinstance(source, str) or not source.strip():
            raise ChatError(f"{name} is empty; pick a template file or a tokenizer that has one.")
        if len(source) > MAX_TEMPLATE_CHARS:
            raise ChatError(f"{name} is {len(source):,} characters long; chat templates are "
                            f"at most {MAX_TEMPLATE_CHARS:,} here (published ones are under "
                            "40,000). Check that this is a chat template.")
        self.source, self.name, self.time_limit_s = source, name, time_limit_s
        # the undefined variables the last render printed (as empty text)
        self.printed_undefined: frozenset[str] = frozenset()
        self._budget = bounds.Budget()
        try:
            self._template = _environment(now, self._budget).from_string(source)
        except jinja2.exceptions.TemplateSyntaxError as e:
            raise ChatError(f"{name}, line {e.lineno}: {e.message}. Fix the template.") from None
        except (RecursionError, SyntaxError, MemoryError):
            # (jinja's parser recurses per nested expression; Python compiles at most 20
            # nested loops and 100 levels of indentation)
            raise ChatError(f"{name} nests its blocks or expressions too deeply to be "
                            "compiled; published templates nest a few levels. Simplify the "
                            "template.") from None
        finally:
            self._budget.reset()

    def render(self, **variables: Any) -> str:
        """The template's text for these variables; a ChatError naming the template line
        for an error, a runaway or a sandbox refusal."""
        jinja2 = _jinja()
        deadline = time.monotonic() + self.time_limit_s
        where = [0]   # the generated code's line last run: the template line of a runaway

        def local(frame, event, arg):
            where[0] = frame.f_lineno
            if time.monotonic() > deadline:
                raise _Timeout()
            return local

        def tracer(frame, event, arg):
            if time.monotonic() > deadline:
                raise _Timeout()
            return local if frame.f_code.co_filename == TEMPLATE_FILE else None

        printed = self._template.environment.undefined.names
        printed.clear()
        self._budget.reset(variables)   # (what it may make: beyond what it is given)
        old = sys.gettrace()
        sys.settrace(tracer)
        try:
            return self._template.render(**variables)
        except _Timeout:
            line = self._template.get_corresponding_lineno(where[0]) if where[0] else None
            at = "" if not line else f", line {line}"
            raise ChatError(f"{self.name}{at} ran past {self.time_limit_s:g} s "
                            "and was stopped; the template loops too long.") from None
        except (jinja2.exceptions.SecurityError, bounds.TooBig) as e:
            raise ChatError(f"{self.name}{self._at(sys.exc_info()[2])}: refused by the "
                            f"sandbox ({e}).") from None
        except jinja2.exceptions.TemplateError as e:
            raise ChatError(f"{self.name}{self._at(sys.exc_info()[2])}: {e}") from None
        except RecursionError:
            raise ChatError(f"{self.name} recurses too deeply.") from None
        except MemoryError:
            raise ChatError(f"{self.name} ran out of memory and was stopped.") from None
        except Exception as e:   # a template is code: any error it raises is the template's
            raise TemplateRaised(f"{self.name}{self._at(sys.exc_info()[2])}: "
                                 f"{type(e).__name__}: {e}", type(e)) from None
        finally:
            sys.settrace(old)
            self.printed_undefined = frozenset(printed)
            self._budget.reset()   # (what it kept alive goes)

    @staticmethod
    def _at(tb) -> str:
        line = _template_line(tb)
        return "" if line is None else f", line {line}"

    def variables(self) -> frozenset[str]:
        """The template's undeclared variables (what it reads from outside)."""
        import jinja2.meta
        env = self._template.environment
        return frozenset(jinja2.meta.find_undeclared_variables(env.parse(self.source)))

    def literal_text(self) -> str:
        """The template's raw text and string constants joined by NULs: an added token
        found here is a control token the template writes (transformers' rule)."""
        import jinja2.nodes
        ast = self._template.environment.parse(self.source)
        lits = {n.data for n in ast.find_all(jinja2.nodes.TemplateData)}
        lits |= {n.value for n in ast.find_all(jinja2.nodes.Const) if isinstance(n.value, str)}
        return "\0".join(sorted(lits))
