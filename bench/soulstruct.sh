#!/usr/bin/env bash
# Reads the corpus's SDK 2015.1 tagfiles with soulstruct-havok 1.5.0 (Python 3.13, in a venv made
# here) and with hkgen, taking turns, and prints both throughputs and their ratio for each round and
# the median ratio.
#
#   bench/soulstruct.sh            # corpus at $HKGEN_CORPUS, else ../shared/corpus
#   ROUNDS=5 bench/soulstruct.sh   # more rounds (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${HKGEN_CORPUS:-$(cd .. && pwd)/shared/corpus}"
venv="${SOULSTRUCT_VENV:-target/soulstruct-venv}"
# pyenv's shim for python3.13 fails unless 3.13 is selected, so take the interpreter itself.
python="${PYTHON313:-$(ls -d "$HOME"/.pyenv/versions/3.13*/bin/python 2>/dev/null | tail -n 1)}"
[ -x "$python" ] || python=$(command -v python3.13)
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
    # colorama is imported by soulstruct-havok but not declared as a dependency.
    "$venv/bin/pip" install -q soulstruct-havok==1.5.0 colorama
fi
mapfile -t files < <(awk -F'\t' 'NR > 1 && $4 == "tag0" && $5 == "20150100" { print $1 }' "$corpus/MANIFEST.tsv" | sed "s|^|$corpus/|")
[ "${#files[@]}" -gt 0 ] || { echo "no SDK 2015.1 tagfiles in $corpus" >&2; exit 1; }

# The two take turns, ROUNDS times (default 3): on a shared machine whose speed drifts, each ratio
# compares runs seconds apart, and the median ratio is the figure.
rounds="${ROUNDS:-3}"
cargo build -q --release --example read_throughput
ratios=()
for round in $(seq 1 "$rounds"); do
    ss=$("$venv/bin/python" - "${files[@]}" 2>/dev/null <<'PY'
import sys, time
from soulstruct.havok.core import HKX
data = [open(p, "rb").read() for p in sys.argv[1:]]
n = sum(map(len, data)); passes = 0; t0 = time.perf_counter()
while passes == 0 or time.perf_counter() - t0 < 5:
    for b in data:
        HKX.from_bytes(b)
    passes += 1
dt = time.perf_counter() - t0
print(f"{n * passes / dt / 1e6:.4f}")
PY
)
    # soulstruct prints a warning about a Windows-only DLL on stdout; the figure is the last line.
    ss=$(echo "$ss" | tail -n 1)
    ours=$(target/release/examples/read_throughput "${files[@]}")
    ours_mbs=$(echo "$ours" | sed -E 's/.* ([0-9.]+) MB\/s$/\1/')
    ratio=$(awk -v a="$ours_mbs" -v b="$ss" 'BEGIN { printf "%.0f", a / b }')
    ratios+=("$ratio")
    echo "round $round: soulstruct-havok 1.5.0 $ss MB/s, hkgen $ours_mbs MB/s, ${ratio}x"
done
echo "files: ${#files[@]} SDK 2015.1 tagfiles; hkgen: $ours"
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "ratio: ${median}x (median of $rounds rounds)"
