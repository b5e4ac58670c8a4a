"""Builders of model files that the fixtures (conftest.py) and the tests share."""
from __future__ import annotations

import base64


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
