"""Prints a skeleton's bone names and reference pose (translation, rotation, scale per bone).

    python examples/skeleton.py [FILE]

FILE defaults to Sekiro's Genichiro ragdoll in the corpus ($HKGEN_CORPUS, else ../shared/corpus).
"""

import os
import sys
from pathlib import Path

import hkgen

corpus = Path(os.environ.get("HKGEN_CORPUS") or Path(__file__).resolve().parents[2].parent / "shared" / "corpus")
path = sys.argv[1] if len(sys.argv) > 1 else corpus / "nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx"

doc = hkgen.open(path)
for skeleton in doc.objects("hkaSkeleton"):
    print(f"{skeleton.name}: {len(skeleton.bones)} bones")
    for bone, parent, pose in zip(skeleton.bones, skeleton.parentIndices, skeleton.referencePose):
        t, r, s = pose.translation[:3], pose.rotation, pose.scale[:3]
        print(f"  {bone.name:32} parent {parent:3}  t {t}  r {r}  s {s}")
