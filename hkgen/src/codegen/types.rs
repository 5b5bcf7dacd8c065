//! What each schema type becomes in Rust. The format word decides (spec: "Values"): integers,
//! floats and booleans map to scalars, strings to `StringPtr`, pointers to `Ptr<T>`, variable
//! arrays to `Array<T, SLOT>`, fixed arrays to `[T; N]`, `hkEnum`/`hkFlags` to `Enum`/`Flags`,
//! records to generated structs. A handful of math and scalar types map to runtime types by name
//! ([`WELL_KNOWN`]). A type that only names a parent (`hkReal` -> `float`) is a typedef and maps as
//! its parent. Anything a tagfile does not serialise in a known shape keeps its bytes (`Opaque`).

use super::names;
use crate::schema::model::{Arg, Schema, Type};
use crate::error::CodegenInputError;
use crate::error::Error;
use hktypes::reflect::{Kind, TypeFormat as Format};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// Types that map to a runtime type by name, with the size the runtime type has. A type of that
/// name with another size maps by its format instead.
pub const WELL_KNOWN: &[(&str, &str, u32)] = &[
    ("hkVector4f", "Vector4", 16),
    ("hkQuaternionf", "Quaternion", 16),
    ("hkMatrix3f", "Matrix3", 48),
    ("hkMatrix3Impl<float>", "Matrix3", 48),
    ("hkRotationf", "Rotation", 48),
    ("hkRotationImpl<float>", "Rotation", 48),
    ("hkMatrix4f", "Matrix4", 64),
    ("hkMatrix4Impl<float>", "Matrix4", 64),
    ("hkTransformf", "Transform", 64),
    ("hkQsTransformf", "QsTransform", 48),
    ("hkHalf16", "Half16", 2),
    ("hkBool", "Bool8", 1),
    ("hkStringPtr", "StringPtr", 8),
];

/// The mapping of a whole schema.
pub struct Model<'s> {
    /// The schema mapped.
    pub schema: &'s Schema,
    /// Rust identifier of every struct, typedef and enumeration, by key.
    pub names: BTreeMap<String, String>,
    /// Types that become structs, in key order.
    pub structs: Vec<&'s Type>,
    struct_keys: BTreeSet<&'s str>,
    has_refs: std::cell::RefCell<BTreeMap<&'s str, bool>>,
    /// Typedefs (a name and a parent only) that map to something.
    pub aliases: Vec<&'s Type>,
    /// Enumerations: the `tENUM`/`tBITS` arguments of `hkEnum`/`hkFlags`, and those the overlay
    /// gives to integer members.
    pub enums: BTreeSet<&'s str>,
    /// Enumeration by (class full name, member) for members stored as a bare integer.
    pub member_enums: BTreeMap<(&'s str, &'s str), &'s str>,
    rt: TokenStream,
}

fn well_known(t: &Type) -> Option<(&'static str, u32)> {
    WELL_KNOWN.iter().find(|(n, _, _)| *n == t.full_name()).map(|&(_, r, s)| (r, s))
}

fn is_alias(t: &Type) -> bool {
    t.format.is_none() && t.size.is_none() && t.parent.is_some()
}

impl<'s> Model<'s> {
    /// A model of `schema` whose generated code names the runtime's `value` module as `rt`
    /// (`::hktypes::value`).
    pub fn new(schema: &'s Schema, rt: TokenStream) -> Result<Self, Error> {
        Self::with_members(schema, rt, &EMPTY)
    }

