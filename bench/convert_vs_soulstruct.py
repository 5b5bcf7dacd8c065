#!/usr/bin/env python3
"""Converts the corpus's animation and skeleton files of one game (MANIFEST.tsv: the game named in
the notes, only hka* classes besides the root container and the packfile's reflection classes)
to another SDK's tagfiles with `hkgen convert --sdk` (refusing any loss), checks each with
`hkgen verify`, and reads each with soulstruct-havok 1.5.0 (run as a separate program in its own
Python 3.13 venv, as bench/soulstruct.sh makes it; its code is GPL and nothing of it is copied
here), printing per file what each said and the counts.

    python3 bench/convert_vs_soulstruct.py                                   # Dark Souls III 2014.1 -> 2018.1
    python3 bench/convert_vs_soulstruct.py --game Sekiro --from 2016.2 --sdk 2018.1

The hkgen binary must be built with the source and target SDKs' classes
(`cargo build --no-default-features --features cli,hk2014_1,hk2016_2,hk2018_1`). Exit status 1
when any file fails to convert, verify or read.
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


def compendia() -> list[str]:
    """The corpus's TCM0 compendia: a Sekiro or Elden Ring animation names its types in one."""
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as f:
        next(f)
        return [str(CORPUS / c[0]) for c in (line.rstrip("\n").split("\t") for line in f) if len(c) > 3 and c[3] == "tcm0"]


def files(sdk: str, game: str) -> list[str]:
    out = []
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 10 or game not in cols[9] or not cols[4].replace("0100", ".1").replace("0200", ".2").replace("hk_", "").startswith(sdk):
                continue
            # The classes column: a packfile's class names, or a tagfile's "DATA names: ...".
            text = cols[7].split("DATA names: ")[-1].split(";")[0]
            names = [c for c in text.split(",") if c and not c.startswith("hkClass") and c != "hkRootLevelContainer"]
            if names and all(c.startswith("hka") for c in names) and any(c in ("hkaSkeleton", "hkaAnimationContainer") or c.startswith("hkaSpline") for c in names):
                out.append(cols[0])
    return out


def stock(sdk: str) -> int:
    y, m = sdk.split(".")
    sdkv = f"{y}{int(m):02}00"
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as f:
        next(f)
        paths = [str(CORPUS / c[0]) for c in (line.rstrip("\n").split("\t") for line in f) if len(c) > 4 and c[3] == "tag0" and c[4] == sdkv]
    ss = subprocess.run([str(VENV / "bin" / "python"), "-c", SOULSTRUCT_SIDE], input="".join(f"{p}\n" for p in paths), capture_output=True, text=True)
    errors: dict[str, int] = {}
    read = 0
    for line in ss.stdout.splitlines():
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "error" in d:
            errors[d["error"][:100]] = errors.get(d["error"][:100], 0) + 1
        else:
            read += 1
    print(f"stock SDK {sdk} tagfiles of the corpus: {len(paths)}, read by soulstruct-havok 1.5.0: {read}")
    for e, n in sorted(errors.items(), key=lambda x: -x[1]):
        print(f"  {n}: {e}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hkgen", default=str(ROOT / "target" / "debug" / "hkgen"))
    ap.add_argument("--sdk", default="2018.1")
    ap.add_argument("--from", dest="source", default="2014.1")
    ap.add_argument("--game", default="Dark Souls III", help="as the manifest's notes name it")
    ap.add_argument("--stock", action="store_true", help="only have soulstruct-havok read the corpus's stock tagfiles of SDK --sdk (what it reads of that SDK at all)")
    args = ap.parse_args()
    if args.stock:
        return stock(args.sdk)
    rels = files(args.source, args.game)
    if not rels:
        print(f"no {args.game} {args.source} animation or skeleton files in {CORPUS}", file=sys.stderr)
        return 1
    failed = 0
    converted_n = verified_n = read_n = unreadable = refused = 0
    extra = [a for c in compendia() for a in ("--compendium", c)]
    with tempfile.TemporaryDirectory() as tmp:
        converted = []
        for k, rel in enumerate(rels):
            out = Path(tmp) / f"{k:03}_{Path(rel).name}"
            r = subprocess.run([args.hkgen, "convert", "--sdk", args.sdk, *extra, str(CORPUS / rel), str(out)], capture_output=True, text=True)
            if r.returncode != 0 and "none was found" in r.stderr:
                # A tagfile whose compendium the corpus does not hold: no tool can read it.
                unreadable += 1
                continue
            if r.returncode != 0 and "converting would lose" in r.stderr:
                # Classes or values the target has no place for (cloth files' hcl* classes): the
                # conversion is refused with the report, as it must be without --allow-loss.
                lost = sorted({ln.split(": ")[1].split(".")[0].split(" ")[-1] for ln in r.stderr.splitlines() if "lost: #" in ln})
                print(f"REFUSED (would lose) {rel}: {', '.join(lost)[:300]}")
                refused += 1
                continue
            if r.returncode != 0:
                print(f"CONVERT FAIL {rel}: {r.stderr.strip()[-600:]}")
                failed += 1
                continue
            converted_n += 1
            v = subprocess.run([args.hkgen, "verify", str(out)], capture_output=True, text=True)
            if v.returncode != 0:
                print(f"VERIFY FAIL {rel}: {v.stdout.strip()} {v.stderr.strip()}")
                failed += 1
                continue
            verified_n += 1
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
                read_n += 1
                print(f"ok {rel}: {d['variants']} bones {d['bones']} tracks {d['tracks']}")
    print(f"{args.game} {args.source} -> {args.sdk}: {len(rels)} files ({unreadable} unreadable: their compendium is not in the corpus; {refused} refused: they would lose what the target lacks), {converted_n} converted, {verified_n} verified by hkgen, {read_n} read by soulstruct-havok 1.5.0")
    return 1 if failed else 0  # a refused file is the converter doing its job, not a failure


if __name__ == "__main__":
    sys.exit(main())
