//! hkClass reflection that a packfile carries in its own `__types__` section: the `hkClass`,
//! `hkClassMember`, `hkClassEnum` and `hkClassEnumItem` objects the SDK wrote when asked to
//! embed its metadata (in the corpus, e.g. MonaxiaSouls c1400.HKX, hk_2014.1.0-r1). Read with the
//! file's pointer size and byte order; the members' offsets are the file's own layout and come back
//! as an [`ObservedLayout`].
//!
//! The records, by pointer size P (the 2010-2014 layouts):
//! - hkClass: name, parent (P each), object size, interface count (32 bits each), declared enums
//!   (P) and their count, declared members (P) and their count, defaults and attributes (P each),
//!   flags, described version;
//! - hkClassMember: name, class, enum (P each), type and subtype (8 bits), C-array size, flags,
//!   offset (16 bits), attributes (P);
//! - hkClassEnum: name, items (P), item count, attributes (P), flags;
//! - hkClassEnumItem: value (32 bits), name (P).

use super::layout::ObservedLayout;
use crate::schema::model::{ClassRecord, ClassSchema, EnumRecord, MemberRecord, MemberType};
use crate::error::Error;
use hktypes::error::ValueError;
use hktypes::packfile::{Endian, PackFile, TYPES};
use std::collections::HashMap;

fn err(msg: impl Into<String>) -> Error {
    Error::schema(format!("__types__: {}", msg.into()))
}

struct Reader<'a> {
    data: &'a [u8],
    section: u32,
    e: Endian,
    p: u32,
    ptrs: HashMap<u32, (u32, u32)>,
    /// Bytes of records and names left to read ([`Reader::charge`]).
    left: std::cell::Cell<u64>,
}

/// What one import may read, per byte of `__types__`, plus [`READ_SLACK`]: records that several
/// classes share (a members array, a name) are read again for each, which a stock section does
/// for class names only (each is read once per member that names the class).
const READ_PER_BYTE: u64 = 4;
const READ_SLACK: u64 = 1 << 16;

impl Reader<'_> {
    fn bytes<const N: usize>(&self, at: u32) -> Result<[u8; N], Error> {
        let at = at as usize;
        self.data
            .get(at..at + N)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| err(format!("read of {N} bytes at {at:#x} past the section's end")))
    }
    fn u8(&self, at: u32) -> Result<u8, Error> {
        Ok(self.bytes::<1>(at)?[0])
    }
    fn u16(&self, at: u32) -> Result<u16, Error> {
        Ok(self.e.u16(self.bytes(at)?))
    }
    fn u32(&self, at: u32) -> Result<u32, Error> {
        Ok(self.e.u32(self.bytes(at)?))
    }
    /// The target of the pointer at `at` when it points into this section; `None` for null.
    fn ptr(&self, at: u32) -> Result<Option<u32>, Error> {
        match self.ptrs.get(&at) {
            None => Ok(None),
            Some(&(s, dst)) if s == self.section => Ok(Some(dst)),
            Some(&(s, _)) => Err(err(format!("pointer at {at:#x} leaves the section (to section {s})"))),
        }
    }
    /// Takes `n` bytes from what the import may still read: shared records and names would
    /// otherwise be copied once per class that points to them, out of proportion to the section.
    fn charge(&self, n: u64, at: u32) -> Result<(), Error> {
        let left = self.left.get().checked_sub(n).ok_or_else(|| {
            err(format!(
                "record or name at {at:#x}: more than {READ_PER_BYTE} bytes read per byte of the section (records shared by many classes)"
            ))
        })?;
        self.left.set(left);
        Ok(())
    }
    fn cstr(&self, at: u32) -> Result<String, Error> {
        let rest = self.data.get(at as usize..).ok_or_else(|| err(format!("string at {at:#x} outside the section")))?;
        let n = rest.iter().position(|&b| b == 0).ok_or_else(|| err(format!("string at {at:#x} not terminated")))?;
        self.charge(n as u64 + 1, at)?;
        String::from_utf8(rest[..n].to_vec()).map_err(|_| err(format!("string at {at:#x} not UTF-8")))
    }
    fn name_at(&self, at: u32) -> Result<String, Error> {
        match self.ptr(at)? {
            Some(s) => self.cstr(s),
            None => Err(err(format!("null name at {at:#x}"))),
        }
    }
}