    /// A model in which the members of `members` ((class, member) -> enumeration) are enumerations.
    pub fn with_members(
        schema: &'s Schema,
        rt: TokenStream,
        members: &'s BTreeMap<(String, String), String>,
    ) -> Result<Self, Error> {
        // Only members of classes this SDK has, so that an SDK without them gets no marker.
        let member_enums: BTreeMap<(&'s str, &'s str), &'s str> = members
            .iter()
            .filter(|((c, _), _)| schema.types.values().any(|t| t.full_name() == c))
            .map(|((c, f), e)| ((c.as_str(), f.as_str()), e.as_str()))
            .collect();
        let mut enums: BTreeSet<&'s str> = member_enums.values().copied().collect();
        for t in schema.types.values() {
            if t.name == "hkEnum" || t.name == "hkFlags" {
                for p in &t.params {
                    if let (Arg::Type(k), "tENUM" | "tBITS") = (&p.arg, p.name.as_str()) {
                        enums.insert(k.as_str());
                    }
                }
            }
        }
        let mut model = Model {
            schema,
            names: BTreeMap::new(),
            structs: Vec::new(),
            struct_keys: BTreeSet::new(),
            has_refs: Default::default(),
            aliases: Vec::new(),
            enums,
            member_enums,
            rt,
        };
        for t in schema.types.values() {
            if model.enums.contains(t.key.as_str()) {
                continue;
            }
            if is_alias(t) {
                if model.effective(&t.key).is_some() {
                    model.aliases.push(t);
                }
            } else if t.format.map(|f| Format(f.0).kind()) == Some(Kind::Record)
                && t.size.is_some()
                && well_known(t).filter(|&(_, s)| Some(s) == t.size).is_none()
            {
                model.structs.push(t);
            }
        }
        model.struct_keys = model.structs.iter().map(|t| t.key.as_str()).collect();
        let keys: Vec<(&str, u32)> = model
            .structs
            .iter()
            .chain(&model.aliases)
            .map(|t| (t.key.as_str(), t.computed.0))
            .chain(model.enums.iter().map(|k| (*k, schema.types.get(*k).map_or(0, |t| t.computed.0))))
            .collect();
        model.names = names::assign(&keys, RESERVED);
        Ok(model)
    }

    /// Whether `key` maps to a generated struct (as [`Self::rust_type`] decides).
    pub fn is_struct(&self, key: &str) -> bool {
        let mut t = self.schema.types.get(key);
        for _ in 0..64 {
            let Some(x) = t else { return false };
            if well_known(x).is_some_and(|(_, size)| self.size_of(&x.key) == Some(size)) {
                return false;
            }
            if !is_alias(x) {
                return self.struct_keys.contains(x.key.as_str());
            }
            t = x.parent.as_deref().and_then(|p| self.schema.types.get(p));
        }
        false
    }

    /// The path of the runtime's `value` module in generated code.
    pub fn rt(&self) -> &TokenStream {
        &self.rt
    }

