"""The C reads as MSVC reads it: every .c file under csrc/ compiles (syntax only) for
Windows on x64 and on ARM64 with _MSC_VER defined and __GNUC__ not, so Windows users get
the C engine and not the slow Python fallback.

clang plays MSVC (`--target=*-pc-windows-msvc -fms-compatibility`, __clang__ taken away),
with the C library's headers from mingw-w64 and Python's headers under a Windows
pyconfig.h written here. clang itself still accepts gcc's builtins and attributes, so the
check also reads the preprocessed text: no gcc-only spelling (`__builtin_*`, `__atomic_*`,
`__attribute__`...) may come out of a csrc/ line there. They belong in util/portable.h and
util/atomics.h, behind `#if defined(__GNUC__)`.

Needs clang and the mingw-w64 headers (Debian: `apt-get install clang
mingw-w64-x86-64-dev`; .ci/run installs them). Without them the test is skipped and says
which is missing.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CSRC = ROOT / "bpe_gui" / "engine" / "csrc"
MINGW_INCLUDE = [Path("/usr/x86_64-w64-mingw32/include"), Path("/usr/share/mingw-w64/include")]
TARGETS = ("x86_64-pc-windows-msvc", "aarch64-pc-windows-msvc")

# what MSVC does not have: gcc's builtins, atomics, attributes, inline assembly, typeof,
# 128-bit integers, thread-local by keyword
GNU_ONLY = re.compile(r"\b(__builtin_\w+|__atomic_\w+|__sync_\w+|__attribute__|__typeof__|"
                      r"typeof|__int128|__thread|__asm__|asm)\b")
# builtins clang's own headers put behind standard macros (offsetof, va_arg) and behind
# intrinsics that are macros there (_mm_shuffle_epi32): MSVC's headers define the same
# names their way
STANDARD_MACROS = re.compile(r"__builtin_(offsetof|va_\w+|ia32_\w+)")

# Undoes what mingw-w64's headers do when they see a compiler that is not gcc: they
# define __attribute__ away (which would hide our own uses and break clang's intrinsics
# headers) and put MSVC's __declspec where a declaration cannot take it. clang's intrin.h
# declares MSVC's _setjmp, which mingw's setjmp.h declares otherwise: its jmp_buf is
# given here instead.
PRELUDE = """\
#include <_mingw.h>
#undef __MINGW_ATTRIB_NORETURN
#define __MINGW_ATTRIB_NORETURN
#undef __MINGW_ATTRIB_DEPRECATED
#define __MINGW_ATTRIB_DEPRECATED
#undef __MINGW_NOTHROW
#define __MINGW_NOTHROW
#undef __attribute__
#define _INC_SETJMP
typedef __declspec(align(16)) struct { unsigned __int64 Part[2]; } bpe_jb_part;
typedef bpe_jb_part jmp_buf[16];
#include <math.h>
#undef isnan
#define isnan(x) _isnan((double)(x))
"""
# mingw-w64's x86-64 headers know no ARM64 va_list: clang's stdarg.h stands in
PRELUDE_ARM64 = """\
#define _INC_VADEFS
#include <stdarg.h>
#define _VA_LIST_DEFINED
#define _crt_va_start va_start
#define _crt_va_end va_end
#define _crt_va_arg va_arg
#define _crt_va_copy va_copy
void __prefetch(const void *); /* MSVC's arm64intr.h has it, clang's headers do not */
"""
# What a Windows build of CPython configures (64-bit: long is 32 bits, Py_ssize_t 64),
# so Python.h reads as it does on Windows.
PYCONFIG = """\
#ifndef Py_CONFIG_H
#define Py_CONFIG_H
#define MS_WIN32
#define MS_WIN64
#define MS_WINDOWS
#define NT_THREADS
#define WITH_THREAD
#define Py_ENABLE_SHARED 1
#define HAVE_DECLSPEC_DLL
#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_VOID_P 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_TIME_T 8
#define SIZEOF_WCHAR_T 2
#define SIZEOF_FLOAT 4
#define SIZEOF_DOUBLE 8
#define SIZEOF_FPOS_T 8
#define SIZEOF_OFF_T 4
#define SIZEOF__BOOL 1
#define ALIGNOF_SIZE_T 8
#define ALIGNOF_LONG 4
typedef __int64 Py_ssize_t;
typedef Py_ssize_t ssize_t;
#define HAVE_PY_SSIZE_T 1
#define HAVE_SSIZE_T 1
#define PY_SSIZE_T_MAX _I64_MAX
#define Py_hash_t Py_ssize_t
#define HAVE_STDDEF_H 1
#define HAVE_STDLIB_H 1
#define HAVE_WCHAR_H 1
#define HAVE_ERRNO_H 1
#define HAVE_SIGNAL_H 1
#define HAVE_IO_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_LARGEFILE_SUPPORT
#define DOUBLE_IS_LITTLE_ENDIAN_IEEE754 1
#define PY_LONG_LONG long long
#define PY_LLONG_MIN LLONG_MIN
#define PY_LLONG_MAX LLONG_MAX
#define PY_ULLONG_MAX ULLONG_MAX
#define Py_IS_NAN _isnan
#define Py_IS_INFINITY(X) (!_finite(X) && !_isnan(X))
#define Py_IS_FINITE(X) _finite(X)
#include <io.h>
#include <basetsd.h>
#include <float.h>
#include <stdio.h>
#endif
"""


def _toolchain() -> tuple[str, Path]:
    clang = shutil.which("clang")
    mingw = next((p for p in MINGW_INCLUDE if (p / "_mingw.h").is_file()), None)
    missing = [name for name, found in (("clang", clang), ("mingw-w64 headers", mingw))
               if not found]
    if missing:
        pytest.skip(f"the MSVC reading of the C needs {' and '.join(missing)} "
                    "(Debian: apt-get install clang mingw-w64-x86-64-dev)")
    assert clang and mingw
    return clang, mingw


@pytest.fixture(scope="module")
def msvc_flags(tmp_path_factory) -> dict[str, list[str]]:
    """clang's arguments that read a file as MSVC would, by target."""
    clang, mingw = _toolchain()
    tmp = tmp_path_factory.mktemp("msvc")
    python = tmp / "python"
    shutil.copytree(sysconfig.get_paths()["include"], python)
    (python / "pyconfig.h").write_text(PYCONFIG)
    (tmp / "prelude.h").write_text(PRELUDE)
    (tmp / "prelude_arm64.h").write_text(PRELUDE_ARM64 + f'#include "{tmp / "prelude.h"}"\n')
    flags = {}
    for target in TARGETS:
        prelude = tmp / ("prelude_arm64.h" if target.startswith("aarch64") else "prelude.h")
        # C11 (MSVC's /std:c11); -Wvla: MSVC has no variable-length arrays; -Wgnu:
        # statement expressions, case ranges and other gcc extensions
        flags[target] = [clang, f"--target={target}", "-fms-compatibility", "-std=c11",
                         "-Werror", "-Wvla", "-Wpointer-arith", "-Wgnu", "-U__clang__", "-include", str(prelude),
                         "-idirafter", str(mingw), "-idirafter", str(python), f"-I{CSRC}"]
    return flags


