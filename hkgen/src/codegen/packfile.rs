//! Structs for the hkClass schemas of the packfile SDKs (`schemas/<sdk>/classes/`): per class a
//! struct of its own members (a derived class holds its parent in `base` and dereferences to
//! it, as the tagfile classes do) implementing `hktypes::packfile::typed::{PackValue, PackClass}` and `hktypes::value::Typed`,
//! per enum with a class member naming it a marker type implementing
//! `hktypes::value::Enumeration`, a `CLASSES` table, and `SCHEMA`, the schema's hkClass
//! descriptions as static data ([`schema_data`]), which lays the structs out at run time without
//! the schema folder. Under the generated crate's `serde` feature the structs derive `Serialize`
//! and `Deserialize` under Havok's member names.
//!
//! No offset is generated: the layout of a member depends on the platform (pointer size, byte
//! order, reuse-padding, empty-base), so `hktypes::packfile::objects::PackfileDocument` lays classes out
//! per file at run time, and a struct converts to and from the object's member values in
//! declaration order. A class is generated when its signature recomputes from the schema (then its
//! parents and struct members' classes are generated too); the struct's `SIGNATURE` is that
//! signature, which the file's `__classnames__` must store for the struct to apply. A class whose
//! signature does not recompute only because an enum it names is not in the schema (the source
//! states the member's storage type but not the enum's items) is generated too, with the
//! signature the source states ([`class_signature`]): its layout needs only the storage type,
//! and such a member is its storage integer.
//!
//! Member types follow [`SCALARS`] for the scalar kinds; enums and flags whose enum the schema
//! names are `Enum<E, S>`/`Flags<E, S>` over the storage, others their storage integer; pointers
//! are `Ptr<C>` (`Ptr<Unknown>` when the pointee is not generated), `hkArray` is `Vec`, a simple
//! array `SimpleArray`, a C array `[T; N]`, embedded structs their struct, and what has no value
//! mapping ([`DYNAMIC`]) the document's dynamic `MemberValue`.

use crate::reflection::{signature, snapshot};
use hktypes::packfile::objects::HIDDEN;

use super::emit::{hex, serde_derive, serde_field, serde_helper};
use super::names;
use crate::schema::model::{ClassRecord, ClassSchema, MemberRecord, MemberType};
use crate::error::CodegenInputError;
use crate::error::Error;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Reads the class schema of `sdk` under `dir` (`dir/<sdk>/classes/`).
pub fn read_schema(dir: &Path, sdk: &str) -> Result<ClassSchema, Error> {
    snapshot::read(dir, sdk)
}

/// Whether `dir/<sdk>/classes/` holds a class schema.
pub fn has_schema(dir: &Path, sdk: &str) -> bool {
    snapshot::folder(dir, sdk).join("schema.ron").is_file()
}

/// The signature a struct of `name` takes: the one the schema recomputes or, where that fails
/// only because enums named in its parent chain are not in the schema, the one the source states
/// for it (the layout needs the members' storage types, which the schema has; the enums' items
/// are what is missing). `None`: no struct.
pub fn class_signature(schema: &ClassSchema, name: &str) -> Option<u32> {
    stated_or_recomputed(schema, name, 0)
}

fn stated_or_recomputed(schema: &ClassSchema, name: &str, depth: usize) -> Option<u32> {
    match signature::class_signature(schema, name) {
        Ok(s) => Some(s),
        Err(signature::Missing::Enum(_)) if depth < 64 => {
            let stated = schema.class(name)?.signature.as_ref()?.0;
            let chain = schema.ancestry(name);
            let described = chain.last().is_some_and(|c| c.parent.is_none())
                && chain.iter().flat_map(|c| &c.members).all(|m| {
                    let enum_storage = !matches!(m.ty, MemberType::Enum | MemberType::Flags) || m.subtype != m.ty;
                    let needs_class = m.ty == MemberType::Struct
                        || matches!(m.ty, MemberType::Array | MemberType::SimpleArray | MemberType::RelArray) && m.subtype == MemberType::Struct;
                    enum_storage && (!needs_class || m.class.as_deref().is_some_and(|c| stated_or_recomputed(schema, c, depth + 1).is_some()))
                });
            described.then_some(stated)
        }
        Err(_) => None,
    }
}

