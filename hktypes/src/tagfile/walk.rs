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

use super::index::KIND_RUN;
use super::items::{ItemBytes, ItemData, Items};
use crate::error::{ErrorKind, ValueError};
use crate::reflect::layout::{Layouts, Slots};
use crate::reflect::{Field, Kind, TypeFormat, TypeIndex, TypeTable};
use std::borrow::Cow;
use std::fmt::Write as _;

/// How deep values may nest (records, arrays) in either walk (re-exported as
/// `tagfile::xml::MAX_DEPTH`).
pub const MAX_DEPTH: usize = 64;

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

/// Each record type's [`fields`], made once per type: the walks take them per value.
#[derive(Default)]
pub(crate) struct FieldCache<'t> {
    /// Per type: its fields' range in `flat` and whether their names differ, once made.
    at: Vec<Option<Fields>>,
    pub flat: Vec<(TypeIndex, &'t Field)>,
}

/// A record type's fields in a [`FieldCache`].
#[derive(Clone, Copy)]
pub(crate) struct Fields {
    start: u32,
    end: u32,
    /// No two fields have one name (a type may repeat an ancestor's).
    unique: bool,
    /// The fields each first of its name: `start..end` when `unique`, else a copy after them.
    names_end: u32,
}

impl Fields {
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The range of the fields that are each the first of its name (what a source is given).
    pub fn names(self) -> std::ops::Range<usize> {
        if self.unique {
            self.range()
        } else {
            self.end as usize..self.names_end as usize
        }
    }

    /// The position in `fields` (this type's) of the first field named `name`; `from`: where
    /// to look first (after the field found before: a record's fields come in order).
    pub fn find(self, fields: &[(TypeIndex, &Field)], from: usize, name: &str) -> Option<usize> {
        let from = if self.unique { from.min(fields.len()) } else { 0 };
        let (head, tail) = fields.split_at(from);
        match tail.iter().position(|(_, f)| f.name == name) {
            Some(k) => Some(from + k),
            None => head.iter().position(|(_, f)| f.name == name),
        }
    }
}

impl<'t> FieldCache<'t> {
    /// Record type `def`'s fields.
    pub fn get(&mut self, layouts: &Layouts<'t>, def: TypeIndex) -> Fields {
        if let Some(Some(f)) = self.at.get(def as usize) {
            return *f;
        }
        let start = self.flat.len();
        self.flat.extend(fields(layouts, def));
        let end = self.flat.len();
        let mut names = std::collections::HashSet::new();
        let firsts: Vec<bool> = self.flat[start..].iter().map(|(_, f)| names.insert(f.name.as_str())).collect();
        let unique = firsts.iter().all(|&b| b);
        if !unique {
            for (k, first) in firsts.into_iter().enumerate() {
                if first {
                    self.flat.push(self.flat[start + k]);
                }
            }
        }
        let f = Fields { start: start as u32, end: end as u32, unique, names_end: self.flat.len() as u32 };
        let n = layouts.table().types.len();
        if self.at.len() < n {
            self.at.resize(n, None);
        }
        if let Some(slot) = self.at.get_mut(def as usize) {
            *slot = Some(f);
        }
        f
    }
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
    fields: FieldCache<'t>,
}

