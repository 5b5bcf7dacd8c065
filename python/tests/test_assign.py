"""Assigning strings, pointers and arrays (besides numbers, booleans and enums): checked, with
the member path in TypeError/ValueError; the file written re-reads with exactly the new values
and every other value as it was."""

import collections

import hkgen
import pytest

from conftest import corpus_file
from test_corpus import RAGDOLL

ALLOSAUR = "HavokLib/2010_2__allosaur[4001].hkx"
CLOTH = (
    "NiceneNerd__UKMM/crates/uk-content/test/Actor/Pack/Armor_151_Upper.sbactorpack/Cloth/"
    "Armor_116/Armor_116_Upper.hkcl"
)


def plain(v):
    """A value as plain Python data; a pointer as the class of the object it names."""
    if isinstance(v, hkgen.Record):
        if v.handle is not None:
            return ("->", v.type_name)
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, memoryview)):
        return [plain(x) for x in (v.tolist() if isinstance(v, memoryview) else v)]
    if isinstance(v, tuple):
        return tuple(plain(x) for x in v)
    return int(v) if isinstance(v, int) and not isinstance(v, bool) else v


def fields(obj):
    """An object's members as plain data."""
    return {k: plain(x) for k, x in obj.items()}


def snapshot(doc):
    """Every object's values, per class, as a multiset (a rewritten tagfile may number its
    objects in another order)."""
    out = collections.defaultdict(collections.Counter)
    for obj in doc.objects():
        out[obj.type_name][repr(fields(obj))] += 1
    return dict(out)


def test_tagfile_string_pointer_and_vector_array():
    data = corpus_file(RAGDOLL).read_bytes()
    doc = hkgen.open(data)
    ragdoll = doc.objects("hknpRagdollData")[0]
    bones = ragdoll.skeleton.bones
    bodies = ragdoll.bodyCinfos
    capsule = doc.objects("hknpCapsuleShape")[0]
    # Assigning what a member holds writes the same file, byte for byte.
    bones[0].name = bones[0].name
    bodies[0].shape = bodies[0].shape
    capsule.vertices = list(capsule.vertices)
    assert doc.to_bytes() == data

    expected = hkgen.open(data)
    before = snapshot(expected)
    skeleton_before = fields(expected.objects("hknpRagdollData")[0].skeleton)
    capsule_before = fields(capsule)
    shapes_before = len({b.shape.handle for b in bodies})

    bones[0].name = "Pelvis_renamed"
    bodies[0].shape = bodies[1].shape
    new_vertices = [(1.0, 2.0, 3.0, 4.0), (-1.0, 0.5, 0.25, 0.0), (0.0, 0.0, 0.0, 1.0)]
    capsule.vertices = new_vertices

    out = doc.to_bytes()
    assert len(out) != len(data)
    again = hkgen.open(out)
    r = again.objects("hknpRagdollData")[0]
    assert r.skeleton.bones[0].name == "Pelvis_renamed"
    assert r.bodyCinfos[0].shape.handle == r.bodyCinfos[1].shape.handle
    assert len({b.shape.handle for b in r.bodyCinfos}) == shapes_before - 1
    # Everything else as it was: the skeleton differs in the one name, one capsule in its
    # vertices, every other object not at all (pointers compared by the class they name).
    skeleton_after = dict(skeleton_before, bones=[dict(b) for b in skeleton_before["bones"]])
    skeleton_after["bones"][0]["name"] = "Pelvis_renamed"
    capsule_after = dict(capsule_before, vertices=new_vertices)
    expected_after = dict(before)
    skeletons = before["hkaSkeleton"].copy()
    skeletons[repr(skeleton_before)] -= 1
    skeletons[repr(skeleton_after)] += 1
    expected_after["hkaSkeleton"] = +skeletons
    capsules = before["hknpCapsuleShape"].copy()
    capsules[repr(capsule_before)] -= 1
    capsules[repr(capsule_after)] += 1
    expected_after["hknpCapsuleShape"] = +capsules
    assert snapshot(again) == expected_after
    # Records made before the file was written again follow their objects.
    assert bodies[0].shape.handle == bodies[1].shape.handle
    assert doc.objects("hknpRagdollData")[0].skeleton.bones[0].name == "Pelvis_renamed"


