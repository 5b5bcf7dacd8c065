"""hkgen's Python package against soulstruct-havok 1.5.0 on the corpus's SDK 2015.1 tagfiles, in
one interpreter session (soulstruct-havok 1.5.0 needs Python >= 3.13; hkgen's abi3 wheel loads in
it). Prints, per file and in all, the best of N runs of:

  (a) open: the file's bytes parsed into objects (`hkgen.open` / `HKX.from_bytes`);
  (a') open by path, as users call it: the file read and parsed (`hkgen.open(path)` /
      `HKX.from_path(path)`; the page cache is warm);
  (b) read: every member of every object read into Python values, starting from the opened
      document (hkgen: each object of `doc.objects()`, its members, records and lists, number
      arrays turned into lists as soulstruct holds them, on a document opened afresh for each run;
      soulstruct: every dataclass instance reachable from the root, each field's value). Each
      object is read once on both sides: hkgen's walk does not follow a pointer to an object (it
      reads that object where `doc.objects()` lists it), soulstruct's keeps a set of the objects
      read. Both walks count the members they read; the counts are printed, and are equal.
      soulstruct builds two kinds of dataclass that are not Havok records, whose fields the
      walk reads but does not count as members: its `Quaternion` (fields `rotation` and `_data`,
      one quaternion value, which hkgen reads as a tuple of 4 floats), and `hkHalf16` (field
      `value`, the raw 16-bit integer of one half-precision member, which hkgen reads as a
      float: the type table gives hkHalf16 a float format).
  (b') open by path + read every member: (a') and (b) in one timing, each run on a document
      opened afresh.

    python bench/python_vs_soulstruct.py [--runs N] [--clock wall|cpu]

`--clock cpu` times with the process's CPU time (time.process_time) instead of the wall clock:
on a machine shared with other work, a run's wall time includes the time other processes held
the core, and the best of N runs may still be preempted.

The corpus is $HKGEN_CORPUS, else ../shared/corpus beside the checkout.
"""

import argparse
import dataclasses
import logging
import os
import sys
import time
from pathlib import Path

import hkgen

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("HKGEN_CORPUS") or ROOT.parent / "shared" / "corpus")


def files_2015():
    rows = []
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            if r["format"] == "tag0" and r["sdk_version"] == "20150100":
                rows.append(CORPUS / r["relpath"])
    return rows


def hkgen_read(doc):
    n = 0

    # Each object is read once, where doc.objects() lists it: a pointer's target is not read
    # again through the pointer (soulstruct's walk below keeps a set of the objects it has read).
    def walk(v):
        nonlocal n
        if isinstance(v, hkgen.Record):
            if v.handle is not None:
                return
            for _, x in v.items():
                n += 1
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, memoryview):
            v.tolist()

    for obj in doc.objects():
        for _, x in obj.items():
            n += 1
            walk(x)
    return n


# soulstruct-havok's base class of Havok records (set in main, after the import).
HK = None
# soulstruct-havok's records of a Havok type whose format is a scalar: one value, not a record.
SCALAR_RECORDS = {"hkHalf16"}


def soulstruct_read(hkx):
    n = 0
    seen = set()

    def walk(v):
        nonlocal n
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            if id(v) in seen:
                return
            seen.add(id(v))
            # Every field is read; those of a Havok record are its members (see the docstring).
            members = isinstance(v, HK) and type(v).__name__ not in SCALAR_RECORDS
            for f in dataclasses.fields(v):
                n += members
                walk(getattr(v, f.name))
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)

    walk(hkx.root)
    return n


CLOCK = time.perf_counter


def best(f, runs):
    t = float("inf")
    out = None
    for _ in range(runs):
        s = CLOCK()
        out = f()
        t = min(t, CLOCK() - s)
    return t, out


