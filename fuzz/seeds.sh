#!/usr/bin/env bash
# Seed folders for the fuzz targets, made of links to the corpus files (never copies) of at most
# 128 KiB, by the MANIFEST's format column; registry seeds are small dumps cut from the Elden Ring
# registry (each a few types with everything they reference); the crafted hostile files of
# tests/hostile.rs are written as seeds beside the corpus links.
#
# The anim, anim_spline and phive targets' seeds (and tagfile XML of small corpus tagfiles) are
# written by `cargo run --example seeds` (fuzz/examples/seeds.rs: hktypes and hkgen only).
#
#   fuzz/seeds.sh [OUT]     # OUT defaults to ${TMPDIR:-/tmp}/hkgen-fuzz-seeds
#
# HKGEN_FUZZ_CRAFTED=0 skips the crafted seeds of the project's tests (tests/hostile.rs, xml.rs,
# tagfile_xml.rs), whose build compiles the generated classes of every SDK (10-25 minutes on a
# small machine); every other seed needs only hktypes and hkgen.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="${HKGEN_CORPUS:-$(cd "$here/../.." && pwd)/shared/corpus}"
classdata="${HKGEN_CLASSDATA:-$(cd "$here/../.." && pwd)/shared/classdata}"
out="${1:-${TMPDIR:-/tmp}/hkgen-fuzz-seeds}"
[ -f "$corpus/MANIFEST.tsv" ] || { echo "no corpus at $corpus (set HKGEN_CORPUS)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"/{tag0,tcm0,packfile,registry,packfile_xml,tagfile_xml}
awk -F'\t' 'NR > 1 && $3 <= 131072 { print $4 "\t" $1 }' "$corpus/MANIFEST.tsv" |
    while IFS=$'\t' read -r format path; do
        case "$format" in
            tag0 | tcm0 | packfile) ln -sf "$corpus/$path" "$out/$format/$(echo "$path" | tr '/' '_')" ;;
            xml)
                if head -c 512 "$corpus/$path" | grep -q '<hktagfile'; then
                    ln -sf "$corpus/$path" "$out/tagfile_xml/$(echo "$path" | tr '/' '_')"
                else
                    ln -sf "$corpus/$path" "$out/packfile_xml/$(echo "$path" | tr '/' '_')"
                fi
                ;;
        esac
    done
# The anim target: links to the corpus files that hold animations (their MANIFEST class list
# names one); tests/anim_wavelet.rs writes a synthetic wavelet animation's members (`WAVE`) to
# anim/crafted/.
mkdir -p "$out/anim"
awk -F'\t' 'NR > 1 && $3 <= 131072 && ($4 == "tag0" || $4 == "packfile") && $0 ~ /hka(Spline|Delta|Wavelet|Interleaved|Quantized|Predictive)/ { print $1 }' "$corpus/MANIFEST.tsv" |
    while read -r path; do ln -sf "$corpus/$path" "$out/anim/$(echo "$path" | tr '/' '_')"; done
# The typed target reads tagfiles too.
ln -sfn "$out/tag0" "$out/typed"
# The packfile object graph reads packfiles.
ln -sfn "$out/packfile" "$out/packfile_objects"
# The crafted hostile files of tests/hostile.rs (made by the test code, no game data; each at most
# 128 KiB) go to tag0/crafted/ and packfile/crafted/; tests/xml.rs writes its hostile XML and the
# XML of corpus packfiles that carries hkgen: comments to packfile_xml/crafted/; tests/tagfile_xml.rs
# writes the XML of small corpus tagfiles and its hostile XML to tagfile_xml/crafted/. (`cli` builds
# every SDK's classes; the serde derives of --all-features are not needed.)
if [ "${HKGEN_FUZZ_CRAFTED:-1}" != 0 ]; then
    (cd "$here/.." && HKGEN_FUZZ_SEED_DIR="$out" cargo test -q --features cli --test hostile --test xml --test tagfile_xml --test anim_wavelet > /dev/null)
fi
# anim, anim_spline, phive (and more tagfile_xml): made in code, or derived from the corpus into
# OUT (never into the repository).
mkdir -p "$out"/{anim,anim_spline,phive}
(cd "$here" && cargo run -q --example seeds -- "$out" "$corpus")
python3 "$here/registry_seeds.py" "$classdata/eldenring-2018.1-registry.xml" "$out/registry"
# The archive targets: links to the game archives of shared/containers (never copies), every
# archive for every reader (one refuses what is not its format at its first bytes; the fuzzer
# finds the payloads' layouts from there, as hkgen's own unit tests make small binders and SARC).
containers="${HKGEN_CONTAINERS:-$(cd "$corpus/.." && pwd)/containers}"
for t in archive_dcx archive_yaz0 archive_zstd archive_bnd3 archive_bnd4 archive_bhf4 archive_sarc archive_any; do
    mkdir -p "$out/$t"
    for f in "$containers"/*; do
        [ -f "$f" ] && [ "$(basename "$f")" != README.md ] && ln -sf "$f" "$out/$t/$(basename "$f")"
    done
done
for d in "$out"/*; do echo "$(basename "$d"): $(find -L "$d" -type f | wc -l) seeds"; done
