#!/bin/sh
# A "C compiler" for the tests that build a C program and run it (tests/engine/train/
# test_c_core.py, tests/engine/tokenizers/test_c_encoder.py): it builds for arm64 (static,
# Debian's gcc-aarch64-linux-gnu) and leaves at the -o path a script that runs the arm64
# program under qemu-aarch64 (Debian's qemu-user), so those tests run the C on arm64:
#
#   CC=tools/cc_arm64_qemu.sh python -m pytest -n 0 -m "slow or not slow" \
#       tests/engine/train/test_c_core.py tests/engine/tokenizers/test_c_encoder.py
#
# No sanitizers (the tests then build without them).
set -eu
out=""
prev=""
for a in "$@"; do
    case $a in -fsanitize=*) echo "cc_arm64_qemu: no sanitizers here" >&2; exit 1 ;; esac
    [ "$prev" = "-o" ] && out=$a
    prev=$a
done
[ -n "$out" ] || exec aarch64-linux-gnu-gcc -static "$@"
# the same arguments, the program written to OUT.arm64
prev=""
for a in "$@"; do
    shift
    if [ "$prev" = "-o" ]; then set -- "$@" "$out.arm64"; else set -- "$@" "$a"; fi
    prev=$a
done
aarch64-linux-gnu-gcc -static "$@"
printf '#!/bin/sh\nexec qemu-aarch64 "%s.arm64" "$@"\n' "$out" >"$out"
chmod +x "$out"
