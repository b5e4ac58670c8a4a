"""The pre-tokenizer presets: their patterns, names, labels and scanner numbers.

A leaf module (it imports nothing of bpe-gui's) so that every layer can name a preset:
the scanner, the counter, the formats and the command line ask here, never keep a copy.
"""
from __future__ import annotations

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# tiktoken's cl100k_base pat_str (tiktoken_ext/openai_public.py), character for character
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+"""
                  r"""| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
# GPT-4o: letters split by case (CamelCase -> Camel, Case), contractions stay attached.
# tiktoken's o200k_base pat_str, character for character.
O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
# Meta's llama3/tokenizer.py and Llama 3's tokenizer.json
LLAMA3_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
                  r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
# minbpe's GPT4_SPLIT_PATTERN (this app's cl100k preset until it became tiktoken's own)
MINBPE_GPT4_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}"""
                       r"""| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+""")
# Qwen2's (and Qwen2.5's, Qwen3's) tokenizer.json
QWEN2_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"""
                 r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
# Mistral's tekken.json (config.pattern of mistral-common's tekken_240718 and _240911,
# and of the NeMo, Pixtral, Ministral files): o200k's letter classes without the
# contraction suffix, with single digits
TEKKEN_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*""",
    r"""\p{N}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])

# SuperBPE's stage 2 (superbpe.py says why): the reference's Split regex, whose matches
# and the text between them ("isolated") are the pieces
SUPERBPE_SPLIT_REGEX = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"
_SUPERBPE_STARTS = r"\p{N}| ?[^\s\p{L}\p{N}]{2}| +(?!\S)"   # where one of its matches begins
#: the split regex with the text between its matches as pieces too, over the whole text
SUPERBPE_ENCODE_PATTERN = SUPERBPE_SPLIT_REGEX + r"|(?:(?!" + _SUPERBPE_STARTS + r")[\s\S])+"
#: the same, never across a newline (a line, newline included, is a training sequence);
#: the scanner's kind "superbpe2" (csrc/scan_stage2.inc)
SUPERBPE_TRAIN_PATTERN = (r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r/]*\n?| +(?!\S)"
                          r"|(?:(?!" + _SUPERBPE_STARTS + r")[^\n])+\n?|\n")

# index = the scanner's kind number (csrc/scan.h)
KINDS = ("gpt2", "cl100k", "o200k", "llama3", "qwen2", "superbpe2", "tekken")
KIND_PATTERNS = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN,
                 "llama3": LLAMA3_PATTERN, "qwen2": QWEN2_PATTERN,
                 "superbpe2": SUPERBPE_TRAIN_PATTERN, "tekken": TEKKEN_PATTERN}
# a preset (or a recognised pattern's kind) -> the native scanner's number (csrc/scan.h)
PRESET_IDS = {kind: i for i, kind in enumerate(KINDS)}

WHITESPACE_PATTERN = r"""\S+|\s+"""
# Each Han character is a word of its own; runs of other letters stay whole (what
# Chinese tutorials do). `[^\P{L}\p{Han}]` = letters that are not Han.
CJK_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{Han}| ?[^\P{L}\p{Han}]+| ?\p{N}+| ?[^\s\p{L}\p{N}]+"""
    r"""|\s+(?!\S)|\s+"""
)

PRESETS: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "cl100k": CL100K_PATTERN,
    "o200k": O200K_PATTERN,
    "whitespace": WHITESPACE_PATTERN,
    "cjk": CJK_PATTERN,
}
_PRESET_OF_PATTERN = {v: k for k, v in PRESETS.items()}
PRESET_ALIASES = {"gpt4": "cl100k", "gpt-2": "gpt2", "gpt-4": "cl100k", "ws": "whitespace",
                  "gpt4o": "o200k", "gpt-4o": "o200k"}
#: published patterns that are not in the window's list of presets, by name: where a
#: pattern is asked for (TrainSettings, --preset, a custom pattern typed in the window), the
#: name stands for the pattern; a name was taken for a regex that matched only itself, so
#: every word was dropped and training said the corpus was empty
NAMED_PATTERNS = {"llama3": LLAMA3_PATTERN, "qwen2": QWEN2_PATTERN, "tekken": TEKKEN_PATTERN}
NAMED_ALIASES = {"llama-3": "llama3", "llama": "llama3", "qwen": "qwen2", "qwen-2": "qwen2",
                 "mistral": "tekken"}
PRESET_LABELS = {
    "gpt2": "GPT-2",
    "cl100k": "GPT-4 (cl100k)",
    "o200k": "GPT-4o (o200k)",
    "whitespace": "Whitespace split",
    "cjk": "CJK-aware (one Han character per word)",
}


def line_break_ends_words(text: str, j: int) -> bool:
    """Whether every published pattern (the presets, Llama 3's, Qwen2's) ends a word at the
    line break ``text[j] == "\\n"``, so ``j + 1`` starts one whatever came before: the
    break sits between a non-space and a letter or digit. GPT-2's pattern takes "\\n\\n"
    before a letter as "\\n", "\\n" but a space before the break into one word, and
    o200k's takes a "/" after a line break into a punctuation word, so a letter or digit
    must follow.

    Example: "a\\nb" at 1 -> True; "/\\n/" at 1 -> False; "a \\nb" at 2 -> False
    """
    return 0 < j and j + 1 < len(text) and not text[j - 1].isspace() \
        and text[j + 1].isalnum()
