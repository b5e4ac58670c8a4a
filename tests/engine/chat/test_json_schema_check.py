"""The draft-7 schema check (json_schema_check.py) against jsonschema's own
``Draft7Validator.check_schema``, the check mistral-common runs on a tool's parameters:
both accept exactly the same schemas, valid and broken ones generated at random; and the
messages say where the problem is and what it is."""
from __future__ import annotations

import functools
import warnings

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from bpe_gui.engine.chat import ChatError
from bpe_gui.engine.chat.json_schema_check import TYPES, schema_problem
from bpe_gui.engine.chat.mistral import mistral_pieces


@pytest.fixture(scope="module")
def draft7():
    return pytest.importorskip("jsonschema").Draft7Validator


def _accepted(draft7, schema) -> bool:
    """jsonschema's verdict: a SchemaError refuses, and so does anything else it raises
    (Python's re raises OverflowError for a repeat count too large, which jsonschema lets
    through: mistral-common refuses the request either way)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            draft7.check_schema(schema)
        except Exception:
            return False
    return True


# ---- random schemas, mostly well formed so that nesting still gives valid ones -------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True)
    | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=2),
    max_leaves=4)
_NUMBERS = st.sampled_from([0, 1, 2, -1, 3, 0.0, 1.0, 2.0, -1.0, 2.5, -0.0, 1e300,
                            float("inf"), float("-inf"), float("nan"), 2 ** 70])
_PATTERNS = st.sampled_from(["^a+$", "", "[a-z]{2,}", "(", ")", "[a-z", "a{2,1}", "*a",
                             "(?i)a", "a(?i)", "[[a]", r"\p{L}", r"\d+", "a{99999999999}",
                             "(?P<x>a)(?P=x)", "(?<=a)b"])
_NAMES = st.sampled_from(["city", "unit", "a.b", "", "x y", "東京"])


def _mostly(valid, invalid):
    """``valid`` three times in four: enough broken values to test, enough good ones
    that a nested schema is often valid as a whole."""
    return st.integers(0, 3).flatmap(lambda n: invalid if n == 0 else valid)


def _value(key: str, schema):
    """A value for a keyword: what draft 7 takes there, or something it does not."""
    bad = _JSON
    if key == "type":
        return _mostly(st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), max_size=3),
                       st.sampled_from(["strng", "Integer", "", "any"])
                       | st.lists(st.sampled_from([*TYPES, "foo", 1]), max_size=3) | bad)
    if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return _mostly(_NUMBERS, bad)
    if key in ("minLength", "maxLength", "minItems", "maxItems", "minProperties",
               "maxProperties", "multipleOf"):
        return _mostly(_NUMBERS, st.sampled_from([True, False, "1", None, [1]]) | bad)
    if key == "pattern":
        return _mostly(_PATTERNS, bad)
    if key in ("required",):
        return _mostly(st.lists(_NAMES, max_size=3),
                       st.lists(_NAMES | st.integers(0, 1) | st.none(), max_size=3) | bad)
    if key in ("enum", "examples"):
        return _mostly(st.lists(_JSON, max_size=3), bad)
    if key in ("readOnly", "uniqueItems"):
        return _mostly(st.booleans(), bad)
    if key in ("$id", "$schema", "$ref", "$comment", "title", "description", "format",
               "contentMediaType", "contentEncoding"):
        return _mostly(st.text(max_size=5) | st.sampled_from(["#/definitions/a", "::", "%"]),
                       bad)
    if key in ("allOf", "anyOf", "oneOf"):
        return _mostly(st.lists(schema, max_size=3), bad)
    if key == "items":
        return _mostly(schema | st.lists(schema, max_size=3), bad)
    if key in ("properties", "definitions"):
        return _mostly(st.dictionaries(_NAMES, schema, max_size=3), bad)
    if key == "patternProperties":
        return _mostly(st.dictionaries(_PATTERNS, schema, max_size=2), bad)
    if key == "dependencies":
        return _mostly(st.dictionaries(_NAMES, schema | st.lists(_NAMES, max_size=3),
                                       max_size=2), bad)
    return _mostly(schema, bad)   # a keyword taking a schema; or const, default, unknown


KEYWORDS = ["type", "properties", "required", "items", "enum", "const", "default",
            "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
            "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
            "pattern", "patternProperties", "additionalProperties", "additionalItems",
            "dependencies", "definitions", "allOf", "anyOf", "oneOf", "not", "if", "then",
            "else", "contains", "propertyNames", "uniqueItems", "readOnly", "examples",
            "$id", "$schema", "$ref", "$comment", "title", "description", "format",
            "contentMediaType", "contentEncoding", "x-custom", "strict"]


@st.composite
def schemas(draw, depth: int = 3):
    """A schema (an object of keywords, true or false), or now and then not one."""
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return draw(st.booleans())
    if kind == 1:
        return draw(_JSON)
    keys = draw(st.lists(st.sampled_from(KEYWORDS), unique=True, max_size=4))
    return {k: draw(_value_at(k, depth)) for k in keys}


@functools.cache
def _value_at(key: str, depth: int):
    """_value's strategy for a keyword at a depth, built once: a strategy built anew at
    each draw is validated anew by hypothesis, which took most of the test's time."""
    return _value(key, schemas(depth - 1) if depth > 0 else st.booleans() | st.just({}))


@settings(max_examples=1000, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=schemas())
def test_accepts_exactly_what_jsonschema_draft7_accepts(draft7, schema):
    ours = schema_problem(schema)
    event("valid" if ours is None else "refused")
    assert (ours is None) == _accepted(draft7, schema), ours


