"""Havok files inside game archives (issue 38) from Python: ``hkgen.open`` takes member paths
(``ARCHIVE:MEMBER``, a unique ending of the member's name), ``hkgen.archive_members`` lists an
archive, ``hkgen.write_member`` puts an edited member back."""

import shutil

import hkgen
import pytest

from conftest import corpus_file

SKELETON = "Axelph237__mod/chr/c3570.anibnd/c3570/hkx/skeleton.hkx"


def test_open_a_member_path_and_write_it_back(tmp_path):
    archive = corpus_file("../containers/c3570.anibnd.dcx")
    expected = corpus_file(SKELETON).read_bytes()
    doc = hkgen.open(f"{archive}:skeleton.hkx")
    assert doc.to_bytes() == expected
    full = hkgen.open(f"{archive}:N:\\GR\\data\\INTERROOT_win64\\chr\\c3570\\hkx\\skeleton.hkx")
    assert full.to_bytes() == expected

    members = hkgen.archive_members(archive)
    assert [m["kind"] for m in members].count("tag0") == 1
    assert members[0]["name"].endswith("skeleton.hkx") and members[0]["size"] == len(expected)

    copy = tmp_path / "c3570.anibnd.dcx"
    shutil.copy(archive, copy)
    where = hkgen.write_member(f"{copy}:skeleton.hkx", doc.to_bytes())
    assert where.endswith("skeleton.hkx")
    assert hkgen.open(f"{copy}:skeleton.hkx").to_bytes() == expected
    assert copy.read_bytes() == archive.read_bytes()  # the same bytes put back: the same archive


def test_a_missing_member_is_a_havok_error():
    archive = corpus_file("../containers/c3570.anibnd.dcx")
    with pytest.raises(hkgen.HavokError, match="no member named or ending in"):
        hkgen.open(f"{archive}:nothing.hkx")