/// The signature of `name` as the schema recomputes it, or why it does not.
pub fn signature_of(schema: &ClassSchema, name: &str) -> Result<u32, String> {
    signature::class_signature(schema, name).map_err(|m| m.to_string())
}

/// Where a scalar member type's Rust type lives.
#[derive(Clone, Copy, Debug)]
pub enum Scalar {
    /// A primitive (`i8`, `f32`).
    Prim(&'static str),
    /// A type of `hktypes::value` (`Bool8`, `Vector4`).
    Value(&'static str),
    /// A type of `hktypes::packfile::typed` (`PackString`).
    Typed(&'static str),
}

/// The Rust type of every member kind that maps to one type regardless of the member.
pub const SCALARS: &[(MemberType, Scalar)] = &[
    (MemberType::Void, Scalar::Prim("()")),
    (MemberType::Bool, Scalar::Value("Bool8")),
    (MemberType::Char, Scalar::Prim("i8")),
    (MemberType::Int8, Scalar::Prim("i8")),
    (MemberType::Uint8, Scalar::Prim("u8")),
    (MemberType::Int16, Scalar::Prim("i16")),
    (MemberType::Uint16, Scalar::Prim("u16")),
    (MemberType::Int32, Scalar::Prim("i32")),
    (MemberType::Uint32, Scalar::Prim("u32")),
    (MemberType::Int64, Scalar::Prim("i64")),
    (MemberType::Uint64, Scalar::Prim("u64")),
    (MemberType::Ulong, Scalar::Prim("u64")),
    (MemberType::Real, Scalar::Prim("f32")),
    (MemberType::Half, Scalar::Value("Half16")),
    (MemberType::Vector4, Scalar::Value("Vector4")),
    (MemberType::Quaternion, Scalar::Value("Quaternion")),
    (MemberType::Matrix3, Scalar::Value("Matrix3")),
    (MemberType::Rotation, Scalar::Value("Rotation")),
    (MemberType::QsTransform, Scalar::Value("QsTransform")),
    (MemberType::Matrix4, Scalar::Value("Matrix4")),
    (MemberType::Transform, Scalar::Value("Transform")),
    (MemberType::CString, Scalar::Typed("PackString")),
    (MemberType::StringPtr, Scalar::Typed("PackString")),
];

/// Member kinds the document reads no value of its own for: they are the dynamic `MemberValue`
/// (`TYPE_INPLACEARRAY` has no size from its description, so a class holding one is never laid
/// out; a homogeneous array's elements are of a class only the file's `__types__` names).
pub const DYNAMIC: &[MemberType] = &[MemberType::InplaceArray, MemberType::HomogeneousArray];

/// The field of a class with hidden members that holds the bytes no member describes (the
/// runtime's `hktypes::packfile::objects::HIDDEN` value, after the class's own members).
pub const HIDDEN_FIELD: &str = "hidden_bytes";

/// Names no generated type may take.
const RESERVED: &[&str] = &["Ok", "Some", "None", "Option", "Self", "Vec", "CLASSES", "SDK"];

/// The mapping of one class schema (also the model of the packfile SDKs' Python stubs,
/// [`super::stubs::render_packfile`]).
pub(super) struct Model<'s> {
    pub(super) schema: &'s ClassSchema,
    /// Classes generated, with their signatures.
    pub(super) classes: BTreeMap<&'s str, u32>,
    /// Enums that get a marker type.
    pub(super) enums: BTreeSet<&'s str>,
    /// Rust identifiers of classes and enums.
    pub(super) names: BTreeMap<String, String>,
    krate: TokenStream,
}

impl<'s> Model<'s> {
    pub(super) fn new(schema: &'s ClassSchema, krate: TokenStream) -> Self {
        let classes: BTreeMap<&str, u32> =
            schema.classes.values().filter_map(|c| Some((c.name.as_str(), class_signature(schema, &c.name)?))).collect();
        let enums: BTreeSet<&str> = classes
            .keys()
            .filter_map(|n| schema.classes.get(*n))
            .flat_map(|c| c.members.iter())
            .filter(|m| matches!(m.ty, MemberType::Enum | MemberType::Flags))
            .filter_map(|m| m.enumeration.as_deref())
            .filter(|e| schema.enums.contains_key(*e))
            .collect();
        let keys: Vec<(&str, u32)> = classes
            .iter()
            .map(|(n, s)| (*n, *s))
            .chain(enums.iter().map(|e| (*e, schema.enums.get(*e).map_or(0, signature::enum_signature))))
            .collect();
        let names = names::assign(&keys, RESERVED);
        Model { schema, classes, enums, names, krate }
    }

    fn ident(&self, key: &str) -> Result<proc_macro2::Ident, Error> {
        self.names.get(key).map(|s| names::ident(s)).ok_or_else(|| Error::Codegen(CodegenInputError::of(key, "no Rust name")))
    }

    fn value_path(&self) -> TokenStream {
        let k = &self.krate;
        quote!(#k::value)
    }

    fn typed(&self) -> TokenStream {
        let k = &self.krate;
        quote!(#k::packfile::typed)
    }

    fn dynamic(&self) -> TokenStream {
        let k = &self.krate;
        quote!(#k::packfile::objects::MemberValue)
    }

    fn scalar(&self, t: MemberType) -> Option<TokenStream> {
        let rt = self.value_path();
        SCALARS.iter().find(|(k, _)| *k == t).map(|(_, s)| match s {
            Scalar::Prim(p) => p.parse().unwrap_or_else(|_| quote!(())),
            Scalar::Value(v) => {
                let v = format_ident!("{v}");
                quote!(#rt::#v)
            }
            Scalar::Typed(v) => {
                let typed = self.typed();
                let v = format_ident!("{v}");
                quote!(#typed::#v)
            }
        })
    }

    fn pointer(&self, class: Option<&str>) -> TokenStream {
        let rt = self.value_path();
        match class.filter(|c| self.classes.contains_key(c)).and_then(|c| self.ident(c).ok()) {
            Some(id) => quote!(#rt::Ptr<#id>),
            None => quote!(#rt::Ptr<#rt::Unknown>),
        }
    }

    /// The Rust type of one value of kind `ty` of member `m` (an array's element when `ty` is its
    /// subtype).
    fn one(&self, m: &MemberRecord, ty: MemberType, elem: bool) -> TokenStream {
        let (rt, typed, dynamic) = (self.value_path(), self.typed(), self.dynamic());
        if DYNAMIC.contains(&ty) {
            return dynamic;
        }
        if let Some(s) = self.scalar(ty) {
            return s;
        }
        match ty {
            MemberType::Enum | MemberType::Flags | MemberType::Zero if !elem => {
                let Some(storage) = (m.subtype != ty).then(|| self.scalar(m.subtype)).flatten() else { return dynamic };
                let marker = m.enumeration.as_deref().filter(|e| ty != MemberType::Zero && self.enums.contains(e));
                match marker.and_then(|e| self.ident(e).ok()) {
                    Some(e) if ty == MemberType::Enum => quote!(#rt::Enum<#e, #storage>),
                    Some(e) => quote!(#rt::Flags<#e, #storage>),
                    None => storage,
                }
            }
            MemberType::Pointer => self.pointer(if elem || m.subtype == MemberType::Struct { m.class.as_deref() } else { None }),
            MemberType::FunctionPointer => self.pointer(None),
            MemberType::Variant => quote!(#typed::Variant),
            MemberType::Struct => match m.class.as_deref().filter(|c| self.classes.contains_key(c)).map(|c| self.ident(c)) {
                Some(Ok(id)) => quote!(#id),
                _ => dynamic,
            },
            MemberType::Array | MemberType::SimpleArray | MemberType::RelArray if !elem => {
                let e = self.one(m, m.subtype, true);
                match ty {
                    MemberType::Array => quote!(::std::vec::Vec<#e>),
                    MemberType::SimpleArray => quote!(#typed::SimpleArray<#e>),
                    _ => quote!(#typed::PackRelArray<#e>),
                }
            }
            _ => dynamic,
        }
    }

    fn member_type(&self, m: &MemberRecord) -> TokenStream {
        let t = self.one(m, m.ty, false);
        if m.c_array_size > 0 {
            let n = Literal::usize_unsuffixed(usize::from(m.c_array_size));
            quote!([#t; #n])
        } else {
            t
        }
    }

    /// Whether the schema's layout override says the reflection of `class` does not describe
    /// every byte: its struct then keeps those bytes ([`HIDDEN_FIELD`]).
    fn hidden(&self, class: &str) -> bool {
        self.schema.overrides.get(class).is_some_and(|o| o.hidden_members)
    }

    /// The class and its parents, the root first.
    fn chain(&self, c: &'s ClassRecord) -> Vec<&'s ClassRecord> {
        let mut v = self.schema.ancestry(&c.name);
        v.reverse();
        v
    }
}

fn docs(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| if l.is_empty() { String::new() } else { format!(" {l}") });
    quote!(#(#[doc = #lines])*)
}

fn enumeration(m: &Model<'_>, key: &str) -> Result<TokenStream, Error> {
    let id = m.ident(key)?;
    let e = m.schema.enums.get(key).ok_or_else(|| Error::Codegen(CodegenInputError::of(key, "enum is not in the schema")))?;
    let items: Vec<(&str, i64)> = e.items.iter().map(|(v, n)| (n.as_str(), *v)).collect();
    Ok(super::emit::enumeration_type(&m.value_path(), &id, key, &items, "from the class schema"))
}

fn type_doc(m: &MemberRecord) -> String {
    let mut d = format!("`{}`: {}", m.name, m.ty.sdk_name());
    if m.subtype != MemberType::Void {
        d.push_str(&format!(" of {}", m.subtype.sdk_name()));
    }
    if let Some(c) = &m.class {
        d.push_str(&format!(" `{c}`"));
    }
    if let Some(e) = &m.enumeration {
        d.push_str(&format!(", enum `{e}`"));
    }
    if m.c_array_size > 0 {
        d.push_str(&format!(", C array of {}", m.c_array_size));
    }
    if m.flags != 0 {
        d.push_str(&format!(", flags {:#x}", m.flags));
    }
    d.push('.');
    d
}

fn class(m: &Model<'_>, c: &ClassRecord, signature: u32) -> Result<TokenStream, Error> {
    let (typed, dynamic, rt) = (m.typed(), m.dynamic(), m.value_path());
    let id = m.ident(&c.name)?;
    let name = c.name.as_str();
    let chain = m.chain(c);
    let all: Vec<&str> = chain
        .iter()
        .flat_map(|k| k.members.iter().map(|x| x.name.as_str()).chain(m.hidden(&k.name).then_some(HIDDEN)))
        .collect();
    let hidden = m.hidden(name);
    let own = c.members.len() + usize::from(hidden);
    let inherited = all.len() - own;
    let parent = match c.parent.as_deref() {
        Some(p) => Some((p, m.ident(p)?)),
        None => None,
    };
    let reserved: &[&str] = match (parent.is_some(), hidden) {
        (true, true) => &["base", HIDDEN_FIELD],
        (true, false) => &["base"],
        (false, true) => &[HIDDEN_FIELD],
        (false, false) => &[],
    };
    let rust = names::field_names(c.members.iter().map(|x| x.name.as_str()), reserved);
    let idents: Vec<proc_macro2::Ident> = rust.iter().map(|r| names::ident(r)).collect();

    let mut doc = format!("Havok class `{name}`, signature {signature:#010x}");
    if c.version != 0 {
        doc.push_str(&format!(", version {}", c.version));
    }
    doc.push_str(&format!(": {} members of its own", c.members.len()));
    if hidden {
        doc.push_str(&format!(" and the bytes its reflection does not describe (`{HIDDEN_FIELD}`)"));
    }
    if let Some((p, _)) = &parent {
        doc.push_str(&format!(", {inherited} inherited from `{p}` (held in `base`, reached through `Deref`)"));
    }
    doc.push('.');
    let doc = docs(&doc);

    let base_def = parent.as_ref().map(|(p, pid)| {
        let d = docs(&format!("The `{p}` part of the object."));
        quote!(#d pub base: #pid,)
    });
    let field_defs = c.members.iter().zip(&idents).zip(&rust).map(|((x, i), r)| {
        let d = docs(&type_doc(x));
        let t = m.member_type(x);
        let with = if DYNAMIC.contains(&x.ty) {
            Some(serde_helper(&rt, "unsupported"))
        } else {
            (x.c_array_size > 0).then(|| serde_helper(&rt, "array"))
        };
        let s = serde_field(&x.name, r, with);
        quote!(#d #s pub #i: #t)
    });
    let serde = serde_derive();
    let base_read = parent.as_ref().map(|(_, pid)| {
        let n = Literal::usize_unsuffixed(inherited);
        quote!(base: <#pid as #typed::PackClass>::from_values(&values[..#n])?,)
    });
    let hidden_id = format_ident!("{HIDDEN_FIELD}");
    let hidden_def = hidden.then(|| {
        let d = docs("The bytes of this class's part of the object that its reflection does not describe, in offset order (the schema's layout override marks the class `hidden_members`); written back as they are.");
        quote!(#d pub #hidden_id: #typed::PackOpaque,)
    });
    let hidden_read = hidden.then(|| {
        let at = Literal::usize_unsuffixed(inherited + c.members.len());
        quote!(#hidden_id: #typed::member(values, #at, #typed::HIDDEN)?,)
    });
    let hidden_write = hidden.then(|| quote!(out.push(#typed::PackValue::to_value(&self.#hidden_id));));
    let reads = c.members.iter().zip(&idents).enumerate().map(|(k, (x, i))| {
        let (at, n) = (Literal::usize_unsuffixed(inherited + k), &x.name);
        quote!(#i: #typed::member(values, #at, #n)?)
    });
    let base_write = parent.as_ref().map(|(_, pid)| quote!(<#pid as #typed::PackClass>::to_values(&self.base, out);));
    let writes = idents.iter().map(|i| quote!(out.push(#typed::PackValue::to_value(&self.#i));));
    let version = Literal::u32_unsuffixed(c.version);
    let parent_name = match &parent {
        Some((p, _)) => quote!(Some(#p)),
        None => quote!(None),
    };
    let sig = hex(signature);
    let deref = parent.as_ref().map(|(_, pid)| super::emit::deref_to_base(&id, pid));
    // A class with no members at all uses neither, unless a (memberless) parent is read through
    // them (hknpShapeKeyMask under hkBaseObject).
    let (values, out) = if all.is_empty() && parent.is_none() { (quote!(_values), quote!(_out)) } else { (quote!(values), quote!(out)) };
    Ok(quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        #serde
        pub struct #id {
            #base_def
            #(#field_defs,)*
            #hidden_def
        }
        impl #typed::PackValue for #id {
            fn from_value(v: &#dynamic) -> #rt::Result<Self> {
                #typed::struct_values(v)
            }
            fn to_value(&self) -> #dynamic {
                #typed::to_struct(self)
            }
        }
        impl #typed::PackClass for #id {
            const NAME: &'static str = #name;
            const SIGNATURE: u32 = #sig;
            const VERSION: u32 = #version;
            const PARENT: Option<&'static str> = #parent_name;
            const MEMBERS: &'static [&'static str] = &[#(#all),*];
            fn from_values(#values: &[#dynamic]) -> #rt::Result<Self> {
                #typed::check_count::<Self>(#values)?;
                Ok(Self { #base_read #(#reads,)* #hidden_read })
            }
            fn to_values(&self, #out: &mut ::std::vec::Vec<#dynamic>) {
                #base_write
                #(#writes)*
                #hidden_write
            }
        }
        impl #rt::Typed for #id {
            const ENTRY: #rt::ClassEntry = #rt::ClassEntry::packfile::<Self>();
            fn into_object(self) -> ::core::result::Result<::std::boxed::Box<dyn #rt::Object>, Self> {
                Err(self)
            }
        }
        #deref
    })
}

/// The items of one packfile SDK module: enum markers, class structs, `SDK` and `CLASSES`.
pub fn items(schema: &ClassSchema, krate: &TokenStream) -> Result<Vec<TokenStream>, Error> {
    let m = Model::new(schema, krate.clone());
    let mut out = Vec::new();
    for e in &m.enums {
        out.push(enumeration(&m, e)?);
    }
    for (name, sig) in &m.classes {
        let c = schema.classes.get(*name).ok_or_else(|| Error::Codegen(CodegenInputError::of(*name, "class vanished")))?;
        out.push(class(&m, c, *sig)?);
    }
    let rt = m.value_path();
    let ids = m.classes.keys().map(|n| m.ident(n)).collect::<Result<Vec<_>, _>>()?;
    let sdk = &schema.sdk;
    let sdk_doc = docs(&format!("The SDK version of these classes (`{sdk}`)."));
    out.push(quote! {
        #sdk_doc
        pub const SDK: &str = #sdk;
        /// Every class of the module, sorted by Havok name (for `ClassEntry::find` and
        /// `Document::through_structs`).
        pub static CLASSES: &[#rt::ClassEntry] = &[#(#rt::ClassEntry::of::<#ids>()),*];
    });
    out.push(schema_data(schema, krate));
    Ok(out)
}

/// `SCHEMA`: every class of `schema` (with a struct or not), its signature where the schema
/// recomputes one, its layout overrides, and every enum, as the static data of a
/// `hktypes::packfile::layout::StaticClassSet` (the same facts as
/// [`class_set`](crate::reflection::layout::class_set) gives at run time): one struct literal per
/// class and member, no code.
pub fn schema_data(schema: &ClassSchema, krate: &TokenStream) -> TokenStream {
    let set = crate::reflection::layout::class_set(schema);
    let opt = |s: &Option<String>| match s {
        Some(s) => quote!(Some(#s)),
        None => quote!(None),
    };
    let classes = set.classes.iter().collect::<BTreeMap<_, _>>().into_values().map(|c| {
        let name = &c.name;
        let parent = opt(&c.parent);
        let interfaces = c.interfaces;
        let hidden = c.hidden_members;
        let members = c.members.iter().map(|m| {
            let (n, ty, sub) = (&m.name, format_ident!("{}", format!("{:?}", m.ty)), format_ident!("{}", format!("{:?}", m.subtype)));
            let (class, cs, flags, en) = (opt(&m.class), m.c_array_size, m.flags, opt(&m.enumeration));
            quote!(M { name: #n, ty: T::#ty, subtype: T::#sub, class: #class, c_array_size: #cs, flags: #flags, enumeration: #en })
        });
        let fixed = c.fixed.iter().map(|(r, f)| {
            let (p, l, u, e) = (r.pointer_size, r.little_endian, r.reuse_padding, r.empty_base);
            let (size, align, offsets) = (f.size, f.align, &f.offsets);
            quote!(F { rules: R { pointer_size: #p, little_endian: #l, reuse_padding: #u, empty_base: #e }, size: #size, align: #align, offsets: &[#(#offsets),*] })
        });
        let sig = match set.signatures.get(name) {
            Some(&s) => {
                let s = hex(s);
                quote!(Some(#s))
            }
            None => quote!(None),
        };
        quote!(C { name: #name, parent: #parent, interfaces: #interfaces, members: &[#(#members),*], hidden_members: #hidden, fixed: &[#(#fixed),*], signature: #sig })
    });
    let enums = set.enums.iter().collect::<BTreeMap<_, _>>().into_iter().map(|(key, items)| {
        let items = items.iter().map(|(v, n)| {
            let v = Literal::i64_unsuffixed(*v);
            quote!((#v, #n))
        });
        quote!(E { name: #key, items: &[#(#items),*] })
    });
    let sdk = &schema.sdk;
    let doc = docs(&format!(
        "The hkClass descriptions of SDK {sdk}: every class of the schema snapshot with the signature it recomputes, \
         and every enum. A `ClassSource` for `Document::from_file_with`; see [`packfile_sources_for_sdk`](crate::packfile_sources_for_sdk)."
    ));
    quote! {
        // Not every SDK has fixed layouts (F, R).
        #[allow(unused_imports)]
        mod schema_data {
            use #krate::packfile::layout::{MemberType as T, StaticClass as C, StaticClassSet, StaticEnum as E, StaticFixedLayout as F, StaticMember as M};
            use #krate::packfile::LayoutRules as R;
            pub static SCHEMA: StaticClassSet = StaticClassSet { sdk: #sdk, classes: &[#(#classes),*], enums: &[#(#enums),*] };
        }
        #doc
        pub use schema_data::SCHEMA;
    }
}

/// How many classes of `schema` get a struct ([`class_signature`]), and how many do not.
pub fn coverage(schema: &ClassSchema) -> (usize, usize) {
    let n = schema.classes.keys().filter(|c| class_signature(schema, c).is_some()).count();
    (n, schema.classes.len() - n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::model::EnumRecord;

    fn member(name: &str, ty: MemberType, subtype: MemberType, class: Option<&str>) -> MemberRecord {
        MemberRecord { name: name.into(), ty, subtype, class: class.map(Into::into), enumeration: None, c_array_size: 0, flags: 0 }
    }

    fn record(name: &str, parent: Option<&str>, members: Vec<MemberRecord>) -> ClassRecord {
        ClassRecord { name: name.into(), parent: parent.map(Into::into), version: 0, flags: 0, interfaces: 0, enums: vec![], members, signature: None }
    }

    #[test]
    fn structs_hold_no_offsets_and_skip_classes_without_signature() {
        let mut kind = member("kind", MemberType::Enum, MemberType::Uint8, None);
        kind.enumeration = Some("Base::Kind".into());
        let mut pair = member("pair", MemberType::Real, MemberType::Void, None);
        pair.c_array_size = 2;
        let classes = [
            record("Base", None, vec![kind]),
            record(
                "Derived",
                Some("Base"),
                vec![
                    member("name", MemberType::StringPtr, MemberType::Void, None),
                    member("items", MemberType::Array, MemberType::Struct, Some("Base")),
                    member("next", MemberType::Pointer, MemberType::Struct, Some("Derived")),
                    member("other", MemberType::Pointer, MemberType::Struct, Some("Broken")),
                    pair,
                ],
            ),
            // Holds a class the schema lacks: no signature, no struct.
            record("Broken", None, vec![member("m", MemberType::Struct, MemberType::Void, Some("Missing"))]),
        ];
        let enums = [(
            "Base::Kind".to_owned(),
            EnumRecord { name: "Kind".into(), items: vec![(0, "A".into()), (1, "B".into())], flags: 0, signature_items: None, items_unknown: false },
        )];
        let schema = ClassSchema {
            sdk: "2014.2".into(),
            classes: classes.into_iter().map(|c| (c.name.clone(), c)).collect(),
            enums: enums.into_iter().collect(),
            ..Default::default()
        };
        assert_eq!(coverage(&schema), (2, 1));
        let code = super::super::Config::new().formatted(false).render_packfile(&schema).unwrap();
        let sig = signature_of(&schema, "Derived").unwrap();
        assert!(code.contains(&format!("const SIGNATURE : u32 = {sig:#010x}")), "{code}");
        assert!(code.contains("pub struct Derived { # [doc = \" The `Base` part of the object.\"] pub base : Base"), "{code}");
        assert!(code.contains("pub kind : :: hktypes :: value :: Enum < Base_Kind , u8 >"), "{code}");
        assert!(code.contains("pub items : :: std :: vec :: Vec < Base >"), "{code}");
        assert!(code.contains("pub next : :: hktypes :: value :: Ptr < Derived >"), "{code}");
        assert!(code.contains("pub other : :: hktypes :: value :: Ptr < :: hktypes :: value :: Unknown >"), "{code}");
        assert!(code.contains("pub pair : [f32 ; 2]"), "{code}");
        assert!(code.contains("const MEMBERS : & 'static [& 'static str] = & [\"kind\" , \"name\" , \"items\" , \"next\" , \"other\" , \"pair\"]"), "{code}");
        assert!(!code.contains("pub struct Broken"));
        assert!(!code.contains("offset"), "no offsets in packfile structs");
    }

    /// A class whose enum the source does not describe gets a struct with the signature the
    /// source states and the member as its storage integer; one whose parent is missing, or
    /// whose enum member states no storage, gets none.
    #[test]
    fn a_missing_enum_takes_the_stated_signature() {
        use crate::schema::model::Hex;
        let mut mode = member("mode", MemberType::Flags, MemberType::Uint8, None);
        mode.enumeration = Some("UserEdgeFlagBits".into());
        let mut bare = member("bare", MemberType::Enum, MemberType::Enum, None);
        bare.enumeration = Some("UserEdgeFlagBits".into());
        let mut input = record("Input", None, vec![mode.clone(), member("up", MemberType::Vector4, MemberType::Void, None)]);
        input.signature = Some(Hex(0x399a366c));
        let mut derived = record("Derived", Some("Input"), vec![]);
        derived.signature = Some(Hex(0x1234));
        let mut unstated = record("Unstated", None, vec![mode.clone()]);
        unstated.signature = None;
        let mut orphan = record("Orphan", Some("MissingParent"), vec![mode]);
        orphan.signature = Some(Hex(0x5678));
        let mut no_storage = record("NoStorage", None, vec![bare]);
        no_storage.signature = Some(Hex(0x9abc));
        let schema = ClassSchema {
            sdk: "2014.1".into(),
            classes: [input, derived, unstated, orphan, no_storage].into_iter().map(|c| (c.name.clone(), c)).collect(),
            ..Default::default()
        };
        assert_eq!(class_signature(&schema, "Input"), Some(0x399a366c));
        assert_eq!(class_signature(&schema, "Derived"), Some(0x1234));
        assert_eq!((class_signature(&schema, "Unstated"), class_signature(&schema, "Orphan"), class_signature(&schema, "NoStorage")), (None, None, None));
        assert_eq!(coverage(&schema), (2, 3));
        let code = super::super::Config::new().formatted(false).render_packfile(&schema).unwrap();
        assert!(code.contains("const SIGNATURE : u32 = 0x399a366c"), "{code}");
        assert!(code.contains("pub mode : u8"), "{code}");
    }

    #[test]
    fn relative_arrays_are_typed_and_hidden_bytes_are_a_field() {
        use crate::schema::model::LayoutOverride;
        let classes = [
            record("Shape", None, vec![member("verts", MemberType::RelArray, MemberType::Vector4, None)]),
            record("Mesh", Some("Shape"), vec![member("stride", MemberType::Int32, MemberType::Void, None)]),
        ];
        let hidden = LayoutOverride { reason: "hidden members".into(), hidden_members: true, fixed: Default::default() };
        let schema = ClassSchema {
            sdk: "2014.1".into(),
            classes: classes.into_iter().map(|c| (c.name.clone(), c)).collect(),
            overrides: [("Mesh".to_owned(), hidden)].into_iter().collect(),
            ..Default::default()
        };
        let code = super::super::Config::new().formatted(false).render_packfile(&schema).unwrap();
        assert!(code.contains("pub verts : :: hktypes :: packfile :: typed :: PackRelArray < :: hktypes :: value :: Vector4 >"), "{code}");
        assert!(code.contains("pub hidden_bytes : :: hktypes :: packfile :: typed :: PackOpaque"), "{code}");
        assert!(code.contains("const MEMBERS : & 'static [& 'static str] = & [\"verts\" , \"stride\" , \"(hidden bytes)\"]"), "{code}");
        assert!(code.contains("hidden_bytes : :: hktypes :: packfile :: typed :: member (values , 2 , :: hktypes :: packfile :: typed :: HIDDEN) ?"), "{code}");
        let shape = &code[code.find("pub struct Shape").unwrap()..];
        assert!(!shape[..shape.find('}').unwrap()].contains("hidden_bytes"), "Shape hides nothing: {code}");
    }
}
