//! The type hash stored in `THSH` (spec: "Type hash (THSH)"): a chained CRC-32 over a type's own
//! description, recomputable from the table alone. Each step continues a standard CRC-32 from the
//! previous value; numbers enter as four little-endian bytes, names as their bytes.
//!
//! Recipe, for type T: the parent's hash (0 without one); each interface's type name and number; the
//! format word, and for a fixed-size array the element type's hash; the name; the template
//! parameters (a type parameter as its type's name followed by that type's own parameters, a value
//! parameter as its value); the version; `size | align << 16`; the type flags; and every field of T
//! and its ancestors, root class first, as name, offset and the field type's hash.
//!
//! SDK 2019.1 departs from the spec in one step: its field step hashes only T's own fields (the
//! parent's hash already covers the inherited ones). 2015.1, 2016.2 and 2018.1 hash the inherited
//! fields again. Both are checked on every stored hash of the corpus by the `type_hashes` test;
//! [`Recipe::for_sdk`] picks one from the `SDKV` string, [`Recipe::detect`] from the stored hashes of a
//! table that has no `SDKV` (a compendium).

use super::{TemplateArg, TypeIndex, TypeTable};
use crate::error::{ErrorKind, TypeTableError as Error};
use std::sync::atomic::{AtomicU64, Ordering};

type Result<T, E = Error> = std::result::Result<T, E>;

/// How deep type references may nest before a table is taken to be hostile. Stock tables stay far
/// below this; the limit keeps the recursion off the end of the stack.
pub const MAX_DEPTH: usize = 256;

/// How many template arguments the expansions of one table's types may visit in all, per type of
/// the table. A type argument is hashed with its own arguments, unshared, so a hostile table of
/// types that each take the previous one twice would otherwise expand without end; stock types
/// visit a handful each.
const PARAM_STEPS_PER_TYPE: usize = 64;

/// The CRC-32 (IEEE, reflected) tables for slicing by eight: `CRC_TABLES[0]` is the byte-wise
/// table, `CRC_TABLES[k]` advances a byte through `k` more zero bytes. Hashed pieces are names and
/// single words, a few bytes each, for which a table walk is faster than a general CRC's setup.
const CRC_TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            i += 1;
        }
        k += 1;
    }
    t
};

/// Advances the (inverted) CRC register over the four bytes of `x` (already combined with it),
/// through tables `k..k + 4`: `k = 0` for the last word of a step, `k = 4` for the one before.
#[inline(always)]
fn slice4(x: u32, k: usize) -> u32 {
    let t = &CRC_TABLES;
    t[k + 3][(x & 0xFF) as usize] ^ t[k + 2][((x >> 8) & 0xFF) as usize] ^ t[k + 1][((x >> 16) & 0xFF) as usize] ^ t[k][(x >> 24) as usize]
}

/// Continues the standard CRC-32 whose value so far is `prev` over `bytes`.
#[inline]
fn crc(prev: u32, bytes: &[u8]) -> u32 {
    let mut c = !prev;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let a = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) ^ c;
        let b = u32::from_le_bytes([w[4], w[5], w[6], w[7]]);
        c = slice4(a, 4) ^ slice4(b, 0);
    }
    // The last k < 8 bytes in one slicing step: byte j (combined with byte j of the register
    // while there is one) advances through the k - 1 - j bytes after it, and what is left of the
    // register moves down by k bytes. The lookups do not wait on each other, as a byte-wise loop's do.
    let rest = words.remainder();
    let k = rest.len();
    if k > 0 {
        let reg = u64::from(c);
        let mut next = (reg >> (8 * k)) as u32;
        for (j, &b) in rest.iter().enumerate() {
            next ^= CRC_TABLES[k - 1 - j][usize::from(b ^ (reg >> (8 * j)) as u8)];
        }
        c = next;
    }
    !c
}

#[inline]
fn crc_u32(prev: u32, v: u32) -> u32 {
    !slice4(!prev ^ v, 0)
}

/// `crc_u32(crc_u32(prev, a), b)` in one step of eight bytes.
#[inline]
fn crc_u32x2(prev: u32, a: u32, b: u32) -> u32 {
    !(slice4(!prev ^ a, 4) ^ slice4(b, 0))
}

/// The CRC-32 polynomial, reflected.
const POLY: u32 = 0xEDB8_8320;

