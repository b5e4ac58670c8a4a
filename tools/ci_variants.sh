#!/usr/bin/env bash
# The C built the ways other machines build it, in a copy of the tree in a temporary
# folder (the in-place build of the checkout is left alone):
#   scalar  clang -Wall -Wextra -Werror -funsigned-char, BPE_GUI_NO_SIMD=1 and
#           BPE_NO_MREMAP: every vector loop compiled out and char unsigned (as an arm64
#           build gets), the core's large arrays grown by realloc as off Linux; tested on
#           the conformance subset (tools/conformance_tests.txt: every tokenizer kind
#           against tiktoken / tokenizers, the scanner against regex, the trainer against
#           its oracle), not the whole suite
#   clang   clang -Wall -Wextra -Werror with the vector code in: built, not tested (the
#           main suite tests the vector code as gcc builds it; a conformance run costs
#           minutes of CI, a build seconds)
# .ci/run calls this after the main suite; by hand:
#   tools/ci_variants.sh [scalar] [clang]    (no argument: both)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bpe-gui-variants.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# the conformance subset (tools/conformance_tests.txt: one path a line, # comments)
mapfile -t SUBSET < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' tools/conformance_tests.txt)
[ ${#SUBSET[@]} -gt 0 ] || { echo "ci_variants: tools/conformance_tests.txt lists no test" >&2; exit 1; }

# variant NAME test|build VAR=VALUE...: build the copy with those variables set, then
# (test) run the conformance subset on it
variant() {
    local name=$1 what=$2
    shift 2
    local dir=$WORK/$name start=$SECONDS
    mkdir -p "$dir"
    cp -r "$ROOT"/bpe_gui "$ROOT"/tests "$ROOT"/resources "$ROOT"/setup.py \
        "$ROOT"/pyproject.toml "$ROOT"/MANIFEST.in "$dir"/
    find "$dir" \( -name '*.so' -o -name '*.pyd' -o -name '_build.json' -o -name __pycache__ \) \
        -prune -exec rm -rf {} +
    echo "== variant $name ($*)"
    if ! (cd "$dir" && env "$@" python setup.py build_ext --inplace -j 2 >build.log 2>&1); then
        cat "$dir/build.log"
        echo "ci_variants: $name: the build stopped" >&2
        return 1
    fi
    # every extension built (setup.py records the ones that failed, which would
    # otherwise leave the slow Python fallback to be tested), and from this copy
    if ! (cd "$dir" && PYTHONPATH=$dir python - <<'EOF'
import importlib, json, os, sys
record = json.load(open("bpe_gui/engine/_build.json"))
if record["failed"]:
    print("not built:", *(f"{k}\n{v}" for k, v in record["failed"].items()), sep="\n")
    sys.exit(1)
for name in record["built"]:
    mod = importlib.import_module(name)
    if not os.path.abspath(mod.__file__).startswith(os.getcwd() + os.sep):
        sys.exit(f"{name} was loaded from {mod.__file__}, not from this build")
EOF
    ); then
        grep -iE "warning|error" "$dir/build.log" | head -50 || true
        echo "ci_variants: $name: an extension was not built" >&2
        return 1
    fi
    # (set -e does not reach inside a function called before ||: every step returns)
    if [ "$what" = test ] && ! (cd "$dir" && env "$@" PYTHONPATH="$dir" python -m pytest -q \
        -p no:cacheprovider "${SUBSET[@]}"); then
        echo "ci_variants: $name: the conformance tests failed" >&2
        return 1
    fi
    echo "== variant $name ($what) passed in $((SECONDS - start)) s"
}

wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(scalar clang)
command -v clang >/dev/null ||
    { echo "ci_variants: clang is not installed (Debian: apt-get install clang)" >&2; exit 1; }
CLANG=(CC=clang LDSHARED="clang -shared")
status=0
for v in "${wanted[@]}"; do
    case $v in
    scalar)
        variant scalar test "${CLANG[@]}" BPE_GUI_NO_SIMD=1 \
            CFLAGS="-Wall -Wextra -Werror -funsigned-char -DBPE_NO_MREMAP" || status=1 ;;
    clang) variant clang build "${CLANG[@]}" CFLAGS="-Wall -Wextra -Werror" || status=1 ;;
    *)
        echo "ci_variants: unknown variant $v (scalar, clang)" >&2
        status=1
        ;;
    esac
done
exit $status
