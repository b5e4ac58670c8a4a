"""Start-up stays quick: what importing the engine, ``bpe-gui --version`` and one command
load (read from ``sys.modules`` of a fresh process; bench/bench_startup.py measures the
time), and the Unicode tables kept in the cache folder instead of made at every start.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import regex

from bpe_gui.engine.io import cache
from bpe_gui.engine.text import scanner, unicode_classes, unicode_versions

ROOT = Path(__file__).resolve().parents[2]
ALLOW_PYCORE = os.environ.get("BPE_GUI_ALLOW_PYCORE") == "1"
# what a plain `import bpe_gui.engine` must not pay for: the third-party libraries, and
# the engine's modules that compile patterns, build Unicode tables or many dataclasses
HEAVY_LIBRARIES = ("regex", "numpy", "PySide6", "shiboken6", "dask", "tokenizers", "tiktoken",
                   "jsonschema", "json", "dataclasses", "importlib.metadata")
HEAVY_ENGINE = ("bpe_gui.engine.text.unicode_classes", "bpe_gui.engine.text.unicode_versions",
                "bpe_gui.engine.text.dialects", "bpe_gui.engine.text.pretokenize",
                "bpe_gui.engine.corpus.blocks", "bpe_gui.engine.train.trainer",
                "bpe_gui.engine.tokenizers.trained", "bpe_gui.engine.formats")


def loaded_after(code: str, env: dict | None = None) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    script = code + "\nimport sys\nprint('--modules--')\nprint('\\n'.join(sorted(sys.modules)))"
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split("--modules--\n")[-1].split())   # (what `code` printed: not)


def test_importing_the_engine_loads_none_of_its_heavy_parts():
    mods = loaded_after("import bpe_gui.engine")
    assert [m for m in HEAVY_LIBRARIES if m in mods] == []
    assert [m for m in HEAVY_ENGINE if m in mods] == []
    assert sorted(m for m in mods if m.startswith("bpe_gui.engine.")) == ["bpe_gui.engine._lazy"]


def test_a_name_of_the_face_loads_its_module_at_first_use():
    """The lazy face still hands out the real objects, and only what they need."""
    mods = loaded_after("import bpe_gui.engine as e\nassert e.BPEError.__module__ == "
                        "'bpe_gui.engine.errors'\nfrom bpe_gui.engine import Tokenizer\n"
                        "assert Tokenizer.__module__ == 'bpe_gui.engine.tokenizers.trained'")
    assert "bpe_gui.engine.tokenizers.trained" in mods
    assert "bpe_gui.engine.check" not in mods and "bpe_gui.engine.formats" not in mods


def test_the_face_fails_as_a_module_does_for_a_name_it_lacks():
    import bpe_gui.engine as e
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        e.not_a_name   # noqa: B018
    with pytest.raises(ImportError):
        from bpe_gui.engine import not_a_name  # noqa: F401
    assert {"Tokenizer", "train_bpe", "__all__"} <= set(dir(e))


def test_version_loads_only_the_extensions_of_the_engine():
    """`bpe-gui --version` says which engine runs: it loads the five C extensions and
    their (lazy) packages, and none of the command modules, regex or Qt."""
    mods = loaded_after("from bpe_gui.cli import main\ntry:\n    main(['--version'])\n"
                        "except SystemExit:\n    pass")
    # (importlib.metadata: the release; json: the install's build record, where there is one)
    assert [m for m in HEAVY_LIBRARIES if m in mods and m not in ("importlib.metadata",
                                                                   "json")] == []
    assert [m for m in HEAVY_ENGINE if m in mods] == []
    engine = {m for m in mods if m.startswith("bpe_gui.engine.")}
    extensions = {m for m in engine if m.rpartition(".")[2].startswith("_")
                  and m != "bpe_gui.engine._lazy"}
    five = {"bpe_gui.engine.train._core", "bpe_gui.engine.tokenizers._encode",
            "bpe_gui.engine.corpus._count", "bpe_gui.engine.text._scan",
            "bpe_gui.engine.tokenizers.imported._pipeline"}
    # (all five where they were built: test_extensions.py requires it unless
    # BPE_GUI_ALLOW_PYCORE=1, where those that load)
    built = {m for m in five if importlib.util.find_spec(m) is not None}
    assert extensions <= five and (extensions == five or ALLOW_PYCORE)
    assert built <= extensions | {"bpe_gui.engine.tokenizers._encode",
                                  "bpe_gui.engine.corpus._count"}   # (they need _scan)
    cli = {m for m in mods if m.startswith("bpe_gui.cli.")}
    assert cli <= {"bpe_gui.cli.entry", "bpe_gui.cli.common", "bpe_gui.cli.oom",
                   "bpe_gui.cli.window"}   # (window: no Qt until it opens)


def test_one_command_does_not_import_the_others(tmp_path):
    """`bpe-gui encode` builds its own parser only: the train, count, check ... modules
    (and the engine they need: Dask, the analysis package, the trainer) are not
    imported."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer wider " * 50, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "bpe_gui", "train", str(corpus), "--vocab-size",
                    "270", "--out", str(tmp_path / "tok")], cwd=ROOT, check=True,
                   capture_output=True)
    hf = tmp_path / "tok" / "tokenizer.json"
    assert hf.is_file()
    mods = loaded_after("from bpe_gui.cli import main\n"
                        f"assert main(['encode', '--tokenizer', {str(hf)!r}, "
                        "'lower', '--ids-only']) == 0")
    others = {f"bpe_gui.cli.{m}" for m in ("train", "train_on", "count", "check", "cost",
                                            "inspect", "models")}
    assert "bpe_gui.cli.encode" in mods
    assert sorted(others & mods) == []
    assert not any(m.startswith("PySide6") for m in mods)
    assert "bpe_gui.engine.analysis" not in mods and "dask" not in mods
    # nor, to read a tokenizer.json, the trainer and the corpus counting under it
    assert "bpe_gui.engine.train.trainer" not in mods
    assert "bpe_gui.engine.corpus.counting" not in mods


