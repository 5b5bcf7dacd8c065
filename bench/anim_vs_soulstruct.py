#!/usr/bin/env python3
"""Decodes every corpus animation with hkgen (`hkgen anim --frames json`) and with soulstruct-havok
1.5.0 (run as a separate program in its own Python 3.13 venv, as bench/soulstruct.sh makes it; its
code is GPL and nothing of it is copied here), and reports per file the largest difference:
translation and scale relative to the clip's extent (the largest range of any translation
component, at least 1), quaternion components sign-normalised (q and -q are one rotation).

    python3 bench/anim_vs_soulstruct.py [--hkgen target/debug/hkgen] [--limit N] [--json OUT]

soulstruct-havok decodes spline-compressed and interleaved animations of tagfiles (2015 and
later) and of the packfiles it reads; files it cannot read (or codecs it does not decode:
delta, wavelet) are listed as such, with hkgen's result alone.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("HKGEN_CORPUS") or ROOT.parent / "shared" / "corpus")
VENV = Path(os.environ.get("SOULSTRUCT_VENV") or ROOT / "target" / "soulstruct-venv")

# Runs inside soulstruct's venv: reads each file named on stdin (one JSON line: path and the
# compendia to try for a TCRF tagfile) and prints one JSON line per file: the animations' frames in container
# order, or the error.
SOULSTRUCT_SIDE = r"""
import json, sys, time, logging
logging.disable(logging.WARNING)
from soulstruct.havok.core import HKX
from soulstruct.havok.spline_compression import SplineCompressedAnimationData

compendia = {}
for line in sys.stdin:
    req = json.loads(line)
    out = {"path": req["path"], "animations": []}
    try:
        data = open(req["path"], "rb").read()
        hkx = None
        t0 = time.perf_counter()
        if data[4:8] == b"TAG0" and b"TCRF" in data:
            # A TCRF tagfile: the compendium that reads it.
            for c in req["compendia"]:
                if c not in compendia:
                    compendia[c] = HKX.from_path(c)
                try:
                    t0 = time.perf_counter()
                    hkx = HKX.from_bytes(data, compendium=compendia[c])
                    break
                except Exception:
                    continue
        if hkx is None:
            t0 = time.perf_counter()
            hkx = HKX.from_bytes(data)
        anims = []
        for nv in hkx.root.namedVariants:
            v = nv.variant
            if hasattr(v, "animations"):
                anims.extend(v.animations)
        for a in anims:
            cls = type(a).__name__
            if "Spline" in cls:
                d = SplineCompressedAnimationData(list(a.data), a.numberOfTransformTracks, a.numBlocks, big_endian=hkx.is_big_endian)
                frames = d.to_interleaved_transforms(a.numFrames, a.maxFramesPerBlock)
                rows = [[list(t.translation)[:3] + list(t.rotation)[:4] + list(t.scale)[:3] for t in f] for f in frames]
            elif "Interleaved" in cls:
                n = max(a.numberOfTransformTracks, 1)
                ts = [list(t.translation)[:3] + list(t.rotation)[:4] + list(t.scale)[:3] for t in a.transforms]
                rows = [ts[k:k + n] for k in range(0, len(ts), n)]
            else:
                out["animations"].append({"class": cls, "error": "not decoded by soulstruct-havok"})
                continue
            out["animations"].append({"class": cls, "tracks": int(a.numberOfTransformTracks), "frames": [[[float(x) for x in r] for r in f] for f in rows]})
        out["seconds"] = time.perf_counter() - t0
    except Exception as e:  # a file soulstruct cannot read
        out["error"] = f"{type(e).__name__}: {e}"[:300]
    print(json.dumps(out), flush=True)
"""


# Runs in the venv of hkgen's Python package (`--python`): the same protocol, decoding through
# `doc.animations()` and `Animation.frames()` (numpy), timed in the process (read, decode).
HKGEN_SIDE = r"""
import json, sys, time
import hkgen
for line in sys.stdin:
    req = json.loads(line)
    out = {"path": req["path"]}
    try:
        t0 = time.perf_counter()
        doc = hkgen.open(req["path"], compendium=req["compendia"])
        anims = [(a, a.frames()) for a in doc.animations()]
        out["seconds"] = time.perf_counter() - t0
        out["animations"] = [{"codec": a.codec, "frame_count": a.frame_count, "track_count": a.track_count, "frames": f.tolist()} for a, f in anims]
        if req.get("reencode") and len(anims) == 1 and anims[0][0].codec == "spline":
            # Re-encoded at Havok's default tolerances and quantization; the file written goes to
            # soulstruct-havok too.
            a, f = anims[0]
            stock = a.frames().shape
            a.set_frames(f, codec="spline")
            path = req["reencode"]
            open(path, "wb").write(doc.to_bytes())
            (b,) = hkgen.open(path, compendium=req["compendia"]).animations()
            g = b.frames()
            import numpy
            sign = numpy.where((g[..., 3:7] * f[..., 3:7]).sum(axis=-1, keepdims=True) < 0, -1.0, 1.0)
            out["reencoded"] = {
                "path": path,
                "frames": g.tolist(),
                "max_translation_error": float(numpy.abs(g[..., 0:3] - f[..., 0:3]).max()) if g.size else 0.0,
                "max_rotation_error": float(numpy.abs(g[..., 3:7] * sign - f[..., 3:7]).max()) if g.size else 0.0,
            }
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"[:300]
    print(json.dumps(out), flush=True)
