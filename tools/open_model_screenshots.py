"""Screenshots of File › Open model…, driven with real keys (run by hand, from the
repository's root; needs Xvfb, openbox, xdotool and ImageMagick's ``import``).

    python -m tools.open_model_screenshots [OUT_DIR] [--size 1024x700 ...] [--screens DIR]
                                           [--home DIR]

Builds a fake HOME with about fifty models laid out as the Hugging Face cache, Ollama,
LM Studio and llama.cpp lay them out (tests/engine/local_model_stores.py; the weights
are sparse files of the models' real sizes, so nothing big is written), starts an X
server of each size (default 1024x700) with a window manager, runs ``bpe-gui`` in it
with that HOME, and presses Ctrl+Shift+I, types a filter, moves with the arrows,
narrows the filter and presses Enter. OUT_DIR (default screenshots/, ignored) gets the
dialog alone, filtered, at the first size (open_model.png); ``--screens DIR`` gets the
whole screen after each key (open_model-WxH-list.png, -filter.png, -refused.png: Enter
on a WordPiece GGUF, -opened.png) and with no models at all (-empty.png). The fake HOME
also holds the bad cases: that GGUF, a download without a tokenizer and an Ollama
manifest whose blob is gone. ``--home DIR`` keeps the fake HOME there (a folder
that is not empty is used as it is).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "engine"))

GB = 1_000_000_000
HF_MODELS = [   # name, size, kind
    ("meta-llama/Llama-3.2-1B", 2.47, "json"), ("meta-llama/Llama-3.2-3B-Instruct", 6.43, "json"),
    ("meta-llama/Meta-Llama-3-8B", 16.1, "json"), ("Qwen/Qwen2.5-0.5B", 0.99, "json"),
    ("Qwen/Qwen2.5-7B-Instruct", 15.2, "json"), ("Qwen/Qwen3-8B", 16.4, "json"),
    ("mistralai/Mistral-7B-Instruct-v0.3", 14.5, "json"),
    ("mistralai/Mistral-Nemo-Instruct-2407", 24.5, "json"), ("google/gemma-2-2b", 5.23, "json"),
    ("openai-community/gpt2", 0.55, "json"), ("HuggingFaceTB/SmolLM2-135M", 0.27, "json"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", 3.55, "json"),
    ("microsoft/Phi-3-mini-4k-instruct", 7.64, "json"), ("EleutherAI/pythia-160m", 0.38, "json"),
    ("bigcode/starcoder2-3b", 12.1, "json"), ("tiiuae/falcon-7b", 14.4, "json"),
    ("sentence-transformers/all-MiniLM-L6-v2", 0.09, "wordpiece"),
    ("bartowski/Llama-3.2-1B-Instruct-GGUF", 0.81, "gguf"),
    ("unsloth/Qwen3-4B-GGUF", 2.5, "gguf"), ("ggml-org/gemma-3-1b-it-GGUF", 0.81, "gguf"),
]
OLLAMA_MODELS = [
    ("llama3.2:1b", 1.3), ("llama3.2:3b", 2.0), ("llama3.1:8b", 4.9), ("qwen2.5:7b", 4.7),
    ("qwen2.5-coder:1.5b", 0.99), ("qwen3:8b", 5.2), ("gemma3:4b", 3.3), ("gemma2:2b", 1.6),
    ("mistral:7b", 4.1), ("phi3:mini", 2.2), ("phi4:14b", 9.1), ("deepseek-r1:7b", 4.7),
    ("smollm2:135m", 0.27), ("codellama:7b", 3.8), ("tinyllama:latest", 0.64),
    ("hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M", 2.0),
]
LM_STUDIO_MODELS = [
    ("lmstudio-community/Meta-Llama-3.1-8B-Instruct-GGUF", 4.92),
    ("lmstudio-community/Qwen2.5-7B-Instruct-GGUF", 4.68),
    ("lmstudio-community/gemma-2-9b-it-GGUF", 5.76),
    ("lmstudio-community/DeepSeek-R1-Distill-Qwen-7B-GGUF", 4.68),
    ("bartowski/Phi-3.5-mini-instruct-GGUF", 2.39),
    ("TheBloke/Mistral-7B-Instruct-v0.2-GGUF", 4.37),
]
LLAMA_CPP_MODELS = [("ggml-org/gemma-3-1b-it-GGUF", "Q4_K_M", 0.81),
                    ("unsloth/Qwen3-0.6B-GGUF", "Q8_0", 0.64)]


def sparse(path: Path, head: bytes, size: float) -> None:
    """A file of ``size`` GB that holds ``head`` and takes no room for the rest."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(max(len(head), int(size * GB)))