/// `a * b` modulo the CRC polynomial, both reflected (bit 31 is x^0); `a` nonzero.
const fn mult_mod_p(a: u32, mut b: u32) -> u32 {
    let mut m = 1u32 << 31;
    let mut p = 0;
    while m != 0 {
        if a & m != 0 {
            p ^= b;
            if a & (m - 1) == 0 {
                break;
            }
        }
        m >>= 1;
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
    }
    p
}

/// `X2N[k]` is x^(2^k) modulo the polynomial, reflected.
const X2N: [u32; 64] = {
    let mut t = [0u32; 64];
    let mut p = 1u32 << 30; // x^1
    t[0] = p;
    let mut k = 1;
    while k < 64 {
        p = mult_mod_p(p, p);
        t[k] = p;
        k += 1;
    }
    t
};

/// The CRC-32 of `A ++ B` from the CRC-32 of `A` (`first`), that of `B` alone (`second`) and the
/// length of `B`: what [`crc`] continued from `first` over `B` gives, without `B`'s bytes.
fn crc_combine(first: u32, second: u32, second_len: u64) -> u32 {
    // x^(8 * len): the register moved over `len` zero bytes.
    let mut shift = 1u32 << 31;
    let mut n = second_len;
    let mut k = 3;
    while n != 0 {
        if n & 1 != 0 {
            shift = mult_mod_p(X2N[k & 63], shift);
        }
        n >>= 1;
        k += 1;
    }
    mult_mod_p(shift, first) ^ second
}

/// Which variant of the recipe a table's hashes follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub enum Recipe {
    /// Fields of T and of every ancestor, root class first (SDK 2015.1 to 2018.1).
    #[default]
    InheritedFields,
    /// T's own fields only (SDK 2019.1).
    OwnFields,
}

impl Recipe {
    /// Both recipes.
    pub const ALL: [Recipe; 2] = [Recipe::InheritedFields, Recipe::OwnFields];

    /// The recipe of an `SDKV` string such as `20190100`.
    pub fn for_sdk(sdkv: &str) -> Recipe {
        match sdkv.get(..4).and_then(|y| y.parse::<u32>().ok()) {
            Some(year) if year >= 2019 => Recipe::OwnFields,
            _ => Recipe::InheritedFields,
        }
    }

    /// The recipe under which the most stored hashes of `table` recompute (the default on a tie).
    pub fn detect(table: &TypeTable) -> Recipe {
        let mut best = (Recipe::default(), 0usize);
        for r in Recipe::ALL {
            let n = check_table(table, r).map(|c| c.matched).unwrap_or(0);
            if n > best.1 {
                best = (r, n);
            }
        }
        best.0
    }
}

/// Hashes of the types of one table by one recipe, each computed at most once and then kept; the
/// memo a [`Hasher`] fills. A memo that outlives one file is shared through
/// [`super::facts::TableFacts`], which keeps it with the table it describes. A hash is a function
/// of the table and the recipe alone, so it may be taken from whichever hasher computed it first.
pub struct HashMemo(Box<[AtomicU64]>);

/// The mark of a computed hash in a [`HashMemo`] entry (0 is "not computed").
const COMPUTED: u64 = 1 << 32;

impl HashMemo {
    /// An empty memo for a table of `n` types.
    pub(crate) fn new(n: usize) -> Self {
        HashMemo((0..n).map(|_| AtomicU64::new(0)).collect())
    }

    #[inline]
    fn get(&self, i: TypeIndex) -> Option<u32> {
        let v = self.0.get(i as usize)?.load(Ordering::Relaxed);
        (v & COMPUTED != 0).then_some(v as u32)
    }

    fn set(&self, i: TypeIndex, h: u32) {
        if let Some(cell) = self.0.get(i as usize) {
            cell.store(COMPUTED | u64::from(h), Ordering::Relaxed);
        }
    }

