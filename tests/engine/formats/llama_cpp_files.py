"""llama.cpp's own tokenizer tests, from the llama-cpp-python sdist
(llama_cpp_sdist.py): the vocab-only GGUF files of ``vendor/llama.cpp/models`` and,
beside 15 of them, ``NAME.gguf.inp`` (texts separated by ``__ggml_vocab_test__`` lines)
and ``NAME.gguf.out`` (llama.cpp's ids of each text, one line each, as
``test-tokenizer-0`` checks them: ``add_special`` and ``parse_special`` off).
"""
from __future__ import annotations

from pathlib import Path

SEP = "\n__ggml_vocab_test__\n"


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
