//! The in-memory type table: what a TAG0/TCM0 `TYPE` section (or the Elden Ring runtime registry)
//! says about each type, indexed as the file indexes it. Spec: "Type table", "Type flags",
//! "Size and alignment word", "Field flags". The THSH recipe lives in [`hash`].

pub mod facts;
pub mod format;
pub mod hash;
pub mod layout;

pub use format::{Kind, TypeFormat};

/// The name of a type, template parameter or field. Names of up to 24 bytes (nearly all Havok names)
/// are held inline, so reading a table allocates per type and field list, not per name; it derefs to
/// `str` and compares, hashes and serializes as its text.
pub type Name = compact_str::CompactString;

use serde::{Deserialize, Serialize};

/// Index of a type in its table; 0 is the null type ("none").
pub type TypeIndex = u32;

/// Presence bits of a `TBDY` record (spec: "Presence bit").
pub mod presence {
    /// A format word follows.
    pub const FORMAT: u32 = 1;
    /// A subtype (element or pointee) index follows.
    pub const SUBTYPE: u32 = 2;
    /// A version follows.
    pub const VERSION: u32 = 4;
    /// A size and alignment pair follows.
    pub const SIZE_ALIGN: u32 = 8;
    /// A flags word follows.
    pub const FLAGS: u32 = 16;
    /// Field records follow.
    pub const FIELDS: u32 = 32;
    /// Interface records follow.
    pub const INTERFACES: u32 = 64;
    /// An attribute string follows.
    pub const ATTRIBUTE: u32 = 128;
    /// Every bit this crate knows.
    pub const KNOWN: u32 = 0xFF;
}

/// Type flag bits (names as HKLib gives them).
pub mod type_flags {
    /// Objects of the type are not serialized.
    pub const NOT_SERIALIZABLE: u32 = 1;
    /// An abstract class.
    pub const ABSTRACT: u32 = 2;
    /// An interface.
    pub const INTERFACE: u32 = 16;
    /// A weak (non-owning) pointer type.
    pub const WEAK_POINTER: u32 = 64;
    /// The class has its own virtual table.
    pub const OWN_VTABLE: u32 = 128;
    /// The type carries attributes.
    pub const ATTRIBUTE: u32 = 256;
}

/// Field flag bits (the 2018 SDK's declaration flags).
pub mod field_flags {
    /// The member is not serialized (its bytes read as zero).
    pub const NOT_SERIALIZABLE: u32 = 0x01;
    /// A protected member.
    pub const PROTECTED: u32 = 0x02;
    /// A private member.
    pub const PRIVATE: u32 = 0x04;
    /// A hidden member.
    pub const HIDDEN: u32 = 0x08;
    /// A property (no record in tagfiles).
    pub const PROPERTY: u32 = 0x10;
    /// A data member.
    pub const DATA_FIELD: u32 = 0x20;
    /// The member has a custom setter.
    pub const CUSTOM_SETTER: u32 = 0x40;
    /// A packed number ([`super::Field::aux`]) follows the flags in the member's record (SDK
    /// 2022.1; meaning unknown).
    pub const AUX: u32 = 0x80;
}

/// A template parameter: a name starting with `t` takes a type, one starting with `v` a number.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TemplateArg {
    /// A type, by index.
    Type(TypeIndex),
    /// A number.
    Value(u64),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// One template parameter of a type (`tT` = `hkaBone` in `hkArray<hkaBone, ...>`).
pub struct TemplateParam {
    /// The parameter's name (`tT`, `vN`).
    pub name: Name,
    /// Its argument.
    pub arg: TemplateArg,
}

/// The size and alignment word pair. `align` is the whole stored word: low 12 bits the alignment in
/// bytes, bits 12-15 a requested-alignment code (3 = 8 bytes, 15 = a four-real request).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SizeAlign {
    /// Size in bytes.
    pub size: u32,
    /// The stored alignment word (see [`SizeAlign::alignment`], [`SizeAlign::request_code`]).
    pub align: u32,
}