    /// Types of the table.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

/// The memo of a [`Hasher`]: its own, or one shared with other files of the same table.
enum MemoRef<'t> {
    Own(HashMemo),
    Shared(&'t HashMemo),
}

/// Computes the hash of every type of a table (index 0 gets 0).
pub struct Hasher<'t> {
    recipe: Recipe,
    table: &'t TypeTable,
    memo: MemoRef<'t>,
    in_progress: Vec<bool>,
    /// Per type, for [`Recipe::InheritedFields`]: the CRC-32 (from 0) of the bytes the field step
    /// hashes for it (its ancestors' fields and its own, root class first) and their length, so
    /// that each type's fields are hashed once however many heirs it has; made on first use.
    field_streams: Vec<Option<(u32, u64)>>,
    /// Template arguments that expansions may still visit (see [`PARAM_STEPS_PER_TYPE`]).
    param_steps: usize,
}

impl<'t> Hasher<'t> {
    /// A hasher over `table` following `recipe`.
    pub fn new(table: &'t TypeTable, recipe: Recipe) -> Self {
        Self::with(table, recipe, MemoRef::Own(HashMemo::new(table.types.len())))
    }

    /// A hasher over `table` following `recipe` that keeps its hashes in `memo`, which must be a
    /// memo of this very table and recipe (see [`super::facts::TableFacts::hasher`], which makes
    /// sure of it).
    pub(crate) fn with_memo(table: &'t TypeTable, recipe: Recipe, memo: &'t HashMemo) -> Self {
        debug_assert_eq!(memo.len(), table.types.len());
        Self::with(table, recipe, MemoRef::Shared(memo))
    }

    fn with(table: &'t TypeTable, recipe: Recipe, memo: MemoRef<'t>) -> Self {
        let n = table.types.len();
        let param_steps = PARAM_STEPS_PER_TYPE.saturating_mul(n).saturating_add(4096);
        Hasher { recipe, table, memo, in_progress: vec![false; n], field_streams: Vec::new(), param_steps }
    }

    fn memo(&self) -> &HashMemo {
        match &self.memo {
            MemoRef::Own(m) => m,
            MemoRef::Shared(m) => m,
        }
    }

    /// The computed hash of type `i`.
    pub fn hash(&mut self, i: TypeIndex) -> Result<u32> {
        self.hash_at(i, 0)
    }

