#!/usr/bin/env python3
"""Converts the corpus's Dark Souls III animation and skeleton files (2014.1 packfiles, as
MANIFEST.tsv lists them: an hkaSkeleton or hkaAnimation class) to 2018.1 tagfiles with
`hkgen convert --sdk 2018.1`, checks each with `hkgen verify`, and reads each with soulstruct-havok
1.5.0 (run as a separate program in its own Python 3.13 venv, as bench/soulstruct.sh makes it; its
code is GPL and nothing of it is copied here), printing per file what each said.

    python3 bench/convert_vs_soulstruct.py [--hkgen target/debug/hkgen] [--sdk 2018.1] [--from 2014.1]

The hkgen binary must be built with the source and target SDKs' classes
(`cargo build --no-default-features --features cli,hk2014_1,hk2018_1`). Exit status 1 when any
file fails to convert, verify or read.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("HKGEN_CORPUS") or ROOT.parent / "shared" / "corpus")
VENV = Path(os.environ.get("SOULSTRUCT_VENV") or ROOT / "target" / "soulstruct-venv")

# Runs inside soulstruct's venv: reads each file named on stdin and prints one JSON line per file:
# the classes of its root's variants, the bones of its skeletons and the tracks of its animations,
# or the error.
SOULSTRUCT_SIDE = r"""
import json, sys, logging
logging.disable(logging.WARNING)
from soulstruct.havok.core import HKX
for line in sys.stdin:
    path = line.strip()
    out = {"path": path}
    try:
        hkx = HKX.from_path(path)
        root = hkx.root
        out["variants"] = [type(v.variant).__name__ for v in root.namedVariants]
        bones, tracks = [], []
        for v in root.namedVariants:
            c = v.variant
            for s in getattr(c, "skeletons", []) or []:
                bones.append(len(s.bones))
            for a in getattr(c, "animations", []) or []:
                tracks.append(a.numberOfTransformTracks)
        out["bones"], out["tracks"] = bones, tracks
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out), flush=True)
"""


def files(sdk: str) -> list[str]:
    out = []
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) > 7 and sdk in cols[4] and cols[3] == "packfile" and ("hkaSkeleton" in cols[7] or "hkaAnimation" in cols[7]):
                out.append(cols[0])
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hkgen", default=str(ROOT / "target" / "debug" / "hkgen"))
    ap.add_argument("--sdk", default="2018.1")
    ap.add_argument("--from", dest="source", default="2014.1")
    args = ap.parse_args()
    rels = files(args.source)
    if not rels:
        print(f"no {args.source} animation or skeleton packfiles in {CORPUS}", file=sys.stderr)
        return 1
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        converted = []
        for k, rel in enumerate(rels):
            out = Path(tmp) / f"{k:03}_{Path(rel).name}"
            r = subprocess.run([args.hkgen, "convert", "--sdk", args.sdk, str(CORPUS / rel), str(out)], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"CONVERT FAIL {rel}: {r.stderr.strip()}")
                failed += 1
                continue
            v = subprocess.run([args.hkgen, "verify", str(out)], capture_output=True, text=True)
            if v.returncode != 0:
                print(f"VERIFY FAIL {rel}: {v.stdout.strip()} {v.stderr.strip()}")
                failed += 1
                continue
            converted.append((rel, out))
        ss = subprocess.run([str(VENV / "bin" / "python"), "-c", SOULSTRUCT_SIDE], input="".join(f"{o}\n" for _, o in converted), capture_output=True, text=True)
        results = {}
        for line in ss.stdout.splitlines():
            try:
                d = json.loads(line)
                results[d["path"]] = d
            except (json.JSONDecodeError, KeyError):
                pass
        for rel, out in converted:
            d = results.get(str(out))
            if d is None or "error" in d:
                print(f"SOULSTRUCT FAIL {rel}: {d and d.get('error') or ss.stderr.strip()[-400:]}")
                failed += 1
            else:
                print(f"ok {rel}: {d['variants']} bones {d['bones']} tracks {d['tracks']}")
    print(f"{len(rels)} files {args.source} -> {args.sdk}: {len(rels) - failed} converted, verified and read by soulstruct-havok 1.5.0, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
