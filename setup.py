"""Only here to declare the C extensions and how they build; all metadata lives in
pyproject.toml.

BPE_GUI_NO_SIMD=1 (`BPE_GUI_NO_SIMD=1 pip install .`) compiles every vector loop out
(csrc/util/simd.h): the scalar build an ARM Mac or an old PC gets. CFLAGS and CC from the
environment apply as usual (CI's variant builds: tools/ci_variants.sh).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import ExecError

# hidden visibility: the files of one extension share plain names (grow, sort_i32...);
# only PyInit_* is exported, so no other library's symbol can stand in for them
CFLAGS = ["-O2", "-std=c99", "-fvisibility=hidden"]
# MSVC: C11 (its C99 features and more; /std:c11 from Visual Studio 2019 16.8, an older
# one warns and carries on); symbols are hidden unless exported there anyway
MSVC_FLAGS = ["/O2", "/std:c11"]
CSRC = "bpe_gui/engine/csrc"    # every #include "folder/file.h" is relative to it
NO_SIMD = os.environ.get("BPE_GUI_NO_SIMD", "") not in ("", "0")
# written beside the extensions at every build: what was built, how, and what failed and
# why (an extension that failed is absent and its Python fallback runs)
BUILD_RECORD = "_build.json"


def files(*paths: str) -> list[str]:
    # paths under csrc/, folder included: tests/test_csrc_layout.py checks that every .c
    # file there is named here once
    return [f"{CSRC}/{p}" for p in paths]


def headers(*folders: str) -> list[str]:
    # `depends`: a change to any header or .inc of these folders rebuilds the extension
    found = [str(p) for f in folders for pat in ("*.h", "*.inc")
             for p in Path(CSRC, f).glob(pat)]
    if "scan" in folders:
        found.append(f"{CSRC}/unicode_tables.h")   # where unicode_classes.py writes it
    return sorted(found)


# csrc/README.md says what each folder holds; python/ is the only one with Python in it
CORE = files("core/core_build.c", "core/core_step.c", "core/core_heap.c", "core/core_tables.c",
             "core/core_lists.c", "core/core_query.c", "core/core_check.c", "core/core_cols.c",
             "core/core_cols_query.c")
SCAN = files("scan/scan.c", "scan/scan_text.c")   # the native scanner, in _scan only
# the others call _scan's scanner through the function table it exports (scan/scan.h)
SCAN_SHARED = files("scan/scan_shared.c")
MERGE = files("merge/route.c", "merge/merge.c", "merge/reference.c", "merge/small.c",
              "merge/strategies.c",
              "merge/token_boundaries.c")   # the merge engine (_encode, _pipeline)
WORDCACHE = files("merge/wordcache.c", "merge/pieces.c", "merge/encoder.c", "merge/batch.c",
                  "merge/encoder_pool.c")
COUNT = files("count/wordtable.c", "count/wordexport.c", "count/tsv.c")
IMPORTED = files("imported/pipe_tables.c", "imported/pipe_load_hf.c",
                 "imported/pipe_load_tiktoken.c", "imported/pipe_load_gguf.c",
                 "imported/pipe_load_spm.c",
                 "imported/json_scan.c", "imported/b64.c", "imported/pipe_encode.c",
                 "imported/pipe_spm.c", "imported/charsmap.c")


def ext(name: str, sources: list[str], folders: tuple[str, ...]) -> Extension:
    # optional: without a compiler the package installs anyway and the engine falls back
    # to slower Python code (the test suite refuses that unless BPE_GUI_ALLOW_PYCORE=1);
    # BuildExt says so loudly and records why
    return Extension(f"bpe_gui.engine.{name}", sources=sources, include_dirs=[CSRC],
                     define_macros=[("BPE_NO_SIMD", "1")] if NO_SIMD else [],
                     depends=headers("python", "util", *folders), optional=True)


class BuildExt(build_ext):
    """The compiler's flags by its kind, and no silent fallback: an extension that fails
    to build is named on stderr with the compiler's messages, and BUILD_RECORD keeps it."""

    def build_extensions(self) -> None:
        msvc = self.compiler.compiler_type == "msvc"
        for e in self.extensions:
            e.extra_compile_args = list(MSVC_FLAGS if msvc else CFLAGS)
        self._failed: dict[str, str] = {}
        self._output: list[str] = []
        if not msvc:   # (MSVC's spawn sets up its own PATH: left as it is)
            # newer setuptools run commands through `call`, older ones through `spawn`
            self.compiler.call = self._call
            self.compiler.spawn = self._spawn
        super().build_extensions()
        self._write_record(msvc)

    def _run(self, cmd: list[str]) -> int:
        """Run one compiler command, its messages passed on and the last ones kept."""
        if self.dry_run:
            return 0
        run = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        out = (run.stdout + run.stderr).strip()
        if out:
            print(out, file=sys.stderr)
            self._output = out.splitlines()[-40:]
        return run.returncode

    def _call(self, cmd: list[str], **_kw) -> None:
        if (code := self._run(cmd)) != 0:
            raise subprocess.CalledProcessError(code, cmd)

    def _spawn(self, cmd: list[str], **_kw) -> None:
        if (code := self._run(cmd)) != 0:
            raise ExecError(f"command {cmd[0]!r} failed with exit code {code}")

    def build_extension(self, ext: Extension) -> None:
        self._output = []
        try:
            super().build_extension(ext)
        except Exception as e:
            why = "\n".join([str(e)[:300]] + self._output)
            self._failed[ext.name] = why
            bar = "*" * 78
            print(f"\n{bar}\nbpe-gui: the C extension {ext.name} was NOT built:\n{why}\n\n"
                  "The install goes on and uses the slow pure-Python fallback in its place.\n"
                  "Install a C compiler (gcc, clang or Visual Studio's C++ build tools) and "
                  f"reinstall to get the C engine.\n{bar}\n", file=sys.stderr)
            raise

    def copy_extensions_to_source(self) -> None:
        # (an in-place build: the extensions, and their record, beside the sources)
        super().copy_extensions_to_source()
        record = getattr(self, "_record", None)
        if record is not None and record.is_file():
            package = self.get_finalized_command("build_py").get_package_dir("bpe_gui.engine")
            self.copy_file(str(record), str(Path(package) / BUILD_RECORD), level=self.verbose)

    def _write_record(self, msvc: bool) -> None:
        names = [e.name for e in self.extensions]
        if not names:
            return
        where = Path(self.get_ext_fullpath("bpe_gui.engine.train._core")).parent.parent
        where.mkdir(parents=True, exist_ok=True)
        record = {"built": [n for n in names if n not in self._failed],
                  "failed": self._failed,
                  "no_simd": NO_SIMD,
                  "compiler": self.compiler.compiler_type,
                  "cflags": (MSVC_FLAGS if msvc else CFLAGS) + os.environ.get("CFLAGS", "").split()}
        self._record = where / BUILD_RECORD
        self._record.write_text(json.dumps(record, indent=1) + "\n", "utf-8")
        if self._failed:
            print(f"bpe-gui: {len(self._failed)} of {len(names)} C extensions were not built "
                  f"({', '.join(self._failed)}); see {where / BUILD_RECORD}", file=sys.stderr)


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        # the training core (plain C in core/) and its Python type
        ext("train._core", files("python/coremodule.c", "python/core_columns.c") + CORE, ("core",)),
        ext("tokenizers._encode", files("python/encodemodule.c", "imported/offsets.c") + MERGE
            + WORDCACHE + SCAN_SHARED,
            ("merge", "scan", "imported")),
        ext("corpus._count", files("python/countmodule.c") + COUNT + SCAN_SHARED,
            ("count", "scan")),
        ext("text._scan", files("python/scanmodule.c", "text/normal_form.c", "text/special_find.c") + SCAN,
            ("scan", "text")),
        # imported tokenizers (without it they use engine/tokenizers/imported/_pymodel.py)
        ext("tokenizers.imported._pipeline", files("python/pipelinemodule.c", "python/pipeline_spm.c",
                                                  "python/pipeline_hf.c", "merge/wordcache.c")
            + IMPORTED + MERGE, ("imported", "merge")),
    ]
)