def gnu_only_uses(preprocessed: str, root: Path = CSRC) -> list[str]:
    """The gcc-only spellings left in lines that come from files under root, as
    "file:line: word" (line markers `# N "file"` say where each line comes from)."""
    found, where, line_no = [], None, 0
    for line in preprocessed.splitlines():
        marker = re.match(r'#\s*(\d+)\s+"([^"]*)"', line)
        if marker:
            line_no, name = int(marker.group(1)), marker.group(2)
            path = Path(name)
            where = path if path.is_absolute() and path.is_relative_to(root) else None
            if where is None and not path.is_absolute() and (root / path).is_file():
                where = root / path
            continue
        if where is not None:
            for word in GNU_ONLY.findall(line):
                if not STANDARD_MACROS.fullmatch(word):
                    found.append(f"{where.relative_to(root).as_posix()}:{line_no}: {word}")
        line_no += 1
    return found


def _c_files() -> list[Path]:
    return sorted(CSRC.rglob("*.c"))


def _read_as_msvc(args: list[str], path: Path) -> tuple[str, str, str]:
    """(file, syntax errors, preprocessed text) for one file"""
    syntax = subprocess.run(args + ["-fsyntax-only", str(path)], capture_output=True,
                            text=True, cwd=CSRC)
    pre = subprocess.run(args + ["-E", str(path)], capture_output=True, text=True, cwd=CSRC)
    return path.relative_to(CSRC).as_posix(), syntax.stderr.strip(), pre.stdout


def test_gnu_only_uses_finds_a_builtin_in_a_csrc_line():
    text = (f'# 1 "{CSRC / "merge" / "merge.c"}"\nint a;\nint b = __builtin_ctz(x);\n'
            f'# 7 "/usr/include/stdlib.h"\nint c = __builtin_expect(1, 1);\n'
            f'# 9 "{CSRC / "util" / "load.h"}"\nsize_t o = __builtin_offsetof(T, f);\n')
    assert gnu_only_uses(text) == ["merge/merge.c:2: __builtin_ctz"]


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
def test_c_reads_as_msvc(msvc_flags, target):
    args = msvc_flags[target]
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda p: _read_as_msvc(args, p), _c_files()))
    assert len(results) >= 30, "fewer C files than expected: is CSRC right?"
    errors = [f"{name}:\n{err}" for name, err, _ in results if err]
    assert errors == [], "\n\n".join(errors)
    gnu = [use for _, _, pre in results for use in gnu_only_uses(pre)]
    assert gnu == [], ("gcc-only spellings in the C as MSVC reads it (use util/portable.h "
                       "or util/atomics.h):\n" + "\n".join(gnu))
    # the MSVC branches were the ones read: the encoder's seqlock on Interlocked intrinsics
    encoder = next(pre for name, _, pre in results if name == "merge/encoder.c")
    assert "_InterlockedCompareExchange" in encoder


# an index computed by a call that sets v through &v, with v read in the same expression
# (`t[f(x, &v)] |= v`): the two are unsequenced, so the compiler may read v first
OUT_AND_READ = re.compile(r"\[[^\];]*&\s*(\w+)\s*\)[^\];]*\][^;]*?(?<![\w&])\1\b")


def _code(path: Path) -> str:
    text = re.sub(r"/\*.*?\*/", " ", path.read_text("utf-8"), flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


@pytest.mark.regression
def test_no_out_parameter_is_read_in_the_expression_that_sets_it():
    """gcc evaluated `filter[filter_word(a, b, &mask)] |= mask` call first, clang read mask
    first: built with clang, the merge filters, the short-key filter and the token-boundary
    edges took the previous key's bits (or none), and tiktoken files encoded wrong."""
    assert OUT_AND_READ.search("m->filter[filter_word(a, b, &mask)] |= mask;")
    found = [f"{p.relative_to(CSRC).as_posix()}: {' '.join(m.group(0).split())}"
             for p in sorted(CSRC.rglob("*.[ch]")) for m in OUT_AND_READ.finditer(_code(p))]
    assert found == []
