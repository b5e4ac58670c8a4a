"""Imported tokenizer.json files encode exactly as Hugging Face ``tokenizers`` does.

Each case builds a tokenizer with the ``tokenizers`` library itself (training a small
BPE on mixed-script text), saves it, loads the file here, and compares ids, character
offsets and decoded text with ``tokenizers`` (the oracle) on English, Russian, Arabic,
Chinese, emoji, code and random text.
"""
from __future__ import annotations

import functools

import pytest

tokenizers = pytest.importorskip("tokenizers")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tokenizers import normalizers  # noqa: E402

from bpe_gui.engine.formats import load_tokenizer  # noqa: E402
from bpe_gui.engine.tokenizers.imported.imported_tokenizer import PipelineTokenizer  # noqa: E402

from hf_files import (  # noqa: E402
    CASES, EXTRA, SAMPLES, byte_level_llama3, metaspace_fallback)


@pytest.fixture(scope="module", params=sorted(CASES))
def pair(request, tmp_path_factory):
    tk = CASES[request.param]()
    path = tmp_path_factory.mktemp(request.param) / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    assert isinstance(ours, PipelineTokenizer)
    return tk, ours


def same(tk, ours, text: str) -> None:
    theirs = tk.encode(text, add_special_tokens=False)
    enc = ours.encode_with_offsets(text, allowed_special="all")
    assert enc.ids == theirs.ids, text
    assert ours.encode(text, allowed_special="all") == theirs.ids, text
    assert enc.offsets == [tuple(o) for o in theirs.offsets], text
    assert ours.decode(theirs.ids, skip_special_tokens=False) == \
        tk.decode(theirs.ids, skip_special_tokens=False), text


@pytest.mark.parametrize("text", SAMPLES + EXTRA)
def test_ids_offsets_and_decode_match_tokenizers(pair, text):
    tk, ours = pair
    same(tk, ours, text)


def test_batch_and_array_match_tokenizers(pair):
    """encode_batch and encode_to_array take the C encoder only where it gives encode's
    ids (a normalizer that leaves some texts as they are: per text, per batch)."""
    tk, ours = pair
    texts = SAMPLES + EXTRA
    want = [e.ids for e in tk.encode_batch(texts, add_special_tokens=False)]
    assert ours.encode_batch(texts, threads=2, allowed_special="all") == want
    assert ours.encode_batch([t for t, w in zip(texts, want) if t.isascii()], threads=2, allowed_special="all") == \
        [w for t, w in zip(texts, want) if t.isascii()]
    assert [list(ours.encode_to_array(t, allowed_special="all")) for t in texts] == want


