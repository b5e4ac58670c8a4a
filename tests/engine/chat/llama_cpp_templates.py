"""The chat templates llama.cpp ships (``vendor/llama.cpp/models/templates/*.jinja``) and
its vocabulary GGUFs that embed ``tokenizer.chat_template``, from the llama-cpp-python
sdist on PyPI: downloaded once with pip and kept under ``~/.cache/bpe-gui-tests``;
without a network the tests that need them skip, saying so."""
from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "0.3.36"
CACHE = Path.home() / ".cache" / "bpe-gui-tests" / f"llama-cpp-python-{VERSION}-templates"


def templates_dir() -> tuple[Path | None, str]:
    """(the folder of the templates and GGUFs, '') or (None, why they are not there)."""
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
        extract(sdists[0], CACHE)
    return CACHE, ""


def extract(sdist: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as tf:
        for m in tf.getmembers():
            name = m.name.rsplit("/", 1)[-1]
            wanted = ("/models/templates/" in m.name and name.endswith(".jinja")) or \
                ("/vendor/llama.cpp/models/" in m.name and name.startswith("ggml-vocab-")
                 and name.endswith(".gguf"))
            if wanted and m.isfile():
                src = tf.extractfile(m)
                assert src is not None
                (into / name).write_bytes(src.read())
    (into / "done").write_text("ok")
