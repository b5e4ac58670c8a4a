"""The models already on this machine (engine/formats/local_models): fake stores in a
temporary HOME, laid out as each tool lays them out (local_model_stores.py), with
huggingface_hub's own cache scanner and the gguf package's reader as oracles, and the
hostile cases: broken links, unreadable folders, half-downloaded snapshots, malformed
manifests, a huge blob, thousands of snapshots, a time limit and a cancel."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from bpe_gui.engine.errors import ArgumentError
from bpe_gui.engine import formats
from bpe_gui.engine.errors import BPEError
from bpe_gui.engine.formats import gguf_fmt
from bpe_gui.engine.formats import (IMPORTABLE, filter_models, find_models, load_tokenizer,
                                    model_roots, pick_model)
from local_model_stores import (STANDARD, TEXTS, Stores, hf_repo, llamacpp_model,
                                lmstudio_model, ollama_model, standard, tokenizer_json,
                                vocab_gguf, wordpiece_json)


def scan_of(stores: Stores, **kw):
    return find_models(model_roots(stores.environ(), system=False), home=stores.home, **kw)


def by_name(scan) -> dict:
    return {m.name: m for m in scan.models}


@pytest.fixture
def stores(tmp_path) -> Stores:
    return standard(tmp_path / "home")


# ----- where it looks -------------------------------------------------------------------
def test_each_tool_s_folders_come_from_its_own_variables(tmp_path):
    home = tmp_path / "h"
    env = {"HOME": str(home), "HF_HOME": str(tmp_path / "hfhome"),
           "OLLAMA_MODELS": "~/ollama-here", "LLAMA_CACHE": str(tmp_path / "lc")}
    roots = {(r.source, r.layout, r.path) for r in model_roots(env, system=False)}
    assert ("Hugging Face", "hf-hub", tmp_path / "hfhome" / "hub") in roots
    assert ("Ollama", "ollama", home / "ollama-here") in roots
    assert ("llama.cpp", "hf-hub", tmp_path / "lc") in roots       # since March 2026
    assert ("llama.cpp", "llama.cpp", tmp_path / "lc") in roots    # the flat cache before
    assert ("LM Studio", "folders", home / ".lmstudio" / "models") in roots
    # huggingface_hub's order: HF_HUB_CACHE over HF_HOME
    env["HF_HUB_CACHE"] = str(tmp_path / "hub2")
    assert [r.path for r in model_roots(env, system=False) if r.source == "Hugging Face"] \
        == [tmp_path / "hub2"]


def test_the_hf_cache_folder_is_the_one_huggingface_hub_uses(tmp_path, monkeypatch):
    """Oracle: huggingface_hub's own constants, computed in a fresh process for the same
    variables."""
    import subprocess
    for env in ({"HOME": str(tmp_path)}, {"HOME": str(tmp_path), "XDG_CACHE_HOME": "/x/c"},
                {"HOME": str(tmp_path), "HF_HOME": "/x/h"},
                {"HOME": str(tmp_path), "HF_HOME": "/x/h", "HUGGINGFACE_HUB_CACHE": "/x/l"},
                {"HOME": str(tmp_path), "HUGGINGFACE_HUB_CACHE": "/x/l", "HF_HUB_CACHE": "/x/n"}):
        theirs = subprocess.run(
            [sys.executable, "-c", "from huggingface_hub import constants as c; "
             "print(c.HF_HUB_CACHE)"], env={"PATH": os.environ.get("PATH", ""), **env},
            capture_output=True, text=True, check=True).stdout.strip()
        ours = [r.path for r in model_roots(env, system=False) if r.source == "Hugging Face"]
        assert ours == [Path(theirs)], env


def test_lm_studio_s_home_pointer_and_downloads_folder_are_followed(tmp_path):
    home = tmp_path / "h"
    moved = tmp_path / "lmhome"
    moved.mkdir(parents=True)
    home.mkdir()
    (home / ".lmstudio-home-pointer").write_text(f"{moved}\n")
    (moved / "settings.json").write_text(json.dumps({"downloadsFolder": str(tmp_path / "dl")}))
    paths = [r.path for r in model_roots({"HOME": str(home)}, system=False)
             if r.source == "LM Studio"]
    assert tmp_path / "dl" in paths and moved / "models" in paths
    assert home / ".lmstudio" / "models" not in paths   # the pointer replaces the default


def test_the_same_folder_is_searched_once(tmp_path):
    hub = tmp_path / "hub"
    env = {"HOME": str(tmp_path), "HF_HUB_CACHE": str(hub), "LLAMA_CACHE": str(hub)}
    roots = model_roots(env, system=False)
    assert [(r.source, r.layout) for r in roots if r.path == hub] == [
        ("Hugging Face", "hf-hub"), ("llama.cpp", "llama.cpp")]


# ----- what it finds ------------------------------------------------------------------
def test_every_store_s_models_are_found_by_the_names_their_tools_show(stores):
    scan = scan_of(stores)
    found = {m.name: (m.source, m.format) for m in scan.models}
    assert found == STANDARD
    assert scan.complete and scan.notes == ()
    assert [m.name.casefold() for m in scan.models] == sorted(m.name.casefold()
                                                              for m in scan.models)


def test_the_hf_cache_agrees_with_huggingface_hub_s_own_scan(stores):
    """Oracle: huggingface_hub.scan_cache_dir on the same cache: repo ids, the revision
    refs/main names, and the size on disk."""
    hub = pytest.importorskip("huggingface_hub")
    theirs = {r.repo_id: r for r in hub.scan_cache_dir(stores.hf).repos}
    ours = {m.name: m for m in scan_of(stores).models if m.source == "Hugging Face"}
    assert set(ours) == set(theirs)
    for name, repo in theirs.items():
        assert ours[name].size == repo.size_on_disk
        rev = next(r for r in repo.revisions if "main" in r.refs)
        assert ours[name].folder == rev.snapshot_path
        assert ours[name].tokenizer.parent == rev.snapshot_path


def test_a_gguf_s_tokenizer_model_is_read_from_its_head_as_gguf_reads_it(stores):
    """Oracle: gguf.GGUFReader on the same file."""
    gguf = pytest.importorskip("gguf")
    for m in scan_of(stores).models:
        if m.format != "gguf":
            continue
        reader = gguf.GGUFReader(str(m.tokenizer))
        field = reader.fields["tokenizer.ggml.model"]
        model = bytes(field.parts[field.data[0]]).decode()
        assert f"tokenizer.ggml.model = {model!r}" in m.detail
        assert m.kind == "BPE"
        pre = reader.fields.get("tokenizer.ggml.pre")
        pre = None if pre is None else bytes(pre.parts[pre.data[0]]).decode()
        # a reader here that runs this vocabulary (a SentencePiece-style one not yet), or why not
        runs = "gguf" in IMPORTABLE and gguf_fmt.not_run_yet(model, pre) is None
        assert (m.problem is None) == runs, (m.name, m.problem)


def test_sizes_count_every_file_of_the_model(stores):
    models = by_name(scan_of(stores))
    folder = stores.lmstudio / "lmstudio-community" / "Qwen2.5-7B-Instruct-GGUF"
    assert models["lmstudio-community/Qwen2.5-7B-Instruct-GGUF"].size == \
        sum(p.stat().st_size for p in folder.iterdir())
    manifest = json.loads((stores.ollama / "manifests" / "registry.ollama.ai" / "library" /
                           "llama3.2" / "1b").read_text())
    digests = [layer["digest"] for layer in manifest["layers"]] + [manifest["config"]["digest"]]
    assert models["llama3.2:1b"].size == sum(
        (stores.ollama / "blobs" / d.replace(":", "-")).stat().st_size for d in digests)


def test_the_lm_studio_tokenizer_is_the_smallest_quantization_never_the_projector(stores):
    m = by_name(scan_of(stores))["lmstudio-community/Qwen2.5-7B-Instruct-GGUF"]
    assert m.tokenizer.name == "Qwen2.5-7B-Instruct-Q4_K_M.gguf"
    assert "2 GGUF files" in m.detail


def test_a_hf_model_found_by_name_opens_with_tokenizers_ids(stores):
    """Opening: a tokenizer.json model, through load_tokenizer, gives the ids the
    tokenizers library gives on the same file."""
    tk = pytest.importorskip("tokenizers")
    scan = scan_of(stores)
    for query in ("meta-llama/Llama-3.2-1B", "Llama-3.2", "META-LLAMA/LLAMA-3.2-1B",
                  "mlx-community/SmolLM"):
        m = pick_model(scan, query)
        ours = load_tokenizer(m.tokenizer)
        ref = tk.Tokenizer.from_file(str(m.tokenizer))
        for text in TEXTS:
            assert ours.encode(text, allowed_special="all") == ref.encode(text).ids, (query, text)


def test_names_are_picked_exactly_then_by_unique_prefix(stores):
    scan = scan_of(stores)
    assert pick_model(scan, "llama3.2:1b").source == "Ollama"
    assert pick_model(scan, "llama3.2").name == "llama3.2:1b"       # a unique prefix
    assert pick_model(scan, "ggml-org/gemma").source == "llama.cpp"
    assert pick_model(scan, "SmolLM").name == "mlx-community/SmolLM-135M-4bit"  # its last part
    with pytest.raises(ArgumentError) as e:
        pick_model(scan, "qwen")
    assert "could be 2 models" in str(e.value)
    assert "bartowski/Qwen2.5-0.5B-GGUF" in str(e.value)
    assert "lmstudio-community/Qwen2.5-7B-Instruct-GGUF" in str(e.value)
    with pytest.raises(ArgumentError) as e:
        pick_model(scan, "mistral")
    assert "No model named 'mistral'" in str(e.value) and "llama3.2:1b" in str(e.value)


def test_an_ollama_name_without_tag_means_latest(tmp_path):
    s = Stores(tmp_path)
    ollama_model(s.ollama, "qwen2.5:latest", vocab_gguf())
    ollama_model(s.ollama, "qwen2.5:0.5b", vocab_gguf())
    assert pick_model(scan_of(s), "qwen2.5").name == "qwen2.5:latest"


def test_one_name_in_two_stores_is_ambiguous_with_both_paths(tmp_path):
    s = Stores(tmp_path)
    hf_repo(s.hf, "org/Same", {"tokenizer.json": tokenizer_json()})
    lmstudio_model(s.lmstudio, "org/Same", {"tokenizer.json": tokenizer_json()})
    with pytest.raises(ArgumentError) as e:
        pick_model(scan_of(s), "org/Same")
    msg = str(e.value)
    assert "2 models are named 'org/Same'" in msg and "--tokenizer" in msg
    assert "Hugging Face" in msg and "LM Studio" in msg


def test_no_models_at_all_says_where_it_looked_and_how_to_get_one(tmp_path):
    scan = scan_of(Stores(tmp_path))
    assert scan.models == () and scan.complete
    assert any(".cache/huggingface/hub" in line and "not there" in line for line in scan.looked)
    with pytest.raises(ArgumentError) as e:
        pick_model(scan, "llama3.2")
    msg = str(e.value)
    assert "no models were found" in msg and "ollama pull" in msg and ".ollama/models" in msg


def test_the_filter_takes_every_word_in_any_case(stores):
    scan = scan_of(stores)
    assert {m.name for m in filter_models(scan.models, "qwen gguf")} == {
        "bartowski/Qwen2.5-0.5B-GGUF", "lmstudio-community/Qwen2.5-7B-Instruct-GGUF"}
    assert {m.name for m in filter_models(scan.models, "OLLAMA")} == {
        "llama3.2:1b", "hf.co/unsloth/gemma-3-GGUF:Q4_K_M"}
    assert len(filter_models(scan.models, "")) == len(scan.models)
    assert filter_models(scan.models, "qwen ollama") == []


def test_other_tokenizer_files_of_a_snapshot_are_found_in_order(tmp_path):
    s = Stores(tmp_path)
    hf_repo(s.hf, "mistralai/M", {"tekken.json": b'{"config": {}, "vocab": []}',
                                  "tokenizer.model.v3": b"x", "params.json": b"{}"})
    hf_repo(s.hf, "openai-community/gpt2", {"vocab.json": b'{"a": 0, "b": 1}',
                                             "merges.txt": b"#version: 0.2\na b\n"})
    hf_repo(s.hf, "stabilityai/sd", {"tokenizer/vocab.json": b'{"a": 0}',
                                     "tokenizer/merges.txt": b"#version: 0.2\n",
                                     "model_index.json": b"{}"})
    hf_repo(s.hf, "meta-llama/Meta-Llama-3-8B", {"original/tokenizer.model": b"IQ== 0\nIg== 1\n",
                                                 "config.json": b"{}"})
    hf_repo(s.hf, "sentence-transformers/bert", {"tokenizer.json": wordpiece_json()})
    models = by_name(scan_of(s))
    assert models["mistralai/M"].tokenizer.name == "tekken.json"
    assert models["openai-community/gpt2"].tokenizer.name == "vocab.json"
    assert models["stabilityai/sd"].tokenizer.parent.name == "tokenizer"
    llama3 = models["meta-llama/Meta-Llama-3-8B"]
    assert llama3.tokenizer.parent.name == "original" and llama3.format == "tiktoken"
    bert = models["sentence-transformers/bert"]
    assert bert.kind == "WordPiece" and "not BPE" in bert.problem
    assert bert.format_label == "tokenizer.json · WordPiece"


def test_a_tiktoken_model_is_found_and_opens_with_tiktoken_s_ids(tmp_path):
    """A snapshot holding a NAME.tiktoken (as Qwen's first releases did) and its pattern
    beside it: listed as tiktoken, and the ids are those of a tiktoken Encoding made from
    the same ranks and pattern."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken_files import ranks_file, tiktoken_definitions, trained_ranks
    ranks = trained_ranks()
    text = ranks_file(tmp_path, ranks, "qwen.tiktoken").read_bytes()
    pat = tiktoken_definitions()["cl100k_base"]["pat_str"]   # tiktoken's own, offline
    s = Stores(tmp_path / "h")
    hf_repo(s.hf, "Qwen/Qwen-7B", {"qwen.tiktoken": text,
                                   "qwen.tiktoken.json": json.dumps({"pat_str": pat}).encode(),
                                   "config.json": b"{}"})
    (m,) = scan_of(s).models
    assert (m.name, m.format, m.tokenizer.name) == ("Qwen/Qwen-7B", "tiktoken", "qwen.tiktoken")
    ref = tiktoken.Encoding("qwen", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ours = load_tokenizer(m.tokenizer)
    for t in TEXTS:
        assert ours.encode(t, allowed_special="all") == ref.encode_ordinary(t), t


def test_a_model_is_marked_as_not_opening_exactly_when_load_tokenizer_refuses_it(stores):
    """Oracle: load_tokenizer on each model's file. A model listed without a problem
    opens; one listed with a problem (a format this version has no reader for, a model
    that is not BPE) is refused, and the problem says what opens instead."""
    for m in scan_of(stores).models:
        try:
            load_tokenizer(m.tokenizer)
            opened = True
        except BPEError:
            opened = False
        assert opened == (m.problem is None), (m.name, m.problem)
        if m.problem and m.kind == "BPE":
            assert "cannot open yet" in m.problem and "tokenizer.json" in m.problem


def test_a_format_without_a_reader_says_so_and_what_opens(tmp_path, monkeypatch):
    """The registry is asked, not a list of its own: with the tiktoken reader taken
    out of formats.IMPORTABLE a .tiktoken model is listed as one that will not open,
    naming its format; with it, the same model has no problem."""
    from tiktoken_files import ranks_file, trained_ranks
    s = Stores(tmp_path / "h")
    text = ranks_file(tmp_path, trained_ranks(), "m.tiktoken").read_bytes()
    hf_repo(s.hf, "org/ranks", {"m.tiktoken": text})
    (m,) = scan_of(s).models
    assert m.format == "tiktoken" and m.problem is None
    monkeypatch.setattr(formats, "IMPORTABLE", tuple(f for f in IMPORTABLE if f != "tiktoken"))
    (m,) = scan_of(s).models
    assert m.format == "tiktoken" and m.kind == "BPE"
    assert m.problem.startswith("is a tiktoken ranks (.tiktoken), which this version of "
                                "bpe-gui cannot open yet.")
    assert "hf download ORG/NAME tokenizer.json" in m.problem


def test_a_gguf_of_another_vocabulary_names_its_kind(tmp_path):
    """A Unigram (t5) and a WordPiece (bert) GGUF: listed with the kind in the format
    column and why they will not open (the gguf package reads the same model key)."""
    gguf = pytest.importorskip("gguf")
    s = Stores(tmp_path / "h")
    for name, model in (("t5:small", "t5"), ("bert:base", "bert")):
        ollama_model(s.ollama, name, vocab_gguf(model, "", name))
    got = by_name(scan_of(s))
    for name, kind in (("t5:small", "Unigram"), ("bert:base", "WordPiece")):
        m = got[name]
        field = gguf.GGUFReader(str(m.tokenizer)).fields["tokenizer.ggml.model"]
        key = bytes(field.parts[field.data[0]]).decode()
        assert f"tokenizer.ggml.model = {key!r}" in m.detail
        assert m.format_label == f"GGUF · {kind}" and "not BPE" in m.problem


# ----- hostile stores -----------------------------------------------------------------
def test_a_broken_link_is_a_note_not_a_crash(tmp_path):
    s = Stores(tmp_path)
    snap = hf_repo(s.hf, "org/broken", {"tokenizer.json": tokenizer_json()})
    for blob in (snap.parents[1] / "blobs").iterdir():
        blob.unlink()
    hf_repo(s.hf, "org/fine", {"tokenizer.json": tokenizer_json()})
    scan = scan_of(s)
    assert [m.name for m in scan.models] == ["org/fine"]
    assert any("models--org--broken" in n and "broken link" in n for n in scan.notes)


def test_a_half_downloaded_snapshot_is_skipped_or_marked(tmp_path):
    s = Stores(tmp_path)
    # a download cut short before any file landed: blobs only, .incomplete
    repo = s.hf / "models--org--started"
    (repo / "blobs").mkdir(parents=True)
    (repo / "blobs" / ("0" * 64 + ".incomplete")).write_bytes(b"\0" * 10)
    # the tokenizer landed, the weights are still coming
    hf_repo(s.hf, "org/coming", {"tokenizer.json": tokenizer_json()}, incomplete=2)
    # a snapshot with no tokenizer at all (config only)
    hf_repo(s.hf, "org/config-only", {"config.json": b"{}"})
    scan = scan_of(s)
    assert [m.name for m in scan.models] == ["org/coming"]
    assert "2 files incomplete" in scan.models[0].detail
    assert any("models--org--started" in n and ".incomplete" in n for n in scan.notes)
    assert any("models--org--config-only" in n and "no tokenizer file" in n and
               "config.json" in n for n in scan.notes)


def test_a_cache_of_copies_without_links_is_read_too(tmp_path):
    s = Stores(tmp_path)
    snap = hf_repo(s.hf, "org/copies", {"tokenizer.json": tokenizer_json(),
                                        "w.bin": b"\0" * 100}, copies=True)
    (m,) = scan_of(s).models
    assert m.size == sum(p.stat().st_size for p in snap.iterdir())
    assert load_tokenizer(m.tokenizer).encode("hello", allowed_special="all") != []


def test_a_repo_without_refs_uses_its_newest_snapshot(tmp_path):
    s = Stores(tmp_path)
    old = hf_repo(s.hf, "org/m", {"config.json": b"{}"}, commit="a" * 40, ref=False)
    new = hf_repo(s.hf, "org/m", {"tokenizer.json": tokenizer_json()}, commit="b" * 40,
                  ref=False)
    os.utime(old, (1, 1))
    (m,) = scan_of(s).models
    assert m.folder == new and "2 revisions" in m.detail


def test_an_unreadable_folder_is_a_note(stores, monkeypatch):
    real = os.scandir
    bad = {str(stores.ollama / "manifests"), str(stores.lmstudio / "mlx-community")}

    def scandir(path="."):
        if str(path) in bad:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)
    monkeypatch.setattr(os, "scandir", scandir)
    scan = scan_of(stores)
    names = {m.name for m in scan.models}
    assert "llama3.2:1b" not in names and "mlx-community/SmolLM-135M-4bit" not in names
    assert "meta-llama/Llama-3.2-1B" in names
    assert any("manifests" in n and "permission denied" in n for n in scan.notes)
    assert any(line.startswith("~/.ollama/models") and "cannot be read" in line
               for line in scan.looked)


@pytest.mark.parametrize("manifest, why", [
    (b"not json {", "not JSON"),
    (b"[1, 2]", "no 'layers' list"),
    (b'{"layers": "x"}', "no 'layers' list"),
    (b'{"layers": [{"mediaType": "application/vnd.ollama.image.model", '
     b'"digest": "sha256:../../../etc/passwd"}]}', "64 hex digits"),
    (b'{"layers": [{"mediaType": "application/vnd.ollama.image.license", "digest": "sha256:'
     + b"a" * 64 + b'"}]}', "no model layer"),
    (b'{"layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:'
     + b"b" * 64 + b'"}]}', "is missing"),
    (b'{"layers": [' + b'{"digest": 5},' * 3 + b"{}]}", "64 hex digits"),
    (b'{"layers": []}' + b" " * (2 << 20), "too big"),
    (b"\xff\xfe\x00", "not JSON"),
], ids=["not-json", "a-list", "layers-not-a-list", "digest-escapes-blobs", "no-model-layer",
        "blob-missing", "digests-not-strings", "huge", "not-utf8"])
def test_a_malformed_ollama_manifest_is_skipped_with_a_note(tmp_path, manifest, why):
    s = Stores(tmp_path)
    ollama_model(s.ollama, "good:1b", vocab_gguf())
    bad = s.ollama / "manifests" / "registry.ollama.ai" / "library" / "bad" / "latest"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(manifest)
    scan = scan_of(s)
    assert [m.name for m in scan.models] == ["good:1b"]
    assert any("library/bad/latest" in n and why in n for n in scan.notes), scan.notes


def test_an_ollama_blob_that_is_not_gguf_is_a_note(tmp_path):
    s = Stores(tmp_path)
    ollama_model(s.ollama, "old:7b", b"ggjt" + b"\0" * 200)
    scan = scan_of(s)
    assert scan.models == ()
    assert any("old:7b" in n and "not a GGUF" in n for n in scan.notes)


def test_llama_cpp_manifests_without_their_file_are_notes(tmp_path):
    s = Stores(tmp_path)
    path = llamacpp_model(s.llamacpp, "org/Repo-GGUF", "Q4_K_M", "m-Q4_K_M.gguf", None)
    path.with_name(path.name + ".downloadInProgress").write_bytes(b"GGUF")
    (s.llamacpp / "manifest=broken.json").write_text("{}")
    (s.llamacpp / "manifest=a=b=c.json").write_text('{"ggufFile": 3}')
    (s.llamacpp / "loose-model.gguf").write_bytes(vocab_gguf())
    scan = scan_of(s)
    assert [m.name for m in scan.models] == ["loose-model"]
    assert any("did not finish" in n for n in scan.notes)
    assert any("manifest=broken.json" in n and "USER=MODEL=TAG" in n for n in scan.notes)
    assert any("manifest=a=b=c.json" in n and "rfilename" in n for n in scan.notes)


def test_a_file_with_a_tokenizer_s_name_but_not_its_content_is_listed_as_unknown(tmp_path):
    s = Stores(tmp_path)
    lmstudio_model(s.lmstudio, "org/damaged", {"tokenizer.json": b"\0\1\2 not json"})
    lmstudio_model(s.lmstudio, "org/fake-gguf", {"m.gguf": b"PK\3\4 a zip, not a gguf"})
    models = by_name(scan_of(s))
    assert models["org/damaged"].format == "unknown"
    assert "damaged" in models["org/damaged"].problem
    assert models["org/fake-gguf"].format == "unknown"


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="reads counted by /proc")
def test_a_huge_gguf_is_never_read_whole(tmp_path):
    """An 8 GiB model blob (sparse): finding it reads its head, not its body (the bytes
    this process read, as the kernel counts them)."""
    s = Stores(tmp_path)
    blob = ollama_model(s.ollama, "huge:70b", vocab_gguf())
    with open(blob, "r+b") as f:
        f.truncate(8 << 30)
    lmstudio_model(s.lmstudio, "org/huge", {})
    os.link(blob, s.lmstudio / "org" / "huge" / "huge.gguf")

    def read_bytes() -> int:
        io = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
        return int(io["rchar"])
    before = read_bytes()
    models = by_name(scan_of(s))
    used = read_bytes() - before
    assert models["huge:70b"].size >= 8 << 30 and models["org/huge"].size == 8 << 30
    assert used < 4 << 20, used


