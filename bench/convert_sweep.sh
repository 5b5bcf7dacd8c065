#!/usr/bin/env bash
# Converts every corpus packfile and TAG0 file under 1 MB of SDK 2010.2, 2014.1, 2015.1, 2016.2 and
# 2018.1 to each of the four other SDKs with `hkgen convert --sdk T --allow-loss` (the corpus's
# compendia passed for TCRF files), and prints one line per conversion (`ok`, or `FAIL` with the
# message) and the counts: what the converter does on files no test names. A panic is a failure.
#
#   bench/convert_sweep.sh [HKGEN]   # default target/debug/hkgen, built with
#                                    # --features cli,hk2010_2,hk2014_1,hk2015_1,hk2016_2,hk2018_1
set -uo pipefail
cd "$(dirname "$0")/.."
corpus="${HKGEN_CORPUS:-$(cd .. && pwd)/shared/corpus}"
hkgen="${1:-target/debug/hkgen}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
compendia=()
while IFS= read -r c; do compendia+=(--compendium "$corpus/$c"); done < <(awk -F'\t' 'NR > 1 && $4 == "tcm0" { print $1 }' "$corpus/MANIFEST.tsv")
ok=0; failed=0; panics=0
while IFS=$'\t' read -r rel sdk; do
    case "$sdk" in *2010.2*) s=2010.2 ;; *2014.1*) s=2014.1 ;; 20150100) s=2015.1 ;; 20160200) s=2016.2 ;; 20180100) s=2018.1 ;; *) continue ;; esac
    for t in 2010.2 2014.1 2015.1 2016.2 2018.1; do
        [ "$t" = "$s" ] && continue
        rm -f "$out/out.hkx"
        if msg=$("$hkgen" convert --sdk "$t" --allow-loss "${compendia[@]}" "$corpus/$rel" "$out/out.hkx" 2>&1 >/dev/null); then
            ok=$((ok + 1)); echo "ok $rel -> $t"
        else
            failed=$((failed + 1)); echo "FAIL $rel -> $t: $(echo "$msg" | tail -n 3 | head -c 300)"
            if echo "$msg" | grep -q panicked; then panics=$((panics + 1)); fi
        fi
    done
done < <(awk -F'\t' 'NR > 1 && $3 < 1000000 && ($4 == "packfile" || $4 == "tag0") { print $1 "\t" $5 }' "$corpus/MANIFEST.tsv")
echo "$((ok + failed)) conversions: $ok written, $failed failed ($panics panics)"
[ "$failed" -eq 0 ]
