"""llama.cpp's own tokenizer tests, from the llama-cpp-python sdist on PyPI: the vocab-only
GGUF files of ``vendor/llama.cpp/models`` and, beside 15 of them, ``NAME.gguf.inp`` (texts
separated by ``__ggml_vocab_test__`` lines) and ``NAME.gguf.out`` (llama.cpp's ids of
each text, one line each, as ``test-tokenizer-0`` checks them: ``add_special`` and
``parse_special`` off).

The sdist (~50 MB) is downloaded once with pip (``pip download --no-deps --no-binary
:all:``) and the model files kept under ``~/.cache/bpe-gui-tests``; without a network
the tests that need them skip, saying so.
"""
from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "0.3.36"
CACHE = Path.home() / ".cache" / "bpe-gui-tests" / f"llama-cpp-python-{VERSION}-models"
SEP = "\n__ggml_vocab_test__\n"


def models_dir() -> tuple[Path | None, str]:
    """(the folder of the vocab files, '') or (None, why they are not there)."""
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
                name = m.name.rsplit("/", 1)[-1]
                if "/vendor/llama.cpp/models/" in m.name and name.startswith("ggml-vocab-") \
                        and m.isfile():
                    src = tf.extractfile(m)
                    assert src is not None
                    (CACHE / name).write_bytes(src.read())
    (CACHE / "done").write_text("ok")
    return CACHE, ""


def cases(gguf: Path) -> list[tuple[str, list[int]]]:
    """(text, llama.cpp's ids) of a vocab file's .inp/.out pair."""
    raw = gguf.with_name(gguf.name + ".inp").read_text("utf-8")
    texts = raw.split(SEP)
    if texts and texts[-1] == "" and raw.endswith(SEP):
        texts.pop()
    outs = gguf.with_name(gguf.name + ".out").read_text("utf-8").split("\n")
    if outs and outs[-1] == "":
        outs.pop()
    assert len(texts) == len(outs), gguf
    return [(t, [int(x) for x in o.split()]) for t, o in zip(texts, outs)]


class LlamaCpp:
    """llama.cpp itself on a vocabulary file, through llama-cpp-python's C API (a source
    build of ``pip install llama-cpp-python``): ``tokenize(text, parse_special)`` is
    ``llama_tokenize`` with add_special off. None of it when llama_cpp is not installed
    (``LlamaCpp.available()``)."""

    _log = None   # the log callback, kept alive (ctypes calls it after set)

    @staticmethod
    def available() -> bool:
        try:
            import llama_cpp  # noqa: F401
        except Exception:
            return False
        return True

    def __init__(self, path: Path):
        import llama_cpp as L
        if LlamaCpp._log is None:
            LlamaCpp._log = L.llama_log_callback(lambda *a: None)
            L.llama_log_set(LlamaCpp._log, None)
            L.llama_backend_init()
        params = L.llama_model_default_params()
        params.vocab_only = True
        self._L = L
        self._model = L.llama_model_load_from_file(str(path).encode(), params)
        if not self._model:
            raise ValueError(f"llama.cpp does not load {path}")
        self._vocab = L.llama_model_get_vocab(self._model)

    def tokenize(self, text: str, parse_special: bool = False) -> list[int]:
        L = self._L
        b = text.encode("utf-8")
        n = len(b) + 16
        out = (L.llama_token * n)()
        k = L.llama_tokenize(self._vocab, b, len(b), out, n, False, parse_special)
        assert k >= 0, k
        return list(out[:k])

    def close(self) -> None:
        if self._model:
            self._L.llama_model_free(self._model)
            self._model = None