def test_thousands_of_snapshots_in_a_bounded_search(tmp_path):
    """2,000 models (one shared tokenizer blob, as a cache of many revisions of small
    repos would have): every one is found; with no time at all the search stops at once,
    says how many it did not look at and keeps what it found; a cancel does the same."""
    s = Stores(tmp_path)
    data = tokenizer_json()
    for i in range(2000):
        repo = s.hf / f"models--org--m{i:04d}"
        snap = repo / "snapshots" / ("c" * 40)
        snap.mkdir(parents=True)
        (snap / "tokenizer.json").symlink_to(tmp_path / "shared.json")
    (tmp_path / "shared.json").write_bytes(data)
    seen = []
    scan = scan_of(s, progress=lambda done, total: seen.append((done, total)))
    assert len(scan.models) == 2000 and scan.complete
    assert seen[-1] == (2000, 2000) and [d for d, _ in seen] == list(range(1, 2001))

    cut = scan_of(s, time_limit=0.0)
    assert not cut.complete and len(cut.models) < 2000
    assert any("stopped after 0 s" in n for n in cut.notes)
    with pytest.raises(ArgumentError) as e:     # a name it did not get to
        pick_model(cut, "org/m1999")
    assert "stopped before it looked everywhere" in str(e.value)

    calls = []
    stopped = scan_of(s, cancelled=lambda: len(calls) > 10,
                      progress=lambda d, t: calls.append(d))
    assert not stopped.complete and len(stopped.models) <= 12
    assert any("cancelled" in n and "not looked at" in n for n in stopped.notes)


def test_nothing_is_written_to_the_stores(stores):
    """A search only reads: every file and folder is as it was (names, sizes, times)."""
    def state():
        out = {}
        for dirpath, dirs, files in os.walk(stores.home):
            for n in dirs + files:
                st = os.lstat(os.path.join(dirpath, n))
                out[os.path.join(dirpath, n)] = (st.st_size, st.st_mtime_ns)
        return out
    before = state()
    scan_of(stores)
    assert state() == before