def test_tagfile_assignments_are_checked():
    data = corpus_file(RAGDOLL).read_bytes()
    doc = hkgen.open(data)
    ragdoll = doc.objects("hknpRagdollData")[0]
    body = ragdoll.bodyCinfos[0]
    with pytest.raises(TypeError, match=r"hknpRagdollData#5\.bodyCinfos\[0\]\.shape: a hkaSkeleton is not a hknpShape"):
        body.shape = ragdoll.skeleton
    with pytest.raises(TypeError, match=r"bodyCinfos\[0\]\.shape: .* is a nested record"):
        body.shape = ragdoll.bodyCinfos[1]
    other = hkgen.open(data)
    with pytest.raises(TypeError, match=r"belongs to another document"):
        body.shape = other.objects("hknpCapsuleShape")[0]
    with pytest.raises(TypeError, match=r"bodyCinfos\[0\]\.name: expected a str or None"):
        body.name = 3
    with pytest.raises(ValueError, match=r"a string holds no NUL"):
        body.name = "a\0b"
    capsule = doc.objects("hknpCapsuleShape")[0]
    with pytest.raises(ValueError, match=r"hknpCapsuleShape#\d+\.vertices\[1\]: 3 values given for a fixed array of 4"):
        capsule.vertices = [(1.0, 2.0, 3.0, 4.0), (1.0, 2.0, 3.0)]
    with pytest.raises(TypeError, match=r"vertices\[0\]\[2\]: expected a float"):
        capsule.vertices = [(1.0, 2.0, "x", 4.0)]
    with pytest.raises(TypeError, match=r"vertices: expected a list or tuple"):
        capsule.vertices = 3.0
    with pytest.raises(TypeError, match=r"hkaSkeleton#20\.bones: assigning an array of Record elements is not supported"):
        ragdoll.skeleton.bones = []
    # Nothing was changed by the refused assignments.
    assert doc.to_bytes() == data


def test_packfile_string_and_float_array():
    path = corpus_file(ALLOSAUR)
    data = path.read_bytes()
    doc = hkgen.open(path)
    assert (doc.format, doc.sdk) == ("packfile", "2010.2")
    skeleton = doc.objects("hkaSkeleton")[0]
    floats = skeleton.referenceFloats.tolist()
    assert len(floats) == 3
    before = fields(skeleton)
    skeleton.bones[2].name = "renamed bone"
    skeleton.referenceFloats = [0.5, 1.5, 2.5, 3.5, 4.5]
    skeleton.name = None
    out = doc.to_bytes()
    again = hkgen.open(out)
    got = fields(again.objects("hkaSkeleton")[0])
    before["bones"][2]["name"] = "renamed bone"
    before["referenceFloats"] = [0.5, 1.5, 2.5, 3.5, 4.5]
    before["name"] = None
    assert got == before
    others = lambda d: [fields(o) for o in d.objects() if o.type_name != "hkaSkeleton"]
    assert others(again) == others(hkgen.open(data))
    with pytest.raises(TypeError, match=r"hkaSkeleton#2\.floatSlots: assigning an array of .* not supported"):
        skeleton.floatSlots = ["a"]
    with pytest.raises(ValueError, match=r"hkaSkeleton#2\.parentIndices\[0\]: 40000 is out of the range"):
        skeleton.parentIndices = [40000]


def test_packfile_pointer():
    path = corpus_file(CLOTH)
    data = path.read_bytes()
    doc = hkgen.open(path)
    collidables = doc.objects("hclCollidable")
    shapes = [c.shape.handle for c in collidables]
    assert shapes[0] != shapes[1]
    collidables[0].shape = collidables[1].shape
    again = hkgen.open(doc.to_bytes())
    got = [c.shape.handle for c in again.objects("hclCollidable")]
    assert got[0] == got[1] == shapes[1] and got[2:] == shapes[2:]
    with pytest.raises(TypeError, match=r"hclCollidable#\d+\.shape: a hclCollidable is not a hclShape"):
        collidables[0].shape = collidables[1]
    collidables[0].shape = None
    again = hkgen.open(doc.to_bytes())
    assert again.objects("hclCollidable")[0].shape is None
    # Every other object as read.
    others = lambda d: [fields(o) for o in d.objects() if o.type_name != "hclCollidable"]
    assert others(again) == others(hkgen.open(data))


def test_tagfile_vector_changes_exactly_its_bytes():
    data = corpus_file(RAGDOLL).read_bytes()
    doc = hkgen.open(data)
    body = doc.objects("hknpRagdollData")[0].bodyCinfos[0]
    body.position = (1.0, 2.0, 3.0, 0.0)
    out = doc.to_bytes()
    assert len(out) == len(data)
    changed = [i for i in range(len(data)) if out[i] != data[i]]
    # Within the 16 bytes of one vector.
    assert len(changed) > 0 and changed[-1] - changed[0] < 16
    assert hkgen.open(out).objects("hknpRagdollData")[0].bodyCinfos[0].position == (1.0, 2.0, 3.0, 0.0)
    with pytest.raises(ValueError, match=r"bodyCinfos\[0\]\.position: 3 values given for a fixed array of 4"):
        body.position = (1.0, 2.0, 3.0)