    fn get(&self, i: TypeIndex) -> Result<&'t super::TypeDef> {
        self.table.get(i).ok_or_else(|| {
            Error::new(ErrorKind::IndexOutOfRange {
                what: "type index",
                index: u64::from(i),
                count: self.table.types.len() as u64,
            })
        })
    }

    /// The hash of `i`, from the memo when it was computed before (most calls: every field type
    /// is hashed once per table and met many times).
    #[inline]
    fn hash_at(&mut self, i: TypeIndex, depth: usize) -> Result<u32> {
        match self.memo().get(i) {
            Some(h) => Ok(h),
            None => self.hash_new(i, depth),
        }
    }

    #[inline(never)]
    fn hash_new(&mut self, i: TypeIndex, depth: usize) -> Result<u32> {
        let t = self.get(i)?;
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::Cycle(format!("or too deep type references at {}", t.name))));
        }
        if self.in_progress[i as usize] {
            return Err(Error::new(ErrorKind::Cycle(format!("type reference through {}", t.name))));
        }
        self.in_progress[i as usize] = true;
        let r = self.compute(i, depth).map_err(|e| e.in_context(t.name.clone()));
        self.in_progress[i as usize] = false;
        let h = r?;
        self.memo().set(i, h);
        Ok(h)
    }

    fn compute(&mut self, i: TypeIndex, depth: usize) -> Result<u32> {
        let t = self.get(i)?;
        let mut h = if t.parent != 0 { self.hash_at(t.parent, depth + 1)? } else { 0 };
        if let Some(ifaces) = &t.interfaces {
            for iface in ifaces {
                h = crc(h, self.get(iface.ty)?.name.as_bytes());
                h = crc_u32(h, iface.value);
            }
        }
        if let Some(format) = t.format() {
            h = crc_u32(h, format.0);
            if format.is_fixed_array() {
                let elem = t.subtype.unwrap_or(0);
                h = crc_u32(h, self.hash_at(elem, depth + 1)?);
            }
        }
        h = crc(h, t.name.as_bytes());
        h = self.params(h, i, depth)?;
        if let Some(v) = t.version {
            h = crc_u32(h, v);
        }
        if let Some(sa) = t.size {
            h = crc_u32(h, sa.size | (sa.align << 16));
        }
        if let Some(f) = t.flags {
            h = crc_u32(h, f);
        }
        if t.fields.is_some() {
            h = match self.recipe {
                Recipe::InheritedFields => {
                    let (stream, len) = self.inherited_fields(i, depth)?;
                    crc_combine(h, stream, len)
                }
                Recipe::OwnFields => self.own_fields(h, t, depth)?,
            };
        }
        Ok(h)
    }

    /// The CRC-32 (from 0) and the length of the bytes the field step hashes for `i`: the fields
    /// of `i` and its ancestors, root class first ([`Hasher::field_streams`]). Each type's own
    /// fields are hashed once and combined with its parent's stream, so that the work is linear
    /// in the fields of the table, not in fields times heirs. The chain walked to the first type
    /// already known is bounded, so that a table that was not validated cannot make every type
    /// walk a chain as long as the table.
    fn inherited_fields(&mut self, i: TypeIndex, depth: usize) -> Result<(u32, u64)> {
        if self.field_streams.is_empty() {
            self.field_streams = vec![None; self.table.types.len()];
        }
        // The types of the chain from `i` up whose streams are not known yet, `i` first.
        let mut todo = Vec::new();
        let mut cur = i;
        let mut known = (0, 0);
        loop {
            if let Some(&Some(s)) = self.field_streams.get(cur as usize) {
                known = s;
                break;
            }
            if todo.len() > MAX_DEPTH {
                return Err(Error::new(ErrorKind::Cycle(format!("or parent chain longer than {MAX_DEPTH} types"))));
            }
            let t = self.get(cur)?;
            todo.push(cur);
            if t.parent == 0 {
                break;
            }
            cur = t.parent;
        }
        for &j in todo.iter().rev() {
            let t = self.get(j)?;
            let mut own = 0;
            let mut len = 0u64;
            for f in self.table.fields_of(t) {
                own = crc(own, f.name.as_bytes());
                own = crc_u32x2(own, f.offset, self.hash_at(f.ty, depth + 1)?);
                len += f.name.len() as u64 + 8;
            }
            known = (crc_combine(known.0, own, len), known.1 + len);
            if let Some(slot) = self.field_streams.get_mut(j as usize) {
                *slot = Some(known);
            }
        }
        Ok(known)
    }

    /// Continues `h` over the fields of `t` itself: name, offset and the field type's hash.
    fn own_fields(&mut self, mut h: u32, t: &'t super::TypeDef, depth: usize) -> Result<u32> {
        for f in self.table.fields_of(t) {
            h = crc(h, f.name.as_bytes());
            h = crc_u32x2(h, f.offset, self.hash_at(f.ty, depth + 1)?);
        }
        Ok(h)
    }

    fn params(&mut self, mut h: u32, i: TypeIndex, depth: usize) -> Result<u32> {
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::Cycle("or too deep template parameters".into())));
        }
        let t = self.get(i)?;
        for p in self.table.params_of(t) {
            match p.arg {
                TemplateArg::Type(ti) => {
                    self.param_steps = self.param_steps.checked_sub(1).ok_or_else(|| {
                        Error::new(ErrorKind::Invalid("template arguments expand out of proportion to the table".into()))
                    })?;
                    let arg = self.get(ti)?;
                    h = crc(h, arg.name.as_bytes());
                    // Most arguments take no parameters of their own.
                    if arg.params.len > 0 {
                        h = self.params(h, ti, depth + 1)?;
                    }
                }
                TemplateArg::Value(v) => h = crc_u32(h, v as u32),
            }
        }
        Ok(h)
    }
}

/// Outcome of checking every stored hash of a table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HashCheck {
    /// Types with a stored hash.
    pub stored: usize,
    /// Of those, the ones whose hash recomputes.
    pub matched: usize,
    /// (type index, full name, stored, computed) of each mismatch.
    pub mismatches: Vec<(TypeIndex, String, u32, u32)>,
}

