#!/usr/bin/env bash
# Training and encoding benchmarks on a lent many-core machine with no network, in one go.
#
#   bench/device_bench.sh prepare   # here: cp312 extensions, peer wheels, corpora, files
#   bench/device_bench.sh run [OUTDIR]   # there, from the repository root (carry .dev and .whl)
#
# `prepare` needs a Python 3.12 (PY312) to build the extensions for the lent machine's
# Python and the bench data folder (BPE_GUI_BENCH_DATA, as bench/corpora.py and
# bench_encode_peers.py leave it after a run here).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}

if [ "$mode" = prepare ]; then
    PY312=${PY312:-python3.12}
    DATA=${BPE_GUI_BENCH_DATA:-$HOME/.cache/bpe-gui-bench}
    SHARED=${BPE_GUI_CORPORA_DIR:-../shared/corpora}
    "$PY312" setup.py -q build_ext --inplace
    mkdir -p .dev/corpora .whl
    find bpe_gui -name '*cpython-312*.so' | tar -cf .dev/so312.tar -T -
    cp "$SHARED"/{en-gutenberg-20mb,code-python-stdlib.py,zh-four-classic-novels}.txt.xz .dev/corpora/
    tar -C "$DATA" -cf - files c-include-20mb.txt | xz -T0 -6 > .dev/data.tar.xz
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 -d .whl gigabpe==0.1.0 gigatoken==0.10.0
    du -sh .dev .whl
    exit 0
fi

set +e   # one failing step must not cost the later ones
OUTDIR=${2:-${OUT:-/tmp/device-out}}
mkdir -p "$OUTDIR" /tmp/data
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
export BPE_GUI_CORPORA_DIR=$PWD/.dev/corpora BPE_GUI_BENCH_DATA=/tmp/data
export TIKTOKEN_CACHE_DIR=/tmp/data/tiktoken-cache
tar -xf .dev/so312.tar
tar -C /tmp/data -xJf .dev/data.tar.xz
{ lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket|MHz|L3'; nproc; python3 -V; uptime; } \
    | tee "$OUTDIR/machine.txt"
step() { echo "=== $(date +%T) $*"; }
T=${STEPS:-ids,train,phases,count,threads,encode}
Q=${QUICK:+--quick}   # QUICK=1: check the script on small slices

if [[ $T == *ids* ]]; then   # our ids against tiktoken's and HF's on this CPU's routes
    step ids
    python3 bench/check_encode_ids.py --data /tmp/data 2>&1 | tee "$OUTDIR/ids.txt"
fi
if [[ $T == *train* ]]; then
    step train
    # BEFORE=DIR (a checkout with its extensions built): its rows too, as ours-before
    python3 bench/bench_train_peers.py --workloads en20,py256 --engines ours,ours-lines,gigabpe \
        --rounds "${ROUNDS:-10}" ${BEFORE:+--before "$BEFORE"} $Q 2>&1 | tee "$OUTDIR/train.txt"
    python3 bench/bench_train_peers.py --workloads en20 --engines ours,gigabpe,hf --rounds 1 $Q \
        2>&1 | tee -a "$OUTDIR/train.txt"
fi
if [[ $T == *phases* ]]; then
    step phases
    for f in /tmp/data/python-256mb.txt /tmp/data/en-gutenberg-20mb.txt; do
        [ -f "$f" ] || continue
        for t in 1 16; do
            python3 -m bpe_gui train "$f" --vocab-size 32000 --threads $t --out /tmp/phase -q \
                --format native 2>&1 | head -2 | sed "s|^|$(basename "$f") x$t: |"
        done
    done | tee "$OUTDIR/phases.txt"
fi
if [[ $T == *threads* ]]; then
    step threads
    python3 bench/bench_train_peers.py --workloads py256,en20 --engines ours,gigabpe \
        --threads 1,4,16 --rounds 1 $Q 2>&1 | tee "$OUTDIR/threads.txt"
fi
if [[ $T == *count* && -z $Q ]]; then
    step count
    python3 bench/bench_count_threads.py --workloads py256,en20 --threads 1,2,4,8,16 --rounds 1 \
        2>&1 | tee "$OUTDIR/count.txt"
fi
if [[ $T == *encode* ]]; then
    step encode
    python3 bench/bench_encode_peers.py --data /tmp/data --libs bpe-gui,gigatoken,tiktoken,hf \
        --files cl100k,o200k,llama3 --texts en,c,zh --repeat 2 $Q \
        --markdown "$OUTDIR/encode.md" 2>&1 | tee "$OUTDIR/encode.txt"
fi
step done
