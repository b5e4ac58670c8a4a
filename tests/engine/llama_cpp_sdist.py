"""The llama-cpp-python sdist on PyPI, for the tests that read what it vendors of
llama.cpp: the vocab-only GGUF files of ``vendor/llama.cpp/models`` (with their
``.inp``/``.out`` test texts; several embed ``tokenizer.chat_template``) and the chat
templates of ``models/templates/*.jinja``. The sdist (~50 MB) is downloaded once with pip
(``pip download --no-deps --no-binary :all:``) and those files kept in one folder under
``~/.cache/bpe-gui-tests``; without a network the tests that need them skip, saying so.
"""
from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "0.3.36"
CACHE = Path.home() / ".cache" / "bpe-gui-tests" / f"llama-cpp-python-{VERSION}"


def _wanted(member: str) -> bool:
    name = member.rsplit("/", 1)[-1]
    return ("/models/templates/" in member and name.endswith(".jinja")) or \
        ("/vendor/llama.cpp/models/" in member and name.startswith("ggml-vocab-"))


def sdist_files() -> tuple[Path | None, str]:
    """(the folder of the vocab files and templates, '') or (None, why they are not
    there)."""
    if (CACHE / "done").is_file():
        return CACHE, ""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                            "--no-binary", ":all:", f"llama-cpp-python=={VERSION}", "-d", tmp,
                            "-q"], check=True, capture_output=True, timeout=600)
        except (subprocess.SubprocessError, OSError) as e:
            return None, f"cannot download the llama-cpp-python {VERSION} sdist ({e})"
        sdists = list(Path(tmp).glob("llama_cpp_python-*.tar.gz"))
        if not sdists:
            return None, "pip downloaded no llama-cpp-python sdist"
        CACHE.mkdir(parents=True, exist_ok=True)
        with tarfile.open(sdists[0]) as tf:
            for m in tf.getmembers():
                if _wanted(m.name) and m.isfile():
                    src = tf.extractfile(m)
                    assert src is not None
                    (CACHE / m.name.rsplit("/", 1)[-1]).write_bytes(src.read())
    (CACHE / "done").write_text("ok")
    return CACHE, ""