def fake_home(home: Path) -> Path:
    import local_model_stores as S
    s = S.Stores(home)
    for name, size, kind in HF_MODELS:
        stem = name.split("/")[1]
        if kind == "gguf":
            snap = S.hf_repo(s.hf, name, {f"{stem}-Q4_K_M.gguf": b""})
            target = (snap / f"{stem}-Q4_K_M.gguf").resolve()
            sparse(target, S.vocab_gguf("gpt2", "llama-bpe"), size)
            continue
        data = S.wordpiece_json() if kind == "wordpiece" else S.tokenizer_json()
        snap = S.hf_repo(s.hf, name, {"tokenizer.json": data, "config.json": b"{}",
                                      "model.safetensors": b""})
        sparse((snap / "model.safetensors").resolve(), b"\0", size)
    for name, size in OLLAMA_MODELS:
        blob = S.ollama_model(s.ollama, name, S.vocab_gguf("gpt2", "llama-bpe", name))
        sparse(blob, blob.read_bytes(), size)
    for name, size in LM_STUDIO_MODELS:
        stem = name.split("/")[1].removesuffix("-GGUF")
        folder = S.lmstudio_model(s.lmstudio, name, {})
        sparse(folder / f"{stem}-Q4_K_M.gguf", S.vocab_gguf("gpt2", "qwen2"), size)
    S.lmstudio_model(s.lmstudio, "mlx-community/Llama-3.2-3B-Instruct-4bit",
                     {"tokenizer.json": S.tokenizer_json(), "config.json": b"{}"})
    # the bad cases: a WordPiece GGUF (listed greyed, Enter says why), a repo whose
    # download has no tokenizer yet and an Ollama manifest whose blob is gone (skipped,
    # each a note behind the status line)
    blob = S.ollama_model(s.ollama, "all-minilm:22m", S.vocab_gguf("bert", "", "minilm"))
    sparse(blob, blob.read_bytes(), 0.046)
    S.hf_repo(s.hf, "org/half-downloaded", {"config.json": b"{}"})
    S.ollama_model(s.ollama, "gone:7b", S.vocab_gguf("gpt2", "llama-bpe", "gone")).unlink()
    for repo, tag, size in LLAMA_CPP_MODELS:
        path = S.llamacpp_model(s.llamacpp, repo, tag, f"{repo.split('/')[1]}-{tag}.gguf",
                                S.vocab_gguf("gpt2", "gpt-2"))
        sparse(path, path.read_bytes(), size)
    return home


class Screen:
    """An X server of one size with openbox, torn down on exit."""

    def __init__(self, size: str, display: str = ":97"):
        self.display, self.procs = display, []
        self.env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
        self.procs.append(subprocess.Popen(["Xvfb", display, "-screen", "0", f"{size}x24",
                                            "-nolisten", "tcp"], stderr=subprocess.DEVNULL))
        self.wait(lambda: subprocess.run(["xdpyinfo"], env=self.env, capture_output=True)
                  .returncode == 0 if shutil.which("xdpyinfo") else time.sleep(1) or True)
        self.procs.append(subprocess.Popen(["openbox"], env=self.env, stderr=subprocess.DEVNULL))
        time.sleep(1)

    @staticmethod
    def wait(ok, timeout: float = 30.0) -> None:
        end = time.monotonic() + timeout
        while not ok():
            if time.monotonic() > end:
                raise TimeoutError("the X server did not come up")
            time.sleep(0.2)

    def window(self, name: str, timeout: float = 60.0) -> str:
        found = ""

        def look() -> bool:
            nonlocal found
            p = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", name],
                               env=self.env, capture_output=True, text=True)
            found = p.stdout.split()[-1] if p.stdout.split() else ""
            return bool(found)
        self.wait(look, timeout)
        return found

    def keys(self, *keys: str) -> None:
        subprocess.run(["xdotool", "key", "--delay", "80", *keys], env=self.env, check=True)

    def type(self, text: str) -> None:
        subprocess.run(["xdotool", "type", "--delay", "60", text], env=self.env, check=True)

    def shot(self, path: Path | None, window: str = "root") -> None:
        if path is None:
            return
        subprocess.run(["import", "-window", window, str(path)], env=self.env, check=True)
        print(path)

    def close(self) -> None:
        for p in reversed(self.procs):
            p.terminate()
            p.wait(10)