"""


def animation_files():
    lines = (CORPUS / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    col = {h: i for i, h in enumerate(header)}
    for line in lines[1:]:
        f = line.split("\t")
        if f[col["format"]] == "tcm0":
            continue
        if "hkaAnimationContainer" in line or "Animation" in line:
            yield f[col["relpath"]]


def compendia():
    """Every TCM0 compendium of the corpus (a TCRF tagfile names its own by id)."""
    lines = (CORPUS / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    return [CORPUS / l.split("\t")[0] for l in lines[1:] if l.split("\t")[3] == "tcm0"]


def compare(ours, theirs):
    """Largest differences (relative translation, quaternion, relative scale) of two frame arrays
    (frames x tracks x 10), or None when their shapes differ."""
    if len(ours) != len(theirs) or any(len(a) != len(b) for a, b in zip(ours, theirs)):
        return None
    lo = [float("inf")] * 3
    hi = [float("-inf")] * 3
    for f in ours:
        for t in f:
            for c in range(3):
                lo[c] = min(lo[c], t[c])
                hi[c] = max(hi[c], t[c])
    extent = max([1.0] + [h - l for h, l in zip(hi, lo) if h >= l])
    dt = dq = ds = 0.0
    for fa, fb in zip(ours, theirs):
        for a, b in zip(fa, fb):
            dt = max(dt, max(abs(a[c] - b[c]) for c in range(3)) / extent)
            # Both quaternions normalised: Havok's runtime normalises sampled rotations
            # (hkaSkeletonUtils::normalizeRotations), hkgen's decoders give unit quaternions,
            # soulstruct-havok gives the spline's value as it is.
            na = sum(a[c] * a[c] for c in range(3, 7)) ** 0.5 or 1.0
            nb = sum(b[c] * b[c] for c in range(3, 7)) ** 0.5 or 1.0
            s = -1.0 if sum(a[c] * b[c] for c in range(3, 7)) < 0 else 1.0
            dq = max(dq, max(abs(a[c] / na - s * b[c] / nb) for c in range(3, 7)))
            ds = max(ds, max(abs(a[c] - b[c]) for c in range(7, 10)) / extent)
    return dt, dq, ds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hkgen", default=str(ROOT / "target" / "debug" / "hkgen"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--python", help="decode through hkgen's Python package in this interpreter (a venv with it installed) instead of the CLI, and time the decoding in the process")
    ap.add_argument("--json", help="write the per-file results here")
    ap.add_argument("--reencode", action="store_true", help="with --python: also re-encode each file's spline animation at Havok's default tolerances, write it to a temporary file and decode that with soulstruct-havok too")
    args = ap.parse_args()
    files = list(animation_files())
    if args.limit:
        files = files[: args.limit]
    py = VENV / "bin" / "python"
    if not py.exists():
        sys.exit(f"no soulstruct-havok venv at {VENV}: make it as bench/soulstruct.sh does (Python 3.13, pip install soulstruct-havok==1.5.0 colorama)")
    ss = subprocess.Popen([str(py), "-c", SOULSTRUCT_SIDE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    hk = None
    if args.python:
        hk = subprocess.Popen([args.python, "-c", HKGEN_SIDE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    tcm0 = compendia()
    reenc = []
    results = []
    worst = [0.0, 0.0, 0.0]
    t_ours = t_theirs = 0.0
    both = 0
    for rel in files:
        path = CORPUS / rel
        row = {"file": rel}
        if hk is not None:
            tmp = str(Path(os.environ.get("TMPDIR", "/tmp")) / f"anim_vs_soulstruct_{os.getpid()}.hkx") if args.reencode else None
            hk.stdin.write(json.dumps({"path": str(path), "compendia": [str(c) for c in tcm0], "reencode": tmp}) + "\n")
            hk.stdin.flush()
            mine = json.loads(hk.stdout.readline())
            if "error" in mine:
                row["hkgen_error"] = mine["error"]
                results.append(row)
                print(f"{rel}: hkgen: {row['hkgen_error']}")
                continue
            t_hk = mine["seconds"]
            ours = mine["animations"]
        else:
            t0 = time.perf_counter()
            named = [a for c in tcm0 for a in ("--compendium", str(c))]
            p = subprocess.run([args.hkgen, "anim", "--frames", "json", *named, str(path)], capture_output=True, text=True)
            t_hk = time.perf_counter() - t0
            if p.returncode != 0:
                row["hkgen_error"] = p.stderr.strip()[:300]
                results.append(row)
                print(f"{rel}: hkgen: {row['hkgen_error']}")
                continue
            ours = json.loads(p.stdout)["animations"]
        if not ours:
            continue
        ss.stdin.write(json.dumps({"path": str(path), "compendia": [str(c) for c in tcm0]}) + "\n")
        ss.stdin.flush()
        # soulstruct prints warnings on stdout; the answer is the line that is a JSON object.
        line = ss.stdout.readline()
        while line and not line.startswith("{"):
            line = ss.stdout.readline()
        theirs = json.loads(line)
        row["animations"] = [{"codec": a["codec"], "frames": a["frame_count"], "tracks": a["track_count"]} for a in ours]
        if "error" in theirs:
            row["soulstruct_error"] = theirs["error"]
            print(f"{rel}: hkgen {len(ours)} animations; soulstruct-havok cannot read it: {theirs['error'][:120]}")
            results.append(row)
            continue
        diffs = []
        for k, a in enumerate(ours):
            b = theirs["animations"][k] if k < len(theirs["animations"]) else None
            if b is None or "frames" not in b:
                diffs.append(None if b is None else b.get("error"))
                continue
            d = compare(a["frames"], b["frames"])
            if d is None:
                # Say why: soulstruct-havok misreads some classes' members (a 2014.1 file's
                # numberOfTransformTracks as the bits of 1.0).
                diffs.append(f"shapes differ: hkgen {a['frame_count']} frames x {a['track_count']} tracks, soulstruct-havok {len(b['frames'])} frames of {b.get('tracks')} tracks")
                continue
            diffs.append(d)
            if d is not None:
                both += 1
                t_ours += t_hk / max(len(ours), 1)
                t_theirs += theirs.get("seconds", 0.0) / max(len(ours), 1)
                worst = [max(w, x) for w, x in zip(worst, d)]
        row["differences"] = diffs
        if hk is not None and "reencoded" in mine:
            r = mine["reencoded"]
            ss.stdin.write(json.dumps({"path": r["path"], "compendia": [str(c) for c in tcm0]}) + "\n")
            ss.stdin.flush()
            line = ss.stdout.readline()
            while line and not line.startswith("{"):
                line = ss.stdout.readline()
            again = json.loads(line)
            d = compare(r["frames"], again["animations"][0]["frames"]) if "error" not in again and again.get("animations") and "frames" in again["animations"][0] else None
            row["reencoded"] = {"hkgen_error": [r["max_translation_error"], r["max_rotation_error"]], "soulstruct": d if d else again.get("error", "shapes differ")}
            reenc.append(row["reencoded"])
            print(f"{rel}: re-encoded: hkgen {r['max_translation_error']:.2e}/{r['max_rotation_error']:.2e} of the frames encoded; soulstruct-havok against hkgen on the written file: {row['reencoded']['soulstruct']}")
            os.remove(r["path"])
        results.append(row)
        shown = ", ".join(
            "shapes differ" if d is None else d if isinstance(d, str) else f"t {d[0]:.2e} q {d[1]:.2e} s {d[2]:.2e}" for d in diffs
        )
        print(f"{rel}: {shown}")
    ss.stdin.close()
    ss.wait()
    print(f"\n{both} animations decoded by both; largest differences: translation {worst[0]:.3e} (of the extent), "
          f"rotation {worst[1]:.3e}, scale {worst[2]:.3e}")
    if both:
        how = "Python package, in process (read, decode)" if hk else "CLI (process, read, decode, JSON)"
        print(f"time over the animations both decoded: hkgen {how} {t_ours:.3f} s, soulstruct-havok (read, decode) {t_theirs:.3f} s: {t_theirs / max(t_ours, 1e-9):.0f}x")
    if reenc:
        ok = [r for r in reenc if isinstance(r["soulstruct"], (list, tuple))]
        print(f"re-encoded spline animations: {len(reenc)}; largest error against the frames encoded (hkgen decoding the written file): "
              f"translation {max(r['hkgen_error'][0] for r in reenc):.3e}, rotation {max(r['hkgen_error'][1] for r in reenc):.3e}; "
              f"soulstruct-havok decoded {len(ok)} of the written files, largest difference to hkgen's decoding of them: "
              f"{max((max(r['soulstruct']) for r in ok), default=0.0):.3e}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
