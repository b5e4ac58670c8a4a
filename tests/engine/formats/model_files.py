"""Builders of model files that the fixtures (conftest.py) and the tests share."""
from __future__ import annotations

import base64



# the texts every model file's tokenizer is held against its own library on
TEXTS = {
    "english": "Hello, World! It's 3:45pm; we'll see... DON'T I'M x2 12345 3.14",
    "chinese": "你好世界，这是一个测试。我们在学习字节对编码的分词方法。",
    "japanese": "日本語のテキストとカタカナ、ひらがな。東京都",
    "russian": "Привет, мир! Съешь же ещё этих мягких французских булок.",
    "arabic": "مرحبا بالعالم، هذا اختبار ١٢٣ للمقسم.",
    "emoji": "emoji 🙂👍🏽 👨\u200d👩\u200d👧 🇨🇳 done",
    "code": "def f(x):\n    return x**2  # comment\n\tif y:  pass\r\n",
    "whitespace": "  lead\t\ttrail  \n\n\n a\u00a0b \u3000x\u2028y   \n",
    "digits": "1 12 123 1234 12345 123456 ١٢٣٤ ½ ²",
    "random": "".join(chr(c) for c in (0x1F600, 0x0915, 0x094D, 0x0937, 0x10400, 0xFF21,
                                         0x2167, 0x0301, 0x00B5, 0x0130, 0x017F, 0x212A)),
    "long": "x" * 100_000,
}


def tekken_json(token_bytes: list[bytes], *, version: str = "v3", n_special: int = 1000,
                vocab_size: int | None = None, specials: list[str] | None = None,
                pattern: str | None = None) -> dict:
    """A tekken.json as Mistral publishes them, from ranks (bytes in rank order)."""
    from bpe_gui.engine.text.presets import CL100K_PATTERN
    data: dict = {"config": {"pattern": pattern or CL100K_PATTERN,
                             "num_vocab_tokens": len(token_bytes),
                             "default_vocab_size": vocab_size or len(token_bytes) + n_special,
                             "default_num_special_tokens": n_special, "version": version},
                  "vocab": [{"rank": r, "token_bytes": base64.b64encode(b).decode(),
                             "token_str": b.decode("utf-8", "replace")}
                            for r, b in enumerate(token_bytes)]}
    if specials is not None:
        data["special_tokens"] = [{"rank": i, "token_str": s, "is_control": True}
                                  for i, s in enumerate(specials)]
    return data
