//! Token streams for the items of one SDK module: a marker type per enumeration, a type alias per
//! typedef, and per class a struct with its `Value`, `Class` and `Object` implementations.
//!
//! Inheritance is composition: a derived class's first member is `base: Parent` (offset 0, the
//! parent's size), and the struct dereferences to it, so `body.base_field` and `&derived.base`
//! work without copying inherited fields into every class.

use super::names;
use super::types::Model;
use crate::schema::model::Type;
use crate::error::CodegenInputError;
use crate::error::Error;
use hktypes::reflect::SizeAlign;
use proc_macro2::TokenStream;
use proc_macro2::Literal;
use quote::quote;

/// Doc attributes, one per line, each line led by a space as `///` would write it.
fn docs(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| if l.is_empty() { String::new() } else { format!(" {}", l.trim_start()) });
    quote!(#(#[doc = #lines])*)
}

/// `Deref` and `DerefMut` of a generated class to its parent, held in its `base` field (tagfile
/// and packfile classes alike).
pub(super) fn deref_to_base(id: &impl quote::ToTokens, parent: &impl quote::ToTokens) -> TokenStream {
    quote! {
        impl ::core::ops::Deref for #id {
            type Target = #parent;
            #[inline]
            fn deref(&self) -> &#parent {
                &self.base
            }
        }
        impl ::core::ops::DerefMut for #id {
            #[inline]
            fn deref_mut(&mut self) -> &mut #parent {
                &mut self.base
            }
        }
    }
}

fn lit(n: usize) -> Literal {
    Literal::usize_unsuffixed(n)
}

