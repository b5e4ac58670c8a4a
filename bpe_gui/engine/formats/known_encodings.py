"""The well-known ``.tiktoken`` files, recognised by their content.

A bare ``cl100k_base.tiktoken`` (the file tiktoken downloads) holds only ranks: no
pattern and no special tokens, and with the wrong pattern every id after the first
word boundary is silently wrong. So a ranks file without metadata beside it is
recognised by the SHA-256 of its content -- the same digest tiktoken checks after a
download (``expected_hash`` in ``tiktoken_ext/openai_public.py``), so a recognised file is
byte for byte the published one. Why a digest rather than a few known tokens and the
size: it cannot be fooled by a file that shares those tokens (a fine-tuned vocabulary
with the same size would encode differently), it needs no table of tokens here, and
hashing 2-4 MB costs a few milliseconds. Line endings changed by an editor or a
download (CRLF, a missing last newline) are undone before hashing, so such a copy is
still recognised.

Each entry gives what ``tiktoken`` itself uses: ``pat_str``, special tokens and their
ids. Llama 3's ``tokenizer.model`` (the same format, published in Meta's
``llama-models``) is recognised too, with the pattern and special tokens of Meta's
``llama3/tokenizer.py``, and Whisper's ``multilingual.tiktoken`` (openai-whisper's
``whisper/assets/``) with the GPT-2 pattern and special tokens of whisper's
``get_encoding``. (Its ``gpt2.tiktoken`` is r50k_base byte for byte.)
"""
from __future__ import annotations

from dataclasses import dataclass, field

# tiktoken's cl100k_base and o200k_base pat_strs are our presets, character for character;
# r50k's is GPT-2's spelled with possessive quantifiers (the native scanner runs them all)
from ..text.presets import CL100K_PATTERN, GPT2_PATTERN, LLAMA3_PATTERN, O200K_PATTERN

ENDOFTEXT = "<|endoftext|>"
R50K_PATTERN = (r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$"""
                r"""|\s+(?!\S)|\s""")


def _llama3_specials(n_ranks: int = 128000) -> dict[str, int]:
    named = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
             "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
             "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>",
             "<|python_tag|>", "<|image|>"]
    names = named + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
    return {s: n_ranks + i for i, s in enumerate(names)}


# Whisper's language codes in its order (whisper/tokenizer.py's LANGUAGES); get_encoding
# takes the first 99 by default (large-v3 adds "yue" as the 100th)
WHISPER_LANGUAGES = (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta "
    "no th ur hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk "
    "sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb "
    "my bo tl mg as tt haw ln ha ba jw su yue").split()


def _whisper_specials(n_ranks: int = 50257, num_languages: int = 99) -> dict[str, int]:
    """The special tokens whisper's ``get_encoding`` appends after the ranks, in order."""
    names = (["<|endoftext|>", "<|startoftranscript|>"]
             + [f"<|{c}|>" for c in WHISPER_LANGUAGES[:num_languages]]
             + ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>",
                "<|nospeech|>", "<|notimestamps|>"]
             + [f"<|{i * 0.02:.2f}|>" for i in range(1501)])
    return {s: n_ranks + i for i, s in enumerate(names)}


@dataclass(frozen=True)
class KnownEncoding:
    name: str            # tiktoken's name for it
    label: str           # what the window says
    sha256: str
    pat_str: str
    special_tokens: dict[str, int] = field(default_factory=dict)


KNOWN: tuple[KnownEncoding, ...] = (
    KnownEncoding("r50k_base", "r50k_base (GPT-3, GPT-2)",
                  "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
                  R50K_PATTERN, {ENDOFTEXT: 50256}),
    KnownEncoding("p50k_base", "p50k_base (Codex, text-davinci-002/003)",
                  "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
                  R50K_PATTERN, {ENDOFTEXT: 50256}),
    KnownEncoding("cl100k_base", "cl100k_base (GPT-4, GPT-3.5)",
                  "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
                  CL100K_PATTERN, {ENDOFTEXT: 100257, "<|fim_prefix|>": 100258,
                                   "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
                                   "<|endofprompt|>": 100276}),
    KnownEncoding("o200k_base", "o200k_base (GPT-4o, GPT-4.1, o-series)",
                  "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
                  O200K_PATTERN, {ENDOFTEXT: 199999, "<|endofprompt|>": 200018}),
    KnownEncoding("llama3", "Llama 3 (Meta's tokenizer.model)",
                  "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
                  LLAMA3_PATTERN, _llama3_specials()),
    # Whisper's multilingual.tiktoken (the openai-whisper package's whisper/assets/): its
    # get_encoding runs it with GPT-2's pattern (spelled 's|'t|... there, the same
    # language), not cl100k's, and appends its special tokens after the ranks
    KnownEncoding("whisper_multilingual", "Whisper multilingual (openai-whisper)",
                  "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",
                  GPT2_PATTERN, _whisper_specials()),
)
_BY_HASH = {k.sha256: k for k in KNOWN}


def _sha256(data: bytes) -> str:
    # (hashlib loads OpenSSL, 3.5 MiB resident: not for `train`, which imports this
    # module to name its output files before training)
    import hashlib
    return hashlib.sha256(data).hexdigest()


def content_hash(data: bytes) -> str:
    """SHA-256 of a ranks file as published: LF line ends, one final newline."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    data = data.rstrip(b"\n") + b"\n"
    return _sha256(data)


def recognise(data: bytes) -> KnownEncoding | None:
    """The well-known encoding these ranks are, if any."""
    known = _BY_HASH.get(_sha256(data))
    return known or _BY_HASH.get(content_hash(data))
