"""``bpe-gui models`` and ``--model NAME`` (encode, inspect, train --from-model), run as a
subprocess in a temporary HOME holding fake stores (local_model_stores.py), with every
tool's folder variable cleared so the machine's own models never show up."""
from __future__ import annotations

import json

import pytest

from bpe_gui.engine.formats import find_models, load_tokenizer, model_roots
from local_model_stores import (STANDARD, TEXTS, Stores, hf_repo, ollama_model, standard,
                                tokenizer_json, vocab_gguf)
from test_cli import assert_user_error, err, out, run

CLEARED = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME",
           "XDG_CONFIG_HOME", "TRANSFORMERS_CACHE", "LLAMA_CACHE", "LOCALAPPDATA", "APPDATA")


def env_of(stores: Stores) -> dict[str, str]:
    # OLLAMA_MODELS set: the system service's folder is not searched either
    return {"HOME": str(stores.home), "OLLAMA_MODELS": str(stores.ollama),
            **{k: "" for k in CLEARED}}


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> Stores:
    return standard(tmp_path_factory.mktemp("models") / "home")


def models(stores, *args, cwd):
    return run("models", *args, cwd=cwd, env=env_of(stores))


def test_models_lists_every_model_with_format_size_source_and_file(stores, tmp_path):
    p = models(stores, cwd=tmp_path)
    assert p.returncode == 0, err(p)
    lines = out(p).splitlines()
    assert lines[0].split() == ["NAME", "FORMAT", "SIZE", "SOURCE", "TOKENIZER"]
    assert len(lines) == 1 + len(STANDARD)
    for name, (source, fmt) in STANDARD.items():
        (row,) = [x for x in lines if x.startswith(name + " ")]
        assert source in row and ("GGUF" if fmt == "gguf" else "tokenizer.json") in row
    assert "~/.ollama/models/blobs/sha256-" in out(p)      # paths under home shown short


def test_models_json_is_what_the_engine_finds(stores, tmp_path):
    p = models(stores, "--json", cwd=tmp_path)
    assert p.returncode == 0, err(p)
    data = json.loads(out(p))
    env = env_of(stores)
    scan = find_models(model_roots(env, system=False), home=stores.home)
    assert data["models"] == [m.as_json() for m in scan.models]
    assert data["complete"] is True and data["notes"] == []
    assert any("~/.lmstudio/models (LM Studio): 2 models" == x for x in data["looked_in"])


def test_models_filter_takes_every_word(stores, tmp_path):
    p = models(stores, "qwen", "GGUF", cwd=tmp_path)
    names = [line.split()[0] for line in out(p).splitlines()[1:]]
    assert names == ["bartowski/Qwen2.5-0.5B-GGUF", "lmstudio-community/Qwen2.5-7B-Instruct-GGUF"]
    p = models(stores, "nothing-like-this", cwd=tmp_path)
    assert p.returncode == 0 and out(p) == ""
    assert "none of the 7 models found matches 'nothing-like-this'" in err(p)


def test_models_with_none_says_where_it_looked_and_how_to_get_one(tmp_path):
    p = models(Stores(tmp_path / "empty"), cwd=tmp_path)
    assert p.returncode == 0 and out(p) == ""
    assert "no models found" in err(p) and "~/.cache/huggingface/hub" in err(p)
    assert "ollama pull" in err(p) and "Traceback" not in err(p)


def test_models_says_what_it_skipped_when_asked(tmp_path):
    s = Stores(tmp_path / "h")
    hf_repo(s.hf, "org/ok", {"tokenizer.json": tokenizer_json()})
    hf_repo(s.hf, "org/config-only", {"config.json": b"{}"})
    p = models(s, cwd=tmp_path)
    assert "1 thing skipped" in err(p) and "--notes" in err(p)
    p = models(s, "--notes", cwd=tmp_path)
    assert "models--org--config-only: no tokenizer file" in err(p)


