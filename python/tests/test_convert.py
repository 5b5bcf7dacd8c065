"""Document.convert (issue 34): a file as another SDK's, through hkgen's converter."""

import warnings

import pytest

import hkgen

from conftest import corpus_file

PTDE = "soulstruct-havok/PTDE__c2240__a00_0000.hkx"
DS3_ANIMATION = "monaxiastr__MonaxiaSouls/MonaxiaSouls/parts/wp_a_10010.partsbnd/Weapon/WP_A_10010/WP_A_10010.anibnd/WP_A_0500/hkx/a029_036200.hkx"
SEKIRO_CHR = "nikhil-RGB__Genichiro-The-Last-Stand/chr/c7190.chrbnd/chr/c7190/c7190.hkx"


def test_ptde_to_2015_1_and_back(tmp_path):
    doc = hkgen.open(corpus_file(PTDE))
    up = doc.convert("2015.1")
    assert (up.sdk, up.format) == ("2015.1", "tag0")
    assert up.objects("hkaDefaultAnimatedReferenceFrame")[0].frameType == 0
    back = up.convert("2010.2", "packfile", layout="4,1,0,1")
    assert (back.sdk, back.format) == ("2010.2", "packfile")
    a, b = doc.objects("hkaSplineCompressedAnimation")[0], back.objects("hkaSplineCompressedAnimation")[0]
    assert a.to_dict() == b.to_dict()
    up.write(tmp_path / "up.hkx")
    report = hkgen.verify(tmp_path / "up.hkx")
    assert (report["format"], report["sdk"], report["roundtrip"]) == ("tag0", "2015.1", "exact")


def test_ds3_animation_to_2018_1():
    doc = hkgen.open(corpus_file(DS3_ANIMATION))
    er = doc.convert("2018.1")
    assert (er.sdk, er.format) == ("2018.1", "tag0")
    a, b = doc.objects("hkaSplineCompressedAnimation")[0], er.objects("hkaSplineCompressedAnimation")[0]
    assert a.to_dict()["data"] == b.to_dict()["data"]


def test_a_loss_is_refused_or_warned():
    doc = hkgen.open(corpus_file(SEKIRO_CHR))
    with pytest.raises(ValueError, match="hknpRagdollData"):
        doc.convert("2010.2", layout="8,1,0,1")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = doc.convert("2010.2", layout="8,1,0,1", allow_loss=True)
    assert any("lost: #" in str(x.message) for x in w)
    assert (out.sdk, out.format) == ("2010.2", "packfile")
    assert out.objects("hkaSkeletonMapper")


DSR_RAGDOLL = "soulstruct-havok/DSR__c2240__c2240.hkx"


def test_prefer_hkp_at_2014_1():
    doc = hkgen.open(corpus_file(DSR_RAGDOLL))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hknp = doc.convert("2014.1", allow_loss=True)
        hkp = doc.convert("2014.1", allow_loss=True, prefer="hkp")
    assert hknp.objects("hknpRagdollData") and not hknp.objects("hkpRigidBody")
    assert len(hkp.objects("hkpRigidBody")) == 21 and not hkp.objects("hknpRagdollData")
    with pytest.raises(ValueError, match="--prefer hkx"):
        doc.convert("2014.1", allow_loss=True, prefer="hkx")