ALPHABET = st.sampled_from(list("ab xyz.,!?\n\t") + ["  ", "ﬁ", "é", "e\u0301", "Ж", "ж",
                                                      "م", "你", "🙂", "👍🏽", "▁", "1", "23",
                                                      "<0x41>", "hello", "<mask>", "ABC", "\u00a0"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(ALPHABET, max_size=25))
def test_random_text_matches_tokenizers(pair, parts):
    tk, ours = pair
    same(tk, ours, "".join(parts))


def test_streaming_equals_whole_text(pair):
    tk, ours = pair
    text = "\n".join(SAMPLES + EXTRA) * 3
    chunks = [text[i:i + 37] for i in range(0, len(text), 37)]
    assert list(ours.encode_iterable(chunks, chunk_chars=200, allowed_special="all")) == tk.encode(
        text, add_special_tokens=False).ids


# ----- refusals: every part that cannot be run exactly is named with its JSON path ------
def _base_json(tmp_path_factory=None) -> dict:
    import json
    tk = byte_level_llama3()
    tk.normalizer = normalizers.Sequence([normalizers.NFC()])
    return json.loads(tk.to_str())


@pytest.fixture(scope="module")
def base_json():
    return _base_json()


def _set(doc: dict, dotted: str, value) -> dict:
    import copy
    import re
    doc = copy.deepcopy(doc)
    node, parts = doc, re.findall(r"[^.\[\]]+|\[\d+\]", dotted)
    for p in parts[:-1]:
        node = node[int(p[1:-1])] if p.startswith("[") else node[p]
    last = parts[-1]
    if last.startswith("["):
        node[int(last[1:-1])] = value
    else:
        node[last] = value
    return doc


SPLIT = {"type": "Split", "pattern": {"Regex": r"\s+"}, "behavior": "Isolated", "invert": False}
REFUSALS = [
    ("pre_tokenizer.pretokenizers", [SPLIT, SPLIT, {"type": "CharDelimiterSplit",
                                                    "delimiter": "x"},
                                     {"type": "ByteLevel", "add_prefix_space": False,
                                      "trim_offsets": True, "use_regex": False}],
     "pre_tokenizer.pretokenizers[2].type", 'pre_tokenizer.pretokenizers[2].type = '
                                            '"CharDelimiterSplit" is not supported'),
    ("pre_tokenizer", {"type": "UnicodeScripts"}, "pre_tokenizer.type",
     'pre_tokenizer.type = "UnicodeScripts" is not supported'),
    ("pre_tokenizer.pretokenizers", [{"type": "ByteLevel"}, {"type": "Metaspace"}],
     "pre_tokenizer.pretokenizers[1].type", "after a ByteLevel"),
    ("pre_tokenizer.pretokenizers[0].behavior", "Sideways",
     "pre_tokenizer.pretokenizers[0].behavior", '"Sideways" is not one of'),
    ("pre_tokenizer.pretokenizers[0].pattern", {"Regex": "(unclosed"},
     "pre_tokenizer.pretokenizers[0].pattern.Regex", "does not compile"),
    ("normalizer.normalizers", [{"type": "NFC"}, {"type": "BertNormalizer"}],
     "normalizer.normalizers[1].type", 'normalizer.normalizers[1].type = "BertNormalizer"'),
    ("normalizer", {"type": "StripAccents"}, "normalizer.type", '"StripAccents" is not supported'),
    ("model.type", "WordPiece", "model.type", "is a WordPiece model; only BPE tokenizers"),
    ("model.dropout", 0.1, "model.dropout", "model.dropout = 0.1 is not supported"),
    ("model.continuing_subword_prefix", "##", "model.continuing_subword_prefix",
     "continuing_subword_prefix"),
    ("model.merges[3]", "Ġ zzzq", "model.merges[3]", "not in the vocabulary"),
    ("model.merges[1]", "one", "model.merges[1]", "should be"),
    ("post_processor", {"type": "Mystery"}, "post_processor.type",
     'post_processor.type = "Mystery" is not supported'),
    ("decoder", {"type": "Sequence", "decoders": [{"type": "ByteLevel"}, {"type": "CTC"}]},
     "decoder.decoders[1].type", 'decoder.decoders[1].type = "CTC" is not supported'),
    ("added_tokens", {"a": 1}, "added_tokens", "added_tokens should be a list"),
    ("added_tokens[0].id", -4, "added_tokens[0].id", "negative"),
]


@pytest.mark.parametrize("where,value,key,text", REFUSALS, ids=[r[2] for r in REFUSALS])
def test_refusals_name_the_component_and_path(tmp_path, base_json, where, value, key, text):
    import json

    from bpe_gui.engine.errors import FormatError
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_set(base_json, where, value)), "utf-8")
    with pytest.raises(FormatError) as e:
        load_tokenizer(path)
    assert e.value.key == key
    assert text in str(e.value)


def test_pure_python_model_matches(pair, tmp_path, monkeypatch):
    """Without the C extension the same files encode the same (pipeline/pymodel.py)."""
    import sys
    tk, _ = pair
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    monkeypatch.setitem(sys.modules, "bpe_gui.engine.tokenizers.imported._pipeline", None)
    slow = load_tokenizer(path)
    assert type(slow.pipeline.model.native).__module__.endswith("pymodel")
    for text in SAMPLES + EXTRA:
        same(tk, slow, text)


def _tables(model):
    vocab, t2i = model.tables(None, False)
    return vocab, t2i, [model.merge(k) for k in range(model.n_merges)]