/// `Serialize` and `Deserialize` derived under the generated crate's `serde` feature.
pub(super) fn serde_derive() -> TokenStream {
    quote!(#[cfg_attr(feature = "serde", derive(::serde::Serialize, ::serde::Deserialize))])
}

/// A field's serde attributes: Havok's member name where the Rust name differs, and `with` a
/// helper of the runtime's `serde_support` (C arrays, which serde's derive takes only up to 32
/// elements; members with no serde form).
pub(super) fn serde_field(havok: &str, rust: &str, with: Option<String>) -> TokenStream {
    let rename = (havok != rust).then(|| quote!(#[cfg_attr(feature = "serde", serde(rename = #havok))]));
    let with = with.map(|w| quote!(#[cfg_attr(feature = "serde", serde(with = #w))]));
    quote!(#rename #with)
}

/// The path of `hktypes::serde_support::<name>` as a string, from the runtime's `value` module
/// path `rt` (`::hktypes::value`).
pub(super) fn serde_helper(rt: &TokenStream, name: &str) -> String {
    let rt = rt.to_string().replace(' ', "");
    let krate = rt.strip_suffix("::value").unwrap_or(&rt);
    format!("{krate}::serde_support::{name}")
}

pub(super) fn hex(n: u32) -> TokenStream {
    // A hex literal reads like the schema's hashes and flags.
    let l: Literal = format!("{n:#010x}").parse().unwrap_or_else(|_| Literal::u32_unsuffixed(n));
    quote!(#l)
}

pub fn enumeration(m: &Model<'_>, key: &str, items: &[(String, i64)]) -> Result<TokenStream, Error> {
    let id = m.ident(key).ok_or_else(|| CodegenInputError::of(key, "enumeration without a name"))?;
    let items: Vec<(&str, i64)> = items.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    Ok(enumeration_type(m.rt(), &id, key, &items, "from the overlay `enums.ron`"))
}

/// The marker type of Havok enumeration `key` (tagfile and packfile classes alike): its
/// `Enumeration` impl with the items, as (name, value), and a constant for each item that makes a
/// Rust name. `source` says where the item names come from, for the documentation.
pub(super) fn enumeration_type(rt: &TokenStream, id: &impl quote::ToTokens, key: &str, items: &[(&str, i64)], source: &str) -> TokenStream {
    let mut doc = format!(
        "Havok enumeration `{key}`: the `E` of `Enum<E, S>` and `Flags<E, S>`, which keep the stored integer."
    );
    if items.is_empty() {
        doc.push_str("\n\nNo item names are known.");
    } else {
        doc.push_str(&format!("\n\nKnown items ({source}), each also a constant of this type:"));
        for (n, v) in items {
            doc.push_str(&format!("\n- `{n}` = {v}"));
        }
    }
    let names = items.iter().map(|(n, _)| n);
    let values = items.iter().map(|(_, v)| Literal::i64_unsuffixed(*v));
    let consts: Vec<TokenStream> = names::item_consts(items.iter().map(|(n, _)| *n))
        .into_iter()
        .zip(items)
        .filter_map(|(c, (n, v))| {
            let c = c?;
            let v = Literal::i64_unsuffixed(*v);
            Some(quote!(pub const #c: #rt::Item<Self> = #rt::Item::new(#n, #v);))
        })
        .collect();
    let inherent = (!consts.is_empty()).then(|| {
        quote! {
            impl #id {
                #(#consts)*
            }
        }
    });
    let doc = docs(&doc);
    quote! {
        #doc
        pub enum #id {}
        impl #rt::Enumeration for #id {
            const NAME: &'static str = #key;
            const ITEMS: &'static [(&'static str, i64)] = &[#((#names, #values)),*];
        }
        #inherent
    }
}

pub fn alias(m: &Model<'_>, t: &Type) -> Result<TokenStream, Error> {
    let id = m.ident(&t.key).ok_or_else(|| CodegenInputError::of(t.key.as_str(), "typedef without a name"))?;
    let target = m.rust_type(&t.key)?;
    let doc = format!(" Havok typedef `{}` of `{}`.", t.key, t.parent.as_deref().unwrap_or_default());
    let doc = docs(&doc);
    Ok(quote! {
        #doc
        pub type #id = #target;
    })
}

struct Member {
    havok: String,
    /// The enumeration the overlay gives the member.
    overlay: Option<String>,
    ident: proc_macro2::Ident,
    rust: String,
    ty: TokenStream,
    offset: usize,
    flags: u32,
    ty_key: String,
    refs: bool,
}

pub fn class(m: &Model<'_>, t: &Type) -> Result<TokenStream, Error> {
    let rt = m.rt();
    let key = t.key.as_str();
    let id = m.ident(key).ok_or_else(|| CodegenInputError::of(key, "class without a name"))?;
    let size = t.size.ok_or_else(|| CodegenInputError::of(key, "class without a size"))? as usize;
    let align = SizeAlign { size: size as u32, align: t.align.unwrap_or(1) }.alignment().max(1) as usize;
    let parent = match t.parent.as_deref() {
        Some(p) => Some((p, m.rust_type(p)?, m.has_refs(p))),
        None => None,
    };

    let mut fields: Vec<&crate::schema::model::Field> = t.fields.iter().flatten().collect();
    fields.sort_by_key(|f| f.offset);
    let reserved: &[&str] = if parent.is_some() { &["base"] } else { &[] };
    let rust_names = names::field_names(fields.iter().map(|f| f.name.as_str()), reserved);
    let mut members = Vec::new();
    for (f, rust) in fields.iter().zip(rust_names) {
        let ty = m.member_type(t, &f.name, &f.ty).map_err(|e| e.in_context(f.name.as_str()).in_context(key))?;
        members.push(Member {
            havok: f.name.clone(),
            overlay: m.member_enums.get(&(t.full_name(), f.name.as_str())).map(|e| e.to_string()),
            ident: names::ident(&rust),
            rust,
            ty,
            offset: f.offset as usize,
            flags: f.flags.0,
            ty_key: f.ty.clone(),
            refs: m.has_refs(&f.ty),
        });
    }

    let mut doc = format!(" Havok class `{key}`");
    if t.full_name() != key {
        doc.push_str(" (one of its layouts)");
    }
    doc.push_str(&format!(": {size} bytes, alignment {align}"));
    if let Some(v) = t.version {
        doc.push_str(&format!(", version {v}"));
    }
    doc.push_str(&format!(", hash {}", t.computed));
    if let Some(h) = t.hash.filter(|h| *h != t.computed) {
        doc.push_str(&format!(" (stored {h})"));
    }
    doc.push('.');
    if let Some((p, _, _)) = &parent {
        doc.push_str(&format!("\n\nDerives from `{p}`, held in `base` and reached through `Deref`."));
    }

    let field_defs = members.iter().map(|x| {
        let size = m.size_of(&x.ty_key).unwrap_or(0);
        let mut d = format!("`{}`: offset {}, {} bytes, `{}`, flags {:#04x}.", x.havok, x.offset, size, x.ty_key, x.flags);
        if let Some(e) = &x.overlay {
            d.push_str(&format!(" Enumeration `{e}` by the overlay `enums.ron`."));
        }
        let (i, ty) = (&x.ident, &x.ty);
        let d = docs(&d);
        let array = ty.to_string().starts_with('[').then(|| serde_helper(rt, "array"));
        let s = serde_field(&x.havok, &x.rust, array);
        quote!(#d #s pub #i: #ty)
    });
    let base_def = parent.as_ref().map(|(p, ty, _)| {
        let d = format!(" The `{p}` part of the object.");
        let d = docs(&d);
        quote!(#d pub base: #ty,)
    });

    // Members through FieldReader/FieldWriter, which keep the first error: no `?` per member.
    // Each member is read through a pointer to its place in the object being built.
    let reads = members.iter().map(|x| {
        let (i, o, n) = (&x.ident, lit(x.offset), &x.havok);
        quote!(f.get_into(#o, #n, &raw mut (*p).#i);)
    });
    let writes = members.iter().map(|x| {
        let (i, o, n) = (&x.ident, lit(x.offset), &x.havok);
        quote!(f.put(#o, #n, &self.#i);)
    });
    let base_read = parent.as_ref().map(|_| quote!(f.base_into(&raw mut (*p).base);));
    let base_write = parent.as_ref().map(|_| quote!(f.base(&self.base);));
    let visits: Vec<TokenStream> = parent
        .iter()
        .filter(|(_, _, refs)| *refs)
        .map(|_| quote!(#rt::Value::visit_refs(&self.base, at, v);))
        .chain(members.iter().filter(|x| x.refs).map(|x| {
            let i = &x.ident;
            let at = match x.offset {
                0 => quote!(at),
                o => {
                    let o = lit(o);
                    quote!(at + #o)
                }
            };
            quote!(#rt::Value::visit_refs(&self.#i, #at, v);)
        }))
        .collect();
    let visit_fn = (!visits.is_empty()).then(|| {
        quote! {
            const HAS_REFS: bool = true;
            fn visit_refs(&self, at: usize, v: &mut dyn #rt::Visitor) {
                #(#visits)*
            }
        }
    });

    let infos = members.iter().map(|x| {
        let (n, r, o, fl, tk, ty) = (&x.havok, &x.rust, lit(x.offset), hex(x.flags), &x.ty_key, &x.ty);
        quote! {
            #rt::FieldInfo {
                name: #n,
                rust_name: #r,
                offset: #o,
                size: <#ty as #rt::Value>::SIZE as u32,
                flags: #fl,
                ty: #tk,
            }
        }
    });
    let opt = |v: Option<TokenStream>| match v {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    };
    let version = opt(t.version.map(|v| {
        let l = Literal::u32_unsuffixed(v);
        quote!(#l)
    }));
    let hash = hex(t.computed.0);
    let stored = opt(t.hash.map(|h| hex(h.0)));
    let flags = opt(t.flags.map(|h| hex(h.0)));
    let parent_name = match &parent {
        Some((p, _, _)) => quote!(Some(#p)),
        None => quote!(None),
    };
    let parent_object = if parent.as_ref().is_some_and(|(p, _, _)| m.is_struct(p)) {
        quote!(Some(&self.base))
    } else {
        quote!(None)
    };
    let deref = parent.as_ref().map(|(_, ty, _)| deref_to_base(&id, ty));

    let (size_l, align_l) = (lit(size), lit(align));
    let empty = members.is_empty() && parent.is_none();
    let (r, w) = if empty { (quote!(_r), quote!(_w)) } else { (quote!(r), quote!(w)) };
    let (read_body, write_body) = if empty {
        (quote!(Ok(Self {})), quote!(Ok(())))
    } else {
        (
            quote! {
                let mut f = r.fields();
                let v = <Self as #rt::Value>::read_members(&mut f);
                f.finish(v)
            },
            quote! {
                let mut f = w.fields();
                #base_write
                #(#writes)*
                f.finish()
            },
        )
    };
    // Members (and the base) are read in place through the one field reader of the object: the
    // base and every member, as declared above, each written once.
    // `read_members` and `read` are `#[inline]`: a class's own copy is compiled only where it is
    // used (objects are read through `read_members_into`), and the pointer casts below stand for
    // `MaybeUninit::as_mut_ptr`/`assume_init_mut`, each of which would be one more function per
    // class in a debug build.
    let read_members = (!empty).then(|| {
        quote! {
            #[inline]
            fn read_members(f: &mut #rt::FieldReader<'_, '_>) -> Self {
                f.take()
            }
            fn read_members_into<'o>(
                f: &mut #rt::FieldReader<'_, '_>,
                out: &'o mut ::core::mem::MaybeUninit<Self>,
            ) -> &'o mut Self {
                let p = out as *mut ::core::mem::MaybeUninit<Self> as *mut Self;
                // SAFETY: each place is a field of `out`, written once; with the base and every
                // member written, `out` is initialised.
                unsafe {
                    #base_read
                    #(#reads)*
                    &mut *p
                }
            }
        }
    });
    let doc = docs(&doc);
    let serde = serde_derive();
    Ok(quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        #serde
        pub struct #id {
            #base_def
            #(#field_defs,)*
        }
        impl #rt::Value for #id {
            const SIZE: usize = #size_l;
            const ALIGN: usize = #align_l;
            #[inline]
            fn read(#r: &#rt::Reader<'_>) -> #rt::Result<Self> {
                #read_body
            }
            #read_members
            fn write(&self, #w: &mut #rt::Writer<'_>) -> #rt::Result<()> {
                #write_body
            }
            #visit_fn
        }
        impl #rt::Class for #id {
            const NAME: &'static str = #key;
            const VERSION: Option<u32> = #version;
            const HASH: u32 = #hash;
            const STORED_HASH: Option<u32> = #stored;
            const FLAGS: Option<u32> = #flags;
            const PARENT: Option<&'static str> = #parent_name;
            const FIELDS: &'static [#rt::FieldInfo] = &[#(#infos),*];
        }
        impl #rt::Typed for #id {
            const ENTRY: #rt::ClassEntry = #rt::ClassEntry::tagfile::<Self>();
            fn into_object(self) -> ::core::result::Result<::std::boxed::Box<dyn #rt::Object>, Self> {
                Ok(::std::boxed::Box::new(self))
            }
        }
        impl #rt::Object for #id {
            fn class_name(&self) -> &'static str {
                #key
            }
            fn parent_object(&self) -> Option<&dyn #rt::Object> {
                #parent_object
            }
            fn as_any(&self) -> &dyn ::core::any::Any {
                self
            }
            fn visit_object_refs(&self, v: &mut dyn #rt::Visitor) {
                #rt::Value::visit_refs(self, 0, v)
            }
            fn write_object(&self, w: &mut #rt::Writer<'_>) -> #rt::Result<()> {
                #rt::Value::write(self, w)
            }
        }
        #deref
    })
}

/// The module's table of classes, sorted by name for [`ClassEntry::find`](hktypes::value::ClassEntry::find):
/// each class's [`Typed::ENTRY`](hktypes::value::Typed::ENTRY).
pub fn class_table(m: &Model<'_>) -> TokenStream {
    let rt = m.rt();
    let mut entries: Vec<(&str, proc_macro2::Ident)> =
        m.structs.iter().filter_map(|t| Some((t.key.as_str(), m.ident(&t.key)?))).collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let ids = entries.iter().map(|(_, id)| id);
    quote! {
        /// Every class of the module, sorted by Havok name.
        pub static CLASSES: &[#rt::ClassEntry] = &[#(#rt::ClassEntry::of::<#ids>()),*];
    }
}

/// The module's `ENUMS`: every enumeration with its items and every integer member the overlay
/// types as one, as run-time data (`hktypes::value::EnumTable`) for code without the generated
/// types (the dump names a tagfile's enum members by it).
pub fn enum_table(m: &Model<'_>) -> TokenStream {
    let rt = m.rt();
    let ids: Vec<proc_macro2::Ident> = m.enums.iter().filter_map(|k| m.ident(k)).collect();
    let members = m.member_enums.iter().map(|((class, member), e)| {
        quote!(#rt::MemberEnum { class: #class, member: #member, enumeration: #e })
    });
    quote! {
        /// Every enumeration of the module with its known items, and the integer members typed as one.
        pub static ENUMS: #rt::EnumTable = #rt::EnumTable { enums: &[#(#rt::EnumEntry::of::<#ids>()),*], members: &[#(#members),*] };
    }
}
