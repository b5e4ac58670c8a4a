#!/usr/bin/env bash
# The project installed as a new user installs it, in a new venv, and tested there: a
# machine that already has the dependencies (CI's, a developer's) keeps the releases it
# has, since pip upgrades nothing that satisfies a `>=`, so a new release of regex or
# setuptools that breaks the suite would otherwise show first on a user's machine.
#   newest  every dependency (and pip, setuptools) at its newest release
#   oldest  regex and tokenizers at the oldest releases pyproject.toml's `>=` allows,
#           the rest newest (the releases the conformance tests' oracles depend on most)
# Each run: a copy of the tree, `pip install -e ".[test,dask,analysis]"` in the venv (the
# C built in place), the versions it got, then the conformance tests
# (tools/conformance_tests.txt) and the tests of what depends on the releases: the
# presets' Oniguruma data and start-up, the Unicode tables of each library, packaging.
# By hand:
#   tools/ci_fresh_deps.sh [newest] [oldest]    (no argument: both)
# A run in two halves, the install (network, mostly) while something else runs, as
# .ci/run does (the install while its own install and main suite run, the tests after the
# C variants); FOLDER keeps the copies and venvs between the two, the second removes it:
#   tools/ci_fresh_deps.sh --install FOLDER newest ...; tools/ci_fresh_deps.sh --test FOLDER newest
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
phases=(install test)
if [ "${1-}" = --install ] || [ "${1-}" = --test ]; then
    [ $# -ge 2 ] || { echo "ci_fresh_deps: $1 FOLDER: no folder given" >&2; exit 1; }
    phases=("${1#--}")
    WORK=$2
    shift 2
    mkdir -p "$WORK"
    [ "${phases[0]}" = install ] || trap 'rm -rf "$WORK"' EXIT
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/bpe-gui-fresh.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
fi

# the oldest releases that pyproject.toml's floors (regex>=2025.10.22, tokenizers>=0.23.1) allow
OLDEST=(regex==2025.10.22 tokenizers==0.23.1)
mapfile -t TESTS < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' tools/conformance_tests.txt)
[ ${#TESTS[@]} -gt 0 ] || { echo "ci_fresh_deps: tools/conformance_tests.txt lists no test" >&2; exit 1; }
TESTS+=(
    tests/engine/formats/test_onig_presets.py
    tests/engine/test_startup.py
    tests/engine/text/test_scan_versions.py
    tests/engine/text/test_dialects.py
    tests/engine/tokenizers/imported/test_unicode_exact.py
    tests/test_packaging.py
)

# fresh NAME PIP_ARGS...: a new venv with the project and PIP_ARGS installed, then the tests
# (each of the two only if in phases)
fresh() {
    local name=$1 start=$SECONDS
    shift
    if [[ " ${phases[*]} " = *" install "* ]]; then
        fresh_install "$name" "$@" || return 1
    fi
    if [[ " ${phases[*]} " = *" test "* ]]; then
        fresh_test "$name" || return 1
    fi
    echo "== fresh dependencies: $name (${phases[*]}) passed in $((SECONDS - start)) s"
}

fresh_install() {
    local name=$1
    shift
    local dir=$WORK/$name venv=$WORK/$name-venv
    rm -rf "$dir" "$venv"
    mkdir -p "$dir"
    # (bench/: the encoder tests' hard texts come from bench/corpora.py)
    cp -r "$ROOT"/bpe_gui "$ROOT"/tests "$ROOT"/resources "$ROOT"/bench "$ROOT"/setup.py \
        "$ROOT"/pyproject.toml "$ROOT"/MANIFEST.in "$ROOT"/README.md "$dir"/
    find "$dir" \( -name '*.so' -o -name '*.pyd' -o -name '_build.json' -o -name __pycache__ \) \
        -prune -exec rm -rf {} +
    echo "== fresh dependencies: $name $*"
    python -m venv "$venv"
    # (the venv's own python: nothing of the machine's site-packages)
    if ! (cd "$dir" && "$venv"/bin/python -m pip install -q --upgrade pip setuptools wheel &&
          "$venv"/bin/python -m pip install -q --upgrade --upgrade-strategy eager \
              -e ".[test,dask,analysis]" "$@" >"$dir/install.log" 2>&1); then
        tail -40 "$dir/install.log"
        echo "ci_fresh_deps: $name: the install failed" >&2
        return 1
    fi
    "$venv"/bin/python -m pip freeze --all | grep -iE '^(regex|tokenizers|tiktoken|setuptools|pyside6)' |
        tr '\n' ' '
    echo
    if ! (cd "$dir" && "$venv"/bin/python -c "
import json, sys
record = json.load(open('bpe_gui/engine/_build.json'))
sys.exit('not built: ' + ', '.join(record['failed']) if record['failed'] else 0)"); then
        echo "ci_fresh_deps: $name: an extension was not built" >&2
        return 1
    fi
    touch "$venv/.installed"
}

fresh_test() {
    local name=$1 dir=$WORK/$1 venv=$WORK/$1-venv
    [ -f "$venv/.installed" ] ||
        { echo "ci_fresh_deps: $name: not installed in $WORK (--install first)" >&2; return 1; }
    # (set -e does not reach inside a function called before ||: every step returns)
    if ! (cd "$dir" && BPE_GUI_CACHE_DIR="$WORK/$name-cache" "$venv"/bin/python -m pytest \
        -q -p no:cacheprovider -n 2 -m "not slow" "${TESTS[@]}"); then
        echo "ci_fresh_deps: $name: the tests failed" >&2
        return 1
    fi
}

wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(newest oldest)
status=0
for w in "${wanted[@]}"; do
    case $w in
    newest) fresh newest || status=1 ;;
    oldest) fresh oldest "${OLDEST[@]}" || status=1 ;;
    *)
        echo "ci_fresh_deps: unknown run $w (newest, oldest)" >&2
        status=1
        ;;
    esac
done
exit $status