def test_plain_training_loads_no_regex_and_no_readers(tmp_path):
    """`bpe-gui train` with a preset runs on the native scanner and writes tokenizer.json
    with the presets' Oniguruma patterns kept as data: it imports neither `regex` nor
    tokenizers (the library), importlib.metadata, the pattern dialects, the tokenizer
    file readers, parity training or SuperBPE, and no other command's module. So too on
    a `regex` release the data has never seen, or of a Unicode version it lacks, once a
    first run has measured it and translated the presets (and made the scanner's tables,
    for a release they were not built from) into the cache folder."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer wider\n" * 50, encoding="utf-8")
    env = dict(os.environ, **{cache.ENV: str(tmp_path / "cache")})
    unseen = "from bpe_gui.engine.formats import _onig_presets_data\n" \
        "_onig_presets_data.RELEASES.clear()\n"

    def train(extra: list[str], before: str = "") -> set[str]:
        out = tmp_path / f"tok{len(extra)}"
        mods = loaded_after(before + "from bpe_gui.cli import main\n"
                            f"assert main(['train', {str(corpus)!r}, '--vocab-size', '270', "
                            "'--special-token', '<|endoftext|>', '--format', 'hf', '--out', "
                            f"{str(out)!r}, '-q', *{extra!r}]) == 0", env)
        assert (out / "tokenizer.json").is_file()
        return mods

    no_data = unseen + "_onig_presets_data.PRESET_ONIG.clear()\n"   # nor its Unicode version
    train([], no_data)   # the first run on this machine
    assert (tmp_path / "cache" / f"regex-unicode-{regex.__version__}.txt").is_file()
    for before in ("", unseen, no_data):
        for extra in ([], ["--lines", "--tie-break", "lowest-ids-hf"]):
            mods = train(extra, before)
            assert [m for m in ("regex", "tokenizers", "importlib.metadata", "email",
                                "bpe_gui.engine.text.dialects",
                                "bpe_gui.engine.text.unicode_versions",
                                "bpe_gui.engine.formats.loading", "bpe_gui.engine.formats.hf_json",
                                "bpe_gui.engine.formats.sniff",
                                "bpe_gui.engine.tokenizers.imported",
                                "bpe_gui.engine.tokenizers.explain",
                                "bpe_gui.engine.train.parity", "bpe_gui.engine.train.superbpe",
                                "bpe_gui.cli.loading", "bpe_gui.engine.tokenizers.trained")
                    if m in mods] == [], (before, extra)


def test_training_runs_before_openssl_is_loaded(tmp_path):
    """hashlib loads OpenSSL (about 3.5 MiB resident): `bpe-gui train` needs it only for
    the export record, once training's memory is let go of, not on top of the peak."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer wider\n" * 50, encoding="utf-8")
    out = tmp_path / "tok"
    script = ("import sys\nimport bpe_gui.cli.train_run as t\nreal = t.render_files\n"
              "def seen(*a, **k):\n"
              "    r = real(*a, **k)\n"
              "    print('loaded by the end of training:', sorted(m for m in sys.modules\n"
              "          if 'hashlib' in m or m.startswith('_ssl')))\n"
              "    return r\n"
              "t.render_files = seen\nfrom bpe_gui.cli import main\n"
              f"sys.exit(main(['train', {str(corpus)!r}, '--vocab-size', '270', '--out', "
              f"{str(out)!r}, '-q']))")
    r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "loaded by the end of training: []" in r.stdout, r.stdout
    assert (out / ".bpe-gui-exports.json").is_file()