impl<'a, 't> Walk<'a, 't> {
    pub fn new(items: &'a Items, layouts: Layouts<'t>) -> Self {
        Walk { items, layouts, path: String::new(), fields: FieldCache::default() }
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
        let range = self.fields.get(&self.layouts, def).range();
        let open = Open::Record(range.len());
        let mut acc = sink.begin(&open, &self.path)?;
        for k in range {
            let (owner, f) = self.fields.flat[k];
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

// ---------------------------------------------------------------------------------------------
// The walk in

/// What a source gives with a string or an array beyond its elements: the run facts the type
/// table does not give.
#[derive(Default)]
pub(crate) struct RunFacts {
    /// The run's element type (else the array type's element, or `char` for a string).
    pub elem: Option<TypeIndex>,
    /// The run's item kind byte (else the stock one).
    pub kind: Option<u8>,
    /// The name of a run several slots name: made at its first place, named again at the others.
    pub share: Option<String>,
    /// An array of no elements names no run (item index 0).
    pub null_if_empty: bool,
}

/// A source's reading of a value: `None` where the value is of another form.
pub(crate) type Got<T> = Result<Option<T>, ValueError>;

/// Where the walk in takes values from: one form's spelling of them, each read reporting errors
/// at the form's own place. A reading that is `Ok(None)` says the value is of another form.
pub(crate) trait TagSource<'v> {
    /// One value of the form.
    type Node: Copy;
    /// What the item bytes are bounded by ("dump", "text").
    const TEXT: &'static str;
    /// An error at `n`, member `path` of the object.
    fn err(&self, n: Self::Node, path: &str, msg: impl std::fmt::Display) -> ValueError;
    /// What `n` is, for an error (`a string`, `<integer>`).
    fn what(&self, n: Self::Node) -> String;
    /// Bytes no member describes; `string`: the value is of a string type.
    fn bytes(&self, n: Self::Node, path: &str, string: bool) -> Got<Cow<'v, [u8]>>;
    /// A null pointer, string or array.
    fn null(&self, n: Self::Node) -> bool;
    /// A one-byte bool's byte.
    fn bool(&self, n: Self::Node, path: &str) -> Got<u8>;
    /// An integer of type `ty` (reached as record field `field`, with the type declaring it).
    fn int(&self, n: Self::Node, path: &str, ty: TypeIndex, field: Option<(TypeIndex, &str)>, signed: bool) -> Got<i128>;
    /// A real.
    fn real(&self, n: Self::Node, path: &str) -> Got<f32>;
    /// The reals of a vector, quaternion, matrix or transform given as a list.
    fn reals(&self, _n: Self::Node, _path: &str) -> Got<Vec<f32>> {
        Ok(None)
    }
    /// A pointer: the item index of the object named.
    fn pointer(&self, n: Self::Node, path: &str) -> Got<u32>;
    /// A string's bytes (its terminating zero included) and run facts.
    fn string(&self, n: Self::Node, path: &str) -> Got<(Cow<'v, [u8]>, RunFacts)>;
    /// An array's elements and run facts.
    fn list(&self, n: Self::Node, path: &str) -> Got<(Vec<Self::Node>, RunFacts)>;
    /// A record's values by member name, of the record type's `fields` (each the first of its
    /// name, in the type's order).
    fn fields(&self, n: Self::Node, path: &str, fields: &[(TypeIndex, &Field)]) -> Got<Vec<(&'v str, Self::Node)>>;
}

/// The walk in: the items of a tagfile built from a source's values.
pub(crate) struct Build<'t> {
    pub layouts: Layouts<'t>,
    /// The items: the null item, the objects, then the runs made.
    pub items: Vec<ItemData>,
    /// Runs made for a shared run's name (std's seeded hash: the names are the source's).
    runs: std::collections::HashMap<String, u32>,
    char_type: Option<TypeIndex>,
    /// Item bytes that may still be made.
    budget: usize,
    path: String,
    fields: FieldCache<'t>,
}

fn put_index(out: &mut [u8], i: u32) {
    if let Some(w) = out.get_mut(..4) {
        w.copy_from_slice(&i.to_le_bytes());
    }
}

impl<'t> Build<'t> {
    /// A builder of items of `types`, `budget` item bytes at most, with the null item and one
    /// item per object, `(type, kind byte)`, its bytes made by [`Build::object`].
    pub fn new(types: &'t TypeTable, budget: usize, objects: impl ExactSizeIterator<Item = (TypeIndex, u8)>) -> Self {
        let mut items = Vec::with_capacity(objects.len() + 1);
        items.push(ItemData::null());
        items.extend(objects.map(|(ty, kind_byte)| ItemData { ty, kind_byte, count: 1, elem_size: 0, bytes: ItemBytes::default(), slots: Slots::NONE }));
        Build {
            layouts: Layouts::new(types),
            items,
            runs: Default::default(),
            char_type: types.iter().find(|(_, t)| t.name == "char").map(|(i, _)| i),
            budget,
            path: String::new(),
            fields: FieldCache::default(),
        }
    }

    /// The bytes of object item `i` from its value `n`.
    pub fn object<'v, S: TagSource<'v>>(&mut self, src: &S, i: usize, n: S::Node) -> Result<(), ValueError> {
        self.path.clear();
        let ty = self.items[i].ty;
        let size = self.layouts.size_of(ty).map_err(|e| src.err(n, "", e))? as usize;
        let mut bytes = self.take(src, n, size)?;
        self.value(src, ty, n, None, &mut bytes, 0)?;
        let slots = self.layouts.slots(ty).map_err(|e| src.err(n, "", e))?;
        let it = &mut self.items[i];
        it.elem_size = size as u32;
        it.bytes = bytes.into();
        it.slots = slots;
        Ok(())
    }

    fn take<'v, S: TagSource<'v>>(&mut self, src: &S, n: S::Node, size: usize) -> Result<Vec<u8>, ValueError> {
        self.budget = self
            .budget
            .checked_sub(size)
            .ok_or_else(|| src.err(n, &self.path, format!("more item bytes than the {} could describe", S::TEXT)))?;
        Ok(vec![0; size])
    }

    fn new_run<'v, S: TagSource<'v>>(&mut self, src: &S, n: S::Node, ty: TypeIndex, bytes: Vec<u8>, (count, elem_size): (u32, u32), facts: RunFacts) -> Result<u32, ValueError> {
        let slots = self.layouts.slots(ty).map_err(|e| src.err(n, &self.path, e))?;
        self.items.push(ItemData { ty, kind_byte: facts.kind.unwrap_or(KIND_RUN << 4), count, elem_size, bytes: bytes.into(), slots });
        let i = u32::try_from(self.items.len() - 1).map_err(|_| src.err(n, &self.path, "more than 2^32 items"))?;
        if let Some(s) = facts.share {
            self.runs.insert(s, i);
        }
        Ok(i)
    }

    /// The run made for a shared run's name, if any.
    fn shared(&self, facts: &RunFacts) -> Option<u32> {
        facts.share.as_ref().and_then(|s| self.runs.get(s).copied())
    }

    #[allow(clippy::too_many_arguments)]
    fn value<'v, S: TagSource<'v>>(
        &mut self,
        src: &S,
        ty: TypeIndex,
        n: S::Node,
        field: Option<(TypeIndex, &str)>,
        out: &mut [u8],
        depth: usize,
    ) -> Result<(), ValueError> {
        let err = |this: &Self, msg: &dyn std::fmt::Display| src.err(n, &this.path, msg);
        if depth > MAX_DEPTH {
            return Err(err(self, &format!("values nested more than {MAX_DEPTH} deep")));
        }
        let shape = self.layouts.shape(ty).map_err(|e| err(self, &e))?;
        let table = self.layouts.table();
        let name = || table.full_name(ty);
        if let Some(bytes) = src.bytes(n, &self.path, shape.is_some_and(|s| s.kind == Kind::String))? {
            if bytes.len() != out.len() {
                return Err(err(self, &format!("{} bytes where {} holds {}", bytes.len(), name(), out.len())));
            }
            out.copy_from_slice(&bytes);
            return Ok(());
        }
        let Some(shape) = shape else {
            return Err(err(self, &format!("{} where {}, which has no layout, takes bytes", src.what(n), name())));
        };
        let def = table.get(shape.def);
        let fmt = def.and_then(|d| d.format()).unwrap_or(TypeFormat(0));
        let subtype = def.and_then(|d| d.subtype).unwrap_or(0);
        let runs = matches!(shape.kind, Kind::String | Kind::Pointer) || (shape.kind == Kind::Array && !fmt.is_fixed_array());
        if runs && src.null(n) {
            put_index(out, 0);
            return Ok(());
        }
        let len = out.len();
        match shape.kind {
            Kind::Bool if len == 1 => {
                if let Some(b) = src.bool(n, &self.path)? {
                    out[0] = b;
                    return Ok(());
                }
            }
            Kind::Float if len == 4 || len == 2 => {
                if let Some(x) = src.real(n, &self.path)? {
                    if len == 4 {
                        out.copy_from_slice(&x.to_bits().to_le_bytes());
                    } else if x.to_bits() & 0xFFFF != 0 {
                        return Err(err(self, &format!("{x} is not a half (its low 16 bits are not zero)")));
                    } else {
                        out.copy_from_slice(&((x.to_bits() >> 16) as u16).to_le_bytes());
                    }
                    return Ok(());
                }
            }
            Kind::Pointer => {
                if let Some(i) = src.pointer(n, &self.path)? {
                    put_index(out, i);
                    return Ok(());
                }
            }
            Kind::String => {
                if let Some((bytes, facts)) = src.string(n, &self.path)? {
                    if let Some(i) = self.shared(&facts) {
                        put_index(out, i);
                        return Ok(());
                    }
                    let elem = match facts.elem.or(self.char_type) {
                        Some(t) => t,
                        None => return Err(err(self, &"a string in a table without char")),
                    };
                    self.budget = self
                        .budget
                        .checked_sub(bytes.len())
                        .ok_or_else(|| err(self, &format!("more item bytes than the {} could describe", S::TEXT)))?;
                    // The run holds whole elements of its type (`char`, one byte, in every stock file).
                    let size = self.layouts.size_of(elem).map_err(|e| err(self, &e))?;
                    if size == 0 || bytes.len() % size as usize != 0 {
                        let msg = format!("a string of {} bytes is not a whole number of {size}-byte elements of its element type", bytes.len());
                        return Err(err(self, &msg));
                    }
                    let count = u32::try_from(bytes.len() / size as usize).map_err(|_| err(self, &"a string of 2^32 elements or more"))?;
                    let i = self.new_run(src, n, elem, bytes.into_owned(), (count, size), facts)?;
                    put_index(out, i);
                    return Ok(());
                }
            }
            Kind::Array => {
                if let Some((elems, facts)) = src.list(n, &self.path)? {
                    return self.array(src, n, (ty, fmt, subtype), elems, facts, out, depth);
                }
            }
            Kind::Record => {
                if is_math(def.map(|d| d.name.as_str()), len) {
                    if let Some(reals) = src.reals(n, &self.path)? {
                        if reals.len() * 4 != len {
                            return Err(err(self, &format!("{} reals where {} holds {}", reals.len(), name(), len / 4)));
                        }
                        for (k, x) in reals.iter().enumerate() {
                            out[4 * k..4 * k + 4].copy_from_slice(&x.to_bits().to_le_bytes());
                        }
                        return Ok(());
                    }
                }
                let fs = self.fields.get(&self.layouts, shape.def);
                if let Some(values) = src.fields(n, &self.path, &self.fields.flat[fs.names()])? {
                    let mut next = 0;
                    for (fname, v) in values {
                        let Some(k) = fs.find(&self.fields.flat[fs.range()], next, fname) else {
                            return Err(err(self, &format!("{} has no member {fname:?}", name())));
                        };
                        next = k + 1;
                        let (owner, f) = self.fields.flat[fs.range().start + k];
                        let size = self.layouts.size_of(f.ty).map_err(|e| err(self, &e))? as usize;
                        let range = f.offset as usize..f.offset as usize + size;
                        if range.end > len {
                            return Err(err(self, &format!("member {fname} lies outside its {len}-byte owner")));
                        }
                        let at = self.path.len();
                        if at > 0 {
                            self.path.push('.');
                        }
                        self.path.push_str(fname);
                        self.value(src, f.ty, v, Some((owner, fname)), &mut out[range], depth + 1)?;
                        self.path.truncate(at);
                    }
                    return Ok(());
                }
            }
            _ => {}
        }
        if matches!(shape.kind, Kind::Bool | Kind::Int) && (1..=8).contains(&len) {
            if let Some(x) = src.int(n, &self.path, ty, field, fmt.is_signed())? {
                let bits = 8 * len as u32;
                let (lo, hi) = if fmt.is_signed() { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
                if !(lo..=hi).contains(&x) {
                    let sign = if fmt.is_signed() { "signed" } else { "unsigned" };
                    return Err(err(self, &format!("{x} is out of range for {} ({bits}-bit {sign})", name())));
                }
                out.copy_from_slice(&(x as u64).to_le_bytes()[..len]);
                return Ok(());
            }
        }
        Err(err(self, &format!("{} where a value of {} ({:?}, {len} bytes) belongs", src.what(n), name(), shape.kind)))
    }

    /// An array's elements: a fixed array's in `out`, else a run (or a shared run made before)
    /// whose index goes in `out`.
    #[allow(clippy::too_many_arguments)]
    fn array<'v, S: TagSource<'v>>(
        &mut self,
        src: &S,
        n: S::Node,
        (ty, fmt, subtype): (TypeIndex, TypeFormat, TypeIndex),
        elems: Vec<S::Node>,
        facts: RunFacts,
        out: &mut [u8],
        depth: usize,
    ) -> Result<(), ValueError> {
        let err = |this: &Self, msg: &dyn std::fmt::Display| src.err(n, &this.path, msg);
        let count = u32::try_from(elems.len()).map_err(|_| err(self, &"more than 2^32 elements"))?;
        if fmt.is_fixed_array() {
            let size = self.layouts.size_of(subtype).map_err(|e| err(self, &e))? as usize;
            if count != fmt.fixed_count() || size.checked_mul(count as usize) != Some(out.len()) {
                let name = self.layouts.table().full_name(ty);
                return Err(err(self, &format!("{count} elements where {name} holds {}", fmt.fixed_count())));
            }
            return self.elements(src, subtype, &elems, out, size, depth);
        }
        let i = match self.shared(&facts) {
            Some(i) => i,
            None if count == 0 && facts.null_if_empty => 0,
            None => {
                let et = facts.elem.unwrap_or(subtype);
                if et as usize >= self.layouts.table().types.len() {
                    return Err(err(self, &format!("element type index {et} is not in the table")));
                }
                let size = self.layouts.size_of(et).map_err(|e| err(self, &e))? as usize;
                let total = size.checked_mul(count as usize).ok_or_else(|| err(self, &"array too large"))?;
                let mut run = self.take(src, n, total)?;
                self.elements(src, et, &elems, &mut run, size, depth)?;
                self.new_run(src, n, et, run, (count, size as u32), facts)?
            }
        };
        put_index(out, i);
        Ok(())
    }

    fn elements<'v, S: TagSource<'v>>(&mut self, src: &S, ty: TypeIndex, elems: &[S::Node], out: &mut [u8], size: usize, depth: usize) -> Result<(), ValueError> {
        // The number each element of a number array is, found once for the array (not per
        // element); see [`Quick`].
        let quick = if depth < MAX_DEPTH { self.quick(ty, size) } else { None };
        for (k, e) in elems.iter().enumerate() {
            let chunk = &mut out[k * size..(k + 1) * size];
            if quick.is_some_and(|q| q.read(src, *e, ty, chunk)) {
                continue;
            }
            let at = self.path.len();
            self.path.push('[');
            self.path.push_str(itoa::Buffer::new().format(k));
            self.path.push(']');
            self.value(src, ty, *e, None, chunk, depth + 1)?;
            self.path.truncate(at);
        }
        Ok(())
    }

    /// How the elements of type `ty` (`size` bytes) read when they are integers or reals.
    fn quick(&mut self, ty: TypeIndex, size: usize) -> Option<Quick> {
        let shape = self.layouts.shape(ty).ok()??;
        let fmt = self.layouts.table().get(shape.def).and_then(|d| d.format()).unwrap_or(TypeFormat(0));
        match shape.kind {
            Kind::Bool | Kind::Int if (1..=8).contains(&size) => {
                let bits = 8 * size as u32;
                let (lo, hi) = if fmt.is_signed() { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
                Some(Quick::Int { signed: fmt.is_signed(), lo, hi })
            }
            Kind::Float if size == 4 || size == 2 => Some(Quick::Real),
            _ => None,
        }
    }
}

/// An element of a number array read without the whole of [`Build::value`]: the source asked
/// for the one form the element's type takes beyond bytes (an integer; a real), no member path
/// made. The forms a source gives are exclusive (one element is a `<bytes>`, a `<bool>` or an
/// `<integer>`, never two), so where the source gives that form the value reads as
/// [`Build::value`] reads it; where it gives another, fails, or the value is out of range,
/// [`Build::value`] reads the element again, with its path, for the value or the error.
#[derive(Clone, Copy)]
enum Quick {
    /// An integer (or a bool of 1 to 8 bytes) and the range its bytes hold.
    Int { signed: bool, lo: i128, hi: i128 },
    /// A real of 4 bytes or a half.
    Real,
}

impl Quick {
    /// Whether element `n` was read into `out`.
    #[inline]
    fn read<'v, S: TagSource<'v>>(self, src: &S, n: S::Node, ty: TypeIndex, out: &mut [u8]) -> bool {
        match self {
            Quick::Int { signed, lo, hi } => match src.int(n, "", ty, None, signed) {
                Ok(Some(x)) if (lo..=hi).contains(&x) => {
                    let b = (x as u64).to_le_bytes();
                    match out.len() {
                        1 => out[0] = b[0],
                        2 => out.copy_from_slice(&b[..2]),
                        4 => out.copy_from_slice(&b[..4]),
                        8 => out.copy_from_slice(&b),
                        len => out.copy_from_slice(&b[..len]),
                    }
                    true
                }
                _ => false,
            },
            Quick::Real => match src.real(n, "") {
                Ok(Some(x)) if out.len() == 4 => {
                    out.copy_from_slice(&x.to_bits().to_le_bytes());
                    true
                }
                Ok(Some(x)) if x.to_bits() & 0xFFFF == 0 => {
                    out.copy_from_slice(&((x.to_bits() >> 16) as u16).to_le_bytes());
                    true
                }
                _ => false,
            },
        }
    }
}
