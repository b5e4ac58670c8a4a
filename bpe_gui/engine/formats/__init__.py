"""Export and import tokenizers: GPT-2, Hugging Face, tiktoken, bpe-gui JSON, merges CSV;
import GGUF files, Mistral's tekken.json and CLIP's merges, recognised by content.

Example::

    >>> from bpe_gui.engine.formats import export_tokenizer, load_tokenizer
    >>> export_tokenizer(tok, "out", "hf")
    [PosixPath('out/tokenizer.json')]
    >>> load_tokenizer("out/tokenizer.json").encode("hello") == tok.encode("hello")
    True

Files written into the folder, for ``name="tokenizer"`` (another name NAME prefixes the
standard names as ``NAME-vocab.json``, ``NAME-tokenizer.json``):

=========  ===============================================  ==========================
format     files                                            modes
=========  ===============================================  ==========================
gpt2       vocab.json, merges.txt                           byte
hf         tokenizer.json                                   byte; char (see hf.py)
tiktoken   tokenizer.tiktoken, tokenizer.tiktoken.json      byte
native     tokenizer.bpe-gui.json                           byte, char
csv        tokenizer.merges.csv (export only)               byte, char
=========  ===============================================  ==========================

Imports (``load_tokenizer``) also read, by content (sniff.py): ``gguf_fmt`` (GGUF model
files, their tokenizer as llama.cpp runs it), ``tekken_fmt`` (Mistral's tekken.json, as
mistral-common), ``clip_fmt`` (CLIP's bpe_simple_vocab_16e6.txt.gz, as CLIP's
SimpleTokenizer); ``sentencepiece_fmt`` reads .model files (BPE ones refused until their
tokenizer lands, Unigram ones named). ``describe_file`` says what a file is before
loading it; ``describe_source`` what a loaded tokenizer was read from.

The registry is two modules behind this lazy face (``engine/_lazy.py``): ``exports``
(the formats' names and files, rendering and writing; a format's module is imported
when that format is first written, so ``bpe-gui train --format hf`` imports the
tokenizer.json writer alone) and ``loading`` (recognising and reading files, which
imports every reader).

Exports write every file to a temporary file in the folder and rename it into place,
so a failure leaves the folder as it was. A tokenizer shown at an earlier training
step (``Tokenizer.at_step``) exports as of that step.

:mod:`.local_models` finds the models already on this machine (Hugging Face cache,
Ollama, LM Studio, llama.cpp) and the tokenizer file of each, by name:
``load_tokenizer(pick_model(find_models(), "llama3.2:1b").tokenizer)``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:   # the names as mypy sees them; each is imported at first use
    from .exports import (FORMATS, export_formats, export_tokenizer, output_files, render_files,
                          settings_problem, supported_formats, unsupported_reason,
                          write_export)
    from .known_encodings import recognise
    from .loading import (IMPORT_LABELS, IMPORTABLE, describe_file, describe_source,
                          detect_format, load_tokenizer, looks_like_tokenizer, tokenizer_file)
    from .local_models import (LocalModel, ModelRoot, ModelScan, filter_models, find_models,
                               model_matches, model_roots, pick_model)
    from .sniff import Sniffed, sniff_file
    from .snapshot import trainer_snapshot
    from .tiktoken_fmt import meta_beside

__getattr__, __dir__ = lazy_face(__name__, {
    ".exports": ("FORMATS export_formats export_tokenizer output_files render_files "
                 "settings_problem supported_formats unsupported_reason write_export"),
    ".known_encodings": "recognise",
    ".loading": ("IMPORT_LABELS IMPORTABLE describe_file describe_source detect_format "
                 "load_tokenizer looks_like_tokenizer tokenizer_file"),
    ".local_models": ("LocalModel ModelRoot ModelScan filter_models find_models model_matches "
                      "model_roots pick_model"),
    ".sniff": "Sniffed sniff_file",
    ".snapshot": "trainer_snapshot",
    ".tiktoken_fmt": "meta_beside",
})

__all__ = ["FORMATS", "IMPORTABLE", "IMPORT_LABELS", "LocalModel", "ModelRoot",
           "ModelScan", "Sniffed", "describe_file", "describe_source", "detect_format",
           "export_formats", "export_tokenizer", "filter_models", "find_models",
           "load_tokenizer", "looks_like_tokenizer", "meta_beside",
           "model_matches", "model_roots", "output_files", "pick_model", "recognise",
           "render_files", "settings_problem", "sniff_file", "supported_formats", "tokenizer_file",
           "trainer_snapshot", "unsupported_reason", "write_export"]