def run_app(screen: Screen, home: Path, config: Path) -> subprocess.Popen:
    env = {**screen.env, "HOME": str(home), "XDG_CONFIG_HOME": str(config),
           "OLLAMA_MODELS": str(home / ".ollama" / "models"), "PYTHONPATH": str(ROOT)}
    for name in ("HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "XDG_CACHE_HOME",
                 "LLAMA_CACHE", "TRANSFORMERS_CACHE"):
        env.pop(name, None)
    return subprocess.Popen([sys.executable, "-m", "bpe_gui"], env=env, cwd=str(home),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def shots(dialog_png: Path | None, screens: Path | None, size: str, home: Path,
          empty: Path) -> None:
    screen = Screen(size)

    def whole(step: str) -> Path | None:
        return screens / f"open_model-{size}-{step}.png" if screens else None
    try:
        config = Path(tempfile.mkdtemp(prefix="bpe-gui-shots-config-"))
        app = run_app(screen, home, config)
        screen.window("bpe-gui")
        time.sleep(4)                       # the sample corpus trains at start
        screen.keys("ctrl+shift+i")
        dialog = screen.window("Open model")
        time.sleep(2)
        screen.shot(whole("list"))
        screen.type("qwen")
        screen.keys("Down")
        time.sleep(1)
        screen.shot(whole("filter"))
        screen.shot(dialog_png, dialog)
        screen.keys("ctrl+a")
        screen.type("wordpiece gguf")           # a model that will not open: Enter says why
        time.sleep(0.5)
        screen.keys("Return")
        screen.window("Cannot open this model")
        time.sleep(1)
        screen.shot(whole("refused"))
        screen.keys("Escape")                   # the message box; the dialog stays
        time.sleep(0.5)
        screen.keys("ctrl+a")
        screen.type("qwen instruct hugging")    # Qwen/Qwen2.5-7B-Instruct's tokenizer.json
        time.sleep(0.5)
        screen.keys("Return")
        time.sleep(3)
        screen.shot(whole("opened"))
        app.terminate()
        app.wait(20)
        app = run_app(screen, empty, Path(tempfile.mkdtemp(prefix="bpe-gui-shots-config-")))
        screen.window("bpe-gui")
        time.sleep(3)
        screen.keys("ctrl+shift+i")
        screen.window("Open model")
        time.sleep(2)
        screen.shot(whole("empty"))
        app.terminate()
        app.wait(20)
    finally:
        screen.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", nargs="?", default=str(ROOT / "screenshots"))
    p.add_argument("--size", action="append", help="WxH (repeatable; default 1024x700)")
    p.add_argument("--screens", help="save the whole screen after each key here")
    p.add_argument("--home", help="build the fake HOME here and keep it")
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="bpe-gui-fake-home-"))
    if home.is_dir() and any(home.iterdir()):
        print(f"{home} is not empty: its models are used as they are")
    else:
        fake_home(home)
    empty = Path(tempfile.mkdtemp(prefix="bpe-gui-empty-home-"))
    screens = Path(args.screens) if args.screens else None
    if screens:
        screens.mkdir(parents=True, exist_ok=True)
    for i, size in enumerate(args.size or ["1024x700"]):
        shots(out / "open_model.png" if i == 0 else None, screens, size, home, empty)


if __name__ == "__main__":
    main()
