"""The controller's parts work on what they declare they use (issue 20): each is built
here on a stand-in host that has only the members of its Protocol (``__slots__``: a
part that reads or sets anything else fails), with the other dependencies passed in,
and checked against the engine used directly."""
from __future__ import annotations

from PySide6.QtCore import QObject

from bpe_gui.engine.formats import export_tokenizer
from bpe_gui.engine.train import train_on
from bpe_gui.engine.train.inherited import InheritedTrainer
from bpe_gui.engine.train import Trainer, TrainSettings, train_bpe
from bpe_gui.gui.controller.corpus_source import TextCorpus
from bpe_gui.gui.controller.live import LiveView
from bpe_gui.gui.controller.jobs import JobEnd, Outcome
from bpe_gui.gui.controller.parity_setup import ParitySetup
from bpe_gui.gui.controller.opening import Opening
from bpe_gui.gui.controller.tokenizer_files import TokenizerFiles
from bpe_gui.gui.controller.train_on import TrainOn
from bpe_gui.gui.controller.training import Training

TEXT = "low lower newest widest low lowest newer wider\n" * 30


class Sent:
    """A signal's stand-in: what was emitted."""

    def __init__(self):
        self.sent: list[tuple] = []
        self.slots: list = []

    def emit(self, *args) -> None:
        self.sent.append(args)
        for slot in self.slots:
            slot(*args)

    def connect(self, slot) -> None:
        self.slots.append(slot)


class NotTrainingOn:
    """The host's train-on part while training from scratch."""
    active = False
    source = None
    base_name = label = ""


class Host:
    """Members named by TrainingHost, OpeningHost (those save_corpus uses) and
    TokenizerFilesHost, and nothing else."""

    __slots__ = ("corpus", "settings", "trainer", "stale", "use_imported", "busy",
                 "imported", "imported_path", "saved",
                 "message", "trainerChanged", "trainerStale", "stepChanged",
                 "tokenizerChanged", "livePeek", "importFinished", "train_on", "jobEnded",
                 "parity", "imported_pattern", "corpusChanged")

    def __init__(self, text: str, settings: TrainSettings):
        self.corpus, self.settings = TextCorpus(text), settings
        self.trainer, self.stale, self.use_imported, self.busy = None, True, False, False
        self.imported = self.imported_path = self.imported_pattern = None
        self.train_on = NotTrainingOn()
        self.parity = ParitySetup()   # off: the corpus trains as one
        self.saved: list = []
        for name in ("message", "trainerChanged", "trainerStale", "stepChanged",
                     "tokenizerChanged", "livePeek", "importFinished", "jobEnded",
                     "corpusChanged"):
            setattr(self, name, Sent())

    def set_playing(self, on: bool) -> None:
        pass

    def start(self, job) -> bool:
        raise AssertionError("a small corpus is built at once, not by a job")

    def mark_corpus_saved(self, path=None) -> None:
        self.saved.append(path)


def make_training(host: Host, failures: list) -> Training:
    parent = QObject()
    part = Training(host, fail=lambda title, e: failures.append((title, str(e))),
                    stepped=lambda: None, forget_view=lambda: None,
                    not_utf8=lambda e: failures.append(("not utf-8", e)),
                    free=lambda: True, live=LiveView(parent=parent),
                    set_phase=lambda label, unit: None, parent=parent)
    part._keep = parent   # the timer's and live view's parent lives as long as the part
    return part


def test_training_builds_the_trainer_on_its_declared_host(qtbot):
    settings = TrainSettings(vocab_size=280)
    host, failures = Host(TEXT, settings), []
    training = make_training(host, failures)
    assert training.retrain()
    assert failures == [] and not host.stale and host.stepChanged.sent == [(0,)]
    t = host.trainer
    assert isinstance(t, Trainer) and t.n_steps == 0 and t.settings == settings
    t.run()
    vocab, merges = train_bpe(Trainer.from_source(TEXT, settings).table, **_fields(settings))
    assert t.tokenizer().merges == merges and t.tokenizer().vocab == vocab


def test_training_reports_an_empty_corpus_through_fail(qtbot):
    host, failures = Host("   ", TrainSettings(vocab_size=280)), []
    assert not make_training(host, failures).retrain()
    assert [title for title, _ in failures] == ["Empty corpus"] and host.trainer is None


