"""The Python package on the real corpus: every file opens (or fails with the exception of its
layer), writes back byte-exact, and every member of every object reads."""

import collections
import struct

import hkgen
import pytest

from conftest import corpus_dir, corpus_file, manifest

RAGDOLL = "nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx"


def walk(value, counts):
    """Reads every member of a record and what it holds (objects a pointer reaches are walked
    where they are listed, not through the pointer)."""
    if isinstance(value, hkgen.Record):
        for _, member in value.items():
            counts["members"] += 1
            if not (isinstance(member, hkgen.Record) and member.handle is not None):
                walk(member, counts)
    elif isinstance(value, list):
        for v in value:
            if not (isinstance(v, hkgen.Record) and v.handle is not None):
                walk(v, counts)
    elif isinstance(value, memoryview):
        counts["numbers"] += len(value)


def test_every_corpus_file():
    rows = manifest()
    compendia = [str(corpus_file(rel)) for rel, fmt, _ in rows if fmt == "tcm0"]
    outcome = collections.Counter()
    counts = collections.Counter()
    for rel, fmt, _ in rows:
        path = corpus_file(rel)
        data = path.read_bytes()
        try:
            doc = hkgen.open(path, compendium=compendia)
        except hkgen.HavokError as e:
            outcome[(fmt, type(e).__name__)] += 1
            continue
        # The document knows its format; a binary file writes back byte for byte.
        outcome[(fmt, doc.format, doc.to_bytes() == data)] += 1
        for obj in doc.objects():
            counts["objects"] += 1
            walk(obj, counts)
    assert dict(outcome) == {
        ("packfile", "packfile", True): 301,
        ("tag0", "tag0", True): 340,
        # A compendium holds types only.
        ("tcm0", "FormatError"): 5,
        # <hkpackfile> XML reads, and writes as a binary packfile.
        ("xml", "packfile_xml", False): 22,
        # A pointer to no object (hkxlib's Minotaur_character.xml).
        ("xml", "ValuesError"): 1,
        # HKLib's <hktagfile> XML reads, but its types list no members: its values cannot be laid out.
        ("xml-tagfile", "ValuesError"): 1,
        # TotK's .bphcl (a TAG0 of SDK 2022.1 in Nintendo's Phive wrapper): the Rust crates read
        # it (tests/phive.rs); the package says it does not read the wrapper yet.
        ("phive", "FormatError"): 1,
    }
    assert dict(counts) == EXPECTED_COUNTS


# Objects, members read (records within records included; each object once, where it is listed)
# and numbers in number arrays.
EXPECTED_COUNTS = {"objects": 57897, "members": 6994073, "numbers": 14122993}


def test_ragdoll_edit_changes_exactly_those_bytes(tmp_path):
    """As examples/ragdoll_edit.rs: the first body keyframed, its mass doubled."""
    path = corpus_file(RAGDOLL)
    data = path.read_bytes()
    doc = hkgen.open(path)
    assert (doc.format, doc.sdk) == ("tag0", "2016.2")
    ragdoll = doc.objects("hknpRagdollData")[0]
    body = ragdoll.bodyCinfos[0]
    MotionType = type(body.motionType)
    assert MotionType.__name__ == "hknpMotionType_Enum"
    assert body.motionType is MotionType.DYNAMIC
    assert body.name == "Ragdoll_Pelvis"
    mass = body.mass
    body.motionType = MotionType.KEYFRAMED
    body.mass = mass * 2
    out_path = tmp_path / "c7190-edited.hkx"
    doc.write(out_path)
    out = out_path.read_bytes()
    assert len(out) == len(data)
    changed = [i for i in range(len(data)) if out[i] != data[i]]
    # The motion type byte and the mass's exponent bytes, within one body record.
    assert changed == [0x11E8, 0x1232, 0x1233]
    assert out[0x11E8] == 1
    assert struct.unpack_from("<f", out, 0x1230)[0] == pytest.approx(mass * 2)
    again = hkgen.open(out)
    body = again.objects("hknpRagdollData")[0].bodyCinfos[0]
    assert body.motionType == MotionType.KEYFRAMED
    assert body.mass == pytest.approx(mass * 2)


def test_assignment_is_checked():
    doc = hkgen.open(corpus_file(RAGDOLL))
    body = doc.objects("hknpRagdollData")[0].bodyCinfos[0]
    with pytest.raises(TypeError, match=r"hknpRagdollData#5\.bodyCinfos\[0\]\.mass"):
        body.mass = "heavy"
    with pytest.raises(ValueError, match=r"bodyCinfos\[0\]\.motionType: 256 is out of the range 0..=255"):
        body.motionType = 256
    with pytest.raises(ValueError, match=r"out of the range of a 32-bit float"):
        body.mass = 1e300
    with pytest.raises(TypeError, match=r"bodyCinfos\[0\]\.name: expected a str or None"):
        body.name = 3
    with pytest.raises(AttributeError):
        body.nonexistent = 1
    # Nothing was changed by the refused assignments.
    assert doc.to_bytes() == corpus_file(RAGDOLL).read_bytes()


