#!/usr/bin/env bash
# Builds fuzz targets once for many runs and records the commit they were built from.
#
#   fuzz/build.sh                      # every target but `typed`
#   fuzz/build.sh TARGET...            # these targets (`typed` gets its feature)
#
# Runs `cargo fuzz build -O` (RUSTC_BOOTSTRAP=1, under nice) and writes, beside each binary it
# built, TARGET.commit: `git describe --always --dirty` of the checkout at the start of the build.
# `run.sh` names its copy of a binary by that file, so a run says which code it fuzzed even when
# the checkout moved on since the build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/target/x86_64-unknown-linux-gnu/release"
commit="$(git -C "$here" describe --always --dirty)"
cd "$here"
if [ $# -eq 0 ]; then
    RUSTC_BOOTSTRAP=1 nice cargo fuzz build -O
    targets="$(cargo fuzz list | grep -vx typed)"
else
    targets="$*"
    for t in "$@"; do
        features=""
        [ "$t" = typed ] && features="--features typed"
        RUSTC_BOOTSTRAP=1 nice cargo fuzz build -O $features "$t"
    done
fi
for t in $targets; do
    [ -x "$out/$t" ] && echo "$commit" > "$out/$t.commit"
done
echo "built at $commit: $(echo $targets)"