/// Field offsets of the four records for pointer size `p`.
struct Offsets {
    p: u32,
}

impl Offsets {
    fn align(v: u32, a: u32) -> u32 {
        v.div_ceil(a) * a
    }
    // hkClass
    fn class_parent(&self) -> u32 {
        self.p
    }
    fn class_size(&self) -> u32 {
        2 * self.p
    }
    fn class_interfaces(&self) -> u32 {
        2 * self.p + 4
    }
    fn class_enums(&self) -> u32 {
        2 * self.p + 8
    }
    fn class_num_enums(&self) -> u32 {
        3 * self.p + 8
    }
    fn class_members(&self) -> u32 {
        Self::align(3 * self.p + 12, self.p)
    }
    fn class_num_members(&self) -> u32 {
        self.class_members() + self.p
    }
    fn class_flags(&self) -> u32 {
        Self::align(self.class_num_members() + 4, self.p) + 2 * self.p
    }
    // hkClassMember
    fn member_len(&self) -> u32 {
        4 * self.p + 8
    }
    // hkClassEnum
    fn enum_len(&self) -> u32 {
        Self::align(Self::align(2 * self.p + 4, self.p) + self.p + 4, self.p)
    }
    fn enum_flags(&self) -> u32 {
        Self::align(2 * self.p + 4, self.p) + self.p
    }
}

/// An enum's name, items and flags: what tells two hkClassEnum records apart.
type EnumContent = (String, Vec<(i64, String)>, u32);