impl SizeAlign {
    /// Alignment in bytes.
    pub fn alignment(&self) -> u32 {
        self.align & 0xFFF
    }
    /// The requested-alignment code of bits 12-15 (0 on nearly every type).
    pub fn request_code(&self) -> u32 {
        (self.align >> 12) & 0xF
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// A member record of a type.
pub struct Field {
    /// The Havok member name.
    pub name: Name,
    /// Field flag bits ([`field_flags`]).
    pub flags: u32,
    /// Offset in bytes from the start of the record.
    pub offset: u32,
    /// The member's type.
    pub ty: TypeIndex,
    /// The packed number that follows the flags in a `TYPE` section when [`field_flags::AUX`] is
    /// set; 0 otherwise. SDK 2022.1 sets it on one member of the corpus (`hclCollidable.userData`,
    /// value 3); its meaning is not known, so it is kept as read and written back.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub aux: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Field {
    /// A member whose bytes read as zero in every file (flag 0x01).
    pub fn is_serializable(&self) -> bool {
        self.flags & field_flags::NOT_SERIALIZABLE == 0
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// An interface record of a type.
pub struct Interface {
    /// The interface type.
    pub ty: TypeIndex,
    /// The value stored with it.
    pub value: u32,
}

/// A run of a table's template parameters or fields: where one type's own start in
/// [`TypeTable::params`] or [`TypeTable::fields`], and how many there are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    /// Index of the first one.
    pub start: u32,
    /// How many.
    pub len: u32,
}

impl Span {
    /// The span of a list's elements `start..end`.
    pub fn between(start: usize, end: usize) -> Span {
        Span { start: start as u32, len: end.saturating_sub(start) as u32 }
    }

    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// One type of a table. In a table (`TypeDef`, the default parameters) its template parameters and
/// fields are [`Span`]s of two lists shared by all its types ([`TypeTable::params_of`],
/// [`TypeTable::fields_of`]), so that reading a table allocates per table, not per type; a
/// [`TypeRecord`] holds them as lists of its own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TypeDef<P = Span, F = Span> {
    /// The name as stored (`hkArray`, `T*`); [`TypeTable::full_name`] adds template arguments.
    pub name: Name,
    /// Template parameters, in order.
    pub params: P,
    /// 0 when the type has no parent.
    pub parent: TypeIndex,
    /// The format word ([`TypeFormat`]).
    pub format: Option<u32>,
    /// The element type of an array or the pointee of a pointer.
    pub subtype: Option<TypeIndex>,
    /// The class version.
    pub version: Option<u32>,
    /// Size and alignment.
    pub size: Option<SizeAlign>,
    /// Type flag bits ([`type_flags`]).
    pub flags: Option<u32>,
    /// The high 16 bits of the field-count word: properties, which store no records here.
    pub properties: Option<u16>,
    /// The member records; present exactly when `properties` is.
    pub fields: Option<F>,
    /// Interfaces the type implements.
    pub interfaces: Option<Vec<Interface>>,
    /// The hash stored in `THSH`, if any.
    pub hash: Option<u32>,
}

/// One type with its template parameters and fields held by itself: what a builder of a table
/// fills in ([`TypeTable::from_records`]) and what types of two tables compare as
/// ([`TypeTable::record`]).
pub type TypeRecord = TypeDef<Vec<TemplateParam>, Vec<Field>>;

impl TypeDef {
    /// A type of a table with nothing known of it yet (the `Default`), as a constant: a table
    /// reader starts from one per type.
    pub const EMPTY: TypeDef = TypeDef {
        name: Name::const_new(""),
        params: Span { start: 0, len: 0 },
        parent: 0,
        format: None,
        subtype: None,
        version: None,
        size: None,
        flags: None,
        properties: None,
        fields: None,
        interfaces: None,
        hash: None,
    };
}

impl<P, F> TypeDef<P, F> {
    /// The presence word that a `TBDY` record of this type carries.
    pub fn presence(&self) -> u32 {
        let mut p = 0;
        if self.format.is_some() {
            p |= presence::FORMAT;
        }
        if self.subtype.is_some() {
            p |= presence::SUBTYPE;
        }
        if self.version.is_some() {
            p |= presence::VERSION;
        }
        if self.size.is_some() {
            p |= presence::SIZE_ALIGN;
        }
        if self.flags.is_some() {
            p |= presence::FLAGS;
        }
        if self.fields.is_some() {
            p |= presence::FIELDS;
        }
        if self.interfaces.is_some() {
            p |= presence::INTERFACES;
        }
        p
    }

    /// The format word, as a [`TypeFormat`].
    pub fn format(&self) -> Option<TypeFormat> {
        self.format.map(TypeFormat)
    }

    /// The same type with its parameters and fields held as `params` and `fields`.
    pub fn with_lists<Q, G>(self, params: Q, fields: Option<G>) -> TypeDef<Q, G> {
        TypeDef {
            name: self.name,
            params,
            parent: self.parent,
            format: self.format,
            subtype: self.subtype,
            version: self.version,
            size: self.size,
            flags: self.flags,
            properties: self.properties,
            fields,
            interfaces: self.interfaces,
            hash: self.hash,
        }
    }
}

/// Where [`TypeTable::full_name`] stops expanding template arguments: six times the longest full
/// name of the corpus and the Elden Ring registry (167 bytes). It bounds what naming every type of a
/// hostile table can take to about 1 kB per record of a few bytes.
pub const MAX_FULL_NAME: usize = 1024;

/// A whole type table. Index 0 is the null type and holds a default [`TypeDef`]. Two tables are
/// equal when their types are, type by type, whatever order their shared lists hold them in.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TypeTable {
    /// The types by index, the null type first.
    pub types: Vec<TypeDef>,
    /// The template parameters of every type, each type's a [`Span`] of them.
    pub params: Vec<TemplateParam>,
    /// The member records of every type, each type's a [`Span`] of them.
    pub fields: Vec<Field>,
}

impl PartialEq for TypeTable {
    fn eq(&self, other: &Self) -> bool {
        // Type by type as `record` would give them, without copying the lists out.
        let apart = |t: &TypeDef| t.clone().with_lists((), t.fields.map(|_| ()));
        self.types.len() == other.types.len()
            && self.types.iter().zip(&other.types).all(|(a, b)| {
                apart(a) == apart(b) && self.params_of(a) == other.params_of(b) && self.fields_of(a) == other.fields_of(b)
            })
    }
}

impl Eq for TypeTable {}

impl TypeTable {
    /// A table of `records`, the null type first.
    pub fn from_records(records: impl IntoIterator<Item = TypeRecord>) -> TypeTable {
        let mut table = TypeTable::default();
        for r in records {
            table.push(r);
        }
        table
    }

    /// Appends a type; returns its index.
    pub fn push(&mut self, mut r: TypeRecord) -> TypeIndex {
        let params = self.add_params(std::mem::take(&mut r.params));
        let fields = r.fields.take().map(|f| self.add_fields(f));
        self.types.push(r.with_lists(params, fields));
        self.types.len() as TypeIndex - 1
    }

    /// Appends template parameters to the shared list; the span to give the type that has them.
    pub fn add_params(&mut self, params: impl IntoIterator<Item = TemplateParam>) -> Span {
        let start = self.params.len();
        self.params.extend(params);
        Span::between(start, self.params.len())
    }

    /// Appends fields to the shared list; the span to give the type that has them.
    pub fn add_fields(&mut self, fields: impl IntoIterator<Item = Field>) -> Span {
        let start = self.fields.len();
        self.fields.extend(fields);
        Span::between(start, self.fields.len())
    }

    /// The template parameters of `t`, a type of this table.
    #[inline]
    pub fn params_of(&self, t: &TypeDef) -> &[TemplateParam] {
        self.params.get(t.params.range()).unwrap_or(&[])
    }

    /// The member records of `t`, a type of this table (none when it has no field list).
    #[inline]
    pub fn fields_of(&self, t: &TypeDef) -> &[Field] {
        t.fields.and_then(|s| self.fields.get(s.range())).unwrap_or(&[])
    }

    /// The member records of type `i`, to change them in place.
    pub fn fields_of_mut(&mut self, i: TypeIndex) -> Option<&mut [Field]> {
        let span = self.get(i)?.fields?;
        self.fields.get_mut(span.range())
    }

    /// Type `i` with its parameters and fields held by itself; `None` out of range.
    pub fn record(&self, i: TypeIndex) -> Option<TypeRecord> {
        let t = self.types.get(i as usize)?;
        let fields = t.fields.map(|_| self.fields_of(t).to_vec());
        Some(t.clone().with_lists(self.params_of(t).to_vec(), fields))
    }

    /// Number of entries, the null type included.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether the table holds no type but the null one.
    pub fn is_empty(&self) -> bool {
        self.types.len() <= 1
    }

    /// The type at index `i`; `None` for 0 (the null type) and out-of-range indices.
    pub fn get(&self, i: TypeIndex) -> Option<&TypeDef> {
        if i == 0 {
            None
        } else {
            self.types.get(i as usize)
        }
    }

    /// Iterates over the real types with their indices (skipping the null type).
    pub fn iter(&self) -> impl Iterator<Item = (TypeIndex, &TypeDef)> {
        self.types.iter().enumerate().skip(1).map(|(i, t)| (i as TypeIndex, t))
    }

    /// The full name with template arguments expanded: `hkArray<hkaBone, hkContainerHeapAllocator>`.
    /// Bounded in depth and length (a hostile table's arguments can expand exponentially), so that
    /// it cannot recurse or grow without end; a name cut short ends in `...`.
    pub fn full_name(&self, i: TypeIndex) -> String {
        let mut s = String::new();
        self.full_name_into(i, &mut s);
        // Growing by pushes may have doubled the buffer; a caller that names every type keeps them.
        s.shrink_to_fit();
        s
    }

    /// [`TypeTable::full_name`] into `out` (cleared first), for a caller that names many types
    /// one after another and keeps none of the names.
    pub fn full_name_into(&self, i: TypeIndex, out: &mut String) {
        out.clear();
        self.write_full_name(i, out, 0);
        if out.len() >= MAX_FULL_NAME {
            out.push_str("...");
        }
    }

    fn write_full_name(&self, i: TypeIndex, out: &mut String, depth: usize) {
        if out.len() >= MAX_FULL_NAME {
            return;
        }
        let Some(t) = self.get(i) else {
            out.push_str("void?");
            return;
        };
        out.push_str(&t.name);
        let params = self.params_of(t);
        if params.is_empty() {
            return;
        }
        if depth > 32 {
            out.push_str("<...>");
            return;
        }
        out.push('<');
        for (n, p) in params.iter().enumerate() {
            if out.len() >= MAX_FULL_NAME {
                return;
            }
            if n > 0 {
                out.push_str(", ");
            }
            match p.arg {
                TemplateArg::Type(ti) => self.write_full_name(ti, out, depth + 1),
                TemplateArg::Value(v) => out.push_str(&v.to_string()),
            }
        }
        out.push('>');
    }

    /// The chain of parents, root class first, ending with `i` itself. Stops at a cycle. Linear in
    /// the length of the chain: an acyclic chain ends within `len()` steps, and only a walk that
    /// runs longer looks for the repeat.
    pub fn ancestry(&self, i: TypeIndex) -> Vec<TypeIndex> {
        let mut chain = vec![i];
        let mut cur = i;
        while let Some(t) = self.get(cur) {
            if t.parent == 0 || chain.len() > self.types.len() {
                break;
            }
            chain.push(t.parent);
            cur = t.parent;
        }
        if chain.len() > self.types.len() {
            // A cycle: keep the chain up to the first type met twice.
            let mut seen = vec![false; self.types.len()];
            let end = chain
                .iter()
                .position(|&j| seen.get_mut(j as usize).is_some_and(|s| std::mem::replace(s, true)))
                .unwrap_or(chain.len());
            chain.truncate(end);
        }
        chain.reverse();
        chain
    }

    /// [`TypeTable::ancestry`] without an allocation for a chain of up to [`Chain::INLINE`] types
    /// (every stock chain is shorter than ten).
    pub fn ancestry_chain(&self, i: TypeIndex) -> Chain {
        let mut chain = [0; Chain::INLINE];
        let mut n = 0;
        let mut cur = i;
        loop {
            if n == Chain::INLINE {
                return Chain::Long(self.ancestry(i));
            }
            chain[n] = cur;
            n += 1;
            match self.get(cur) {
                Some(t) if t.parent != 0 => cur = t.parent,
                _ => break,
            }
        }
        chain[..n].reverse();
        Chain::Short(chain, n as u8)
    }

    /// Number of types with a stored hash.
    pub fn stored_hashes(&self) -> usize {
        self.types.iter().filter(|t| t.hash.is_some()).count()
    }
}

/// A chain of parents, root class first (see [`TypeTable::ancestry_chain`]).
#[derive(Clone, Debug)]
pub enum Chain {
    /// Up to [`Chain::INLINE`] types, the first `n` of the array.
    Short([TypeIndex; Chain::INLINE], u8),
    /// A longer chain (or a cycle), as [`TypeTable::ancestry`] gives it.
    Long(Vec<TypeIndex>),
}

impl Chain {
    /// The longest chain held without an allocation.
    pub const INLINE: usize = 16;
}

impl std::ops::Deref for Chain {
    type Target = [TypeIndex];
    fn deref(&self) -> &[TypeIndex] {
        match self {
            Chain::Short(a, n) => &a[..*n as usize],
            Chain::Long(v) => v,
        }
    }
}

#[cfg(test)]
mod hostile_tests {
    use super::*;

    #[test]
    fn the_empty_type_is_the_default_one() {
        assert_eq!(TypeDef::EMPTY, TypeDef::default());
    }

    #[test]
    fn ancestry_stops_at_a_cycle_and_is_linear_on_a_long_chain() {
        // 1 -> 2 -> 3 -> 2
        let t = |parent| TypeDef { parent, ..TypeDef::default() };
        let table = TypeTable { types: vec![TypeDef::default(), t(2), t(3), t(2)], ..TypeTable::default() };
        assert_eq!(table.ancestry(1), vec![3, 2, 1]);
        assert_eq!(*table.ancestry_chain(1), [3, 2, 1]);
        assert_eq!(table.ancestry(0), vec![0]);
        assert_eq!(*table.ancestry_chain(0), [0]);
        assert_eq!(TypeTable::default().ancestry(5), vec![5]);
        assert_eq!(*TypeTable::default().ancestry_chain(5), [5]);
        let n = 100_000u32;
        let table = TypeTable { types: (0..=n).map(|k| t(k.saturating_sub(1))).collect(), ..TypeTable::default() };
        let chain = table.ancestry(n);
        assert_eq!(chain.len(), n as usize);
        assert_eq!(chain[0], 1);
        assert_eq!(*table.ancestry_chain(n), chain[..]);
        assert_eq!(*table.ancestry_chain(Chain::INLINE as u32), table.ancestry(Chain::INLINE as u32)[..]);
        assert_eq!(*table.ancestry_chain(Chain::INLINE as u32 + 1), table.ancestry(Chain::INLINE as u32 + 1)[..]);
    }

    #[test]
    fn full_names_are_bounded() {
        let mut types = vec![TypeRecord::default(), TypeRecord { name: "T".into(), ..TypeRecord::default() }];
        for k in 2..=40u32 {
            let arg = |n: &str| TemplateParam { name: n.into(), arg: TemplateArg::Type(k - 1) };
            types.push(TypeRecord { name: "T".into(), params: vec![arg("tA"), arg("tB")], ..TypeRecord::default() });
        }
        let table = TypeTable::from_records(types);
        assert_eq!(table.full_name(3), "T<T<T, T>, T<T, T>>");
        let long = table.full_name(40);
        assert!(long.len() <= MAX_FULL_NAME + 10 && long.ends_with("..."), "{}", long.len());
    }
}
