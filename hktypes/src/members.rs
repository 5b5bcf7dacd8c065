//! Member values by name, for any object of any [`Document`], without generated classes.
//!
//! Typed access ([`Document::get`]) needs the generated class of the document's SDK; code that
//! must work on every SDK and format alike (the animation codecs of [`crate::anim`]) reads
//! members by their Havok names instead, as the one plain shape of [`crate::dump`]: a [`Val`].
//! This is no walker of its own: a tagfile object is decoded from its item of the file read by
//! the dump's tagfile decoder (through the file's own type table), a packfile object's member
//! values are converted as the dump converts them. Both formats give the same shape (a
//! `hkQsTransform` is its reals, an `hkArray<hkUint8>` a list of integers, a pointer a
//! [`Val::Ref`] to a handle).
//!
//! Setting goes through the same shape the other way: [`Document::set_members`] dumps the
//! document, replaces the members named, builds the file again ([`crate::dump::build`]) and
//! reads it back with the options given, so that every rule of the format's writer (layout,
//! alignment, patches) holds for the result. A member of the wrong kind or size is a located
//! error and leaves the document as it was.
//!
//! ```
//! use hktypes::dump::Val;
//! use hktypes::members::ValExt;
//!
//! let v = Val::List(vec![Val::Real(1.0), Val::Record(hktypes::dump::Members(vec![("w".into(), Val::Real(2.0))]))]);
//! assert_eq!(v.reals(), vec![1.0, 2.0]);
//! assert_eq!(Val::UInt(7).as_u64(), Some(7));
//! ```

use crate::dump::{self, BuildOptions, Members, Val};
use crate::error::{ErrorKind, Result, ValueError};
use crate::packfile::objects::PackfileDocument;
use crate::{Document, Handle, OpenOptions};

/// Readings of a [`Val`] the generic code needs.
pub trait ValExt {
    /// A number as `f64` (a real, an integer, a real by its bits).
    fn as_f64(&self) -> Option<f64>;
    /// A non-negative integer.
    fn as_u64(&self) -> Option<u64>;
    /// An integer, signed.
    fn as_i64(&self) -> Option<i64>;
    /// The elements of a list or an `hkArray`; a null array is empty.
    fn as_list(&self) -> Option<&[Val]>;
    /// A string.
    fn as_str(&self) -> Option<&str>;
    /// The handle a pointer names (`None` for null or no pointer).
    fn as_ref_handle(&self) -> Option<Handle>;
    /// Every real of the value in storage order (records, lists and vectors flattened): a
    /// `hkQsTransform` gives its 12 reals, a `hkVector4` its 4.
    fn reals(&self) -> Vec<f32>;
    /// Member `name` of a record.
    fn field(&self, name: &str) -> Option<&Val>;
}