def test_a_model_that_will_not_open_is_listed_with_why_and_refused_by_name(tmp_path):
    """A Unigram GGUF in Ollama beside a tokenizer.json: both listed, one stderr line
    naming the one that will not open and why; --json holds the same problem; --model
    refuses it with that reason, in one error line."""
    s = Stores(tmp_path / "h")
    hf_repo(s.hf, "org/ok", {"tokenizer.json": tokenizer_json()})
    ollama_model(s.ollama, "t5:small", vocab_gguf("t5", "", "t5"))
    p = models(s, cwd=tmp_path)
    assert p.returncode == 0, err(p)
    assert [line.split()[0] for line in out(p).splitlines()[1:]] == ["org/ok", "t5:small"]
    (line,) = err(p).splitlines()
    assert line.startswith("bpe-gui: note: 1 of these will not open (t5:small): its "
                           "tokenizer file is a GGUF file whose vocabulary is Unigram")
    assert "not BPE" in line
    listed = {m["name"]: m for m in json.loads(out(models(s, "--json", cwd=tmp_path)))["models"]}
    assert listed["org/ok"]["problem"] is None
    assert "not BPE" in listed["t5:small"]["problem"]
    p = run("encode", "--model", "t5", "x", cwd=tmp_path, env=env_of(s))
    assert_user_error(p, "t5:small (Ollama): its tokenizer", "not BPE")


def test_encode_model_gives_the_ids_tokenizers_gives(stores, tmp_path):
    tk = pytest.importorskip("tokenizers")
    (hf_file,) = stores.hf.glob("models--meta-llama--Llama-3.2-1B/snapshots/*/tokenizer.json")
    lm_file = stores.lmstudio / "mlx-community" / "SmolLM-135M-4bit" / "tokenizer.json"
    for query, file, source in (("meta-llama/Llama-3.2-1B", hf_file, "Hugging Face"),
                                ("Llama-3.2", hf_file, "Hugging Face"),
                                ("mlx-community/SmolLM-135M-4bit", lm_file, "LM Studio")):
        text = "\n".join(TEXTS)
        p = run("encode", "--model", query, "--ids-only", text, cwd=tmp_path,
                env=env_of(stores))
        assert p.returncode == 0, err(p)
        want = tk.Tokenizer.from_file(str(file)).encode(text).ids
        assert out(p).split() == [str(i) for i in want], query
        note = err(p).strip()
        assert note.startswith("bpe-gui: note: ") and note.endswith(f"({source}): {file}")


def test_encode_model_ambiguous_or_unknown_lists_the_candidates(stores, tmp_path):
    p = run("encode", "--model", "qwen", "x", cwd=tmp_path, env=env_of(stores))
    assert_user_error(p, "could be 2 models", "bartowski/Qwen2.5-0.5B-GGUF",
                      "lmstudio-community/Qwen2.5-7B-Instruct-GGUF")
    p = run("encode", "--model", "mistral-7b", "x", cwd=tmp_path, env=env_of(stores))
    assert_user_error(p, "No model named 'mistral-7b'", "llama3.2:1b", "bpe-gui models")


def test_model_and_tokenizer_are_one_or_the_other(stores, tmp_path):
    p = run("encode", "--model", "Llama", "--tokenizer", "x.json", "a", cwd=tmp_path,
            env=env_of(stores))
    assert_user_error(p, "not allowed with")
    p = run("encode", "a", cwd=tmp_path, env=env_of(stores))
    assert_user_error(p, "--tokenizer", "--model")


def test_inspect_model_names_the_model(stores, tmp_path):
    p = run("inspect", "--model", "SmolLM", "--limit", "2", cwd=tmp_path, env=env_of(stores))
    assert p.returncode == 0, err(p)
    assert out(p).splitlines()[0].startswith("tokenizer:    mlx-community/SmolLM-135M-4bit (")


def test_train_from_model_keeps_its_ids(stores, tmp_path, corpora_dir):
    import lzma
    corpus = tmp_path / "c.txt"
    corpus.write_text(lzma.open(corpora_dir / "en-tinyshakespeare.txt.xz", "rt",
                                encoding="utf-8").read(50_000), "utf-8")
    p = run("train", "--from-model", "meta-llama/Llama-3.2-1B", str(corpus), "--num-merges",
            "10", "--out", str(tmp_path / "out"), "--format", "hf", cwd=tmp_path,
            env=env_of(stores))
    assert p.returncode == 0, err(p)
    src = next(m for m in find_models(model_roots(env_of(stores), system=False)).models
               if m.name == "meta-llama/Llama-3.2-1B")
    old = load_tokenizer(src.tokenizer)
    new = load_tokenizer(tmp_path / "out" / "tokenizer.json")
    assert len(new.vocab) == len(old.vocab) + 10
    assert all(new.vocab[i] == b for i, b in old.vocab.items())
    p = run("train", "--from-model", "x", "--from", "y", str(corpus), "--num-merges", "1",
            "--out", str(tmp_path / "o2"), cwd=tmp_path, env=env_of(stores))
    assert_user_error(p, "not allowed with")