@pytest.mark.parametrize("ascii_only", [False, True])
def test_text_reader_equals_json(pair, tmp_path, ascii_only):
    """The C reader of model.vocab/merges (escapes, both merge spellings) builds the same
    tables as json + from_hf."""
    import json

    from bpe_gui.engine.tokenizers.imported import _pipeline
    from bpe_gui.engine.formats.hf_json import read_fast
    tk, ours = pair
    doc = json.loads(tk.to_str())
    doc["model"]["vocab"]["we\"ird\\key\u00e9\U0001F642\t"] = len(doc["model"]["vocab"]) + 900
    if ascii_only:   # "a b" strings instead of pairs, everything \u-escaped
        doc["model"]["merges"] = [" ".join(m) for m in doc["model"]["merges"]]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc, ensure_ascii=ascii_only), "utf-8")
    data, raw, spans = read_fast(path)
    byte_level = ours.pipeline.model.native.n_ids and ours.pipeline.pre.byte_level
    fast, problem = _pipeline.Model.from_hf_text(raw, *spans, byte_level)
    slow, _ = _pipeline.Model.from_hf(doc["model"]["vocab"], doc["model"]["merges"], byte_level)
    assert problem is None
    assert _tables(fast) == _tables(slow)
    key = "we\"ird\\key\u00e9\U0001F642\t"
    assert fast.text_id(key) == slow.text_id(key) == doc["model"]["vocab"][key]


def _escaped(text: str) -> str:
    """Every character of a JSON string's text as a \\u escape (surrogate pairs too)."""
    import json
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else json.dumps(c)[1:-1]
                   for c in text)


def _merges_text(merges: list, odd=None) -> str:
    """The merges as JSON text in turn: "a b" strings and ["a", "b"] pairs, plain and
    \\u-escaped (the C reader reads plain ones in batches, escaped ones one by one);
    ``odd``: index -> the text of that merge instead."""
    import json
    out = []
    for k, m in enumerate(merges):
        a, b = m.split(" ") if isinstance(m, str) else m
        if odd and k in odd:
            out.append(odd[k])
        elif k % 7 == 3:
            out.append(f'"{_escaped(a)} {_escaped(b)}"')
        elif k % 7 == 5:
            out.append(f'[ "{_escaped(a)}" ,\n {json.dumps(b, ensure_ascii=False)} ]')
        else:
            out.append(json.dumps(f"{a} {b}" if k % 2 else [a, b], ensure_ascii=False))
    return "[" + ",\n".join(out) + "]"


def _text_and_json(pair, odd=None):
    """(the C reader's model and problem, from_hf's) of the pair's file with its merges
    spelled as _merges_text spells them."""
    import json

    from bpe_gui.engine.tokenizers.imported import _pipeline
    tk, ours = pair
    doc = json.loads(tk.to_str())
    merges = doc["model"]["merges"]
    doc["model"]["merges"] = "MERGES"
    raw = json.dumps(doc, ensure_ascii=False).replace('"MERGES"', _merges_text(merges, odd))
    raw_b = raw.encode("utf-8")
    spans = _pipeline.find_model_tables(raw_b)
    byte_level = bool(ours.pipeline.pre.byte_level)
    as_json = json.loads(raw)["model"]
    return (_pipeline.Model.from_hf_text(raw_b, *spans, byte_level),
            _pipeline.Model.from_hf(as_json["vocab"], as_json["merges"], byte_level))


@functools.lru_cache(maxsize=1)
def _n_merges(pair) -> int:
    """The number of merges the C reader reads in the pair's file (one reading for the
    15 cases of each file below)."""
    return _text_and_json(pair)[0][0].n_merges


def test_text_reader_mixed_spellings_equal_json(pair):
    """Merges plain and escaped, strings and pairs, in one file (batches cut by the
    escaped ones): the same tables as json + from_hf."""
    (fast, problem), (slow, _) = _text_and_json(pair)
    assert problem is None
    assert fast.n_merges > 64   # (more than two batches of 32)
    assert _tables(fast) == _tables(slow)