/// Recomputes every stored hash of `table`.
pub fn check_table(table: &TypeTable, recipe: Recipe) -> Result<HashCheck> {
    let mut hasher = Hasher::new(table, recipe);
    let mut out = HashCheck::default();
    for (i, t) in table.iter() {
        if let Some(stored) = t.hash {
            out.stored += 1;
            let computed = hasher.hash(i)?;
            if computed == stored {
                out.matched += 1;
            } else {
                out.mismatches.push((i, table.full_name(i), stored, computed));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod crc_tests {
    use super::*;

    #[test]
    fn combined_crcs_are_the_crcs_of_the_whole() {
        let text: Vec<u8> = (0..300u32).map(|i| (i.wrapping_mul(91) ^ 0x3C) as u8).collect();
        for cut in [0, 1, 7, 8, 9, 100, 299, 300] {
            let (a, b) = text.split_at(cut);
            assert_eq!(crc_combine(crc(0, a), crc(0, b), b.len() as u64), crc(0, &text), "cut {cut}");
            assert_eq!(crc_combine(0xDEAD_BEEF, crc(0, b), b.len() as u64), crc(0xDEAD_BEEF, b), "cut {cut}");
        }
        assert_eq!(X2N[0], 1 << 30);
        assert_eq!(mult_mod_p(X2N[0], X2N[0]), X2N[1]);
    }

    #[test]
    fn the_table_crc_is_the_standard_one_and_chains() {
        // The check value of CRC-32/ISO-HDLC.
        assert_eq!(crc(0, b"123456789"), 0xCBF4_3926);
        let mut whole = crc32fast::Hasher::new();
        whole.update(b"hkaSkeleton");
        whole.update(&7u32.to_le_bytes());
        assert_eq!(crc_u32(crc(0, b"hkaSkeleton"), 7), whole.clone().finalize());
        whole.update(&0xA1B2_C3D4u32.to_le_bytes());
        assert_eq!(crc_u32x2(crc(0, b"hkaSkeleton"), 7, 0xA1B2_C3D4), whole.finalize());
        assert_eq!(crc(0x1234_5678, b""), 0x1234_5678);
        // Every length around the eight-byte steps, continued from a nonzero value.
        let text: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5A).collect();
        for n in 0..text.len() {
            let mut h = crc32fast::Hasher::new_with_initial(0xDEAD_BEEF);
            h.update(&text[..n]);
            assert_eq!(crc(0xDEAD_BEEF, &text[..n]), h.finalize(), "length {n}");
        }
    }
}

#[cfg(test)]
mod hostile_tests {
    use super::*;
    use crate::reflect::{TemplateParam, TypeRecord};

    fn named(name: &str) -> TypeRecord {
        TypeRecord { name: name.into(), ..TypeRecord::default() }
    }

    #[test]
    fn template_arguments_that_double_with_every_type_stop() {
        // Type k takes type k-1 twice: hashing type 60 would visit 2^60 arguments.
        let mut types = vec![TypeRecord::default(), named("T")];
        for k in 2..=60u32 {
            let arg = |n: &str| TemplateParam { name: n.into(), arg: TemplateArg::Type(k - 1) };
            types.push(TypeRecord { params: vec![arg("tA"), arg("tB")], hash: Some(0), ..named("T") });
        }
        let table = TypeTable::from_records(types);
        let e = check_table(&table, Recipe::InheritedFields).unwrap_err();
        assert!(e.to_string().contains("out of proportion"), "{e}");
        assert_eq!(e.path(), ["T"]);
        // The names stop too.
        assert!(table.full_name(60).len() <= crate::reflect::MAX_FULL_NAME + 100);
    }

    #[test]
    fn a_long_parent_chain_in_an_unvalidated_table_stops() {
        // 20 000 types, each the parent of the next and each with (no) fields: walking the whole
        // chain for every type would be quadratic.
        let n = 20_000u32;
        let mut types = vec![TypeRecord::default()];
        for k in 1..=n {
            types.push(TypeRecord { parent: k - 1, fields: Some(Vec::new()), properties: Some(0), hash: Some(1), ..named("C") });
        }
        let table = TypeTable::from_records(types);
        // Hashed root first, each type finds its parent's fields already hashed: one step each.
        let c = check_table(&table, Recipe::InheritedFields).unwrap();
        assert_eq!(c.stored, n as usize);
        // Hashed from the far end of the chain, the walk stops.
        let e = Hasher::new(&table, Recipe::InheritedFields).hash(n).unwrap_err();
        assert!(e.to_string().contains("too deep") || e.to_string().contains("parent chain longer than"), "{e}");
        // The own-fields recipe walks no chain, and hashes every type.
        let c = check_table(&table, Recipe::OwnFields).unwrap();
        assert_eq!(c.stored, n as usize);
    }
}