def test_skeleton_reads_typed():
    doc = hkgen.open(corpus_file(RAGDOLL))
    root = doc.root
    assert root.type_name == "hkRootLevelContainer"
    assert "namedVariants" in root and root.keys() == ["namedVariants"]
    skeleton = doc.objects("hknpRagdollData")[0].skeleton
    assert skeleton.type_name == "hkaSkeleton"
    names = [b.name for b in skeleton.bones]
    assert len(names) == len(skeleton.referencePose) == len(skeleton.parentIndices)
    assert names[:3] == ["Ragdoll_Pelvis", "Ragdoll_L_Thigh", "Ragdoll_R_Thigh"]
    # hkArray<hkInt16> as a view of the file's bytes.
    parents = skeleton.parentIndices
    assert isinstance(parents, memoryview) and parents.format == "h" and parents.readonly
    assert parents[0] == -1
    pose = skeleton.referencePose[0]
    assert pose.type_name == "hkQsTransform"
    assert len(pose.translation) == 4 and len(pose.rotation) == 4
    assert all(isinstance(x, float) for x in pose.scale)
    assert skeleton["name"] == skeleton.name
    # items() reads what the attributes read.
    body = doc.objects("hknpRagdollData")[0].bodyCinfos[1]
    items = body.items()
    assert [k for k, _ in items] == body.keys() and len(items) == 21
    for k, v in items:
        if not isinstance(v, hkgen.Record):
            assert v == getattr(body, k) or v is None, k
    assert body.to_dict()["name"] == body.name


def test_bad_input_raises_the_layer_exception():
    data = corpus_file(RAGDOLL).read_bytes()
    with pytest.raises(hkgen.FormatError):
        hkgen.open(b"not a havok file at all")
    with pytest.raises(hkgen.ContainerError) as e:
        hkgen.open(data[:100])
    assert isinstance(e.value, hkgen.HavokError) and e.value.layer == "container"
    # Every truncation fails as a HavokError, never as a crash.
    for n in range(0, len(data), 397):
        with pytest.raises(hkgen.HavokError):
            hkgen.open(data[:n])
    # Bytes flipped one at a time: a HavokError or a document, whose members all read or fail
    # as HavokError.
    for i in range(0, len(data), 61):
        bad = bytearray(data)
        bad[i] ^= 0xFF
        try:
            doc = hkgen.open(bytes(bad))
        except hkgen.HavokError:
            continue
        try:
            for obj in doc.objects():
                walk(obj, collections.Counter())
            doc.to_bytes()
        except hkgen.HavokError:
            pass


def test_verify_is_the_cli_report():
    report = hkgen.verify(corpus_file(RAGDOLL))
    assert report["format"] == "tag0"
    assert report["sdk"] == "2016.2"
    assert report["roundtrip"] == "exact"
    assert report["hashes_stored"] == report["hashes_matched"] > 0


# A small <hktagfile> XML (the form HKLib writes, with the member records hkgen's writer adds):
# it opens as the TAG0 file it describes, and writes as that TAG0 file.
SMALL_TAGFILE_XML = b"""<?xml version="1.0" encoding="utf-8"?>
<hktagfile version="3" sdkversion="20180100">
  <type id="type1"><name value="Root" /><format value="7" /><size value="16" align="8" />
    <members count="2"><member name="next" flags="32" offset="0" typeid="type2" /><member name="small" flags="32" offset="8" typeid="type3" /></members>
  </type>
  <type id="type2"><name value="T*" /><format value="6" /><subtype id="type1" /><size value="8" align="8" /></type>
  <type id="type3"><name value="short" /><format value="16900" /><size value="2" align="2" /></type>
  <object id="object1" typeid="type1"><record><field name="next"><pointer id="object2" /></field><field name="small"><integer value="-5" /></field></record></object>
  <object id="object2" typeid="type1"><record><field name="next"><null /></field><field name="small"><integer value="7" /></field></record></object>
</hktagfile>
"""


def test_tagfile_xml_opens_as_its_tag0_file():
    doc = hkgen.open(SMALL_TAGFILE_XML)
    assert (doc.sdk, doc.format) == ("2018.1", "tagfile_xml")
    root = doc.root
    assert root["small"] == -5
    assert root["next"]["small"] == 7 and root["next"]["next"] is None
    tag0 = doc.to_bytes()
    assert tag0[4:8] == b"TAG0"
    again = hkgen.open(tag0)
    assert again.format == "tag0" and again.root["next"]["small"] == 7
    assert again.to_bytes() == tag0
