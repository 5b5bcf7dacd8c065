"""Animations as numpy arrays (issue 33): ``doc.animations()`` on the corpus, decoding, and
``Animation.set_frames`` (a good array is written and reads back; a bad one raises ValueError
naming the problem and writes nothing)."""

import collections

import hkgen
import numpy
import pytest

from conftest import corpus_file, manifest

INTERLEAVED = "HavokLib/2014_1__animref[8101].hkx"
DELTA = "HavokLib/2010_2__allosaur_run_D12_8_3[4101].hkx"

# Marks of a manifest line whose file may hold animations.
MARKS = ("hkaAnimationContainer", "Animation")


def animation_files():
    rows = manifest()
    compendia = [str(corpus_file(rel)) for rel, fmt, _ in rows if fmt == "tcm0"]
    with open(corpus_file("MANIFEST.tsv"), encoding="utf-8") as f:
        lines = f.read().splitlines()[1:]
    for (rel, fmt, _), line in zip(rows, lines):
        if fmt != "tcm0" and any(m in line for m in MARKS):
            yield rel, compendia


def test_every_corpus_animation_reads():
    found = collections.Counter()
    decoded = collections.Counter()
    for rel, compendia in animation_files():
        doc = hkgen.open(corpus_file(rel), compendium=compendia)
        # Every corpus animation is typed (6.6, 7.1 and 2011 included) and every codec decodes.
        for a in doc.animations():
            found[a.codec] += 1
            assert a.handle >= 0 and a.duration >= 0.0
            assert len(a.track_to_bone) == a.track_count
            frames = a.frames()
            decoded[a.codec] += 1
            assert frames.dtype == numpy.float32
            assert frames.shape == (a.frame_count, a.track_count, 10), rel
            assert numpy.isfinite(frames).all(), rel
            assert a.float_frames().shape == (a.frame_count, a.float_track_count)
            rm = a.root_motion()
            assert rm is None or rm.shape[1] == 4
    print("found", dict(found), "decoded", dict(decoded))
    assert found["interleaved"] > 0 and found["delta"] > 0 and found["spline"] > 0
    assert decoded["interleaved"] == found["interleaved"]
    assert decoded["delta"] == found["delta"]
    assert decoded["spline"] == found["spline"]
    assert found["wavelet"] > 0 and decoded["wavelet"] == found["wavelet"]


def test_decode_known_shape_and_sample():
    doc = hkgen.open(corpus_file(DELTA))
    (a,) = doc.animations()
    assert a.codec == "delta"
    f = a.frames()
    assert f.shape == (a.frame_count, a.track_count, 10)
    q = f[:, :, 3:7]
    assert numpy.allclose(numpy.linalg.norm(q, axis=2), 1.0, atol=0.01)
    # Sampling at a frame's time gives that frame.
    t = a.duration * 3 / (a.frame_count - 1)
    assert numpy.allclose(a.sample(t), f[3], atol=1e-5)


def test_wavelet_decodes_as_havoks_runtime_sampled_it():
    # Demon's Souls' a00_3000 (wavelet, PS3 5.5) and the modder's despacito file, which is this
    # clip sampled by Havok's runtime at the times f * duration / 61 (tests/anim_wavelet.rs).
    (a,) = hkgen.open(corpus_file("DSAnimStudio/a00_3000.hkx")).animations()
    assert a.codec == "wavelet"
    f = a.frames()
    assert f.shape == (61, 85, 10)
    assert numpy.allclose(numpy.linalg.norm(f[:, :, 3:7], axis=2), 1.0, atol=1e-3)
    (b,) = hkgen.open(corpus_file("DSAnimStudio/a00_3000_despacito.hkx")).animations()
    g = b.frames()
    tau = numpy.arange(61) * 60.0 / 61.0
    i = numpy.minimum(tau.astype(int), 59)
    w = (tau - i)[:, None, None].astype(numpy.float32)
    blended = f[i] * (1 - w) + f[i + 1] * w
    cols = [0, 1, 2, 3, 4, 5, 7, 8, 9]
    assert numpy.abs(blended[:, :, cols] - g[:, :, cols]).max() < 1e-5


def test_set_frames_interleaved_reads_back():
    doc = hkgen.open(corpus_file(INTERLEAVED))
    a = next(a for a in doc.animations() if a.codec == "interleaved")
    f = a.frames()
    f[0, 0, 0] += 2.5
    a.set_frames(f, codec="interleaved")
    again = hkgen.open(doc.to_bytes())
    b = next(x for x in again.animations() if x.handle == a.handle)
    assert numpy.array_equal(b.frames(), f)
    # Unchanged frames re-encode to the stock bytes.
    doc = hkgen.open(corpus_file(INTERLEAVED))
    a = next(a for a in doc.animations() if a.codec == "interleaved")
    a.set_frames(a.frames(), codec="interleaved")
    assert doc.to_bytes() == corpus_file(INTERLEAVED).read_bytes()


@pytest.mark.parametrize(
    "spoil, message",
    [
        (lambda f: f[:, :-1, :] if f.shape[1] > 1 else f[:, :, :9], "shape"),
        (lambda f: f[..., :9], "shape"),
        (lambda f: _set(f, (0, 0, 1), float("nan")), "not finite"),
        (lambda f: _set(f, (0, 0, 6), 3.0), "unit quaternion"),
    ],
)
def test_bad_frames_raise_value_error_and_write_nothing(spoil, message):
    doc = hkgen.open(corpus_file(INTERLEAVED))
    before = doc.to_bytes()
    a = next(a for a in doc.animations() if a.codec == "interleaved")
    bad = spoil(a.frames().copy())
    with pytest.raises(ValueError, match=message):
        a.set_frames(bad, codec="interleaved")
    assert doc.to_bytes() == before


def _set(f, at, v):
    f[at] = v
    return f


SPLINE = "HavokLib/2010_2__allosaur_run_S40_V16_B25_D3[4101].hkx"


def test_set_frames_spline_within_tolerance():
    doc = hkgen.open(corpus_file(SPLINE))
    (a,) = doc.animations()
    assert a.codec == "spline"
    f = a.frames()
    a.set_frames(f, codec="spline", position_tolerance=0.01, rotation_tolerance=0.01, rotation_quantization="ThreeComp48")
    (b,) = hkgen.open(doc.to_bytes()).animations()
    g = b.frames()
    assert g.shape == f.shape
    assert numpy.abs(g[..., 0:3] - f[..., 0:3]).max() <= 0.0101
    sign = numpy.where((g[..., 3:7] * f[..., 3:7]).sum(axis=-1, keepdims=True) < 0, -1.0, 1.0)
    assert numpy.abs(g[..., 3:7] * sign - f[..., 3:7]).max() <= 0.0101
