"""A byte-level BPE tokenizer with every fixture template's control tokens, trained by
HF ``tokenizers`` (no download), and the fixture templates (imported by name as
``chat_fixtures`` by the command line's tests too)."""
from __future__ import annotations

from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "chat_templates"

SPECIAL = ["<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>",
           "<|eom_id|>", "<|im_start|>", "<|im_end|>", "<｜begin▁of▁sentence｜>", "<｜User｜>",
           "<｜Assistant｜>", "<｜end▁of▁sentence｜>", "<｜tool▁output▁begin｜>",
           "<｜tool▁output▁end｜>", "<s>", "</s>", "[INST]", "[/INST]", "[SYSTEM_PROMPT]",
           "[/SYSTEM_PROMPT]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_CALLS]",
           "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "<bos>", "<start_of_turn>", "<end_of_turn>",
           "<eos>"]
# added tokens that are not special: transformers counts them as control tokens only
# where the template's text holds them
ADDED = ["<tool_call>", "</tool_call>", "<think>", "</think>"]

# each template's bos_token / eos_token, as its tokenizer_config.json would name them
SPECIALS = {
    "llama3": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "qwen25": {"eos_token": "<|im_end|>"},
    "chatml": {"eos_token": "<|im_end|>"},
    "deepseek": {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"},
    "mistral_v7": {"bos_token": "<s>", "eos_token": "</s>"},
    "gemma": {"bos_token": "<bos>", "eos_token": "<eos>"},
}

CORPUS = ["The weather in Paris is rainy today, said the user to the assistant.",
          "def add(x, y):\n    return x + y\n\n\tprint(add(1, 2))",
          "東京の天気は雨です。 Привет, мир! 🌧️☔ emoji and 中文 text",
          '{"name": "get_weather", "arguments": {"city": "Paris"}}'] * 40


def build_tokenizer(path: Path) -> Path:
    """The tokenizer, trained and written to ``path`` (a tokenizer.json)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    # added after training, as models' control tokens are: in added_tokens, not the vocab
    tok.add_special_tokens(SPECIAL)
    tok.add_tokens(ADDED)
    tok.save(str(path))
    return path


def template_text(name: str) -> str:
    return (TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8")
