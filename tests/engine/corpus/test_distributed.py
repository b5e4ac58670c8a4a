"""Counting on a real Dask cluster: one LocalCluster for the module (2 worker processes,
one thread each, loopback only, no dashboard). The table it counts equals local counting
byte for byte -- on the shared corpora, and on files whose byte ranges start inside
multi-byte characters, words and special tokens -- and trains to the same merges for
every tie rule. Tests of the app itself never need Dask; these skip without it."""
from __future__ import annotations

import lzma

import pytest

distributed = pytest.importorskip("distributed")

from bpe_gui.cli import main  # noqa: E402
from bpe_gui.engine.corpus.counting import count_corpus  # noqa: E402
from bpe_gui.engine.corpus.table_file import read_table, write_table  # noqa: E402
from bpe_gui.engine.corpus.distributed import count_on_dask, parse_address  # noqa: E402
from bpe_gui.engine.errors import NotUTF8Error, SettingsError  # noqa: E402
from bpe_gui.engine.text.pretokenize import Pretokenizer  # noqa: E402
from bpe_gui.engine.corpus.ranges import plan_ranges  # noqa: E402
from bpe_gui.engine.train.trainer import TIE_RULES, Trainer, TrainSettings  # noqa: E402

EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=50) as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


def assert_same(a, b):
    assert a.blob == b.blob and a.starts == b.starts and a.counts == b.counts
    assert (a.n_chars, a.n_bytes) == (b.n_chars, b.n_bytes) and a.meta == b.meta


def test_shared_corpora_count_the_same_as_here(tmp_path, corpora_dir, client):
    paths = sorted(str(p) for p in corpora_dir.iterdir() if p.suffix in (".xz", ".txt"))
    # the English corpus decompressed too, so a big plain file is split into many ranges
    # (ranges of 512 KiB on the full corpora, 16 KiB on the excerpts in tests/fixtures)
    plain = tmp_path / "en.txt"
    with lzma.open(corpora_dir / "en-gutenberg-20mb.txt.xz") as f:
        plain.write_bytes(f.read(6_000_000))
    paths.append(str(plain))
    range_bytes = 1 << 19 if plain.stat().st_size > 4_000_000 else 1 << 14
    pre = Pretokenizer("cl100k", [EOT])
    here = count_corpus(paths, pre)
    there = count_on_dask(paths, pre, client, range_bytes=range_bytes)
    assert len(plan_ranges([plain], range_bytes)) > 10
    assert_same(there, here)
    a, b = tmp_path / "here.counts.tsv", tmp_path / "dask.counts.tsv"
    write_table(here, a)
    write_table(there, b)
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("pattern", ["gpt2", "o200k", "cjk", r"\p{L}+|\p{N}|[^\p{L}\p{N}]+"])
def test_tiny_ranges_cut_inside_characters_words_and_specials(tmp_path, client, pattern):
    text = ("Hello wörld, 你好世界! It's 12345 naïve😀 café" + EOT + "  \n\tcode(x)  ") * 12
    p = tmp_path / "t.txt"
    p.write_text(text, encoding="utf-8")
    data = p.read_bytes()
    starts = [r.start for r in plan_ranges([p], 7)]
    assert any(data[s] & 0xC0 == 0x80 for s in starts)          # inside a character
    assert any(data[s - 1:s + 1].isalpha() for s in starts)     # inside a word
    pre = Pretokenizer(pattern, [EOT])
    assert_same(count_on_dask([p], pre, client, range_bytes=7), count_corpus(p, pre))


def test_errors_on_workers_reach_the_client_as_themselves(tmp_path, client):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine words " * 100 + b"\xc3\x28 and more")
    with pytest.raises(NotUTF8Error) as e:
        count_on_dask([bad], Pretokenizer(), client, range_bytes=128)
    assert e.value.offset == 1100 and e.value.path == str(bad)


