#!/usr/bin/env python3
"""hkgen against serde-hkx's `hkxc` converting the same folders of Havok 2010.2 packfiles, in one run.

The files: every SDK 2010.2 little-endian packfile of the corpus that `hkxc` reads (the same
selection as bench/hkxc_interop.py), each copied --copies times into one input folder (a folder
conversion is where users meet the speed). Then, the two tools taking turns (A B A B ...) for
--runs rounds, each round starting from an empty output folder:

1. binary -> XML: `hkgen convert --to xml IN OUT` against `hkxc convert -i IN -o OUT -v xml`;
2. XML -> binary, on the 32-bit half (the files whose pointer size is 4, as Skyrim LE's):
   both read the same XML (hkgen's, which hkxc reads: bench/hkxc_interop.py) and write 32-bit
   binaries: `hkgen convert --to binary --layout 4,1,0,1` against `hkxc convert -v win32`.

Speeds divide **binary bytes** (the packfiles read in step 1, the packfiles written in step 2,
counted from the files each tool wrote) by the wall time of the whole command, which includes
starting the process, reading and writing every file (each tool in its own way: hkxc in parallel
with rayon, hkgen in parallel with its own pool). CPU seconds (user + system, of the command and
its children) are printed beside. The ratio is hkgen's speed over hkxc's, per round, then the
median.

Then the outputs are checked: every XML of both tools converts back (by hkgen) to a binary that
`hkgen verify` passes, and every binary both tools wrote in step 2 passes `hkgen verify`.

    cargo build --release --no-default-features --features cli,all-sdks
    bench/xml_vs_hkxc.py                      # hkgen at target/release/hkgen, 20 copies, 5 rounds
    bench/xml_vs_hkxc.py --copies 5 --runs 3 --keep /tmp/xvh

Exits 1 when a check fails or a tool fails on a file.
"""

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def interop():
    """bench/hkxc_interop.py as a module (for its selection of corpus files)."""
    spec = importlib.util.spec_from_file_location("hkxc_interop", ROOT / "bench/hkxc_interop.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(cmd):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=ROOT)
    return p.returncode, (p.stdout + p.stderr).strip()


def timed(cmd):
    """Wall seconds and CPU seconds (user + system of the finished children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    rc, out = run(cmd)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if rc != 0:
        sys.exit(f"{' '.join(map(str, cmd))}: exit {rc}: {out[-2000:]}")
    return wall, cpu


def files_under(folder, suffix):
    return sorted(p for p in folder.rglob(f"*{suffix}") if p.is_file())


def size_of(files):
    return sum(p.stat().st_size for p in files)


def fresh(folder):
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)


def race(name, a_cmd, b_cmd, a_out, b_out, runs, bytes_of):
    """Rounds of A then B (B then A every other round); returns per-round figures."""
    rows = []
    for r in range(runs):
        figures = {}
        order = [("hkgen", a_cmd, a_out), ("hkxc", b_cmd, b_out)]
        if r % 2:
            order.reverse()
        for tool, cmd, out in order:
            # The output folder must not exist for hkgen (it makes it with --parents) and is
            # emptied for hkxc, so that neither skips a file it finds written.
            if out.exists():
                shutil.rmtree(out)
            if tool == "hkxc":
                out.mkdir(parents=True)
            wall, cpu = timed(cmd)
            figures[tool] = (wall, cpu, bytes_of(tool, out))
        g, x = figures["hkgen"], figures["hkxc"]
        rows.append((g, x))
        print(
            f"  {name} round {r + 1}: hkgen {g[0]:.3f} s wall ({g[1]:.3f} s CPU), "
            f"hkxc {x[0]:.3f} s wall ({x[1]:.3f} s CPU): hkgen {x[0] / g[0]:.2f}x"
        )
    return rows


def summary(name, rows, what):
    g_wall = statistics.median(g[0] for g, _ in rows)
    x_wall = statistics.median(x[0] for _, x in rows)
    g_cpu = statistics.median(g[1] for g, _ in rows)
    x_cpu = statistics.median(x[1] for _, x in rows)
    g_bytes, x_bytes = rows[0][0][2], rows[0][1][2]
    ratios = [x[0] / g[0] for g, x in rows]
    print(
        f"{name}: {what}; hkgen {g_bytes / g_wall / 1e6:.1f} MB/s ({g_wall:.3f} s wall, {g_cpu:.3f} s CPU, "
        f"{g_bytes:,} bytes), hkxc {x_bytes / x_wall / 1e6:.1f} MB/s ({x_wall:.3f} s wall, {x_cpu:.3f} s CPU, "
        f"{x_bytes:,} bytes); hkgen/hkxc speed: median {statistics.median(ratios):.2f}x "
        f"(min {min(ratios):.2f}, max {max(ratios):.2f}) over {len(rows)} rounds"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hkgen", type=Path, default=ROOT / "target/release/hkgen")
    ap.add_argument("--hkxc", type=Path, default=ROOT.parent / "shared/peers/hkxc")
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("HKGEN_CORPUS", ROOT.parent / "shared/corpus")))
    ap.add_argument("--copies", type=int, default=20, help="copies of each file in the input folder")
    ap.add_argument("--runs", type=int, default=5, help="rounds of each direction")
    ap.add_argument("--keep", type=Path, help="a folder to work in and keep (else a temporary one, removed)")
    args = ap.parse_args()
    args.hkgen, args.hkxc, args.corpus = args.hkgen.resolve(), args.hkxc.resolve(), args.corpus.resolve()
    for tool in (args.hkgen, args.hkxc):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool}: not an executable (cargo build --release --no-default-features --features cli,all-sdks)")
    mod = interop()
    work = (args.keep or Path(tempfile.mkdtemp(prefix="xml_vs_hkxc."))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        failed = bench(args, mod, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


def bench(args, mod, work):
    probe = work / "probe"
    fresh(probe)
    chosen = []
    for k, f in enumerate(mod.corpus_files(args.corpus)):
        rc, _ = run([args.hkxc, "convert", "-i", f, "-o", probe / f"{k}.xml", "-v", "xml"])
        if rc == 0 and (probe / f"{k}.xml").exists():
            chosen.append(f)
    shutil.rmtree(probe)
    if not chosen:
        sys.exit("no corpus file that hkxc reads")
    inputs = work / "in"
    fresh(inputs)
    for c in range(args.copies):
        for k, f in enumerate(chosen):
            shutil.copyfile(f, inputs / f"{c:02}_{k:03}_{f.stem}.hkx")
    in_files = files_under(inputs, ".hkx")
    in_bytes = size_of(in_files)
    print(
        f"{len(chosen)} corpus files that hkxc reads, {args.copies} copies: {len(in_files)} files, "
        f"{in_bytes:,} binary bytes; hkgen {args.hkgen}, hkxc {args.hkxc}; load average {os.getloadavg()[0]:.2f}"
    )

    # 1. binary -> XML.
    g_xml, x_xml = work / "xml_hkgen", work / "xml_hkxc"
    rows = race(
        "to XML",
        [args.hkgen, "convert", "--to", "xml", "--parents", inputs, g_xml],
        [args.hkxc, "convert", "-i", inputs, "-o", x_xml, "-v", "xml"],
        g_xml,
        x_xml,
        args.runs,
        lambda tool, out: in_bytes,
    )
    summary("binary -> XML", rows, f"{len(in_files)} files, speed = binary bytes read / wall time")

    # 2. XML -> 32-bit binary, both reading hkgen's XML of the 32-bit files.
    xml32 = work / "xml32"
    fresh(xml32)
    for f in in_files:
        if mod.pointer_size(f) == 4:
            x = g_xml / (f.stem + ".xml")
            shutil.copyfile(x, xml32 / x.name)
    n32 = len(files_under(xml32, ".xml"))
    g_bin, x_bin = work / "bin_hkgen", work / "bin_hkxc"
    written = lambda tool, out: size_of([p for p in out.rglob("*") if p.is_file()])
    rows = race(
        "to binary",
        [args.hkgen, "convert", "--to", "binary", "--layout", "4,1,0,1", "--parents", xml32, g_bin],
        [args.hkxc, "convert", "-i", xml32, "-o", x_bin, "-v", "win32"],
        g_bin,
        x_bin,
        args.runs,
        written,
    )
    summary("XML -> 32-bit binary", rows, f"{n32} files of hkgen's XML, speed = binary bytes written / wall time")

    # 3. The outputs: XML of both back to binaries that verify, and the binaries of both.
    failed = False
    back_g, back_x = work / "back_hkgen", work / "back_hkxc"
    for xml_dir, back, what in ((g_xml, back_g, "hkgen's XML"), (x_xml, back_x, "hkxc's XML")):
        if back.exists():
            shutil.rmtree(back)
        extra = ["--layout", "8,1,0,1"] if what == "hkxc's XML" else []
        rc, out = run([args.hkgen, "convert", "--to", "binary", "--parents", *extra, xml_dir, back])
        if rc != 0:
            # hkxc's XML states no layout; a 64-bit layout for all of it, then 32-bit for
            # the files that need it, is not needed: hkgen reads either pointer size from XML.
            print(f"{what} -> binary: FAILED: {out[-1000:]}")
            failed = True
            continue
        rc, out = run([args.hkgen, "verify", back])
        print(f"{what} -> hkgen binary -> verify: {'ok' if rc == 0 else 'FAILED'}: {out.splitlines()[-1] if out else ''}")
        failed |= rc != 0
    for b, what in ((g_bin, "hkgen's 32-bit binaries"), (x_bin, "hkxc's 32-bit binaries")):
        rc, out = run([args.hkgen, "verify", b])
        print(f"{what} -> verify: {'ok' if rc == 0 else 'FAILED'}: {out.splitlines()[-1] if out else ''}")
        failed |= rc != 0
    return failed


if __name__ == "__main__":
    main()
