"""tiktoken's own tests and README, run against ``bpe_gui.engine.compat.tiktoken``.

tiktoken's published sdist (PyPI, ``pip download --no-deps --no-binary :all:``) ships its
test files and README; they are downloaded at test time into ``~/.cache/bpe-gui-tests``,
never copied into this tree. The test files run unchanged, in a pytest of their own in a
subprocess, with a stand-in ``tiktoken`` module first on the path that is our module
(``sys.modules["tiktoken"]`` replaced). The README's examples run with the import changed
to ours and are held to tiktoken itself run on the same files. OpenAI's ranks come from
the npm package tiktoken (tiktoken_files.py, BPE_GUI_TIKTOKEN_TGZ) written as tiktoken's
own cache, so both read them offline; without the network or that package, these skip
saying which is missing.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

from tiktoken_files import NPM_HOW, tiktoken_cache

VERSION = "0.14.0"
CACHE = Path.home() / ".cache" / "bpe-gui-tests" / f"tiktoken-{VERSION}"
ROOT = Path(__file__).resolve().parents[3]
# each test file of the sdist, and how many tests it holds (a file added or gone in
# another version is noticed: the count is checked)
FILES = {"test_encoding.py": 25, "test_helpers.py": 0, "test_misc.py": 2,
         "test_offsets.py": 2, "test_pickle.py": 1, "test_simple_public.py": 3}
STAND_IN = ("import sys\nimport bpe_gui.engine.compat.tiktoken as _ours\n"
            "sys.modules[__name__] = _ours\n")


def sdist() -> Path:
    """The folder of the sdist's tests/ and README.md (downloaded once), or a skip."""
    if not (CACHE / "done").is_file():
        with tempfile.TemporaryDirectory() as tmp:
            try:
                subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                                "--no-binary", ":all:", f"tiktoken=={VERSION}", "-d", tmp,
                                "-q"], check=True, capture_output=True, timeout=300)
            except (subprocess.SubprocessError, OSError) as e:
                pytest.skip(f"cannot download the tiktoken {VERSION} sdist ({e})")
            (CACHE / "tests").mkdir(parents=True, exist_ok=True)
            with tarfile.open(next(Path(tmp).glob("tiktoken-*.tar.gz"))) as tf:
                for m in tf.getmembers():
                    rel = m.name.split("/", 1)[-1]
                    if m.isfile() and (rel == "README.md" or rel.startswith("tests/")):
                        src = tf.extractfile(m)
                        assert src is not None
                        (CACHE / rel).write_bytes(src.read())
        (CACHE / "done").write_text("ok")
    return CACHE


@pytest.fixture(scope="module")
def ranks(tmp_path_factory) -> Path:
    got = tiktoken_cache(tmp_path_factory.mktemp("tiktoken-cache"))
    if got is None:
        pytest.skip(f"OpenAI's ranks files are not here ({NPM_HOW})")
    return got


@pytest.mark.slow
def test_tiktokens_own_test_files_pass_unchanged(ranks, tmp_path):
    """Every test of every test file of tiktoken's sdist passes against our module (before:
    23 of 32 in 0.12; missing names, ValueError where tiktoken raises KeyError, fixed ids)."""
    src = sdist()
    assert sorted(p.name for p in (src / "tests").glob("test_*.py")) == sorted(FILES)
    work = tmp_path / "run"
    (work / "tests").mkdir(parents=True)
    for p in (src / "tests").iterdir():
        (work / "tests" / p.name).write_bytes(p.read_bytes())
    (work / "stand_in").mkdir()
    (work / "stand_in" / "tiktoken.py").write_text(STAND_IN)
    (work / "pytest.ini").write_text("[pytest]\n")
    # our package seen where an install puts it: Hypothesis draws text from the string
    # constants of the code under test outside site-packages ("<|endoftext|>" of ours,
    # which tiktoken's encode refuses as tiktoken itself does), never from tiktoken's
    installed = work / "site-packages"
    installed.mkdir()
    try:
        (installed / "bpe_gui").symlink_to(ROOT / "bpe_gui", target_is_directory=True)
    except OSError:   # (no symlinks here: the checkout itself)
        installed = ROOT
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(ranks),
           "PYTHONPATH": os.pathsep.join([str(work / "stand_in"), str(installed)])}
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p",
                        "no:cacheprovider", "-c", str(work / "pytest.ini"), "tests"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    tail = p.stdout[-3000:] + p.stderr[-2000:]
    assert p.returncode == 0, tail
    assert re.search(rf"\b{sum(FILES.values())} passed\b", p.stdout), tail
    shown = subprocess.run([sys.executable, "-c", "import tiktoken; print(tiktoken.__name__)"],
                           cwd=work, env=env, capture_output=True, text=True).stdout
    assert shown.strip() == "bpe_gui.engine.compat.tiktoken"   # (what the tests imported)


def _readme_examples() -> list[str]:
    """The README's Python blocks that use tiktoken's API (not its _educational module,
    not a setup.py), each starting with ``import tiktoken``."""
    text = (sdist() / "README.md").read_text("utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return [b if b.startswith("import tiktoken") else "import tiktoken\n" + b
            for b in blocks if "tiktoken." in b and "_educational" not in b
            and "setup(" not in b]


def test_the_readme_examples_run_as_tiktoken_runs_them(ranks, monkeypatch):
    """tiktoken's README, its import changed to ours: the same encodings (the cl100k_im
    extension's <|im_start|>/<|im_end|> at 100264/100265), held to tiktoken itself."""
    real = pytest.importorskip("tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(ranks))
    examples = _readme_examples()
    assert len(examples) == 2 and any("cl100k_im" in b for b in examples)
    texts = ["hello world", "<|im_start|>user\nhi 你好<|im_end|>", "a<|endoftext|>b 🙂", ""]
    for block in examples:
        ours_ns: dict = {}
        exec(block.replace("import tiktoken",
                           "import bpe_gui.engine.compat.tiktoken as tiktoken", 1), ours_ns)
        theirs_ns: dict = {}
        exec(block, theirs_ns)
        assert theirs_ns["tiktoken"] is real and ours_ns["tiktoken"] is not real
        ours, theirs = ours_ns["enc"], theirs_ns["enc"]
        assert (ours.name, ours.n_vocab, ours.max_token_value, ours.special_tokens_set) == \
            (theirs.name, theirs.n_vocab, theirs.max_token_value, theirs.special_tokens_set)
        for t in texts:
            ids = theirs.encode(t, allowed_special="all")
            assert ours.encode(t, allowed_special="all") == ids
            assert ours.decode(ids) == theirs.decode(ids) == t
            assert ours.encode_ordinary(t) == theirs.encode_ordinary(t)
    assert ours.encode("<|im_start|><|im_end|>", allowed_special="all") == [100264, 100265]
