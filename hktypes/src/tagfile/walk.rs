//! The one walk of a tagfile item's member values, each member kind handled once, for every text
//! form of a tagfile: [`walk_out`](Walk::value) reads the bytes of an item through its type table
//! and hands each value to a [`TagSink`] (the dump's [`Val`](crate::dump::Val) tree, the
//! `<hktagfile>` XML writer), and [`Build`] lays values out as item bytes, pulling them from a
//! [`TagSource`] (the dump's `Val` tree, the `<hktagfile>` XML reader's elements), each source
//! reporting errors at its own place (a dump path, an XML line and column).
//!
//! The forms only say how a scalar or a container is spelt; the walk decides what a value of each
//! kind is: a bool or an integer of 1 to 8 bytes, a real of 4 or 2 bytes (`hkHalf16`, the top 16
//! bits of an `f32`), a pointer, string or array by its item index (0: null), a fixed array of
//! whole elements, a record by its fields with its ancestors' first, bytes where no layout or
//! kind describes them.

use super::items::{ItemData, Items};
use crate::error::{ErrorKind, ValueError};
use crate::reflect::layout::Layouts;
use crate::reflect::{Field, Kind, TypeFormat, TypeIndex};

use super::xml::MAX_DEPTH;

/// A value that is not a container, as stored.
pub(crate) enum Scalar<'a> {
    /// A one-byte bool of type `ty`: its byte (0, 1, or what a file holds beyond them) and the
    /// byte read as [`Scalar::Int`] reads it.
    Bool(TypeIndex, u8, i128),
    /// An integer (or a bool of 2 to 8 bytes) of type `ty`, as its signedness reads it.
    Int(TypeIndex, i128),
    /// A real (a half widened).
    Real(f32),
    /// A null pointer or string (item index 0).
    Null,
    /// An array that names no run (item index 0).
    NullArray,
    /// A pointer to item `index`.
    Pointer(u32),
    /// A string: its run's index and the run.
    Str(u32, &'a ItemData),
    /// Bytes no layout or kind describes.
    Bytes(&'a [u8]),
}

/// A container, as stored.
pub(crate) enum Open<'a> {
    /// A record of `fields` fields.
    Record(usize),
    /// An array's run: its index, the run, and the element type its array type gives.
    Run(u32, &'a ItemData, TypeIndex),
    /// A fixed array of `count` elements of type `ty`, `size` bytes each.
    Fixed { ty: TypeIndex, count: usize, size: usize },
    /// A vector, quaternion, matrix or transform as its reals ([`TagSink::FLAT_MATH`]).
    Math,
}

/// Where the walk out puts values: one form's spelling of them.
pub(crate) trait TagSink {
    /// One value made.
    type Out;
    /// A container's values so far.
    type Acc;
    /// Whether [`TagSink::scalar`] and [`TagSink::begin`] are given the member path
    /// (`bones[3].name`).
    const PATHS: bool = false;
    /// Whether a record of a math type is given as [`Open::Math`], its reals.
    const FLAT_MATH: bool = false;
    /// Called before each value.
    fn enter(&mut self) -> Result<(), ValueError> {
        Ok(())
    }
    /// A value that is no container.
    fn scalar(&mut self, s: Scalar<'_>, path: &str) -> Result<Self::Out, ValueError>;
    /// A container starts.
    fn begin(&mut self, open: &Open<'_>, path: &str) -> Result<Self::Acc, ValueError>;
    /// Whether the container's elements are walked (the XML writer writes none of zero bytes).
    fn walks(&self, _open: &Open<'_>) -> bool {
        true
    }
    /// A record's field starts (before its value).
    fn field(&mut self, _name: &str) {}
    /// A value of the container made: `field` is the record field with the type that declares it.
    fn push(&mut self, acc: &mut Self::Acc, field: Option<(TypeIndex, &Field)>, v: Self::Out);
    /// The container ends.
    fn end(&mut self, open: &Open<'_>, acc: Self::Acc) -> Result<Self::Out, ValueError>;
}

/// The math types a tagfile stores as records of reals and a packfile as one member type
/// (`hkQsTransformf` as 12 reals): the dump gives them as the packfile does, a list of reals.
pub(crate) fn is_math(name: Option<&str>, size: usize) -> bool {
    const MATH: &[&str] = &[
        "hkVector4f", "hkQuaternionf", "hkMatrix3f", "hkMatrix3Impl", "hkRotationf", "hkRotationImpl",
        "hkMatrix4f", "hkMatrix4Impl", "hkTransformf", "hkQsTransformf",
    ];
    name.is_some_and(|n| MATH.contains(&n)) && matches!(size, 16 | 48 | 64)
}

/// A record type's fields, its ancestors' first, each with the type that declares it.
pub(crate) fn fields<'t>(layouts: &Layouts<'t>, def: TypeIndex) -> Vec<(TypeIndex, &'t Field)> {
    let table = layouts.table();
    let mut out = Vec::new();
    for owner in table.ancestry(def) {
        if let Some(t) = table.get(owner) {
            out.extend(table.fields_of(t).iter().map(|f| (owner, f)));
        }
    }
    out
}

fn deep() -> ValueError {
    ValueError::new(ErrorKind::Cycle(format!("values nested more than {MAX_DEPTH} deep")))
}

/// The walk out: the values of a tagfile's items.
pub(crate) struct Walk<'a, 't> {
    pub items: &'a Items,
    pub layouts: Layouts<'t>,
    /// The member path within the object (kept when the sink asks for it).
    path: String,
}

impl<'a, 't> Walk<'a, 't> {
    pub fn new(items: &'a Items, layouts: Layouts<'t>) -> Self {
        Walk { items, layouts, path: String::new() }
    }

    /// Item `index`, or an error naming it.
    pub fn run(&self, index: u32) -> Result<&'a ItemData, ValueError> {
        self.items.items.get(index as usize).ok_or_else(|| {
            ValueError::new(ErrorKind::IndexOutOfRange { what: "item", index: index.into(), count: self.items.items.len() as u64 })
        })
    }

    /// The value of type `ty` that `bytes` hold, given to `sink`.
    pub fn object<S: TagSink>(&mut self, sink: &mut S, ty: TypeIndex, bytes: &[u8]) -> Result<S::Out, ValueError> {
        self.path.clear();
        self.value(sink, ty, bytes, 0)
    }

    fn value<S: TagSink>(&mut self, sink: &mut S, ty: TypeIndex, bytes: &[u8], depth: usize) -> Result<S::Out, ValueError> {
        if depth > MAX_DEPTH {
            return Err(deep());
        }
        sink.enter()?;
        let Some(shape) = self.layouts.shape(ty)? else {
            return sink.scalar(Scalar::Bytes(bytes), &self.path);
        };
        let table = self.layouts.table();
        let def = table.get(shape.def);
        let fmt = def.and_then(|d| d.format()).unwrap_or(TypeFormat(0));
        let subtype = def.and_then(|d| d.subtype).unwrap_or(0);
        let word = bytes.get(..4).map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        let int = || {
            let mut b = [0u8; 8];
            b[..bytes.len()].copy_from_slice(bytes);
            let u = u64::from_le_bytes(b);
            let shift = 64 - 8 * bytes.len() as u32;
            if fmt.is_signed() { i128::from(((u << shift) as i64) >> shift) } else { i128::from(u) }
        };
        let s = match shape.kind {
            Kind::Bool if bytes.len() == 1 => Scalar::Bool(ty, bytes[0], int()),
            Kind::Bool | Kind::Int if (1..=8).contains(&bytes.len()) => Scalar::Int(ty, int()),
            Kind::Float if bytes.len() == 4 => Scalar::Real(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
            Kind::Float if bytes.len() == 2 => Scalar::Real(f32::from_bits(u32::from(u16::from_le_bytes([bytes[0], bytes[1]])) << 16)),
            Kind::Pointer if word == 0 => Scalar::Null,
            Kind::Pointer => Scalar::Pointer(word),
            Kind::String if word == 0 => Scalar::Null,
            Kind::String => Scalar::Str(word, self.run(word)?),
            Kind::Array if !fmt.is_fixed_array() && word == 0 => Scalar::NullArray,
            Kind::Array if !fmt.is_fixed_array() => {
                let run = self.run(word)?;
                let open = Open::Run(word, run, subtype);
                return self.container(sink, &open, run.ty, &run.bytes, (run.count as usize, run.elem_size as usize), depth);
            }
            Kind::Array => {
                let count = fmt.fixed_count() as usize;
                let size = self.layouts.size_of(subtype)? as usize;
                if subtype == 0 || size.checked_mul(count) != Some(bytes.len()) {
                    Scalar::Bytes(bytes)
                } else {
                    let open = Open::Fixed { ty: subtype, count, size };
                    return self.container(sink, &open, subtype, bytes, (count, size), depth);
                }
            }
            Kind::Record if S::FLAT_MATH && is_math(def.map(|d| d.name.as_str()), bytes.len()) => {
                let mut acc = sink.begin(&Open::Math, &self.path)?;
                for b in bytes.chunks_exact(4) {
                    let x = sink.scalar(Scalar::Real(f32::from_le_bytes([b[0], b[1], b[2], b[3]])), &self.path)?;
                    sink.push(&mut acc, None, x);
                }
                return sink.end(&Open::Math, acc);
            }
            Kind::Record => return self.record(sink, shape.def, bytes, depth),
            _ => Scalar::Bytes(bytes),
        };
        sink.scalar(s, &self.path)
    }

    fn record<S: TagSink>(&mut self, sink: &mut S, def: TypeIndex, bytes: &[u8], depth: usize) -> Result<S::Out, ValueError> {
        let fields = fields(&self.layouts, def);
        let open = Open::Record(fields.len());
        let mut acc = sink.begin(&open, &self.path)?;
        for (owner, f) in fields {
            let size = self.layouts.size_of(f.ty)? as usize;
            let at = f.offset as usize;
            let b = bytes
                .get(at..at + size)
                .ok_or_else(|| ValueError::invalid(0, format!("member {} lies outside its {}-byte owner", f.name, bytes.len())))?;
            let len = self.path.len();
            if S::PATHS {
                if len > 0 {
                    self.path.push('.');
                }
                self.path.push_str(&f.name);
            }
            sink.field(&f.name);
            let v = self.value(sink, f.ty, b, depth + 1).map_err(|e| e.in_context(f.name.to_string()))?;
            self.path.truncate(len);
            sink.push(&mut acc, Some((owner, f)), v);
        }
        sink.end(&open, acc)
    }

    fn container<S: TagSink>(
        &mut self,
        sink: &mut S,
        open: &Open<'_>,
        ty: TypeIndex,
        bytes: &[u8],
        (n, size): (usize, usize),
        depth: usize,
    ) -> Result<S::Out, ValueError> {
        let mut acc = sink.begin(open, &self.path)?;
        if sink.walks(open) {
            for k in 0..n {
                let b = bytes
                    .get(k * size..(k + 1) * size)
                    .ok_or_else(|| ValueError::invalid(0, format!("element {k} lies outside its run")))?;
                let len = self.path.len();
                if S::PATHS {
                    use std::fmt::Write as _;
                    write!(self.path, "[{k}]").unwrap();
                }
                let v = self.value(sink, ty, b, depth + 1).map_err(|e| e.in_context(format!("[{k}]")))?;
                self.path.truncate(len);
                sink.push(&mut acc, None, v);
            }
        }
        sink.end(open, acc)
    }
}
