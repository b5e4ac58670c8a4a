"""Whether a value is a JSON Schema of draft 7, judged as mistral-common judges a tool's
"parameters" (``jsonschema.Draft7Validator.check_schema``, jsonschema 4.26): draft 7's
meta-schema, its rules written out here, since the app does not depend on jsonschema.

The rules: a schema is an object or true/false; keywords the meta-schema does not name
take anything. Of those it names, the value is
- a schema: ``not``, ``if``, ``then``, ``else``, ``contains``, ``propertyNames``,
  ``additionalItems``, ``additionalProperties``;
- a non-empty list of schemas: ``allOf``, ``anyOf``, ``oneOf``; ``items`` that or a schema;
- an object of schemas: ``properties``, ``definitions``, ``patternProperties`` (whose
  names are regular expressions); ``dependencies``, whose values are schemas or lists
  of property names;
- a type name, or a non-empty list of distinct ones: ``type``;
- a list of distinct strings: ``required``; any list: ``enum``, ``examples``;
- a number: ``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``;
  ``multipleOf`` one above 0; a whole number 0 or more: ``minLength``, ``maxLength``,
  ``minItems``, ``maxItems``, ``minProperties``, ``maxProperties``;
- true or false: ``uniqueItems``, ``readOnly``; a string: ``$id``, ``$schema``, ``$ref``,
  ``$comment``, ``title``, ``description``, ``format``, ``contentMediaType``,
  ``contentEncoding``; ``pattern`` a regular expression; ``const``, ``default``: anything.

Numbers are JSON's as Python reads them: int and float, never bool; a whole number may be
written 2.0 (jsonschema's draft-7 integers), and NaN passes ``multipleOf`` (no comparison
with it fails). Formats: the meta-schema asks "regex" of ``pattern`` and of the names in
``patternProperties``, "uri" of ``$schema``, "uri-reference" of ``$id`` and ``$ref``.
jsonschema checks a format only where it can: "regex" with Python's ``re`` (so that is
what a regular expression means here), the URI ones only when the optional ``rfc3987``
package is installed, which mistral-common does not bring; so any string passes as a URI.
"""
from __future__ import annotations

import json
import re
import warnings
from typing import Any, Callable

TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")

Where = tuple[Any, ...]   # keys and list indexes, from the top of the schema


class _Bad(Exception):
    def __init__(self, path: Where, what: str) -> None:
        super().__init__(what)
        self.path, self.what = path, what


def schema_problem(schema: Any) -> str | None:
    """None when ``schema`` is a valid draft-7 JSON Schema, else the first problem found:
    where it is and what is wrong.

    Example: {"type": "object", "properties": {"city": {"type": "strng"}}} ->
    'properties.city.type: "strng" is not a type name (array, boolean, integer, null,
    number, object, string)'; {"type": "object"} -> None.
    """
    try:
        _schema(schema, ())
    except _Bad as e:
        return f"{where(e.path)}: {e.what}"
    except RecursionError:
        return "the schema is nested too deeply to check"
    return None


def where(path: Where) -> str:
    """A place in a schema as a user finds it: ('properties', 'city', 'type') ->
    'properties.city.type'; ('anyOf', 1) -> 'anyOf[1]'; () -> 'the top level'."""
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        elif isinstance(p, str) and re.fullmatch(r"[A-Za-z_$][\w$-]*", p, re.ASCII):
            out += f".{p}" if out else p
        else:   # a name with dots, spaces ...: quoted
            out += f"[{json.dumps(p, ensure_ascii=False)}]"
    return out or "the top level"


def show(v: Any) -> str:
    """A value as JSON spells it, cut short."""
    try:
        text = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, float) and v.is_integer())


def _schema(v: Any, path: Where) -> None:
    if isinstance(v, bool):
        return
    if not isinstance(v, dict):
        raise _Bad(path, f"must be a schema (an object, or true or false), not {show(v)}")
    for key, value in v.items():
        check = _KEYWORDS.get(key) if isinstance(key, str) else None
        if check is not None:
            check(value, path + (key,))


def _string(v: Any, path: Where) -> None:
    if not isinstance(v, str):
        raise _Bad(path, f"must be a string, not {show(v)}")


def _boolean(v: Any, path: Where) -> None:
    if not isinstance(v, bool):
        raise _Bad(path, f"must be true or false, not {show(v)}")


def _number(v: Any, path: Where) -> None:
    if not _is_number(v):
        raise _Bad(path, f"must be a number, not {show(v)}")


