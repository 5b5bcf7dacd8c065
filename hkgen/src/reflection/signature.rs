//! The hkClass signature: a CRC-32 over a class and its parents, as packfiles store it in
//! `__classnames__`. Per class, from the class itself up to its root, in a little-endian stream:
//!
//! - the number of interfaces it implements (32 bits);
//! - each declared enum's signature, then the number of declared enums (32 bits);
//! - per declared member: the signatures of the struct class and its parents (for a struct or an
//!   array of structs, not for pointers), the signature of its enum if it has one, the name (no
//!   terminator), type, subtype, C-array size and flags (16 bits each), then the number of
//!   declared members (32 bits).
//!
//! An enum's signature is its name, each item's name and value (32 bits), the item count (32 bits).
//! Names of classes never enter. Two rewrites keep old signatures stable: an enum or flags member
//! has its subtype cleared and its storage size in bytes times 8 xor-ed into its flags (the old
//! "enum size" flag bits), and a `SERIALIZE_IGNORED` member is written as type `TYPE_ZERO` with its
//! type as subtype (and its subtype, when not void, as a third 16-bit word), the flag cleared.

use crate::schema::model::{member_flags, ClassRecord, ClassSchema, EnumRecord, MemberType};

/// Why a signature could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// The named class (the class asked for, a parent or a struct member's class) is not in the
    /// schema, or its parent chain or struct nesting is too deep.
    Class(String),
    /// The named enum, declared by a class or used by a member, is not in the schema.
    Enum(String),
    /// The enum is known by name only.
    EnumItems(String),
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Missing::Class(c) => write!(f, "class {c} is not in the schema"),
            Missing::Enum(e) => write!(f, "enum {e} is not in the schema"),
            Missing::EnumItems(e) => write!(f, "the items of enum {e} are unknown"),
        }
    }
}

/// Storage size of an enum or flags member's subtype.
fn storage_size(t: MemberType) -> u16 {
    match t {
        MemberType::Int8 | MemberType::Uint8 | MemberType::Bool | MemberType::Char => 1,
        MemberType::Int16 | MemberType::Uint16 | MemberType::Half => 2,
        MemberType::Int32 | MemberType::Uint32 | MemberType::Real => 4,
        MemberType::Int64 | MemberType::Uint64 => 8,
        _ => 0,
    }
}

/// The signature of `name` and its parents.
pub fn class_signature(schema: &ClassSchema, name: &str) -> Result<u32, Missing> {
    let mut w = Stream::default();
    let mut next = Some(name.to_owned());
    let mut depth = 0;
    while let Some(n) = next {
        let c = schema.class(&n).ok_or_else(|| Missing::Class(n.clone()))?;
        write_class(schema, c, &mut w, 0)?;
        next = c.parent.clone();
        depth += 1;
        if depth > 256 {
            return Err(Missing::Class(format!("{name} (parent chain too deep)")));
        }
    }
    Ok(w.crc.finalize())
}

/// The signature of one enum on its own.
pub fn enum_signature(e: &EnumRecord) -> u32 {
    let mut w = Stream::default();
    write_enum(e, &mut w);
    w.crc.finalize()
}

#[derive(Default)]
struct Stream {
    crc: crc32fast::Hasher,
}

impl Stream {
    fn raw(&mut self, b: &[u8]) {
        self.crc.update(b);
    }
    fn w16(&mut self, v: u16) {
        self.crc.update(&v.to_le_bytes());
    }
    fn w32(&mut self, v: u32) {
        self.crc.update(&v.to_le_bytes());
    }
}

fn write_enum(e: &EnumRecord, w: &mut Stream) {
    let items = e.signature_items.as_ref().unwrap_or(&e.items);
    w.raw(e.name.as_bytes());
    for (value, name) in items {
        w.raw(name.as_bytes());
        w.w32(*value as u32);
    }
    w.w32(items.len() as u32);
}

fn write_class(schema: &ClassSchema, c: &ClassRecord, w: &mut Stream, depth: usize) -> Result<(), Missing> {
    if depth > 64 {
        return Err(Missing::Class(format!("{} (struct members nested too deeply)", c.name)));
    }
    let enum_of = |key: &str| match schema.enums.get(key) {
        None => Err(Missing::Enum(key.to_owned())),
        Some(e) if e.items_unknown => Err(Missing::EnumItems(key.to_owned())),
        Some(e) => Ok(e),
    };
    w.w32(c.interfaces);
    for key in &c.enums {
        write_enum(enum_of(key)?, w);
    }
    w.w32(c.enums.len() as u32);
    for m in &c.members {
        let (mut ty, mut subtype, mut flags) = (m.ty, m.subtype, m.flags);
        if matches!(ty, MemberType::Enum | MemberType::Flags) {
            flags ^= storage_size(subtype) * 8;
            subtype = MemberType::Void;
        }
        let mut third = MemberType::Void;
        if flags & member_flags::SERIALIZE_IGNORED != 0 {
            flags ^= member_flags::SERIALIZE_IGNORED;
            third = subtype;
            subtype = ty;
            ty = MemberType::Zero;
        }
        if let Some(cl) = &m.class {
            if m.ty != MemberType::Pointer && m.subtype != MemberType::Pointer {
                let mut next = Some(cl.clone());
                let mut n = 0;
                while let Some(name) = next {
                    let k = schema.class(&name).ok_or_else(|| Missing::Class(name.clone()))?;
                    write_class(schema, k, w, depth + 1)?;
                    next = k.parent.clone();
                    n += 1;
                    if n > 256 {
                        return Err(Missing::Class(format!("{name} (parent chain too deep)")));
                    }
                }
            }
        }
        if let Some(e) = &m.enumeration {
            write_enum(enum_of(e)?, w);
        }
        w.raw(m.name.as_bytes());
        w.w16(u16::from(ty.code()));
        w.w16(u16::from(subtype.code()));
        if third != MemberType::Void {
            w.w16(u16::from(third.code()));
        }
        w.w16(m.c_array_size);
        w.w16(flags);
    }
    w.w32(c.members.len() as u32);
    Ok(())
}
