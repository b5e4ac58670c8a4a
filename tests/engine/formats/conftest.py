"""Tokenizer files of every model format, built by the tests with each format's own
library (never downloaded): SentencePiece models by sentencepiece's trainer, GGUF files by
the ``gguf`` package's GGUFWriter, tekken.json and CLIP merges files from a vocabulary
trained here with ``tokenizers``. Each fixture is session-scoped (built once, in a
temporary folder) and skips when its library is not installed.
"""
from __future__ import annotations

import gzip
import io
import json
import lzma
from dataclasses import dataclass
from pathlib import Path

import pytest

from model_files import tekken_json


# ----- text ---------------------------------------------------------------------------
@pytest.fixture(scope="session")
def train_lines(corpora_dir: Path) -> list[str]:
    """~150 KB of real text in several scripts, one sentence-ish line each."""
    def xz(name: str, n: int) -> str:
        return lzma.open(corpora_dir / name, "rt", encoding="utf-8").read(n)

    text = xz("en-tinyshakespeare.txt.xz", 60_000) + "\n" \
        + xz("zh-four-classic-novels.txt.xz", 4_000) + "\n" \
        + xz("code-python-stdlib.py.txt.xz", 30_000) + "\n" \
        + (corpora_dir / "multi-utf8-demo.txt").read_text("utf-8")
    return [line for line in text.splitlines() if line.strip()]


# ----- SentencePiece ------------------------------------------------------------------
@dataclass(frozen=True)
class SpmModel:
    path: Path
    options: dict          # what the trainer was given


def _train_spm(lines: list[str], folder: Path, name: str, **options) -> SpmModel:
    spm = pytest.importorskip("sentencepiece")
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=out,
                                   num_threads=1, minloglevel=2, **options)
    path = folder / name
    path.write_bytes(out.getvalue())
    return SpmModel(path, options)


@pytest.fixture(scope="session")
def train_spm():
    """_train_spm for test modules (``from conftest import`` finds another folder's
    conftest when the whole suite runs)."""
    return _train_spm


SPM_KINDS = {
    # Llama 2 / Mistral 7B style: BPE, byte fallback, digits split, no normalization
    "bpe_llama": dict(model_type="bpe", vocab_size=1500, byte_fallback=True, split_digits=True,
                      normalization_rule_name="identity", remove_extra_whitespaces=False,
                      character_coverage=0.995, user_defined_symbols=["<tool>"],
                      control_symbols=["[INST]", "[/INST]"]),
    # BPE with sentencepiece's default normalizer (nmt_nfkc: a precompiled charsmap)
    "bpe_nfkc": dict(model_type="bpe", vocab_size=2500, normalization_rule_name="nmt_nfkc",
                     character_coverage=1.0),
    # BPE with whitespace as a suffix and no dummy prefix
    "bpe_suffix": dict(model_type="bpe", vocab_size=1200, character_coverage=0.99, treat_whitespace_as_suffix=True,
                       add_dummy_prefix=False, pad_id=3, byte_fallback=True,
                       normalization_rule_name="nfkc_cf"),
    "unigram": dict(model_type="unigram", vocab_size=1500, character_coverage=0.995),
}


@pytest.fixture(scope="session")
def spm_models(train_lines, tmp_path_factory) -> dict[str, SpmModel]:
    folder = tmp_path_factory.mktemp("spm")
    return {kind: _train_spm(train_lines, folder, f"{kind}.model", **opts)
            for kind, opts in SPM_KINDS.items()}


# ----- a byte-level BPE vocabulary (for GGUF, tekken, GPT-2 files) --------------------
@dataclass(frozen=True)
class ByteBPE:
    tokens: list[str]               # id -> token in GPT-2's byte alphabet
    merges: list[tuple[str, str]]
    token_bytes: list[bytes]        # id -> bytes
    tokenizer_json: str             # the tokenizers Tokenizer, serialized