# ----- the cache folder -----------------------------------------------------------------
def test_a_cached_file_reads_back_and_a_damaged_one_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV, str(tmp_path / "c"))
    assert cache.read_cached("x.bin") is None
    assert cache.write_cached("x.bin", b"tables")
    assert cache.read_cached("x.bin") == b"tables"
    raw = bytearray((tmp_path / "c" / "x.bin").read_bytes())
    raw[2] ^= 1
    (tmp_path / "c" / "x.bin").write_bytes(bytes(raw))
    assert cache.read_cached("x.bin") is None            # a changed byte
    (tmp_path / "c" / "x.bin").write_bytes(b"tab")
    assert cache.read_cached("x.bin") is None            # cut short
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["x.bin"]   # no temporary left


def test_a_cache_folder_that_cannot_be_written_costs_nothing_but_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(cache.ENV, str(blocker / "c"))
    assert cache.write_cached("x.bin", b"data") is False
    assert cache.read_cached("x.bin") is None


def test_the_default_cache_folder_is_the_platforms(monkeypatch, tmp_path):
    monkeypatch.delenv(cache.ENV, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "bpe-gui"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "bpe-gui" / "Cache"


@pytest.fixture
def fresh_tables(tmp_path, monkeypatch):
    """An empty cache folder, and the in-process caches of the tables cleared."""
    monkeypatch.setenv(cache.ENV, str(tmp_path))
    scanner.runtime_table_blob.cache_clear()
    unicode_versions.scanner_blob.cache_clear()
    yield tmp_path
    scanner.runtime_table_blob.cache_clear()
    unicode_versions.scanner_blob.cache_clear()


def test_the_installed_regex_tables_are_made_once_then_read(fresh_tables, monkeypatch):
    made = unicode_classes.table_blob()            # the oracle: computed from regex now
    assert scanner.runtime_table_blob() == made    # made, and kept
    name = unicode_classes.cached_tables_name()
    assert regex.__version__ in name and (fresh_tables / name).is_file()
    scanner.runtime_table_blob.cache_clear()

    def no_computing(*a):
        raise AssertionError("tables computed again although they are in the cache")
    monkeypatch.setattr(unicode_classes, "table_blob", no_computing)   # (scanner's source)
    assert scanner.runtime_table_blob() == made    # read back, not computed


def test_tables_of_another_regex_or_damaged_ones_are_made_again(fresh_tables, monkeypatch):
    made = unicode_classes.table_blob()
    name = unicode_classes.cached_tables_name()
    # a file of the right name whose tables claim another regex release: not used
    other = bytearray(made)
    at = len(unicode_classes.MAGIC) + 12
    other[at:at + 32] = b"1999.1.1".ljust(32, b"\0")
    cache.write_cached(name, bytes(other))
    assert not unicode_classes.tables_blob_matches(bytes(other))
    assert scanner.runtime_table_blob() == made
    assert cache.read_cached(name) == made          # and replaced by the right ones
    scanner.runtime_table_blob.cache_clear()
    cache.write_cached(name, made[:-7])             # whole file, but tables cut short
    assert scanner.runtime_table_blob() == made


def test_the_recipe_of_the_tables_is_in_their_file_name(monkeypatch):
    """A change to the classes the tables are made of never reads tables made before."""
    before = unicode_classes.cached_tables_name()
    monkeypatch.setitem(unicode_classes.CLASS_PATTERNS, unicode_classes.FLAG_S, r"[ \t]")
    assert unicode_classes.cached_tables_name() != before


def test_a_librarys_tables_are_kept_and_read_back(fresh_tables, monkeypatch):
    classes = unicode_versions.TIKTOKEN
    made = unicode_versions.scanner_blob(classes)
    files = [p.name for p in fresh_tables.iterdir()]
    assert any(f"unicode-{classes.version}" in f for f in files), files
    unicode_versions.scanner_blob.cache_clear()

    def no_computing(*a):
        raise AssertionError("made again although it is in the cache")
    monkeypatch.setattr(unicode_versions, "_make_scanner_blob", no_computing)
    assert unicode_versions.scanner_blob(classes) == made
    # and they are the tables of that version (a known difference: U+088F is a letter in
    # Unicode 17 but not in tiktoken's 16)
    assert unicode_classes.tables_blob_matches(made, f"unicode-{classes.version}")


def test_a_fresh_process_scans_exactly_with_cached_tables(tmp_path):
    """End to end: one process makes the tables, the next reads them; words equal regex's."""
    env = dict(os.environ)
    env[cache.ENV] = str(tmp_path)
    code = ("from bpe_gui.engine.text import Pretokenizer, PRESETS\nimport regex, json\n"
            "text = 'Hello wörld 42! Ⅻ ǅx \\u088f\\u3000a'\n"
            "print(json.dumps([Pretokenizer(p).words(text) == regex.findall(PRESETS[p], text)"
            " for p in ('gpt2', 'cl100k', 'o200k')]))")
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == [True, True, True]
    if scanner._scan is not None and scanner._scan.TABLES_REGEX_VERSION != regex.__version__:
        # (else the built-in tables are used, or regex alone where _scan was not built)
        assert (tmp_path / unicode_classes.cached_tables_name()).is_file()