# hand-picked edges of the meta-schema, each with jsonschema's verdict
EDGES = [
    ({}, True), (True, True), (False, True), ([], False), (None, False),
    ({"type": ["string", "null"]}, True), ({"type": ["string", "string"]}, False),
    ({"type": []}, False), ({"type": "strng"}, False),
    ({"minLength": 1.0}, True), ({"minLength": 1.5}, False), ({"minLength": -1}, False),
    ({"minLength": True}, False), ({"maxItems": float("inf")}, False),
    ({"multipleOf": 0}, False), ({"multipleOf": 0.5}, True), ({"multipleOf": float("nan")}, True),
    ({"minimum": True}, False), ({"minimum": -2.5}, True),
    ({"pattern": "("}, False), ({"pattern": "[[a]"}, True), ({"pattern": "a(?i)"}, False),
    ({"pattern": "a{99999999999}"}, False), ({"patternProperties": {"(": {}}}, False),
    ({"items": []}, False), ({"items": [{}, True]}, True), ({"items": 1}, False),
    ({"required": []}, True), ({"required": ["a", "a"]}, False), ({"required": ["a", 1]}, False),
    ({"dependencies": {"a": []}}, True), ({"dependencies": {"a": ["b", "b"]}}, False),
    ({"dependencies": {"a": 1}}, False), ({"enum": []}, True), ({"enum": 1}, False),
    ({"$ref": 1}, False), ({"$ref": "not a URI \\ %"}, True), ({"x-anything": [1, {}]}, True),
    ({"anyOf": [True, {"type": "x"}]}, False), ({"allOf": []}, False), ({"not": []}, False),
    ({"properties": {"a": {"properties": {"b": {"items": {"type": "int"}}}}}}, False),
]


@pytest.mark.parametrize("schema,valid", EDGES)
def test_edges_of_the_meta_schema(draft7, schema, valid):
    assert _accepted(draft7, schema) == valid   # (jsonschema says so: the cases are right)
    assert (schema_problem(schema) is None) == valid


@pytest.mark.parametrize("schema,message", [
    ({"type": "object", "properties": {"city": {"type": "strng"}}},
     'properties.city.type: "strng" is not a type name (array, boolean, integer, null, '
     'number, object, string)'),
    ({"properties": {"a.b": {"minLength": -1}}},
     'properties["a.b"].minLength: must be a whole number, 0 or more, not -1'),
    ({"anyOf": [{}, {"required": ["x", "x"]}]},
     'anyOf[1].required: lists "x" twice; give each name once'),
    ({"items": [{"pattern": "("}]}, 'items[0].pattern: "(" is not a regular expression'),
    ([], "the top level: must be a schema (an object, or true or false), not []"),
])
def test_the_problem_says_where_and_what(schema, message):
    assert schema_problem(schema).startswith(message)


def _request(parameters) -> dict:
    return {"messages": [{"role": "user", "content": "Weather?"}],
            "tools": [{"type": "function", "function": {
                "name": "get_weather", "description": "Weather", "parameters": parameters}}]}


@pytest.mark.parametrize("version", ["v2", "v3", "v7", "v11", "v13"])
def test_a_tool_with_a_broken_schema_is_refused_naming_the_tool_and_the_problem(version):
    body = _request({"type": "object", "properties": {"city": {"type": "strng"}}})
    with pytest.raises(ChatError) as e:
        mistral_pieces(body, version)
    text = str(e.value)
    assert text.startswith("tool 'get_weather': \"parameters\" is not a valid JSON Schema")
    assert 'at properties.city.type: "strng" is not a type name' in text
    assert "Correct that value or remove the keyword." in text


def test_parameters_that_are_not_an_object_are_refused_with_an_example():
    with pytest.raises(ChatError, match=r"tool 'get_weather': \"parameters\" is \[1\], not a "
                                        r"JSON object; .* e\.g\. \{\"type\": \"object\""):
        mistral_pieces(_request([1]), "v3")


def test_absent_or_null_parameters_are_an_empty_schema():
    """As mistral-common reads an OpenAI tool (Function.from_openai): {}."""
    body = _request(None)
    dumped = "".join(p.text for p in mistral_pieces(body, "v3") if p.origin == "tools")
    assert '"parameters": {}' in dumped
    del body["tools"][0]["function"]["parameters"]
    assert dumped == "".join(p.text for p in mistral_pieces(body, "v3") if p.origin == "tools")


@pytest.mark.regression
def test_a_long_required_list_is_checked_in_one_pass():
    """50,000 names in "required", one repeated, took 23-31 s: each name was compared with
    every name before it. Counted here as comparisons of names (no clock): one pass
    makes about one per name, the old check about 1.25 billion."""
    jsonschema = pytest.importorskip("jsonschema")
    compared = [0]

    class Name(str):
        __hash__ = str.__hash__

        def __eq__(self, other):
            compared[0] += 1
            return str.__eq__(self, other)

    names = [Name(f"n{i}") for i in range(50_000)]
    schema = {"type": "object", "required": names + [Name("n49999")]}
    assert schema_problem(schema) == 'required: lists "n49999" twice; give each name once'
    assert compared[0] <= 2 * len(names)
    with pytest.raises(jsonschema.SchemaError):   # the oracle refuses it too
        jsonschema.Draft7Validator.check_schema({"type": "object",
                                                 "required": [str(n) for n in names] + ["n1"]})
