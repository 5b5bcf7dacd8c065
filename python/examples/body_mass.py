"""Sets the mass of a ragdoll's body and writes the file; every other byte stays as read.

    python examples/body_mass.py [IN] [OUT] [BODY] [MASS]

IN defaults to Sekiro's Genichiro ragdoll in the corpus, OUT to c7190-edited.hkx, BODY to the
first, MASS to twice its mass.
"""

import os
import sys
from pathlib import Path

import hkgen

corpus = Path(os.environ.get("HKGEN_CORPUS") or Path(__file__).resolve().parents[2].parent / "shared" / "corpus")
args = sys.argv[1:] + [None] * 4
src = args[0] or corpus / "nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx"
out = args[1] or "c7190-edited.hkx"
index = int(args[2] or 0)

doc = hkgen.open(src)
ragdoll = doc.objects("hknpRagdollData")[0]
body = ragdoll.bodyCinfos[index]
mass = float(args[3]) if args[3] else body.mass * 2
print(f"body {index} {body.name}: mass {body.mass}, motion type {body.motionType!r}")
body.mass = mass
doc.write(out)
before = Path(src).read_bytes()
after = Path(out).read_bytes()
changed = [hex(i) for i in range(len(before)) if before[i] != after[i]]
print(f"wrote {out}: mass {hkgen.open(out).objects('hknpRagdollData')[0].bodyCinfos[index].mass}, bytes changed: {changed}")