@pytest.fixture(scope="session")
def byte_bpe(train_lines) -> ByteBPE:
    tk = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers
    tok = tk.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(train_lines, trainer)
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in data["model"]["merges"]]
    from bpe_gui.engine.formats.clip_fmt import byte_alphabet
    back = {c: b for b, c in enumerate(byte_alphabet())}
    token_bytes = [t.encode() if t == "<|endoftext|>" else bytes(back[c] for c in t)
                   for t in tokens]
    return ByteBPE(tokens, merges, token_bytes, tok.to_str())


# ----- GGUF ---------------------------------------------------------------------------
@dataclass(frozen=True)
class GGUFFixture:
    path: Path
    model: str
    pre: str | None


def _gguf_writer(path: Path, arch: str, big_endian: bool = False):
    gguf = pytest.importorskip("gguf")
    endian = gguf.GGUFEndian.BIG if big_endian else gguf.GGUFEndian.LITTLE
    w = gguf.GGUFWriter(str(path), arch, endianess=endian)
    w.add_name(f"test {arch}")
    w.add_context_length(4096)
    return gguf, w


def _finish(w) -> None:
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


@pytest.fixture(scope="session")
def gguf_files(byte_bpe: ByteBPE, spm_models, tmp_path_factory) -> dict[str, GGUFFixture]:
    """'gpt2' (byte-level BPE with merges and a pre name), 'gpt2_be' (the same, big-endian),
    'llama' (a SentencePiece BPE vocabulary with scores), 'values' (one key of every
    GGUF value type), 't5' (a Unigram vocabulary)."""
    folder = tmp_path_factory.mktemp("gguf")
    out = {}
    for name, big in (("gpt2", False), ("gpt2_be", True)):
        gguf, w = _gguf_writer(folder / f"{name}.gguf", "qwen2", big)
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("qwen2")
        w.add_token_list(byte_bpe.tokens)
        types = [gguf.TokenType.CONTROL if t == "<|endoftext|>" else gguf.TokenType.NORMAL
                 for t in byte_bpe.tokens]
        w.add_token_types(types)
        w.add_token_merges([f"{a} {b}" for a, b in byte_bpe.merges])
        eot = byte_bpe.tokens.index("<|endoftext|>")
        w.add_bos_token_id(eot)
        w.add_eos_token_id(eot)
        w.add_pad_token_id(0xFFFFFFFF)   # converters write "none" this way
        w.add_add_bos_token(False)
        w.add_chat_template("{% for m in messages %}{{ m['content'] }}{% endfor %}")
        _finish(w)
        out[name] = GGUFFixture(folder / f"{name}.gguf", "gpt2", "qwen2")

    sp = pytest.importorskip("sentencepiece")
    proc = sp.SentencePieceProcessor(model_file=str(spm_models["bpe_llama"].path))
    gguf, w = _gguf_writer(folder / "llama.gguf", "llama")
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    size = proc.get_piece_size()
    w.add_token_list([proc.id_to_piece(i) for i in range(size)])
    w.add_token_scores([proc.get_score(i) for i in range(size)])
    w.add_token_types([gguf.TokenType.UNKNOWN if proc.is_unknown(i) else
                       gguf.TokenType.CONTROL if proc.is_control(i) else
                       gguf.TokenType.BYTE if proc.is_byte(i) else gguf.TokenType.NORMAL
                       for i in range(size)])
    w.add_bos_token_id(proc.bos_id())
    w.add_eos_token_id(proc.eos_id())
    w.add_unk_token_id(proc.unk_id())
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_add_space_prefix(True)
    _finish(w)
    out["llama"] = GGUFFixture(folder / "llama.gguf", "llama", "default")

    gguf, w = _gguf_writer(folder / "values.gguf", "test")
    w.add_uint8("t.u8", 250)
    w.add_int8("t.i8", -100)
    w.add_uint16("t.u16", 65000)
    w.add_int16("t.i16", -32000)
    w.add_uint32("t.u32", 4_000_000_000)
    w.add_int32("t.i32", -2_000_000_000)
    w.add_float32("t.f32", 1.5)
    w.add_uint64("t.u64", 2**63 + 5)
    w.add_int64("t.i64", -2**62)
    w.add_float64("t.f64", -2.25e300)
    w.add_bool("t.bool", True)
    w.add_string("t.str", "héllo ▁ 世界")
    w.add_array("t.arr_str", ["a", "", "Ġb", "世界"])
    w.add_array("t.arr_i32", [1, -2, 3])
    w.add_array("t.arr_f32", [0.5, -1.25])
    w.add_array("t.arr_bool", [True, False, True])
    w.add_tokenizer_model("gpt2")
    w.add_token_list(["a", "b", "ab"])
    w.add_token_merges(["a b"])
    _finish(w)
    out["values"] = GGUFFixture(folder / "values.gguf", "gpt2", None)

    gguf, w = _gguf_writer(folder / "t5.gguf", "t5")
    w.add_tokenizer_model("t5")
    w.add_token_list(["<pad>", "</s>", "<unk>", "▁a", "▁b"])
    w.add_token_scores([0.0, 0.0, 0.0, -1.5, -2.5])
    _finish(w)
    out["t5"] = GGUFFixture(folder / "t5.gguf", "t5", None)
    return out


