"""glTF 2.0 export: skeletons (bones as nodes, reference pose, a skin), animations (sampled per
frame onto the bones; additive ones and root motion flagged in the extras) and shapes of Havok
documents, as ``hkgen gltf export`` writes them.

    import hkgen, hkgen.gltf
    skeleton = hkgen.open("skeleton.hkx")
    anim = hkgen.open("a000_003005.hkx")
    glb = hkgen.gltf.export([skeleton, anim], "out.glb")   # bytes, also written to the path
    glb = anim.to_gltf(skeleton)                            # the same from a document

An animation whose skeleton is not among the documents raises ``HavokError`` naming it.
"""

from ._native import gltf_export as export

__all__ = ["export"]
