#!/usr/bin/env bash
# hkgen's spline decoder against soulstruct-havok 1.5.0 on every corpus spline animation: makes the
# soulstruct venv as bench/soulstruct.sh does, dumps hkgen's members and frames
# (tests/anim_spline.rs, dump_decoded_for_soulstruct), and runs bench/spline_vs_soulstruct.py.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${SOULSTRUCT_VENV:-target/soulstruct-venv}"
python="${PYTHON313:-$(ls -d "$HOME"/.pyenv/versions/3.13*/bin/python 2>/dev/null | tail -n 1)}"
[ -x "$python" ] || python=$(command -v python3.13)
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
    "$venv/bin/pip" install -q soulstruct-havok==1.5.0 colorama numpy
fi
dump="${SPLINE_DUMP_DIR:-$PWD/target/spline_dump}"
SPLINE_DUMP_DIR="$dump" cargo test -q --release --no-default-features --features cli --test anim_spline dump_decoded_for_soulstruct -- --ignored
"$venv/bin/python" bench/spline_vs_soulstruct.py --dump "$dump" "$@"