# ----- tekken.json --------------------------------------------------------------------
@pytest.fixture(scope="session")
def tekken_ranks(byte_bpe: ByteBPE) -> list[bytes]:
    """Ranks of a trained byte-level vocabulary: the 256 bytes first, then the merges."""
    singles = [bytes([b]) for b in range(256)]
    rest = [b for b in byte_bpe.token_bytes if len(b) > 1 and b != b"<|endoftext|>"]
    return singles + rest


@pytest.fixture(scope="session")
def tekken_files(tekken_ranks, tmp_path_factory) -> dict[str, Path]:
    """'v3' (no special tokens listed: mistral-common's defaults), 'v7' (its own special
    tokens, and a default_vocab_size that cuts the vocabulary short)."""
    folder = tmp_path_factory.mktemp("tekken")
    v3 = folder / "tekken_v3.json"
    v3.write_text(json.dumps(tekken_json(tekken_ranks, n_special=100), indent=4), "utf-8")
    v7 = folder / "tekken_v7.json"
    specials = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[SYSTEM_PROMPT]"]
    v7.write_text(json.dumps(tekken_json(tekken_ranks, version="v7", n_special=50,
                                         vocab_size=50 + len(tekken_ranks) - 40,
                                         specials=specials)), "utf-8")
    return {"v3": v3, "v7": v7}


# ----- CLIP ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ClipFixture:
    gz: Path
    plain: Path
    merges: list[tuple[str, str]]


@pytest.fixture(scope="session")
def clip_file(train_lines, tmp_path_factory) -> ClipFixture:
    """A CLIP-style merges file: merges of a character-level BPE with '</w>' ends, trained
    by tokenizers on lowercased text, written as CLIP's (a header line, 'a b' lines)."""
    tk = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers
    from bpe_gui.engine.formats.clip_fmt import byte_alphabet
    tok = tk.Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(),
                                                 pre_tokenizers.ByteLevel(use_regex=False)])
    alphabet = byte_alphabet()
    trainer = trainers.BpeTrainer(vocab_size=900, end_of_word_suffix="</w>",
                                  initial_alphabet=alphabet, show_progress=False)
    tok.train_from_iterator([x.lower() for x in train_lines], trainer)
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in json.loads(tok.to_str())["model"]["merges"]]
    text = "bpe_simple_vocab_16e6.txt#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges)
    folder = tmp_path_factory.mktemp("clip")
    gz = folder / "bpe_simple_vocab_16e6.txt.gz"
    gz.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    plain = folder / "clip_merges.txt"
    plain.write_text(text, "utf-8")
    return ClipFixture(gz, plain, merges)
