#!/usr/bin/env python3
"""Coverage over time from a libFuzzer log (fuzz/run.sh writes one per target), to tell whether a
run has plateaued.

    fuzz/plateau.py LOG [--step MINUTES] [--window MINUTES]

libFuzzer's status lines carry the execution count and the average executions per second since the
start, so their quotient is the time into the run. Prints cov and ft at every step, and the growth
over the last window (10 minutes unless told). Edge coverage (cov) that grew by less than 0.5% in
the window counts as a plateau; features (ft, which count hit counts too) keep creeping up long
after, and are shown for what they are.
"""
import argparse
import re
import sys

LINE = re.compile(r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+).*?exec/s: (\d+)")


def points(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m and int(m.group(5)) > 0:
                execs, cov, ft, rate = int(m.group(1)), int(m.group(3)), int(m.group(4)), int(m.group(5))
                yield execs / rate / 60.0, execs, cov, ft


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--step", type=float, default=5.0)
    ap.add_argument("--window", type=float, default=10.0)
    a = ap.parse_args()
    pts = list(points(a.log))
    if not pts:
        sys.exit(f"{a.log}: no status lines")
    end = pts[-1]
    print(f"{'minute':>7} {'executions':>11} {'cov':>7} {'ft':>7}")
    mark = 0.0
    for p in pts:
        if p[0] >= mark:
            print(f"{p[0]:7.1f} {p[1]:11d} {p[2]:7d} {p[3]:7d}")
            mark += a.step
    print(f"{end[0]:7.1f} {end[1]:11d} {end[2]:7d} {end[3]:7d}  (last)")
    before = [p for p in pts if p[0] <= end[0] - a.window]
    if not before:
        print(f"shorter than the {a.window:g}-minute window")
        return
    b = before[-1]
    dcov, dft = end[2] - b[2], end[3] - b[3]
    flat = dcov < 0.005 * end[2]
    print(f"last {a.window:g} min: cov +{dcov} ({100.0 * dcov / max(end[2], 1):.2f}%), ft +{dft} ({100.0 * dft / max(end[3], 1):.2f}%): "
          + ("plateau" if flat else "still growing"))


if __name__ == "__main__":
    main()