impl ValExt for Val {
    fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Real(x) => Some(f64::from(*x)),
            Val::Bits(b) => Some(f64::from(f32::from_bits(*b))),
            Val::UInt(u) => Some(*u as f64),
            Val::Int(i) => Some(*i as f64),
            Val::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        match self {
            Val::UInt(u) => Some(*u),
            Val::Bool(b) => Some(u64::from(*b)),
            _ => None,
        }
    }

    fn as_i64(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            Val::UInt(u) => i64::try_from(*u).ok(),
            Val::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    fn as_list(&self) -> Option<&[Val]> {
        match self {
            Val::List(v) | Val::Array(v, _) => Some(v),
            Val::Null => Some(&[]),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_ref_handle(&self) -> Option<Handle> {
        match self {
            Val::Ref(h, _) => Some(Handle(*h)),
            _ => None,
        }
    }

    fn reals(&self) -> Vec<f32> {
        fn walk(v: &Val, out: &mut Vec<f32>) {
            match v {
                Val::Real(x) => out.push(*x),
                Val::Bits(b) => out.push(f32::from_bits(*b)),
                Val::List(l) | Val::Array(l, _) => l.iter().for_each(|x| walk(x, out)),
                Val::Record(m) => m.0.iter().for_each(|(_, x)| walk(x, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    fn field(&self, name: &str) -> Option<&Val> {
        match self {
            Val::Record(m) => m.get(name),
            _ => None,
        }
    }
}

impl Members {
    /// The value of member `name` (a Havok name, `m_` prefix or not).
    pub fn get(&self, name: &str) -> Option<&Val> {
        let bare = name.strip_prefix("m_").unwrap_or(name);
        self.0.iter().find(|(n, _)| n.strip_prefix("m_").unwrap_or(n) == bare).map(|(_, v)| v)
    }

    /// Member `name`, or an error naming it and `what` holds it.
    pub fn need(&self, name: &str, what: &str) -> std::result::Result<&Val, ValueError> {
        self.get(name).ok_or_else(|| ValueError::new(ErrorKind::Invalid(format!("{what}: no member {name}"))))
    }
}

fn invalid(msg: String) -> crate::error::Error {
    ValueError::new(ErrorKind::Invalid(msg)).into()
}

impl PackfileDocument {
    /// The members of object `h` by Havok name, the ancestors' first (the hidden bytes as
    /// [`Val::Bytes`] where the class has them), through the packfile walk out as the dump gives
    /// them: what [`Document::members`] gives for a packfile.
    pub fn members(&self, h: Handle) -> Result<Members> {
        dump::packfile_members(self, h)?.ok_or_else(|| {
            invalid(format!(
                "object {} ({}) is untyped: no class description of the file's SDK read it (open it with the SDK's class sources)",
                h.0,
                self.objects.get(h.0 as usize).map(|o| o.class.as_str()).unwrap_or_default()
            ))
        })
    }
}

impl Document {
    /// The members of object `h` by Havok name, the ancestors' first, whatever the format and
    /// whether or not a generated class read it (see [`crate::members`]).
    ///
    /// Errors: no object `h`; a packfile object no class description read (kept as its bytes:
    /// open the file with the class sources of its SDK, `hkclasses::open_options()`); a tagfile
    /// object changed through its generated class since it was read (write the document and open
    /// it again); a value that does not decode (located).
    pub fn members(&self, h: Handle) -> Result<Members> {
        self.members_with(h, false)
    }

    /// [`Document::members`], with a tagfile's enum members as the numbers stored even where the
    /// classes the document was opened with name their items (a packfile's are named by the
    /// file's own class descriptions, as [`Document::members`] gives them).
    pub fn members_stored(&self, h: Handle) -> Result<Members> {
        self.members_with(h, true)
    }

    fn members_with(&self, h: Handle, stored: bool) -> Result<Members> {
        match self {
            Document::Tagfile(d) => {
                let item = d.source_of(h).ok_or_else(|| {
                    invalid(match d.type_name(h) {
                        None => format!("no object {}", h.0),
                        Some(c) => format!(
                            "object {} ({c}) was changed through its class since it was read: write the document and open it again to read its members",
                            h.0
                        ),
                    })
                })?;
                let enums = if stored { Default::default() } else { d.enums() };
                Ok(dump::tagfile_members(d.source_items(), d.types(), item, &enums)?)
            }
            Document::Packfile(d) => d.members(h),
            Document::Compendium(_) => Err(invalid("a TCM0 compendium holds types, no objects".into())),
        }
    }

    /// Member `name` of object `h` (see [`Document::members`]).
    pub fn member(&self, h: Handle, name: &str) -> Result<Val> {
        let ms = self.members(h)?;
        let class = self.class_name(h).unwrap_or_default();
        Ok(ms.need(name, &format!("object {} ({class})", h.0))?.clone())
    }

    /// Replaces members of object `h` (each by its Havok name, with a value of the shape
    /// [`Document::members`] gives; an enum member of a tagfile by its item's name or by number)
    /// and lays the file out again, reading it back with `options` (the same classes and
    /// compendia it was opened with). Returns the object's handle in the document read back: a
    /// packfile's stays; a tagfile's writer numbers the objects in the order of its walk from the
    /// root, which a changed pointer or array may change (see
    /// [`Document::set_members_renumbered`] for every object's new handle). On an error the
    /// document is left as it was.
    pub fn set_members(&mut self, h: Handle, changes: Vec<(String, Val)>, options: &OpenOptions<'_>) -> Result<Handle> {
        let map = self.set_members_renumbered(h, changes, options)?;
        Ok(map.iter().find(|(old, _)| *old == h).map_or(h, |(_, new)| *new))
    }

    /// [`Document::set_members`], giving every object's handle before and after, in the order of
    /// the handles before (a packfile's stay as they were).
    pub fn set_members_renumbered(&mut self, h: Handle, changes: Vec<(String, Val)>, options: &OpenOptions<'_>) -> Result<Vec<(Handle, Handle)>> {
        let class = self.class_name(h).ok_or_else(|| invalid(format!("no object {}", h.0)))?;
        let (mut d, packfile_classes, tagfile_enums) = match self {
            Document::Tagfile(g) => {
                let bytes = g.write()?;
                let empty = crate::tagfile::CompendiumSet::new();
                // A tagfile read from a Phive file is written in its wrapper, which the dump keeps.
                let wrapped = match g.phive() {
                    Some(_) => Some(crate::tagfile::phive::Phive::read(&bytes)?),
                    None => None,
                };
                let tag0 = wrapped.as_ref().map_or(&bytes[..], |w| w.tag0);
                let file = crate::tagfile::TagFile::read(tag0, options.compendia.unwrap_or(&empty))?;
                // Enum members may be set by item name where the SDK's classes know the items.
                let enums = options.classes.map(|c| c.tagfile_enums(&file.sdk_version())).unwrap_or_default();
                let d = match &wrapped {
                    Some(w) => dump::dump_phive(&file, &crate::tagfile::phive::PhiveWrapper::of(w), &enums)?,
                    None => dump::dump_tagfile_with(&file, &enums)?,
                };
                (d, Vec::new(), enums)
            }
            Document::Packfile(p) => {
                let d = dump::dump_packfile(p)?;
                let version = p.file.contents_version();
                let sources = options.classes.map(|c| c.packfile(&version)).unwrap_or_default();
                (d, sources, Default::default())
            }
            Document::Compendium(_) => return Err(invalid("a TCM0 compendium holds types, no objects".into())),
        };
        // The dump holds a tagfile's objects by their handles, a packfile's by index.
        let o = match self {
            Document::Tagfile(_) => d.objects.iter_mut().find(|o| o.handle == h.0),
            _ => d.objects.get_mut(h.0 as usize),
        }
        .filter(|o| o.class == class)
        .ok_or_else(|| invalid(format!("object {} ({class}) is not where the document's dump holds it", h.0)))?;
        let ms = o.members.as_mut().ok_or_else(|| invalid(format!("object {} ({class}) is untyped", h.0)))?;
        // The rebuild's bound on the bytes it lays out: the file as it is, and room for the new
        // values (a dump's text takes at least a byte per value).
        let mut budget = 0usize;
        for (name, v) in changes {
            budget = budget.saturating_add(count_vals(&v).saturating_mul(8));
            let bare = name.strip_prefix("m_").unwrap_or(&name).to_owned();
            let slot = ms
                .0
                .iter_mut()
                .find(|(n, _)| n.strip_prefix("m_").unwrap_or(n) == bare)
                .ok_or_else(|| invalid(format!("object {} ({class}): no member {name}", h.0)))?;
            slot.1 = v;
        }
        let build = BuildOptions { compendia: options.compendia, packfile_classes, tagfile_enums };
        let budget = budget.saturating_add(self.write()?.len());
        let (bytes, map) = match self {
            Document::Tagfile(_) => {
                let (bytes, numbers) = dump::build_tagfile_numbered(&d, &build, budget)?;
                let map = d.objects.iter().zip(numbers).map(|(o, n)| (Handle(o.handle), Handle(n))).collect();
                (bytes, map)
            }
            _ => (dump::build(&d, &build, budget)?, self.handles().into_iter().map(|x| (x, x)).collect()),
        };
        *self = crate::open(&bytes, options)?;
        Ok(map)
    }
}

/// How many values `v` holds, itself included.
fn count_vals(v: &Val) -> usize {
    match v {
        Val::List(l) | Val::Array(l, _) => l.iter().map(count_vals).sum::<usize>() + 1,
        Val::Record(m) => m.0.iter().map(|(_, x)| count_vals(x)).sum::<usize>() + 1,
        Val::Bytes(b) => b.len() + 1,
        _ => 1,
    }
}
