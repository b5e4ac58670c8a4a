"""The layering and lint rules configured in pyproject.toml hold (CI runs this file with
the rest of the suite): import-linter's contracts (the engine never imports Qt, the
window or the command line; panels do not import engine internals; models import none
of our widgets), ruff's small rule set, and the one layering rule neither tool can say:
models import no Qt widgets."""
from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"{module} is not installed: install the test extra, "
                    "pip install -e \".[test]\"")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_import_contracts_are_kept():
    _need("importlinter")
    proc = _run("-c", "import sys; from importlinter.cli import lint_imports; "
                      "sys.exit(lint_imports(no_cache=True, no_logo=True))")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_ruff_finds_nothing():
    _need("ruff")
    proc = _run("-m", "ruff", "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def test_models_import_no_qt_widgets():
    """Item models sit between engine snapshots and views; a widget in a model ties it
    to one view (import-linter can only forbid a whole external package)."""
    offenders = {p.name: sorted(m for m in _imported_modules(p)
                                if m == "PySide6.QtWidgets" or m.startswith("PySide6.QtWidgets."))
                 for p in (ROOT / "bpe_gui" / "gui" / "models").glob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


# ----- widgets reach the engine only through the controller (issue #12) ------------------
# The controller hands widgets a TrainerView (snapshots and queries, only while the
# trainer may be read) and runs long work on its job runner. So a widget never names the
# live trainer, its C core or pre-token table, the job runner or the live-look lock, and
# reads no private attribute of another object (the pattern of the old reach-ins:
# ``t.core.best()``, ``t.table.total``, ``controller.trainer``, a pane's own JobRunner).
WIDGET_BANNED = {"trainer": "the live trainer: use controller.view()",
                 "core": "the trainer's C core",
                 "jobs": "the job runner: controller.start(Job(...)), controller.side",
                 "live": "the live-look lock: controller.livePeek / view()",
                 "JobRunner": "a job runner of its own"}


def _widget_files() -> list[Path]:
    gui = ROOT / "bpe_gui" / "gui"
    return sorted(p for d in ("panels", "widgets", "dialogs", "window")
                  for p in (gui / d).rglob("*.py"))


def _reach_ins(path: Path, root: Path = ROOT) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        name = None
        if isinstance(node, ast.Attribute):
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if node.attr in WIDGET_BANNED:
                name = node.attr
            elif node.attr == "table" and not own:
                name = "table"      # a trainer's or tokenizer's table (self.table: a view)
            elif node.attr.startswith("_") and not node.attr.startswith("__") and not own:
                name = node.attr    # another object's private part
        elif isinstance(node, ast.Name) and node.id in WIDGET_BANNED:
            name = node.id
        if name is not None:
            out.append((node.lineno, node.col_offset, f"{path.relative_to(root)}:"
                        f"{node.lineno}: {name}"))
    return [hit for *_, hit in sorted(out)]


def test_widgets_reach_the_engine_only_through_the_controller():
    found = [hit for p in _widget_files() for hit in _reach_ins(p)]
    assert found == [], "\n".join(found)


def test_the_reach_in_check_finds_reach_ins(tmp_path):
    """The check above is not vacuous: it flags each kind of reach-in."""
    p = tmp_path / "panel.py"
    p.write_text("c = self.controller\nt = c.trainer\nb = t.core.best()\nn = t.table.total\n"
                 "self.jobs = JobRunner(self)\nx = c._retrain_timer\nok = self.table\n",
                 encoding="utf-8")
    hits = [h.split(": ")[-1] for h in _reach_ins(p, tmp_path)]
    assert hits == ["trainer", "core", "table", "jobs", "JobRunner", "_retrain_timer"]


# ----- no mixins in the GUI (issue #20) ---------------------------------------------------
# A mixin uses its host's attributes with no declared interface (MainWindow was seven
# mixins sharing one ``self``). A GUI class has one base: its Qt class or a class of ours;
# a part it needs is an object given what it uses (DockLayout, CatchUp, EditWords ...).
NOT_A_BASE = {"object", "Generic", "Protocol"}


def _mixed_classes(path: Path, root: Path = ROOT) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            real = [b for b in bases if b.split("[")[0].split(".")[-1] not in NOT_A_BASE]
            if len(real) > 1:
                out.append(f"{path.relative_to(root)}:{node.lineno}: "
                           f"class {node.name}({', '.join(bases)})")
    return out


def test_no_gui_class_mixes_in_another():
    found = [hit for p in sorted((ROOT / "bpe_gui" / "gui").rglob("*.py"))
             for hit in _mixed_classes(p)]
    assert found == [], "\n".join(found)


def test_the_mixin_check_finds_mixins(tmp_path):
    """The check above is not vacuous: two bases are flagged, one (or typing's) not."""
    p = tmp_path / "window.py"
    p.write_text("class A(DockLayout, QMainWindow): pass\nclass B(QWidget): pass\n"
                 "class C(Base, Generic[T]): pass\nclass D(CatchesUp, Charts, QtW.QWidget):\n"
                 "    class E(object, X): pass\n", encoding="utf-8")
    hits = [h.split(": ")[-1] for h in _mixed_classes(p, tmp_path)]
    assert hits == ["class A(DockLayout, QMainWindow)", "class D(CatchesUp, Charts, QtW.QWidget)"]


# ----- the house rule on the controller's size (issue 67) ---------------------------------
def test_the_controller_stays_under_400_lines():
    """The controller is a hub that parts hang off (controller/*.py): what grows in it
    goes into a part of its own."""
    path = ROOT / "bpe_gui" / "gui" / "controller" / "controller.py"
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines < 400, f"{path.relative_to(ROOT)} has {lines} lines: move a concern out"
