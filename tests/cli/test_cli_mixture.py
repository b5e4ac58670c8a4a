"""``bpe-gui mixture``, run as a subprocess: the proportions of a known mixture (table and
--json), a folder as a category's sample, and a clear message for each bad input."""
from __future__ import annotations

import json

import pytest

from mixture_data import samples, train_mixture
from test_cli import assert_user_error, err, out, run

pytest.importorskip("scipy")
pytest.importorskip("tokenizers")

SHARES = {"en": 0.5, "zh": 0.15, "py": 0.35}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    w = tmp_path_factory.mktemp("mixture")
    train_mixture(SHARES, 400_000, 300, w / "tokenizer.json")
    texts = samples()
    for name, text in texts.items():
        (w / f"{name}.txt").write_text(text, "utf-8")
    (w / "py").mkdir()   # the Python sample as a folder of two files
    half = len(texts["py"]) // 2
    cut = texts["py"].index("\n", half) + 1
    (w / "py" / "a.py").write_text(texts["py"][:cut], "utf-8")
    (w / "py" / "b.py").write_text(texts["py"][cut:], "utf-8")
    return w


def cats(*names):
    return [x for n in names for x in ("--category", n)]


@pytest.mark.slow
def test_json_and_table_give_the_mixture(work):
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "zh=zh.txt",
            "py=py"), "--json", cwd=work, timeout=300)
    assert p.returncode == 0, err(p)
    doc = json.loads(out(p))
    assert doc["schema"] == "bpe-gui.mixture/1"
    assert doc["converged"] is True and doc["max_violation"] == 0 and doc["rounds"] >= 1
    got = doc["proportions"]
    assert list(got) == ["en", "zh", "py"] and sum(got.values()) == pytest.approx(1)
    assert max(abs(got[k] - SHARES[k]) for k in SHARES) < 0.06, got
    # the folder is the same sample as the file
    (work / "py.txt").write_text("\n".join(
        (work / "py" / f).read_text("utf-8") for f in ("a.py", "b.py")), "utf-8")
    q = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "zh=zh.txt",
            "py=py.txt"), "--merges", "300", cwd=work, timeout=300)
    assert q.returncode == 0, err(q)
    lines = out(q).splitlines()
    assert lines[0].split() == ["category", "proportion"]
    assert "converged: no constraint is violated" in lines[4]
    rows = {ln.split()[0]: float(ln.split()[1].rstrip("%")) / 100 for ln in lines[1:4]}
    assert rows == pytest.approx(got, abs=0.0006)
    assert [ln.split()[0] for ln in lines[1:4]] == sorted(got, key=lambda k: -got[k])


def test_a_round_limit_says_it_did_not_converge(work):
    """One round stops the program before its optimum on this tokenizer: --json and the
    table both say so, with the largest violation."""
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "zh=zh.txt",
            "py=py.txt"), "--merges", "100", "--max-rounds", "1", "--json", cwd=work,
            timeout=300)
    assert p.returncode == 0, err(p)
    doc = json.loads(out(p))
    assert doc["converged"] is False and doc["rounds"] == 1 and doc["max_violation"] > 0
    said = [w["message"] for w in doc["warnings"] if w["kind"] == "not_converged"]
    assert said and f"{doc['max_violation']:,.1f} per million bytes" in said[0]
    q = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "zh=zh.txt",
            "py=py.txt"), "--merges", "100", "--max-rounds", "1", cwd=work, timeout=300)
    assert q.returncode == 0, err(q)
    assert "NOT converged" in out(q) and "warning: Not converged" in err(q)
    assert "warning:" not in out(q)   # (a warning is never among the data on stdout)


@pytest.mark.parametrize("flag,value,said", [("--max-rounds", "0", "--max-rounds"),
                                             ("--time-limit", "-3", "positive number of seconds"),
                                             ("--time-limit", "soon", "positive number of seconds")])
def test_a_bad_limit(work, flag, value, said):
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "zh=zh.txt"),
            flag, value, cwd=work)
    assert_user_error(p, said)


def test_fewer_than_two_categories(work):
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt"), cwd=work)
    assert_user_error(p, "at least two --category")


def test_a_category_not_name_equals_path(work):
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en.txt", "zh=zh.txt"), cwd=work)
    assert_user_error(p, "is not NAME=PATH")


def test_a_category_given_twice(work):
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "en=zh.txt"),
            cwd=work)
    assert_user_error(p, "'en' is given twice")


def test_an_empty_sample(work):
    (work / "empty.txt").write_text("", "utf-8")
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "zh=empty.txt"),
            cwd=work)
    assert_user_error(p, "category 'zh' has no text", "empty.txt")


def test_an_empty_folder(work):
    (work / "nothing").mkdir(exist_ok=True)
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "zh=nothing"),
            cwd=work)
    assert_user_error(p, "nothing", "no files")


def test_a_sample_not_in_utf8(work):
    (work / "latin1.txt").write_bytes("café crème brûlée".encode("latin-1"))
    p = run("mixture", "--tokenizer", "tokenizer.json", *cats("en=en.txt", "fr=latin1.txt"),
            cwd=work)
    assert_user_error(p, "latin1.txt", "not valid UTF-8 at byte offset 3")


def test_a_tokenizer_without_merges(work):
    (work / "c.txt").write_text("abc abd", "utf-8")
    p = run("train", "c.txt", "--num-merges", "0", "--out", "nomerges", "-q", cwd=work)
    assert p.returncode == 0, err(p)
    p = run("mixture", "--tokenizer", "nomerges", *cats("en=en.txt", "zh=zh.txt"), cwd=work)
    assert_user_error(p, "has no merges")


def test_a_character_level_tokenizer(work):
    (work / "c.txt").write_text("low lower lowest " * 30, "utf-8")
    p = run("train", "c.txt", "--num-merges", "5", "--mode", "char", "--out", "chars", "-q",
            cwd=work)
    assert p.returncode == 0, err(p)
    p = run("mixture", "--tokenizer", "chars", *cats("en=en.txt", "zh=zh.txt"), cwd=work)
    assert_user_error(p, "merges characters", "byte-level")