/// Reads every hkClass of the file's `__types__` section. `sdk` names the schema (`2014.1`).
pub fn import(file: &PackFile<'_>, sdk: &str) -> Result<(ClassSchema, ObservedLayout), Error> {
    let ti = file.section_index(TYPES).ok_or_else(|| err("no __types__ section"))?;
    let data = file.sections[ti].data().ok_or_else(|| err("__types__ holds class names"))?;
    let left = std::cell::Cell::new((data.len() as u64).saturating_mul(READ_PER_BYTE) + READ_SLACK);
    let r = Reader { data, section: ti as u32, e: file.endian(), p: file.pointer_size(), ptrs: file.pointers(ti), left };
    let o = Offsets { p: r.p };
    let objects = file.objects(ti);
    let classes: Vec<u32> = objects.iter().filter(|(_, c)| c.name == "hkClass").map(|(at, _)| *at).collect();
    if classes.is_empty() {
        return Err(err("no hkClass objects"));
    }
    let class_name = |at: u32| r.name_at(at);

    // Enums: declared ones keyed by their class, then any other the members point to.
    let mut enum_key: HashMap<u32, String> = HashMap::new();
    // The declared enums by content (name, items, flags), each the first key in order of those
    // that hold it: a separate hkClassEnum object is matched to one by lookup, not by a scan of
    // all of them (a hostile section may hold many of each).
    let mut declared: HashMap<EnumContent, String> = HashMap::new();
    let mut schema = ClassSchema { sdk: sdk.into(), sources: vec!["packfile __types__".into()], ..Default::default() };
    let read_enum = |at: u32| -> Result<EnumRecord, Error> {
        let name = r.name_at(at)?;
        let items_at = r.ptr(at + r.p)?;
        let n = r.u32(at + 2 * r.p)?;
        let n = hktypes::bytes::check_count("enum items", u64::from(n), u64::from(2 * r.p), data.len(), u64::from(at)).map_err(ValueError::from)?;
        r.charge(u64::from(o.enum_len()) + n as u64 * u64::from(2 * r.p), at)?;
        let mut items = Vec::with_capacity(n);
        if let Some(base) = items_at {
            for i in 0..n as u32 {
                let it = base + i * 2 * r.p;
                items.push((i64::from(r.u32(it)? as i32), r.name_at(it + r.p)?));
            }
        }
        Ok(EnumRecord { name, items, flags: r.u32(at + o.enum_flags())?, signature_items: None, items_unknown: false })
    };
    for &c in &classes {
        let cname = class_name(c)?;
        let n = r.u32(c + o.class_num_enums())?;
        let n = hktypes::bytes::check_count("declared enums", u64::from(n), u64::from(o.enum_len()), data.len(), u64::from(c)).map_err(ValueError::from)?;
        if let Some(base) = r.ptr(c + o.class_enums())? {
            for i in 0..n as u32 {
                let at = base + i * o.enum_len();
                let rec = read_enum(at)?;
                let key = format!("{cname}::{}", rec.name);
                enum_key.insert(at, key.clone());
                declared.entry((rec.name.clone(), rec.items.clone(), rec.flags)).and_modify(|k: &mut String| {
                    if key < *k {
                        k.clone_from(&key);
                    }
                }).or_insert_with(|| key.clone());
                schema.enums.insert(key, rec);
            }
        }
    }

    let mut observed = ObservedLayout::default();
    for &c in &classes {
        let name = class_name(c)?;
        let parent = r.ptr(c + o.class_parent())?.map(class_name).transpose()?;
        let nm = r.u32(c + o.class_num_members())?;
        let nm = hktypes::bytes::check_count("declared members", u64::from(nm), u64::from(o.member_len()), data.len(), u64::from(c)).map_err(ValueError::from)?;
        r.charge(nm as u64 * u64::from(o.member_len()), c)?;
        let mut members = Vec::with_capacity(nm);
        let mut offsets = Vec::with_capacity(nm);
        if let Some(base) = r.ptr(c + o.class_members())? {
            for i in 0..nm as u32 {
                let m = base + i * o.member_len();
                let ty = |at: u32| -> Result<MemberType, Error> {
                    let code = r.u8(at)?;
                    MemberType::from_code(code).ok_or_else(|| err(format!("{name}: member type {code} unknown")))
                };
                let enumeration = match r.ptr(m + 2 * r.p)? {
                    None => None,
                    Some(at) => Some(match enum_key.get(&at) {
                        Some(k) => k.clone(),
                        // A separate hkClassEnum object: the declared enum with the same content
                        // when there is one (the SDK writes both), else keyed by its name (and
                        // its offset when another enum has that name).
                        None => {
                            let rec = read_enum(at)?;
                            let same = declared.get(&(rec.name.clone(), rec.items.clone(), rec.flags)).cloned();
                            let key = match same {
                                Some(k) => k,
                                None => {
                                    let mut k = rec.name.clone();
                                    if schema.enums.get(&k).is_some_and(|old| *old != rec) {
                                        k = format!("{}#{at:x}", rec.name);
                                    }
                                    schema.enums.entry(k.clone()).or_insert(rec);
                                    k
                                }
                            };
                            enum_key.insert(at, key.clone());
                            key
                        }
                    }),
                };
                members.push(MemberRecord {
                    name: r.name_at(m)?,
                    class: r.ptr(m + r.p)?.map(class_name).transpose()?,
                    enumeration,
                    ty: ty(m + 3 * r.p)?,
                    subtype: ty(m + 3 * r.p + 1)?,
                    c_array_size: r.u16(m + 3 * r.p + 2)?,
                    flags: r.u16(m + 3 * r.p + 4)?,
                });
                offsets.push(u32::from(r.u16(m + 3 * r.p + 6)?));
            }
        }
        let n_enums = r.u32(c + o.class_num_enums())? as usize;
        let enums = match r.ptr(c + o.class_enums())? {
            Some(base) => (0..n_enums as u32).filter_map(|i| enum_key.get(&(base + i * o.enum_len())).cloned()).collect(),
            None => Vec::new(),
        };
        let signature = file.class_names().get(&name).map(|e| crate::schema::model::Hex(e.signature));
        observed.sizes.insert(name.clone(), r.u32(c + o.class_size())?);
        observed.offsets.insert(name.clone(), offsets);
        schema.classes.insert(
            name.clone(),
            ClassRecord {
                name,
                parent,
                version: r.u32(c + o.class_flags() + 4)?,
                flags: r.u32(c + o.class_flags())?,
                interfaces: r.u32(c + o.class_interfaces())?,
                enums,
                members,
                signature,
            },
        );
    }
    Ok((schema, observed))
}
