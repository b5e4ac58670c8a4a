"""mistral-common tekken files of the versions its wheel ships none of (v11, v13...):
the wheel's tekken_240911.json with config.version set and the special tokens listed,
[ARGS], [CALL_ID], [THINK] and [/THINK] at the ranks Mistral's own v11/v13 files give
them. mistral-common reads these with its own Tekkenizer and instruct classes."""
from __future__ import annotations

import json
from pathlib import Path

NEW_TOKENS = {32: "[ARGS]", 33: "[CALL_ID]", 34: "[THINK]", 35: "[/THINK]"}


def tekken_of_version(version: str, folder: Path, extra: dict[int, str] = NEW_TOKENS) -> Path:
    """``folder/tekken_<version>.json`` (mistral-common wants 'tekken' in the name): the
    first 20 special tokens mistral-common's own, ``extra`` at their ranks, the rest
    <SPECIAL_n> as in Mistral's files."""
    import mistral_common
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    data_dir = Path(mistral_common.__file__).parent / "data"
    data = json.loads((data_dir / "tekken_240911.json").read_text(encoding="utf-8"))
    data["config"]["version"] = version
    old = [str(t["token_str"]) for t in Tekkenizer.DEPRECATED_SPECIAL_TOKENS]
    n = data["config"]["default_num_special_tokens"]
    data["special_tokens"] = [
        {"rank": r, "token_str": old[r] if r < len(old) else extra.get(r, f"<SPECIAL_{r}>"),
         "is_control": True} for r in range(n)]
    path = folder / f"tekken_{version}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