@pytest.mark.parametrize("at", [0, 31, 32, 40, -1])
@pytest.mark.parametrize("spelling", ["string", "pair", "escaped"])
def test_text_reader_names_a_missing_merge_token_as_json(pair, at, spelling):
    """A merge whose token is not in the vocabulary, anywhere in a batch of merges: the
    same problem (merge index, message) as from json."""
    at = at % _n_merges(pair)
    text = {"string": '"a zzzq"', "pair": '["zzzq", "a"]',
            "escaped": f'"{_escaped("a zzzq")}"'}[spelling]
    (_, fast), (_, slow) = _text_and_json(pair, {at: text})
    assert fast is not None and fast == slow
    assert fast[1] == at and "zzzq" in fast[2]


@pytest.mark.parametrize("indent", [0, 1, 6, 8, 9, 17])
def test_text_reader_strings_at_every_offset(indent):
    """Strings read eight bytes at a time: a quote, an escape or a control character at
    every offset of a word, after indentation of any width, found as json finds them
    (the tables' spans; the vocabulary's keys and ids)."""
    import json

    from bpe_gui.engine.tokenizers.imported import _pipeline
    keys = [f"{'x' * k}{c}{'y' * j}" for k in range(11) for j in (0, 1, 9)
            for c in ('"', "\\", "\t", "\u00e9", "\U0001F642", "z")]
    vocab = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    pad = "\n" + " " * indent
    head = "{" + pad + '"notes": ' + json.dumps(keys, ensure_ascii=False) + "," + pad + \
        '"model": {' + pad + '"type": "BPE",' + pad + '"vocab": '
    vocab_text = "{" + ",".join(pad + json.dumps(k, ensure_ascii=False) + ": " + str(i)
                                for k, i in vocab.items()) + pad + "}"
    mid = "," + pad + '"merges": '
    merges_text = "[" + pad + '"x y"' + pad + "]"
    raw = (head + vocab_text + mid + merges_text + pad + "}" + pad + "}").encode("utf-8")
    vs = len(head.encode("utf-8"))
    ve = vs + len(vocab_text.encode("utf-8"))
    ms = ve + len(mid.encode("utf-8"))
    assert _pipeline.find_model_tables(raw) == ((vs, ve), (ms, ms + len(merges_text)))
    vocab.update({"x": len(vocab), "y": len(vocab) + 1, "xy": len(vocab) + 2})
    raw = raw.replace(vocab_text.encode("utf-8"), json.dumps(
        vocab, ensure_ascii=False).encode("utf-8"))
    fast, problem = _pipeline.Model.from_hf_text(raw, *_pipeline.find_model_tables(raw), False)
    slow, _ = _pipeline.Model.from_hf(vocab, ["x y"], False)
    assert problem is None and _tables(fast) == _tables(slow)
    assert all(fast.text_id(k) == i for k, i in vocab.items())


@pytest.mark.regression
def test_text_reader_quotes_a_pair_with_an_empty_part():
    """A [left, right] merge with an empty part was reported quoting the merge before it
    (or the vocabulary's last key): it is quoted as its "left right" text."""
    import json

    from bpe_gui.engine.tokenizers.imported import _pipeline
    raw = json.dumps({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "zz": 3},
                                "merges": [["a", "b"], ["", "b"]]}}).encode()
    _, problem = _pipeline.Model.from_hf_text(raw, *_pipeline.find_model_tables(raw), False)
    assert problem is not None and problem[:2] == ("merges", 1)
    assert "the merge ' b' should be" in problem[2]


def test_byte_fallback_tokens_stand_for_their_byte(tmp_path):
    """<0xNN> tokens are that byte (shown as partial characters), even when the file
    also lists them as added tokens; ▁ stands for a space."""
    tk = metaspace_fallback()
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))
    ours = load_tokenizer(path)
    enc = ours.encode_with_offsets("a 你", allowed_special="all")
    assert b"".join(enc.tokens) == " a 你".encode()     # Metaspace's prepended ▁ too
    assert ours.vocab[tk.token_to_id("<0xE4>")] == b"\xe4"
    assert ours.vocab[tk.token_to_id("▁")] == b" "
