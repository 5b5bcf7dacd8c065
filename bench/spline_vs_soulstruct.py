"""hkgen's spline decoder against soulstruct-havok 1.5.0's on every corpus spline animation.

soulstruct-havok is GPL and runs here as a separate program (its own venv, as bench/soulstruct.sh
makes it); nothing of it is copied into hkgen. Steps:

  1. `cargo test --release --test anim_spline dump_decoded_for_soulstruct -- --ignored` writes,
     per animation, the members of the `hkaSplineCompressedAnimation` as hkgen read them (`data`,
     track and block counts, frames per block, byte order) and hkgen's decoded frames.
  2. This script decodes the same `data` with soulstruct's `SplineCompressedAnimationData`
     (`to_interleaved_transforms`) and compares, per animation:
       - translation: largest component difference / the clip's extent (largest |translation|);
       - scale: largest component difference / the largest |scale|;
       - rotation: largest quaternion component difference, sign-normalised (soulstruct's
         quaternions normalised first, as Havok's runtime normalises after sampling).
     Target: all three <= 1e-4.

  With --encoded, the same for hkgen's re-encoding of each animation at Havok's default
  tolerances (step 1 writes it too): soulstruct must decode hkgen's encoder's data to the frames
  hkgen meant (those hkgen's decoder gives for it).

    bench/spline_vs_soulstruct.py [--dump DIR] [--limit N] [--encoded]   # with the soulstruct venv's python
    (or: bench/spline_vs_soulstruct.sh, which makes the venv, the dump, and runs this)

soulstruct reads transform tracks only (no float tracks), and THREECOMP24/STRAIGHT16 not at all;
an animation it cannot decode is reported with its error.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from soulstruct.havok.spline_compression import SplineCompressedAnimationData


def soulstruct_frames(meta):
    data = list(bytes.fromhex(meta["data"]))
    sd = SplineCompressedAnimationData(
        data=data,
        transform_track_count=meta["tracks"],
        block_count=meta["blocks"],
        big_endian=meta["big_endian"],
    )
    frames = sd.to_interleaved_transforms(meta["frames"], meta["max_frames_per_block"])
    out = np.empty((meta["frames"], meta["tracks"], 10), dtype=np.float64)
    for f, row in enumerate(frames):
        for t, trs in enumerate(row):
            tr, q, s = trs.translation, trs.rotation, trs.scale
            out[f, t, 0:3] = (tr.x, tr.y, tr.z)
            out[f, t, 3:7] = (q.x, q.y, q.z, q.w)
            out[f, t, 7:10] = (s.x, s.y, s.z)
    return out


def compare(ours, theirs):
    t_ext = max(float(np.abs(ours[..., 0:3]).max(initial=0.0)), 1e-6)
    s_ext = max(float(np.abs(ours[..., 7:10]).max(initial=0.0)), 1e-6)
    dt = float(np.abs(ours[..., 0:3] - theirs[..., 0:3]).max(initial=0.0)) / t_ext
    ds = float(np.abs(ours[..., 7:10] - theirs[..., 7:10]).max(initial=0.0)) / s_ext
    q = theirs[..., 3:7]
    q = q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-12)
    a = ours[..., 3:7]
    dq = np.minimum(np.abs(a - q).max(axis=-1), np.abs(a + q).max(axis=-1))
    return dt, float(dq.max(initial=0.0)), ds


def main():
    root = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", default=str(root / "target" / "spline_dump"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--encoded", action="store_true", help="compare hkgen's re-encodings (N.enc.*) instead of the stock data")
    args = ap.parse_args()
    dump = Path(args.dump)
    count = int((dump / "count").read_text())
    if args.limit:
        count = min(count, args.limit)
    worst = [0.0, 0.0, 0.0]
    ok = bad = failed = 0
    ss_seconds = hk_seconds = 0.0
    for i in range(count):
        stem = f"{i}.enc" if args.encoded else f"{i}"
        meta = json.loads((dump / f"{stem}.json").read_text())
        ours = np.fromfile(dump / f"{stem}.f32", dtype="<f4").astype(np.float64)
        ours = ours.reshape(meta["frames"], meta["tracks"], 10)
        name = f"{meta['file']} #{meta['handle']} ({meta['sdk']}, {meta['frames']} frames, {meta['tracks']} tracks)"
        t0 = time.perf_counter()
        try:
            theirs = soulstruct_frames(meta)
        except Exception as e:  # soulstruct cannot decode it
            failed += 1
            print(f"{name}: soulstruct cannot decode: {type(e).__name__}: {e}")
            continue
        ss_seconds += time.perf_counter() - t0
        hk_seconds += meta["hkgen_seconds"]
        d = compare(ours, theirs)
        worst = [max(w, x) for w, x in zip(worst, d)]
        good = all(x <= 1e-4 for x in d)
        ok += good
        bad += not good
        print(f"{name}: translation {d[0]:.2e}, rotation {d[1]:.2e}, scale {d[2]:.2e}{'' if good else '  BEYOND 1e-4'}")
    print(
        f"\n{count} animations: {ok} within 1e-4, {bad} beyond, {failed} soulstruct cannot decode; "
        f"largest differences: translation {worst[0]:.2e} (of extent), rotation {worst[1]:.2e}, scale {worst[2]:.2e}"
    )
    if hk_seconds > 0:
        print(f"decode time on the files both read: soulstruct {ss_seconds:.2f} s, hkgen {hk_seconds:.4f} s ({ss_seconds / hk_seconds:.0f}x)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
