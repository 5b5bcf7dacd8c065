"""The corpus as the Rust tests find it: ``$HKGEN_CORPUS``, else ``../shared/corpus`` beside the
checkout. A missing file skips its test, and fails it under ``HKGEN_REQUIRE_CORPUS=1``."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def corpus_dir():
    return Path(os.environ.get("HKGEN_CORPUS") or ROOT.parent / "shared" / "corpus")


def corpus_file(rel):
    """The path of corpus file ``rel``; a missing one fails under HKGEN_REQUIRE_CORPUS=1 and
    skips the test (saying so) otherwise."""
    p = corpus_dir() / rel
    if not p.is_file():
        if os.environ.get("HKGEN_REQUIRE_CORPUS") == "1":
            pytest.fail(f"{p}: missing, and HKGEN_REQUIRE_CORPUS=1")
        pytest.skip(f"{p}: missing (the corpus is not here)")
    return p


def manifest():
    """(relpath, format, sdk) of every corpus file, from MANIFEST.tsv."""
    m = corpus_file("MANIFEST.tsv")
    rows = []
    with open(m, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            rows.append((r["relpath"], r["format"], r["sdk_version"]))
    return rows