def best_fresh(make, f, runs):
    """Like best, timing f(make()) without make()."""
    t = float("inf")
    out = None
    for _ in range(runs):
        x = make()
        s = CLOCK()
        out = f(x)
        t = min(t, CLOCK() - s)
    return t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    logging.disable(logging.WARNING)
    from soulstruct.havok import HKX  # soulstruct-havok 1.5.0
    from soulstruct.havok.types.hk import hk

    global HK
    HK = hk

    files = files_2015()
    if not files:
        sys.exit(f"no SDK 2015.1 tagfile in {CORPUS}")
    print(f"{len(files)} SDK 2015.1 tagfiles of {CORPUS}; best of {args.runs} runs; {args.clock} clock; load {os.getloadavg()[0]:.2f}")
    print(f"{'file':60} {'bytes':>8} {'open hkgen':>11} {'soulstruct':>11} {'ratio':>7} {'read hkgen':>11} {'soulstruct':>11} {'ratio':>7} {'members hkgen/soulstruct':>25}")
    print(f"{'':60} {'':8} {'path hkgen':>11} {'soulstruct':>11} {'ratio':>7} {'p+read hkg':>11} {'soulstruct':>11} {'ratio':>7}")
    total = [0.0] * 8
    for p in files:
        data = p.read_bytes()
        # Warm both (soulstruct imports its class modules on first use).
        doc = hkgen.open(data)
        hkx = HKX.from_bytes(data)
        a_h, doc = best(lambda: hkgen.open(data), args.runs)
        a_s, hkx = best(lambda: HKX.from_bytes(data), args.runs)
        # Each run reads a document opened afresh (not timed): what hkgen works out once per
        # document (member tables per type, interned names, enumeration values) is not reused.
        b_h, n_h = best_fresh(lambda: hkgen.open(data), hkgen_read, args.runs)
        b_s, n_s = best(lambda: soulstruct_read(hkx), args.runs)
        # Through the path, as users call them.
        c_h, _ = best(lambda: hkgen.open(p), args.runs)
        c_s, _ = best(lambda: HKX.from_path(p), args.runs)
        d_h, _ = best(lambda: hkgen_read(hkgen.open(p)), args.runs)
        d_s, _ = best(lambda: soulstruct_read(HKX.from_path(p)), args.runs)
        for i, t in enumerate((a_h, a_s, b_h, b_s, c_h, c_s, d_h, d_s)):
            total[i] += t
        name = str(p.relative_to(CORPUS))[-60:]
        print(f"{name:60} {len(data):8} {a_h * 1e3:9.3f}ms {a_s * 1e3:9.3f}ms {a_s / a_h:6.0f}x {b_h * 1e3:9.3f}ms {b_s * 1e3:9.3f}ms {b_s / b_h:6.1f}x {n_h:>12}/{n_s:<12}")
        print(f"{'':60} {'':8} {c_h * 1e3:9.3f}ms {c_s * 1e3:9.3f}ms {c_s / c_h:6.0f}x {d_h * 1e3:9.3f}ms {d_s * 1e3:9.3f}ms {d_s / d_h:6.1f}x")
    a_h, a_s, b_h, b_s, c_h, c_s, d_h, d_s = total
    print(f"{'all (bytes)':60} {'':8} {a_h * 1e3:9.3f}ms {a_s * 1e3:9.3f}ms {a_s / a_h:6.0f}x {b_h * 1e3:9.3f}ms {b_s * 1e3:9.3f}ms {b_s / b_h:6.1f}x")
    print(f"{'all (paths)':60} {'':8} {c_h * 1e3:9.3f}ms {c_s * 1e3:9.3f}ms {c_s / c_h:6.0f}x {d_h * 1e3:9.3f}ms {d_s * 1e3:9.3f}ms {d_s / d_h:6.1f}x")
    print(f"(a) open bytes: hkgen {a_s / a_h:.0f}x faster than soulstruct-havok")
    print(f"(b) read every member: hkgen {b_s / b_h:.1f}x faster")
    print(f"(a') open by path: hkgen {c_s / c_h:.0f}x faster (target >= 100x)")
    print(f"(b') open by path + read every member: hkgen {d_s / d_h:.1f}x faster (target >= 5x)")


if __name__ == "__main__":
    main()