def _count(v: Any, path: Where) -> None:
    if not _is_integer(v) or v < 0:
        raise _Bad(path, f"must be a whole number, 0 or more, not {show(v)}")


def _multiple_of(v: Any, path: Where) -> None:
    if not _is_number(v) or v <= 0:   # (NaN is not <= 0: it passes, as in jsonschema)
        raise _Bad(path, f"must be a number above 0, not {show(v)}")


def _regex(v: str, path: Where, what: str = "") -> None:
    with warnings.catch_warnings():   # ("possible nested set" and the like: still valid)
        warnings.simplefilter("ignore")
        try:
            re.compile(v)
        except (re.error, OverflowError, RecursionError) as e:
            raise _Bad(path, f"{what}{show(v)} is not a regular expression ({e})") from None


def _pattern(v: Any, path: Where) -> None:
    _string(v, path)
    _regex(v, path)


def _list(v: Any, path: Where) -> None:
    if not isinstance(v, list):
        raise _Bad(path, f"must be a list, not {show(v)}")


def _schema_list(v: Any, path: Where) -> None:
    if not isinstance(v, list) or not v:
        raise _Bad(path, f"must be a non-empty list of schemas, not {show(v)}")
    for i, s in enumerate(v):
        _schema(s, path + (i,))


def _items(v: Any, path: Where) -> None:
    if isinstance(v, list):
        _schema_list(v, path)
    elif not isinstance(v, (dict, bool)):
        raise _Bad(path, f"must be a schema or a non-empty list of schemas, not {show(v)}")
    else:
        _schema(v, path)


def _schema_map(v: Any, path: Where) -> None:
    if not isinstance(v, dict):
        raise _Bad(path, f"must be an object of schemas by name, not {show(v)}")
    for name, s in v.items():
        _schema(s, path + (name,))


def _pattern_map(v: Any, path: Where) -> None:
    _schema_map(v, path)
    for name in v:
        if isinstance(name, str):
            _regex(name, path + (name,), "the name ")


def _names(v: Any, path: Where) -> None:
    """A list of distinct strings (``required``, a list in ``dependencies``)."""
    _list(v, path)
    for i, s in enumerate(v):
        _string(s, path + (i,))
    seen: set[str] = set()
    for s in v:   # (one pass: the first name met twice)
        if s in seen:
            raise _Bad(path, f"lists {show(s)} twice; give each name once")
        seen.add(s)


def _dependencies(v: Any, path: Where) -> None:
    if not isinstance(v, dict):
        raise _Bad(path, f"must be an object, not {show(v)}")
    for name, d in v.items():
        if isinstance(d, list):
            _names(d, path + (name,))
        elif isinstance(d, (dict, bool)):
            _schema(d, path + (name,))
        else:
            raise _Bad(path + (name,), "must be a schema or a list of property names, not "
                       f"{show(d)}")


def _type(v: Any, path: Where) -> None:
    names = f"({', '.join(TYPES)})"
    if isinstance(v, str):
        if v not in TYPES:
            raise _Bad(path, f"{show(v)} is not a type name {names}")
        return
    if not isinstance(v, list) or not v:
        raise _Bad(path, f"must be a type name {names} or a non-empty list of them, "
                   f"not {show(v)}")
    for i, t in enumerate(v):
        if not isinstance(t, str) or t not in TYPES:
            raise _Bad(path + (i,), f"{show(t)} is not a type name {names}")
    if len(set(v)) < len(v):
        raise _Bad(path, f"names a type twice ({show(v)}); give each once")


_KEYWORDS: dict[str, Callable[[Any, Where], None]] = {
    **dict.fromkeys(("$id", "$schema", "$ref", "$comment", "title", "description", "format",
                     "contentMediaType", "contentEncoding"), _string),
    **dict.fromkeys(("readOnly", "uniqueItems"), _boolean),
    **dict.fromkeys(("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"), _number),
    **dict.fromkeys(("maxLength", "minLength", "maxItems", "minItems", "maxProperties",
                     "minProperties"), _count),
    **dict.fromkeys(("additionalItems", "contains", "additionalProperties", "propertyNames",
                     "if", "then", "else", "not"), _schema),
    **dict.fromkeys(("allOf", "anyOf", "oneOf"), _schema_list),
    **dict.fromkeys(("definitions", "properties"), _schema_map),
    **dict.fromkeys(("examples", "enum"), _list),
    "multipleOf": _multiple_of, "pattern": _pattern, "items": _items,
    "patternProperties": _pattern_map, "required": _names, "dependencies": _dependencies,
    "type": _type,
}
