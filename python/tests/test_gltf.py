"""glTF export from Python (issue 35): ``doc.to_gltf(...)`` and ``hkgen.gltf.export(...)`` give a
binary glTF whose skin is the skeleton's and whose animation is the clip; an animation without
its skeleton raises HavokError naming the skeleton."""

import json
import struct

import hkgen
import hkgen.gltf
import pytest

from conftest import corpus_file

SKELETON = "HavokLib/2010_2__allosaur[4101].hkx"
CLIP = "HavokLib/2010_2__allosaur_run[4101].hkx"


def glb_json(data):
    assert data[:4] == b"glTF"
    (version, length) = struct.unpack_from("<II", data, 4)
    assert version == 2 and length == len(data)
    (chunk,) = struct.unpack_from("<I", data, 12)
    return json.loads(data[20 : 20 + chunk])


def test_a_skeleton_and_its_clip_export_together(tmp_path):
    skeleton = hkgen.open(corpus_file(SKELETON))
    clip = hkgen.open(corpus_file(CLIP))
    out = tmp_path / "allosaur.glb"
    data = hkgen.gltf.export([skeleton, clip], out)
    assert out.read_bytes() == data
    g = glb_json(data)
    bones = skeleton.objects("hkaSkeleton")[0].bones
    assert len(g["skins"]) >= 1
    joints = g["skins"][0]["joints"]
    assert [g["nodes"][j]["name"] for j in joints] == [b.name for b in bones]
    assert len(g["animations"]) == len(clip.animations()) == 1
    extras = g["animations"][0]["extras"]
    assert extras["codec"] == clip.animations()[0].codec
    # The same from the document, with the skeleton as the other input.
    g2 = glb_json(clip.to_gltf(skeleton, up="z"))
    assert len(g2["animations"]) == 1
    assert g2["nodes"][0]["name"] == "Havok" and g2["nodes"][0]["rotation"][0] < 0


def test_an_animation_without_its_skeleton_is_refused_with_its_name():
    clip = hkgen.open(corpus_file(CLIP))
    name = clip.objects("hkaAnimationBinding")[0].originalSkeletonName
    with pytest.raises(hkgen.HavokError) as e:
        clip.to_gltf()
    if name:
        assert repr(name).strip("'") in str(e.value)
    assert "skeleton" in str(e.value)
    with pytest.raises(ValueError):
        clip.to_gltf(up="x")