def test_tokenizer_files_import_sets_the_host_tokenizer(qtbot, tmp_path):
    settings = TrainSettings(vocab_size=280)
    trained = Trainer.from_source(TEXT, settings)
    trained.run()
    export_tokenizer(trained.tokenizer(), tmp_path, "hf")
    host, failures = Host(TEXT, settings), []
    files = TokenizerFiles(host, lambda title, e: failures.append((title, str(e))))
    tok = files.import_tokenizer(str(tmp_path / "tokenizer.json"))
    assert failures == [] and host.imported is tok and host.use_imported
    assert tok.encode(TEXT, allowed_special="all") == trained.tokenizer().encode(TEXT, allowed_special="all")
    assert files.import_tokenizer(str(tmp_path / "missing.json")) is None
    assert [title for title, _ in failures] == ["Import failed"]


def test_opening_saves_the_host_corpus(qtbot, tmp_path):
    host, failures = Host(TEXT, TrainSettings()), []
    opening = Opening(host, fail=lambda title, e: failures.append((title, str(e))),
                      new_corpus=lambda: None, hold_retrain=lambda: None)
    out = tmp_path / "corpus.txt"
    assert opening.save_corpus(str(out))
    assert out.read_text(encoding="utf-8") == TEXT and host.saved == [str(out)]


class ImportedAlready:
    """The host's tokenizer-files part, as TrainOn uses it: the source is imported."""

    def __init__(self, host: Host):
        self.host, self.notes = host, []

    def set_use_imported(self, on: bool) -> None:
        self.host.use_imported = on

    def give_way_to_trained(self, why: str) -> bool:
        was, self.host.use_imported = self.host.use_imported, False
        self.notes.append(why)
        return was

    def drop_note(self, note: str) -> None:
        if note in self.notes:
            self.notes.remove(note)

    def import_tokenizer(self, path: str):
        raise AssertionError("the source is imported already")


class TrainOnStandIn(Host):
    """Host plus the members TrainOnHost names beyond it; jobs run at once."""

    __slots__ = ("settingsChanged", "tokenizer_files")

    def __init__(self, text: str, settings: TrainSettings):
        super().__init__(text, settings)
        self.settingsChanged = Sent()
        self.tokenizer_files = ImportedAlready(self)

    corpus_text = property(lambda self: self.corpus.text)

    def is_table(self) -> bool:
        return False

    def start(self, job) -> bool:
        job.on_done(job.run(lambda done, total: None, lambda: False))
        job.on_end(JobEnd(Outcome.DONE))
        return True

    def set_settings(self, settings: TrainSettings) -> bool:
        self.settings = settings
        return True


def test_train_on_trains_on_from_the_host_tokenizer(qtbot):
    src_trainer = Trainer.from_source(TEXT, TrainSettings(vocab_size=270))
    src_trainer.run()
    source = src_trainer.tokenizer()
    new_text = "wider widest lowland newlands landing\n" * 40
    host, failures = TrainOnStandIn(new_text, TrainSettings(vocab_size=270)), []
    host.imported, host.imported_path = source, "source.json"
    training = make_training(host, failures)
    part = TrainOn(host, training, fail=lambda title, e: failures.append((title, str(e))),
                   mark_stale=lambda: None)
    host.train_on = part
    host.use_imported = True
    assert part.start(num_merges=12)
    assert failures == [] and part.active and isinstance(host.trainer, InheritedTrainer)
    assert not host.use_imported and host.tokenizer_files.notes   # the trained one shows
    expected = train_on(source, text=new_text, settings=host.trainer.settings)
    assert host.trainer.merges == expected.merges and host.trainer.n_steps == 12
    assert part.origin().n_inherited == expected.n_inherited
    part.leave()
    assert not part.active and host.settingsChanged.sent


def test_train_on_without_an_imported_tokenizer_says_so(qtbot):
    host, failures = TrainOnStandIn(TEXT, TrainSettings(vocab_size=270)), []
    training = make_training(host, failures)
    part = TrainOn(host, training, fail=lambda title, e: failures.append((title, str(e))),
                   mark_stale=lambda: None)
    assert not part.start(num_merges=5)
    assert "Import a tokenizer first" in failures[0][1] and host.trainer is None


def _fields(s: TrainSettings) -> dict:
    return dict(vocab_size=s.vocab_size, special_tokens=list(s.special_tokens), mode=s.mode,
                pattern=s.pattern, tie_rule=s.tie_rule)
