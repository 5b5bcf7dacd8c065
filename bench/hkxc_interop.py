#!/usr/bin/env python3
"""hkgen and serde-hkx's `hkxc` on each other's Havok packfile XML, both ways, with a value comparer.

Over every SDK 2010.2 little-endian packfile of the corpus (MANIFEST.tsv: format `packfile`,
contents version hk_2010.2, a little-endian layout), and any further files or folders given on the
command line (their `.hkx` files), for each file that `hkxc` reads:

1. hkxc -> XML -> hkgen reads it -> binary (in the file's own pointer size) -> `hkgen verify` of
   that binary (and of the XML itself);
2. hkgen -> XML (the default, lossless form) -> hkxc reads it back to binary (the file's pointer
   size); that binary is compared with the one hkxc makes from its own XML of the file;
3. a value comparer walks hkxc's XML and hkgen's XML from the top-level object, object by object
   through the pointers (object names are each tool's own), and counts the values (each scalar,
   vector group, string, pointer, array element) that are equal and that differ, listing the
   differences. Reals are equal when their texts are the same number to Havok's six decimals (hkxc
   writes `%f`, hkgen the shortest text of the bits); enum and flags values when they give the same
   bits (names resolved through the 2010.2 class schemas' enums).

    bench/hkxc_interop.py                        # the corpus; hkgen at target/debug/hkgen
    bench/hkxc_interop.py --hkgen target/release/hkgen more.hkx some/folder
    bench/hkxc_interop.py --keep /tmp/interop    # keep the files made (else a temporary folder)

Prints one line per file and the totals; exits 1 when a step fails on a file hkxc reads.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(cmd, timeout=600):
    # From the workspace root: hkgen finds the class schemas (`schemas/`) there.
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return p.returncode, (p.stdout + p.stderr).strip()


def corpus_files(corpus):
    out = []
    manifest = corpus / "MANIFEST.tsv"
    if not manifest.exists():
        return out
    with open(manifest, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {name: k for k, name in enumerate(header)}
        for line in f:
            row = line.rstrip("\n").split("\t")
            if len(row) < len(header):
                continue
            if row[col["format"]] == "packfile" and "2010.2" in row[col["sdk_version"]] and " LE " in row[col["layout"]] + " ":
                out.append(corpus / row[col["relpath"]])
    return out


def pointer_size(path):
    """The pointer size a packfile states (its header's layout rules at 0x10), else 8."""
    with open(path, "rb") as f:
        head = f.read(0x14)
    return head[0x10] if len(head) >= 0x14 and head[0x10] in (4, 8) else 8


def load_enums(schemas):
    """Every enum item name of the schemas' enums.ron files -> the set of values it has."""
    names = {}
    for ron in schemas.glob("*/classes/enums.ron"):
        for value, name in re.findall(r"\((-?\d+), \"([A-Za-z_0-9]+)\"\)", ron.read_text(encoding="utf-8")):
            names.setdefault(name, set()).add(int(value))
    return names


NUMBER = re.compile(r"^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class Comparer:
    def __init__(self, enums):
        self.enums = enums
        self.equal = 0
        self.different = []

    def bits(self, text):
        """An enum or flags text as (bits, names no schema enum has one value for)."""
        n, unknown = 0, []
        for part in (p.strip() for p in text.split("|")):
            if not part:
                continue
            try:
                n |= int(part, 0)
                continue
            except ValueError:
                pass
            values = self.enums.get(part)
            if values and len(values) == 1:
                n |= next(iter(values))
            else:
                unknown.append(part)
        return n, sorted(unknown)

    def same_token(self, a, b):
        if a == b:
            return True
        ga, gb = a.startswith("("), b.startswith("(")
        if ga or gb:
            if not (ga and gb):
                return False
            xa, xb = a.strip("()").split(), b.strip("()").split()
            return len(xa) == len(xb) and all(self.same_token(p, q) for p, q in zip(xa, xb))
        if NUMBER.match(a) and NUMBER.match(b) and ("." in a + b or "e" in (a + b).lower()):
            x, y = float(a), float(b)
            return x == y or f"{x:.6f}" == f"{y:.6f}" or abs(x - y) <= 1e-6 * max(1.0, abs(x), abs(y))
        if re.search(r"[A-Za-z_]", a + b) and not a.startswith("#") and not b.startswith("#"):
            return self.bits(a) == self.bits(b)
        return False

    def diff(self, where, a, b):
        self.different.append(f"{where}: {a!r} vs {b!r}")


def tokens(text):
    """A value text's tokens: groups in parentheses and words."""
    return re.findall(r"\([^)]*\)|[^\s()]+", text or "")


def objects_of(path):
    tree = ET.parse(path)
    root = tree.getroot()
    objects = {}
    for section in root.iter("hksection"):
        if section.get("name") != "__data__":
            continue
        for o in section.findall("hkobject"):
            objects[o.get("name")] = o
    return root.get("toplevelobject"), objects


def compare(xml_a, xml_b, cmp):
    """Walks both documents from the top-level object; counts into `cmp`."""
    top_a, objs_a = objects_of(xml_a)
    top_b, objs_b = objects_of(xml_b)
    pairs = {}
    todo = []

    def pointer(where, a, b):
        if a == "null" or b == "null":
            return a == b
        if a in pairs:
            return pairs[a] == b
        if a not in objs_a or b not in objs_b:
            return False
        pairs[a] = b
        todo.append((a, b))
        return True

    def value(where, pa, pb):
        """Compares two <hkparam>s (or <hkcstring>s) of the same name."""
        kids_a, kids_b = list(pa), list(pb)
        if kids_a or kids_b:
            if len(kids_a) != len(kids_b):
                cmp.diff(where, f"{len(kids_a)} elements", f"{len(kids_b)} elements")
                return
            for k, (x, y) in enumerate(zip(kids_a, kids_b)):
                sub = f"{where}[{k}]" if len(kids_a) > 1 or pa.get("numelements") else where
                if x.tag == "hkobject" and y.tag == "hkobject":
                    params(sub, x, y)
                elif x.tag == "hkcstring" and y.tag == "hkcstring":
                    if (x.text or "") == (y.text or ""):
                        cmp.equal += 1
                    else:
                        cmp.diff(sub, x.text, y.text)
                else:
                    cmp.diff(sub, x.tag, y.tag)
            return
        ta, tb = tokens(pa.text), tokens(pb.text)
        if not ta and not tb:
            if (pa.text or "") == (pb.text or ""):
                cmp.equal += 1
            else:
                cmp.diff(where, pa.text, pb.text)
            return
        # A string param (not a list of values) is one value.
        if len(ta) != len(tb):
            if (pa.text or "").strip() == (pb.text or "").strip():
                cmp.equal += 1
            else:
                cmp.diff(where, pa.text, pb.text)
            return
        for k, (x, y) in enumerate(zip(ta, tb)):
            sub = f"{where}[{k}]" if len(ta) > 1 else where
            if x.startswith("#") or y.startswith("#") or (x == "null") != (y == "null"):
                ok = pointer(sub, x, y)
            elif x.startswith("(") and "#" in x + y:
                xa, xb = x.strip("()").split(), y.strip("()").split()
                ok = len(xa) == len(xb) and all(pointer(sub, p, q) for p, q in zip(xa, xb))
            else:
                ok = cmp.same_token(x, y)
            if ok:
                cmp.equal += 1
            else:
                cmp.diff(sub, x, y)

    def params(where, oa, ob):
        a = {p.get("name"): p for p in oa.findall("hkparam")}
        b = {p.get("name"): p for p in ob.findall("hkparam")}
        for name in a.keys() | b.keys():
            sub = f"{where}.{name}"
            if name not in a or name not in b:
                cmp.diff(sub, "(absent)" if name not in a else "present", "(absent)" if name not in b else "present")
                continue
            value(sub, a[name], b[name])

    if not pointer("toplevelobject", top_a, top_b):
        cmp.diff("toplevelobject", top_a, top_b)
    while todo:
        a, b = todo.pop()
        oa, ob = objs_a[a], objs_b[b]
        where = f"{a} ({oa.get('class')})"
        if oa.get("class") != ob.get("class"):
            cmp.diff(where, oa.get("class"), ob.get("class"))
            continue
        params(where, oa, ob)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", type=Path, help="further packfiles, or folders of .hkx files")
    ap.add_argument("--hkgen", type=Path, default=ROOT / "target/debug/hkgen")
    ap.add_argument("--hkxc", type=Path, default=ROOT.parent / "shared/peers/hkxc")
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("HKGEN_CORPUS", ROOT.parent / "shared/corpus")))
    ap.add_argument("--no-corpus", action="store_true", help="only the paths given")
    ap.add_argument("--keep", type=Path, help="a folder to keep the files made in")
    ap.add_argument("--show", type=int, default=20, help="differences listed per file")
    args = ap.parse_args()
    # Every path absolute: the tools run from the workspace root.
    args.hkgen, args.hkxc, args.corpus = args.hkgen.resolve(), args.hkxc.resolve(), args.corpus.resolve()
    args.paths = [p.resolve() for p in args.paths]
    for tool in (args.hkgen, args.hkxc):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool}: not an executable (cargo build --no-default-features --features cli,all-sdks)")
    files = [] if args.no_corpus else corpus_files(args.corpus)
    for p in args.paths:
        files += sorted(p.rglob("*.hkx")) if p.is_dir() else [p]
    if not files:
        sys.exit("no files")
    work = (args.keep or Path(tempfile.mkdtemp(prefix="hkxc_interop."))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    enums = load_enums(ROOT / "schemas")
    totals = dict(files=0, hkxc_reads=0, hkgen_reads_hkxc=0, verified=0, hkxc_reads_hkgen=0, same_binary=0, same_as_file=0, hkxc_own_as_file=0, equal=0, different=0)
    failures, dropped = [], []
    for k, f in enumerate(files):
        totals["files"] += 1
        stem = work / f"{k:03}"
        ptr = pointer_size(f)
        bits = "win32" if ptr == 4 else "amd64"
        layout = f"{ptr},1,0,1"
        name = str(f.relative_to(args.corpus)) if f.is_relative_to(args.corpus) else str(f)
        hx = stem.with_suffix(".hkxc.xml")
        rc, out = run([args.hkxc, "convert", "-i", f, "-o", hx, "-v", "xml"])
        if rc != 0 or not hx.exists():
            print(f"{name}: hkxc does not read it: {out.splitlines()[-1] if out else rc}")
            continue
        totals["hkxc_reads"] += 1
        steps = []
        # 1. hkxc's XML -> hkgen -> binary -> verify.
        hb = stem.with_suffix(".from_hkxc.hkx")
        rc, out = run([args.hkgen, "convert", "--layout", layout, hx, hb])
        if rc == 0:
            totals["hkgen_reads_hkxc"] += 1
            rc1, out1 = run([args.hkgen, "verify", hb])
            rc2, out2 = run([args.hkgen, "verify", hx])
            if rc1 == 0 and rc2 == 0:
                totals["verified"] += 1
                steps.append("hkgen reads hkxc's XML, verified")
            else:
                failures.append(f"{name}: hkgen verify: {(out1 if rc1 else out2).splitlines()[-1:]}")
                steps.append("hkgen reads hkxc's XML, NOT verified")
        else:
            failures.append(f"{name}: hkgen reads hkxc's XML: {out}")
            steps.append("hkgen does NOT read hkxc's XML")
        # 2. hkgen's XML -> hkxc -> binary, against hkxc's binary of its own XML.
        gx = stem.with_suffix(".hkgen.xml")
        rc, out = run([args.hkgen, "convert", f, gx])
        if rc != 0:
            failures.append(f"{name}: hkgen convert to XML: {out}")
            print(f"{name}: " + "; ".join(steps + ["hkgen does NOT write XML"]))
            continue
        gb, xb = stem.with_suffix(".hkxc_of_hkgen.hkx"), stem.with_suffix(".hkxc_of_hkxc.hkx")
        rc, out = run([args.hkxc, "convert", "-i", gx, "-o", gb, "-v", bits])
        if rc == 0 and gb.exists():
            totals["hkxc_reads_hkgen"] += 1
            run([args.hkxc, "convert", "-i", hx, "-o", xb, "-v", bits])
            same = xb.exists() and gb.read_bytes() == xb.read_bytes()
            original = f.read_bytes()
            as_file = gb.read_bytes() == original
            totals["same_binary"] += same
            totals["same_as_file"] += as_file
            totals["hkxc_own_as_file"] += xb.exists() and xb.read_bytes() == original
            steps.append("hkxc reads hkgen's XML" + (", to the bytes of its own XML" if same else ", to other bytes than its own XML's") + (", and of the file" if as_file else ""))
        else:
            failures.append(f"{name}: hkxc reads hkgen's XML: {out.splitlines()[-3:] if out else rc}")
            steps.append("hkxc does NOT read hkgen's XML")
        # 3. The values.
        cmp = Comparer(enums)
        try:
            compare(hx, gx, cmp)
        except ET.ParseError as e:
            failures.append(f"{name}: XML parse: {e}")
        totals["equal"] += cmp.equal
        totals["different"] += len(cmp.different)
        steps.append(f"values {cmp.equal} equal, {len(cmp.different)} different")
        print(f"{name}: " + "; ".join(steps))
        for d in cmp.different[: args.show]:
            print(f"    {d}")
        dropped += [f"{name}: {d}" for d in cmp.different]
    t = totals
    print()
    print(f"{t['files']} files, {t['hkxc_reads']} read by hkxc")
    print(f"hkxc XML -> hkgen -> binary: {t['hkgen_reads_hkxc']} of {t['hkxc_reads']} read, {t['verified']} verify (binary and XML)")
    print(f"hkgen XML -> hkxc -> binary: {t['hkxc_reads_hkgen']} of {t['hkxc_reads']} read, {t['same_binary']} to the bytes hkxc makes of its own XML; the file's own bytes: {t['same_as_file']} (from hkxc's own XML: {t['hkxc_own_as_file']})")
    print(f"values: {t['equal']} equal, {t['different']} different")
    if failures:
        print("\nfailures:")
        print("\n".join(failures))
    if not args.keep:
        for p in work.iterdir():
            p.unlink()
        work.rmdir()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