@pytest.mark.parametrize("tie", list(TIE_RULES))
def test_training_from_the_dask_table_equals_training_on_the_corpus(tmp_path, corpora_dir,
                                                                    client, tie):
    with lzma.open(corpora_dir / "zh-en-d2l-zh-markdown.txt.xz") as f:
        data = f.read(400_000)
    src = tmp_path / "c.txt"
    src.write_bytes(data[:data.rfind(b"\n") + 1])
    settings = TrainSettings(num_merges=400, tie_rule=tie)
    table = count_on_dask([src], Pretokenizer(), client, range_bytes=20_000)
    write_table(table, tmp_path / "c.counts.tsv")
    from_table = Trainer.from_counts(tmp_path / "c.counts.tsv", settings)
    from_table.run(detail=False)
    direct = Trainer.from_files(src, settings)
    direct.run(detail=False)
    assert from_table.merges == direct.merges


def test_cli_count_on_the_scheduler_address_then_train(tmp_path, cluster, client, capsys):
    """`count --dask tcp://...` (the scheduler of the module's cluster), then
    `train --counts`: the same files as training on the corpus."""
    src = tmp_path / "c.txt"
    src.write_text("low low lower newest newest widest widest widest\n" * 50 + "你好" * 30,
                   encoding="utf-8")
    table = tmp_path / "c.counts.tsv"
    assert main(["count", str(src), "--out", str(table), "--dask", cluster.scheduler_address,
                 "--range-size", "64", "-q"]) == 0
    assert "on Dask" in capsys.readouterr().out
    assert read_table(table).meta.sources[0]["path"] == str(src)
    for name, args in (("a", ["--counts", str(table)]), ("b", [str(src)])):
        assert main(["train", *args, "--num-merges", "40", "--tie-break", "first-seen",
                     "--format", "native", "--out", str(tmp_path / name), "-q"]) == 0
    assert (tmp_path / "a" / "tokenizer.bpe-gui.json").read_bytes() == \
        (tmp_path / "b" / "tokenizer.bpe-gui.json").read_bytes()


def test_addresses():
    assert parse_address("local:3") == ("local", 3)
    assert parse_address("tcp://10.0.0.1:8786") == ("remote", "tcp://10.0.0.1:8786")
    assert parse_address("tls://[::1]:8786") == ("remote", "tls://[::1]:8786")
    for bad in ("local:0", "local:x", "somewhere", "tcp://", "inproc://x", "tcp://h",
                "tcp://h:0", "tcp://h:99999", "foo://h:1", "tcp://:8786"):
        with pytest.raises(SettingsError, match="--dask"):
            parse_address(bad)


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe-gui: error: "), captured.err
    return lines[0]


@pytest.mark.parametrize("address", ["tcp://", "inproc://x", "tcp://127.0.0.1:", "ws://[::1"])
def test_cli_malformed_addresses_are_one_line_and_write_nothing(tmp_path, capsys, address):
    src = tmp_path / "c.txt"
    src.write_text("some text\n", encoding="utf-8")
    assert main(["count", str(src), "--out", str(tmp_path / "t.tsv"), "--dask", address,
                 "-q"]) == 2
    assert "--dask" in one_error_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


