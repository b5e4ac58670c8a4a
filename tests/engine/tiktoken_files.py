""".tiktoken ranks files for the tests that import them: written from ranks, trained
here, and tiktoken's own definitions of the well-known encodings (read without network)."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import tarfile
from pathlib import Path

from bpe_gui.engine.train.trainer import TrainSettings, Trainer


TEXTS = ["Hello, World! It's 3:45pm; we'll see... don't I'M", "Привет, мир! Как дела?",
         "مرحبا بالعالم", "你好世界，这是一个测试。", "emoji 🙂👍🏽 👨\u200d👩\u200d👧",
         "def f(x):\n    return x**2  # c\n", "  lead\t\ttrail  \n\n", "hello world hello",
         "a<|endoftext|>b<|fim_prefix|>", ""]
CORPUS = " ".join(TEXTS[:8]) * 20


def tiktoken_definitions(names=("r50k_base", "p50k_base", "cl100k_base", "o200k_base")
                         ) -> dict[str, dict]:
    """tiktoken's own definitions of ``names``, without downloading ranks."""
    import tiktoken_ext.openai_public as pub
    seen = {}

    def fake_load(url, expected_hash=None):
        seen["hash"] = expected_hash
        return {}
    old = pub.load_tiktoken_bpe
    pub.load_tiktoken_bpe = fake_load
    try:
        out = {}
        for name in names:
            d = getattr(pub, name)()
            out[name] = {**d, "sha256": seen["hash"]}
        return out
    finally:
        pub.load_tiktoken_bpe = old


def ranks_file(tmp_path, ranks: dict[bytes, int], name="x.tiktoken", crlf=False):
    nl = "\r\n" if crlf else "\n"
    text = nl.join(f"{base64.b64encode(t).decode()} {r}" for t, r in
                   sorted(ranks.items(), key=lambda kv: kv[1])) + nl
    path = tmp_path / name
    path.write_bytes(text.encode("ascii"))
    return path


def trained_ranks(extra: list[bytes] = ()) -> dict[bytes, int]:
    t = Trainer.from_text(CORPUS, TrainSettings(vocab_size=420, pattern="cl100k"))
    t.run()
    tok = t.tokenizer()
    ranks = {tok.vocab[i]: i for i in sorted(tok.vocab) if i not in tok.special_ids.values()}
    for w in extra:   # whole words no merge makes: only tiktoken's whole-piece rule finds them
        ranks.setdefault(w, len(ranks))
    return dict(sorted(ranks.items(), key=lambda kv: kv[1]))




NPM_HOW = ("npm pack tiktoken, set BPE_GUI_TIKTOKEN_TGZ to the .tgz (.ci/run does)")


def npm_ranks(name: str, folder: Path) -> tuple[Path, dict] | None:
    """``folder/NAME.tiktoken`` rebuilt from the npm package tiktoken's
    ``encoders/NAME.json`` (its ranks run-length coded: a line is "! FIRST TOKEN..."),
    byte for byte as OpenAI publishes it, and that JSON's ``pat_str`` and
    ``special_tokens``; None when BPE_GUI_TIKTOKEN_TGZ names no file (NPM_HOW)."""
    tgz = os.environ.get("BPE_GUI_TIKTOKEN_TGZ")
    if not tgz or not Path(tgz).is_file():
        return None
    with tarfile.open(tgz) as tar:
        member = tar.extractfile(f"package/encoders/{name}.json")
        assert member is not None
        doc = json.load(member)
    lines = []
    for row in doc["bpe_ranks"].split("\n"):
        if row:
            _, first, *tokens = row.split(" ")
            lines += [f"{t} {int(first) + k}" for k, t in enumerate(tokens)]
    path = folder / f"{name}.tiktoken"
    path.write_bytes(("\n".join(lines) + "\n").encode("ascii"))
    return path, {"pat_str": doc["pat_str"], "special_tokens": doc["special_tokens"]}


def npm_encoding(name: str, folder: Path, specials: bool = True):
    """``(path, tiktoken.Encoding)`` over ``npm_ranks(name, folder)``, the oracle of the
    tests that hold ours to tiktoken on a published file, with the JSON's special tokens
    (none when ``specials`` is false); the calling test is skipped without the package."""
    import pytest
    from tiktoken import Encoding
    from tiktoken.load import load_tiktoken_bpe

    got = npm_ranks(name, folder)
    if got is None:
        pytest.skip("the npm package tiktoken is not here (BPE_GUI_TIKTOKEN_TGZ)")
    path, meta = got
    return path, Encoding(name, pat_str=meta["pat_str"],
                          mergeable_ranks=load_tiktoken_bpe(str(path)),
                          special_tokens=meta["special_tokens"] if specials else {})


def o200k_base_file(folder: Path) -> Path | str:
    """OpenAI's o200k_base.tiktoken (what openai-harmony reads from
    TIKTOKEN_ENCODINGS_BASE, and what tiktoken's o200k_harmony adds its special tokens
    to), or why it cannot be had: TIKTOKEN_ENCODINGS_BASE's file if set, else rebuilt
    from the npm package into ``folder``; held to the SHA-256 tiktoken expects."""
    base = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    src = Path(base) / "o200k_base.tiktoken" if base else None
    if src is None or not src.is_file():
        built = npm_ranks("o200k_base", folder)
        if built is None:
            return ("o200k_base.tiktoken is neither in TIKTOKEN_ENCODINGS_BASE nor "
                    f"rebuildable from the npm package tiktoken ({NPM_HOW})")
        src = built[0]
    want = tiktoken_definitions(("o200k_base",))["o200k_base"]["sha256"]
    assert hashlib.sha256(src.read_bytes()).hexdigest() == want, \
        f"{src} is not OpenAI's o200k_base.tiktoken byte for byte"
    return src


def tiktoken_cache(folder: Path) -> Path | None:
    """``folder`` made a tiktoken cache (what ``TIKTOKEN_CACHE_DIR`` names) holding OpenAI's
    r50k, p50k, cl100k and o200k ranks, each under the key tiktoken gives its URL, so that
    tiktoken itself and ``bpe_gui.engine.compat.tiktoken`` read them offline; None when
    the npm package is not here (NPM_HOW)."""
    for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base"):
        built = npm_ranks(name, folder)
        if built is None:
            return None
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        built[0].rename(folder / hashlib.sha1(url.encode()).hexdigest())
    return folder