    /// The type of key `key`, or a schema error naming it.
    pub fn get(&self, key: &str) -> Result<&'s Type, Error> {
        self.schema.types.get(key).ok_or_else(|| Error::codegen(format!("unknown type {key:?}")))
    }

    /// The type a typedef chain ends in: the first with a format or a size.
    pub fn effective(&self, key: &str) -> Option<&'s Type> {
        let mut t = self.schema.types.get(key)?;
        for _ in 0..64 {
            if !is_alias(t) {
                return Some(t);
            }
            t = self.schema.types.get(t.parent.as_deref()?)?;
        }
        None
    }

    /// Size of a value of the type, following typedefs.
    pub fn size_of(&self, key: &str) -> Option<u32> {
        self.effective(key)?.size
    }

    /// The Rust identifier of a struct, typedef or enumeration, by key.
    pub fn ident(&self, key: &str) -> Option<proc_macro2::Ident> {
        self.names.get(key).map(|s| names::ident(s))
    }

    /// The Rust type of member `field` (of type `key`) of class `class`: an enumeration when the
    /// overlay makes it one and its type is an integer, else [`Self::rust_type`].
    pub fn member_type(&self, class: &Type, field: &str, key: &str) -> Result<TokenStream, Error> {
        let plain = self.rust_type(key)?;
        let Some(e) = self.member_enums.get(&(class.full_name(), field)) else {
            return Ok(plain);
        };
        let int = self.effective(key).and_then(|t| Some((Format(t.format?.0), t.size?)));
        match int {
            Some((f, size)) if f.kind() == Kind::Int && int_type(f, size).is_some() => {
                let rt = &self.rt;
                let id = self.ident(e).ok_or_else(|| CodegenInputError::of(*e, "unnamed enumeration"))?;
                Ok(quote!(#rt::Enum<#id, #plain>))
            }
            _ => Ok(plain),
        }
    }

    /// The Rust type of a value slot of type `key`.
    pub fn rust_type(&self, key: &str) -> Result<TokenStream, Error> {
        self.map(key, 0)
    }

    fn map(&self, key: &str, depth: u32) -> Result<TokenStream, Error> {
        if depth > 32 {
            return Err(CodegenInputError::of(key, "types nest too deeply").into());
        }
        let rt = &self.rt;
        let mut t = self.get(key)?;
        // Typedef chains: the first name that is well known wins, otherwise the end of the chain.
        for _ in 0..64 {
            if let Some((r, size)) = well_known(t) {
                if self.size_of(&t.key) == Some(size) {
                    let r = format_ident!("{r}");
                    return Ok(quote!(#rt::#r));
                }
            }
            if !is_alias(t) {
                break;
            }
            t = self.get(t.parent.as_deref().unwrap_or_default())?;
        }
        if self.struct_keys.contains(t.key.as_str()) {
            let id = self.ident(&t.key).ok_or_else(|| CodegenInputError::of(key, "struct without a name"))?;
            return Ok(quote!(#id));
        }
        let size = t.size.unwrap_or(0);
        let align = t.align.map_or(1, |a| (a & 0xFFF).max(1));
        let opaque = {
            let (n, a) = (Literal::usize_unsuffixed(size as usize), Literal::usize_unsuffixed(align as usize));
            quote!(#rt::Opaque<#n, #a>)
        };
        let Some(format) = t.format.map(|f| Format(f.0)) else {
            return Ok(opaque);
        };
        let big = format.0 & 0x100 != 0;
        let be = |inner: TokenStream| if big { quote!(#rt::Be<#inner>) } else { inner };
        Ok(match format.kind() {
            Kind::Void => quote!(()),
            Kind::Bool => match (format.int_bits(), size) {
                (8, 1) => be(quote!(#rt::Bool8)),
                (32, 4) => be(quote!(#rt::Bool32)),
                _ => opaque,
            },
            Kind::Int => {
                if t.name == "hkEnum" || t.name == "hkFlags" {
                    let e = self.param(t, &["tENUM", "tBITS"]);
                    let s = self.param(t, &["tSTORAGE"]);
                    if let (Some(e), Some(s)) = (e, s) {
                        let e = self.ident(e).ok_or_else(|| CodegenInputError::of(key, "unnamed enumeration"))?;
                        let s = self.map(s, depth + 1)?;
                        let w = format_ident!("{}", if t.name == "hkEnum" { "Enum" } else { "Flags" });
                        return Ok(quote!(#rt::#w<#e, #s>));
                    }
                }
                let Some(int) = int_type(format, size) else {
                    return Ok(opaque);
                };
                let int = be(int);
                match self.ident(&t.key).filter(|_| self.enums.contains(t.key.as_str())) {
                    // An enumeration used directly as a member type is stored at its own width.
                    Some(e) => quote!(#rt::Enum<#e, #int>),
                    None => int,
                }
            }
            Kind::Float => match (format.float_bits().or(float_bits_be(format)), size) {
                (Some(32), 4) => be(quote!(f32)),
                (Some(16), 2) => be(quote!(#rt::Half16)),
                _ if format.0 & !0x100 == 0x0034_5e05 && size == 8 => be(quote!(f64)),
                _ => opaque,
            },
            Kind::String => {
                if format.0 & 0x20 != 0 && size == format.0 >> 16 {
                    // char[N]: the characters inline.
                    let n = Literal::usize_unsuffixed(size as usize);
                    quote!([u8; #n])
                } else if size == 8 {
                    quote!(#rt::StringPtr)
                } else {
                    opaque
                }
            }
            Kind::Pointer if size == 8 => {
                let target = self.pointee(t.subtype.as_deref(), depth)?;
                quote!(#rt::Ptr<#target>)
            }
            Kind::Array if format.is_fixed_array() => {
                let n = format.fixed_count();
                match t.subtype.as_deref() {
                    Some(sub) if self.size_of(sub).map(|s| s * n) == Some(size) => {
                        let elem = self.map(sub, depth + 1)?;
                        let n = Literal::usize_unsuffixed(n as usize);
                        quote!([#elem; #n])
                    }
                    _ => opaque,
                }
            }
            // Variable arrays store form 0 (`hkArray`, 0x8) or 2 in bits 5-6.
            Kind::Array if matches!(size, 4 | 8 | 16) => match t.subtype.as_deref() {
                Some(sub) if self.size_of(sub).is_some() => {
                    let elem = self.map(sub, depth + 1)?;
                    match size {
                        16 => quote!(#rt::Array<#elem>),
                        4 => quote!(#rt::RelArray<#elem>),
                        n => {
                            let n = Literal::usize_unsuffixed(n as usize);
                            quote!(#rt::Array<#elem, #n>)
                        }
                    }
                }
                _ => opaque,
            },
            _ => opaque,
        })
    }

    /// The Rust type a pointer names: a struct or mapped value, or `Unknown`.
    fn pointee(&self, key: Option<&str>, depth: u32) -> Result<TokenStream, Error> {
        let rt = &self.rt;
        let unknown = quote!(#rt::Unknown);
        let Some(key) = key else { return Ok(unknown) };
        let Some(t) = self.effective(key) else { return Ok(unknown) };
        match t.format.map(|f| Format(f.0).kind()) {
            None | Some(Kind::Void) | Some(Kind::Opaque) => Ok(unknown),
            _ if t.size.is_none() => Ok(unknown),
            _ => self.map(key, depth + 1),
        }
    }

    /// Whether a value of the type holds a reference slot (so its members need visiting).
    pub fn has_refs(&self, key: &str) -> bool {
        self.refs_in(key, 0)
    }

    fn refs_in(&self, key: &str, depth: u32) -> bool {
        let Some(t) = self.effective(key) else { return false };
        if let Some(&b) = self.has_refs.borrow().get(t.key.as_str()) {
            return b;
        }
        if depth > 32 {
            return true;
        }
        let b = match t.format.map(|f| Format(f.0)) {
            _ if t.full_name() == "hkStringPtr" => true,
            _ if well_known(t).is_some() => false,
            None => false,
            Some(f) => match f.kind() {
                Kind::String => t.size == Some(8),
                Kind::Pointer => t.size == Some(8),
                Kind::Array if f.is_fixed_array() => t.subtype.as_deref().is_some_and(|s| self.refs_in(s, depth + 1)),
                Kind::Array => matches!(t.size, Some(4 | 8 | 16)),
                Kind::Record => {
                    t.parent.as_deref().is_some_and(|p| self.refs_in(p, depth + 1))
                        || t.fields.iter().flatten().any(|f| self.refs_in(&f.ty, depth + 1))
                }
                _ => false,
            },
        };
        self.has_refs.borrow_mut().insert(t.key.as_str(), b);
        b
    }

    fn param<'a>(&self, t: &'a Type, names: &[&str]) -> Option<&'a str> {
        t.params.iter().find(|p| names.contains(&p.name.as_str())).and_then(|p| match &p.arg {
            Arg::Type(k) => Some(k.as_str()),
            Arg::Value(_) => None,
        })
    }
}

fn float_bits_be(f: Format) -> Option<u32> {
    Format(f.0 & !0x100).float_bits()
}

fn int_type(f: Format, size: u32) -> Option<TokenStream> {
    let bits = f.int_bits();
    if bits != size * 8 {
        return None;
    }
    Some(match (bits, f.is_signed()) {
        (8, false) => quote!(u8),
        (8, true) => quote!(i8),
        (16, false) => quote!(u16),
        (16, true) => quote!(i16),
        (32, false) => quote!(u32),
        (32, true) => quote!(i32),
        (64, false) => quote!(u64),
        (64, true) => quote!(i64),
        _ => return None,
    })
}

static EMPTY: BTreeMap<(String, String), String> = BTreeMap::new();

/// Names generated code uses unqualified, which no generated type may take.
pub const RESERVED: &[&str] = &["Ok", "Some", "None", "Option", "Self", "CLASSES"];