def test_local_workers_are_capped_by_cores_and_memory(monkeypatch):
    from bpe_gui.engine.corpus import distributed as dist
    monkeypatch.setattr(dist.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(dist, "available_memory", lambda: 3 * dist.WORKER_BASE_BYTES)
    assert dist.local_workers(2, range_bytes=0) == (2, None)
    n, why = dist.local_workers(500, range_bytes=0)
    assert n == 3 and "500" in why and "4 core(s)" in why
    monkeypatch.setattr(dist, "available_memory", lambda: None)
    assert dist.local_workers(500, range_bytes=0)[0] == 4


def _patch_count_range(die: bool) -> None:
    """On a worker: make count_range end its process (the client sends the function by
    name, so the worker's module attribute is what runs), or put it back."""
    import os

    from bpe_gui.engine.corpus import range_count as m
    if die:
        m.__dict__.setdefault("_real_count_range", m.count_range)
        m.count_range = lambda *a, **k: os._exit(1)
    elif "_real_count_range" in m.__dict__:
        m.count_range = m._real_count_range


def test_workers_that_keep_dying_are_one_line_and_leave_no_table(tmp_path, cluster, client,
                                                                 capsys):
    """Every worker that takes a range dies (os._exit, as the kernel's OOM killer would
    end it): KilledWorker becomes one line, exit 2, and no table or temporary file."""
    scheduler = cluster.scheduler
    allowed = scheduler.allowed_failures
    scheduler.allowed_failures = 0    # the first death is final (default: 3 more tries)
    client.run(_patch_count_range, True)
    try:
        src = tmp_path / "c.txt"
        src.write_text("text that no worker lives to count\n" * 20, encoding="utf-8")
        assert main(["count", str(src), "--out", str(tmp_path / "t.tsv"), "--dask",
                     cluster.scheduler_address, "-q"]) == 2
    finally:
        scheduler.allowed_failures = allowed
        client.run(_patch_count_range, False)   # the worker that died restarts unpatched
    assert "KilledWorker" in one_error_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


# the count, in a child process (a count that hangs is ended by the timeout), giving up
# after 1 s without workers instead of NO_WORKERS_S
COUNT_CHILD = ("import sys\n"
               "from bpe_gui.engine.corpus import distributed as d\n"
               "d.NO_WORKERS_S = 1.0\n"
               "from bpe_gui.cli import main\n"
               "sys.exit(main(['count', 'c.txt', '--out', 't.tsv', '--dask', sys.argv[1], '-q']))\n")


@pytest.mark.regression
@pytest.mark.slow
def test_workers_that_die_and_never_come_back_end_the_count(tmp_path):
    """A count whose workers all died and none came back (no nanny restarts them, or it
    failed to) waited in as_completed forever, with no word: now one line saying the
    workers kept dying, exit 2, no table."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    here = Path(__file__).resolve()
    # (the worker unpickles _patch_count_range from this module: its folder on the path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(here.parents[3]), str(here.parent)]))
    (tmp_path / "c.txt").write_text("text that no worker lives to count\n" * 20, "utf-8")
    with distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1",
                                  dashboard_address=":0", silence_logs=50) as cluster, \
            distributed.Client(cluster) as c:
        # a worker without a nanny: when it dies, nothing starts it again
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
             "--no-nanny", "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            c.wait_for_workers(1, timeout=120)
            c.run(_patch_count_range, True)   # the range it takes ends its process
            p = subprocess.run([sys.executable, "-c", COUNT_CHILD, cluster.scheduler_address],
                               cwd=tmp_path, env=env, capture_output=True, timeout=180)
        finally:
            worker.kill()
            worker.wait()
    lines = p.stderr.decode().strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, p.stderr.decode()
    assert lines[0].startswith("bpe-gui: error: Dask workers kept dying") and \
        "no worker for 1 s" in lines[0]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["c.txt"]


def test_fsspec_urls_are_read_on_the_workers(tmp_path, client):
    """A file:// URL (what s3://, gs://... look like to the code): split, read with
    random access on the workers, counted as the local file is."""
    p = tmp_path / "u.txt"
    p.write_text("Über naïve café, 你好! " * 300, encoding="utf-8")
    pre = Pretokenizer("o200k")
    there = count_on_dask([p.as_uri()], pre, client, range_bytes=500)
    here = count_corpus(p, pre)
    assert (there.blob, there.starts, there.counts) == (here.blob, here.starts, here.counts)
    assert there.meta.sources[0] == {"path": p.as_uri(), "bytes": p.stat().st_size}


def test_only_the_final_table_comes_back_to_the_client(tmp_path, client, monkeypatch):
    """Partial tables are summed on the workers: the client fetches the plan and the
    final table, never a range's partial table."""
    fetched = []
    result = distributed.Future.result

    def spy(self, *a, **k):
        fetched.append(self.key)
        return result(self, *a, **k)
    monkeypatch.setattr(distributed.Future, "result", spy)
    p = tmp_path / "m.txt"
    p.write_text("many small ranges of text, 12 of them at least\n" * 40, encoding="utf-8")
    table = count_on_dask([p], Pretokenizer(), client, range_bytes=150, fan_in=3)
    assert len(plan_ranges([p], 150)) > 12
    assert len(fetched) == 2 and len(table) == len(count_corpus(p, Pretokenizer()))
