#!/usr/bin/env bash
# Fuzzes one target for a while, from a copy of its binary (so that rebuilding while it runs, or
# minimizing a crash with the binary that found it, both work).
#
#   fuzz/run.sh TARGET [SECONDS] [RUNS]    # defaults: 1800 s, 10^7 executions, whichever first
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); RUSTC_BOOTSTRAP=1 lets it build on stable.
# HKGEN_FUZZ_BIN=path runs an already built target binary instead of building one;
# HKGEN_FUZZ_NO_BUILD=1 runs the one `cargo fuzz build -O` left in fuzz/target/ (build every target
# once, then run each from there: see README.md). The fuzzer runs under `nice -n 19`
# (HKGEN_FUZZ_NICE to change), one job.
# Work folders go to ${HKGEN_FUZZ_WORK:-${TMPDIR:-/tmp}/hkgen-fuzz}/TARGET: corpus/ (what the
# fuzzer grew), crashes/ (artifacts, minimized copies as *.min), fuzz.log and the binary used.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$1"; secs="${2:-1800}"; runs="${3:-10000000}"
seeds="${HKGEN_FUZZ_SEEDS:-${TMPDIR:-/tmp}/hkgen-fuzz-seeds}"
work="${HKGEN_FUZZ_WORK:-${TMPDIR:-/tmp}/hkgen-fuzz}/$target"
[ -d "$seeds/$target" ] || "$here/seeds.sh" "$seeds"
mkdir -p "$work/corpus" "$work/crashes"
built="$here/target/x86_64-unknown-linux-gnu/release/$target"
# The copy is named by the commit the binary was built from (build.sh records it in
# TARGET.commit; a build by this script records it too), not the checkout's HEAD at run time.
built_at() { cat "$built.commit" 2>/dev/null || echo "unknown-build"; }
if [ -n "${HKGEN_FUZZ_BIN:-}" ]; then
    bin="$work/$target-given"
    cp "$HKGEN_FUZZ_BIN" "$bin"
elif [ "${HKGEN_FUZZ_NO_BUILD:-0}" = 1 ]; then
    [ -x "$built" ] || { echo "no $built: run fuzz/build.sh $target first" >&2; exit 1; }
    bin="$work/$target-$(built_at)"
    cp "$built" "$bin"
else
    "$here/build.sh" "$target"
    bin="$work/$target-$(built_at)"
    cp "$built" "$bin"
fi
echo "fuzzing $bin"
# -max_len bounds an input as the seeds are bounded; the memory limits make an allocation out of
# proportion to a 128 KiB input a finding.
nice -n "${HKGEN_FUZZ_NICE:-19}" "$bin" "$work/corpus" "$seeds/$target" \
    -max_len=131072 -max_total_time="$secs" -runs="$runs" \
    -rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=10 \
    -artifact_prefix="$work/crashes/" -print_final_stats=1 2>&1 | tee "$work/fuzz.log" | grep -E "INITED|DONE|ERROR|SUMMARY|panicked" || true
for c in "$work"/crashes/crash-* "$work"/crashes/oom-* "$work"/crashes/timeout-* "$work"/crashes/leak-*; do
    [ -f "$c" ] || continue
    [ -f "$c.min" ] || "$bin" -minimize_crash=1 -runs=20000 -exact_artifact_path="$c.min" "$c" > /dev/null 2>&1 || true
done
grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" "$work/fuzz.log" || true
ls "$work/crashes"
