//! The spline codec (`hktypes::anim::spline`), one core, on a made animation of 100 frames of 100
//! transform tracks (every channel moving: translation, rotation, scale), as issue 33 states the
//! encoder's target: `encode_100x100` at Havok's default tolerances (0.01, THREECOMP40, 8-bit
//! scalars), `decode_100x100` of that encoding (its data's bytes counted), `sample_100x100` one
//! pose between frames.
//!
//! `cargo bench --no-default-features --features cli --bench anim`

use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};
use hktypes::anim::spline::{self, SplineOptions};
use hktypes::anim::Frames;

fn frames() -> Frames {
    let (nf, nt) = (100, 100);
    let mut transforms = Vec::with_capacity(nf * nt);
    for f in 0..nf {
        for t in 0..nt {
            let x = f as f32 / 10.0 + t as f32;
            let h = (x * 0.37).sin() * 0.4;
            transforms.push([x.sin(), (x * 1.3).cos() * 2.0, x * 0.05, 0.6 * h.sin(), 0.0, 0.8 * h.sin(), h.cos(), 1.0 + 0.1 * (x * 0.7).sin(), 1.0, 1.0]);
        }
    }
    Frames { frame_count: nf, track_count: nt, transforms, float_track_count: 0, floats: Vec::new() }
}

#[divan::bench]
fn encode_100x100(bencher: Bencher) {
    let f = frames();
    bencher
        .counter(ItemsCount::new(f.frame_count * f.track_count))
        .bench(|| spline::encode(black_box(&f), &SplineOptions::default()).unwrap());
}

#[divan::bench]
fn decode_100x100(bencher: Bencher) {
    let s = spline::encode(&frames(), &SplineOptions::default()).unwrap();
    bencher.counter(BytesCount::new(s.data.len())).bench(|| spline::decode(black_box(&s)).unwrap());
}

#[divan::bench]
fn sample_100x100(bencher: Bencher) {
    let s = spline::encode(&frames(), &SplineOptions::default()).unwrap();
    bencher.bench(|| spline::sample(black_box(&s), black_box(1.234)).unwrap());
}

fn main() {
    divan::main();
}
