"""Our own outputs open in every command: each file `bpe-gui train` writes (of any
pattern, byte or character mode) and the output folder itself, in encode, decode,
inspect, cost, chat, mixture, check and train --from. Encoded ids agree across the forms
of one training and with `tokenizers` reading the tokenizer.json."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_gui.cli import main

tokenizers = pytest.importorskip("tokenizers")

CORPUS = ("The quick brown fox jumps over the lazy dog. Ոչ մի բան. 满纸荒唐言，一把辛酸泪！\n"
          "def square(x):\n    return x * x  # 🙂 <|endoftext|>\n") * 30
TEXT = "The lazy fox. 满纸荒唐言 Ոչ x * x 🙂"
SETUPS = {
    "gpt2": [], "cl100k": ["--preset", "cl100k"], "o200k": ["--preset", "o200k"],
    "whitespace": ["--preset", "whitespace"], "cjk": ["--preset", "cjk"],
    "custom": ["--pattern", r"\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+|\s+"],
    "char": ["--mode", "char"], "hf-lines": ["--lines", "--tie-rule", "lowest-ids-hf"],
    "special": ["--special-token", "<|endoftext|>"],
}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    w = tmp_path_factory.mktemp("own")
    (w / "c.txt").write_text(CORPUS, "utf-8")
    (w / "langs").mkdir()
    (w / "langs" / "en.txt").write_text("The quick brown fox.\n", "utf-8")
    (w / "langs" / "zh.txt").write_text("满纸荒唐言。\n", "utf-8")
    (w / "conv.json").write_text(json.dumps([{"role": "user", "content": TEXT}]), "utf-8")
    (w / "t.jinja").write_text("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n"
                               "{% endfor %}", "utf-8")
    for name, extra in SETUPS.items():
        assert main(["train", str(w / "c.txt"), "--vocab-size", "330", "--out",
                     str(w / name), "-q", *extra]) == 0
    return w


def forms(w: Path, name: str) -> list[Path]:
    """The folder and each tokenizer file in it (the merges CSV holds no vocabulary; the
    hidden record of what the export wrote is no tokenizer)."""
    files = sorted(p for p in (w / name).iterdir()
                   if not p.name.endswith((".csv", ".tiktoken.json"))
                   and not p.name.startswith("."))
    return [w / name, *files]


def commands(w: Path, f: Path, name: str) -> dict[str, list[str]]:
    return {
        "encode": ["encode", "--tokenizer", str(f), "--ids-only", TEXT],
        "decode": ["decode", "--tokenizer", str(f), "72", "101"],
        "inspect": ["inspect", "--tokenizer", str(f)],
        "cost": ["cost", "--tokenizer", str(f), str(w / "langs"), "-q"],
        "chat": ["chat", "--tokenizer", str(f), "--template", str(w / "t.jinja"),
                 "--messages", str(w / "conv.json")],
        "mixture": ["mixture", "--tokenizer", str(f), "--category",
                    f"en={w / 'langs' / 'en.txt'}", "--category", f"zh={w / 'langs' / 'zh.txt'}",
                    "--merges", "10", "-q"],
        "check": ["check", str(f), "--corpus", str(w / "c.txt")],
        "train --from": ["train", "--from", str(f), str(w / "c.txt"), "--num-merges", "3",
                         "--out", str(w / f"from-{name}-{f.name}"), "-q"],
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETUPS))
def test_every_command_opens_every_output(work, capsys, name):
    ids = {}
    for f in forms(work, name):
        for cmd, args in commands(work, f, name).items():
            capsys.readouterr()
            rc = main(args)
            got = capsys.readouterr()
            if cmd == "mixture" and name == "char":   # replays merges on bytes: refused, saying so
                assert rc == 2 and "byte-level" in got.err, got.err
                continue
            ok = (0, 1) if cmd == "check" else (0,)   # (check: 1 = a merge differs)
            assert rc in ok, f"{cmd} on {f.relative_to(work)}: {got.err}"
            if cmd == "encode":
                ids[f.name] = got.out.split()
    assert len(set(map(tuple, ids.values()))) == 1, ids   # every form: the same ids
    hf_file = work / name / "tokenizer.json"
    if hf_file.exists():
        hf = tokenizers.Tokenizer.from_file(str(hf_file))
        assert [int(i) for i in ids[name]] == hf.encode(TEXT).ids


@pytest.mark.parametrize("target", ["", "tokenizer.bpe-gui.json", "tokenizer.json"])
def test_check_reads_our_folder_native_file_and_export(tmp_path, capsys, target):
    """Was: the folder and the .bpe-gui.json were refused as "a native file", and our
    --lines --tie-rule lowest-ids-hf tokenizer.json's Oniguruma pattern (\\x{...}) did not
    compile. A folder trained with lowest-ids-hf is checked with that rule (its file says so)."""
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    assert main(["train", str(tmp_path / "c.txt"), "--vocab-size", "330", "--out",
                 str(tmp_path / "out"), "-q", "--tie-rule", "lowest-ids"]) == 0
    capsys.readouterr()
    rule = ["--tie-rule", "lowest-ids"] if target == "tokenizer.json" else []   # (it has no record)
    assert main(["check", str(tmp_path / "out" / target), "--corpus", str(tmp_path / "c.txt"),
                 *rule]) == 0
    got = capsys.readouterr().out
    assert "merges agree" in got
    if target != "tokenizer.json":
        assert "tie rule: lowest-ids (from tokenizer.bpe-gui.json)" in got


def test_check_compiles_our_hf_exact_export(tmp_path, capsys):
    (tmp_path / "c.txt").write_text(CORPUS, "utf-8")
    assert main(["train", str(tmp_path / "c.txt"), "--vocab-size", "330", "--out",
                 str(tmp_path / "out"), "-q", "--lines", "--tie-rule", "lowest-ids-hf",
                 "--format", "hf"]) == 0
    pattern = json.loads((tmp_path / "out" / "tokenizer.json").read_text("utf-8"))
    assert r"\x{" in json.dumps(pattern["pre_tokenizer"])   # Oniguruma's spelling
    capsys.readouterr()
    rc = main(["check", str(tmp_path / "out" / "tokenizer.json"), "--corpus",
               str(tmp_path / "c.txt")])
    got = capsys.readouterr()
    assert rc in (0, 1), got.err
    assert "pattern: GPT-2's pattern (from tokenizer.json)" in got.out
