//! Python type stubs of an SDK's classes, for the Python package (`python/hkgen/classes/`): one
//! `.pyi` module per SDK, from the same model (schema, struct selection, names) as the Rust
//! structs: [`Model`] for a tagfile SDK ([`render`]), the packfile generator's for a packfile SDK
//! ([`render_packfile`]). A struct becomes a class deriving from `hkgen.Record` (or from its parent's
//! class), with one annotated attribute per member under Havok's name, as the package reads it;
//! an enumeration whose items the overlay gives becomes an `enum.IntEnum` subclass with the name
//! of its Rust enum (the name the package gives its `IntEnum` at run time).
//!
//! A member's Python type follows what the package builds when it reads the member: `bool`,
//! `int`, `float`, `Optional[str]`, an enumeration (`hkEnum`, and integers the overlay gives an
//! enumeration; `Union[E, int]` for `hkFlags`, which may hold a combination of items), a struct's
//! class (a record; `Record` for one without a generated struct), `Optional[C]` for a pointer,
//! `tuple[float, ...]` for vectors and quaternions (rows of them for matrices), `memoryview` for
//! variable arrays of plain numbers, `list[T]` for other arrays, and `Any` for what the package
//! keeps as bytes.
//!
//! A packfile SDK's stubs type members by their hkClass member type the same way, as the package
//! reads packfile values: integers `int` (an enum's or flags' `IntEnum`, as above, where the
//! class schema lists the enum's items), `float` for reals and halves, `tuple[float, ...]` for
//! vectors and quaternions and rows of them for matrices and transforms, `Optional[str]` for
//! strings, `Optional[C]` for pointers, a struct's class for an embedded struct, `memoryview` for
//! arrays of plain numbers, `list[T]` for other arrays and for C arrays (`T[N]` members), and `Any`
//! for what the package has no value of (inplace and homogeneous arrays).
//!
//! Each class's docstring gives its Havok name on the first line (the schemas hold no prose to
//! quote), then what it derives from, its version and size, and each own member's Havok type
//! and offset (a packfile class: its hkClass member types and signature). A record type that the
//! Rust model keeps as a primitive (`hkQsTransformf`, `hkTransformf`) but the package reads as a
//! record gets a class too, so that members holding one are not typed a bare `Record`. Classes
//! come after their bases, so that a module also runs: [`runtime_module`] is the `<sdk>.py` beside
//! each `.pyi`, which executes it (`from hkgen.classes import hk2018_1` in a program).
//!
//! The text is written through [`PyWriter`], which holds the indentation and quotes docstrings;
//! nothing else in this module builds Python text.

use super::overlay::Overlay;
use super::packfile;
use super::types::Model;
use crate::schema::model::{Arg, ClassSchema, MemberRecord, MemberType, Schema, Type};
use crate::error::Error;
use hktypes::reflect::{Kind, TypeFormat as Format};

/// Python's keywords and the soft keyword names a stub cannot use as attributes or items.
const PY_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Whether `s` can be a Python attribute name in a stub: an ASCII identifier, not a keyword.
pub fn is_py_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !PY_KEYWORDS.contains(&s)
}

/// A Python source writer: lines at the current indentation, docstrings quoted.
#[derive(Default)]
pub struct PyWriter {
    out: String,
    depth: usize,
}

impl PyWriter {
    /// One line at the current indentation.
    pub fn line(&mut self, text: &str) {
        if !text.is_empty() {
            self.out.extend(std::iter::repeat_n("    ", self.depth));
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    /// A docstring at the current indentation: `text` with backslashes and quotes escaped.
    pub fn docstring(&mut self, text: &str) {
        let mut quoted = String::with_capacity(text.len() + 6);
        quoted.push_str("\"\"\"");
        for c in text.chars() {
            match c {
                '\\' => quoted.push_str("\\\\"),
                '"' => quoted.push_str("\\\""),
                '\n' => quoted.push_str("\\n"),
                c if c.is_control() => quoted.push_str(&format!("\\x{:02x}", c as u32)),
                c => quoted.push(c),
            }
        }
        quoted.push_str("\"\"\"");
        self.line(&quoted);
    }

    /// Writes the lines of `body` one level deeper.
    pub fn indented(&mut self, body: impl FnOnce(&mut Self)) {
        self.depth += 1;
        body(self);
        self.depth -= 1;
    }

    /// The text written.
    pub fn finish(self) -> String {
        self.out
    }
}

/// The `.pyi` module of `schema`'s classes, with the enumeration items and member enumerations
/// of `overlay` for the schema's SDK.
pub fn render(schema: &Schema, overlay: &Overlay) -> Result<String, Error> {
    let members = overlay
        .members
        .iter()
        .filter_map(|(m, e)| {
            m.rsplit_once('.')
                .map(|(c, f)| ((c.to_owned(), f.to_owned()), e.clone()))
        })
        .collect();
    let model = Model::with_members(schema, quote::quote!(::hktypes::value), &members)?;
    let stubs = Stubs {
        model: &model,
        overlay,
        sdk: &schema.sdk,
        records: Default::default(),
    };
    let enums = model.enums.iter().filter(|e| stubs.items(e).is_some()).count();
    let mut w = PyWriter::default();
    header(&mut w, "the schema snapshot", &schema.sdk, "", model.structs.len(), enums);
    for key in &model.enums {
        let (Some(items), Some(name)) = (stubs.items(key), model.names.get(*key)) else {
            continue;
        };
        w.line("");
        w.line(&format!("class {name}(enum.IntEnum):"));
        w.indented(|w| {
            w.docstring(key);
            for (item, value) in items
                .iter()
                .filter(|(n, _)| is_py_name(n) && !n.starts_with('_'))
            {
                w.line(&format!("{item} = {value}"));
            }
        });
    }
    // Each class after its base, so that the module also runs (`hkgen.classes.<sdk>` executes it).
    let base_key = |t: &&Type| {
        t.parent
            .as_deref()
            .and_then(|p| model.effective(p))
            .filter(|p| model.is_struct(&p.key))
            .map(|p| p.key.as_str())
    };
    let structs = bases_first(&model.structs, |t| t.key.as_str(), base_key);
    for t in structs {
        let Some(name) = model.names.get(&t.key) else {
            continue;
        };
        let base = t
            .parent
            .as_deref()
            .and_then(|p| model.effective(p))
            .filter(|p| model.is_struct(&p.key))
            .and_then(|p| model.names.get(&p.key))
            .map_or("Record", String::as_str);
        w.line("");
        w.line(&format!("class {name}({base}):"));
        let fields = t.fields.as_deref().unwrap_or_default();
        let lines: Vec<String> = fields
            .iter()
            .filter(|f| is_py_name(&f.name))
            .map(|f| Ok(format!("{}: {}", f.name, stubs.member(t, &f.name, &f.ty)?)))
            .collect::<Result<_, Error>>()?;
        let doc = class_doc(t, &schema.sdk, fields.len());
        w.indented(|w| {
            w.docstring(&doc);
            for l in &lines {
                w.line(l);
            }
        });
    }
    // The records the Rust model keeps as primitives (`hkQsTransform`, `hkTransform`...) but the
    // package reads as records: a class each, with their members, so that no member is typed a
    // bare `Record` where the schema says more. Their own members may name more such records.
    let mut done = std::collections::BTreeSet::new();
    loop {
        let next = stubs
            .records
            .borrow()
            .iter()
            .find(|k| !done.contains(*k))
            .cloned();
        let Some(key) = next else { break };
        done.insert(key.clone());
        let Some(t) = model.effective(&key) else {
            continue;
        };
        let fields = t.fields.as_deref().unwrap_or_default();
        let lines: Vec<String> = fields
            .iter()
            .filter(|f| is_py_name(&f.name))
            .map(|f| Ok(format!("{}: {}", f.name, stubs.member(t, &f.name, &f.ty)?)))
            .collect::<Result<_, Error>>()?;
        w.line("");
        w.line(&format!("class {}(Record):", record_name(&key)));
        let doc = class_doc(t, &schema.sdk, fields.len());
        w.indented(|w| {
            w.docstring(&doc);
            for l in &lines {
                w.line(l);
            }
        });
    }
    Ok(w.finish())
}

/// `items` reordered so that each comes after the item its `base` names (when that is among
/// them), otherwise in their order.
fn bases_first<'a, T>(
    items: &'a [T],
    key: impl Fn(&'a T) -> &'a str,
    base: impl Fn(&'a T) -> Option<&'a str>,
) -> Vec<&'a T> {
    let by_key: std::collections::HashMap<&str, usize> =
        items.iter().enumerate().map(|(i, t)| (key(t), i)).collect();
    let mut done = vec![false; items.len()];
    let mut out = Vec::with_capacity(items.len());
    for start in 0..items.len() {
        // The chain of not yet written bases, written root first.
        let mut chain = Vec::new();
        let mut cur = Some(start);
        while let Some(i) = cur.filter(|&i| !done[i] && !chain.contains(&i)) {
            chain.push(i);
            cur = base(&items[i]).and_then(|b| by_key.get(b).copied());
        }
        for &i in chain.iter().rev() {
            done[i] = true;
            out.push(&items[i]);
        }
    }
    out
}

/// The Python class name of a record type the Rust model has no struct for (`hkQsTransformf`).
fn record_name(key: &str) -> String {
    key.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The docstring of a tagfile class: its Havok name, what it derives from, its version and size,
/// and each member's Havok type and offset (the schema holds no prose to quote).
fn class_doc(t: &Type, sdk: &str, members: usize) -> String {
    // The first line is the Havok name alone (what editors show as the summary, and what tools
    // map the Python name back by).
    let mut doc = format!("{}\n\nHavok class of SDK {sdk}", t.full_name());
    if let Some(p) = &t.parent {
        doc.push_str(&format!(", derived from {p}"));
    }
    if let Some(v) = t.version {
        doc.push_str(&format!(", version {v}"));
    }
    if let Some(size) = t.size {
        doc.push_str(&format!(", {size} bytes"));
    }
    doc.push('.');
    if members > 0 {
        doc.push_str("\n\nOwn members, by Havok type and byte offset:");
        for f in t.fields.as_deref().unwrap_or_default() {
            doc.push_str(&format!("\n- {}: {} at {}", f.name, f.ty, f.offset));
        }
    }
    doc
}

struct Stubs<'m, 's> {
    model: &'m Model<'s>,
    overlay: &'m Overlay,
    sdk: &'m str,
    /// The record types without a struct that members name (see [`render`]), by effective key.
    records: std::cell::RefCell<std::collections::BTreeSet<String>>,
}

impl Stubs<'_, '_> {
    /// The items of enumeration `key` in this SDK, when the overlay gives any.
    fn items(&self, key: &str) -> Option<&[(String, i64)]> {
        let name = self
            .model
            .schema
            .types
            .get(key)
            .map_or(key, |t| t.full_name());
        self.overlay
            .items(name, self.sdk)
            .map(|i| &i.items[..])
            .filter(|i| !i.is_empty())
    }

    /// The Python class of enumeration `key`, or `int` when its items are not known.
    fn enumeration(&self, key: &str) -> String {
        match (self.items(key), self.model.names.get(key)) {
            (Some(_), Some(name)) => name.clone(),
            _ => "int".into(),
        }
    }

    /// The Python type of member `field` (of type `key`) of class `class`.
    fn member(&self, class: &Type, field: &str, key: &str) -> Result<String, Error> {
        if let Some(e) = self.model.member_enums.get(&(class.full_name(), field)) {
            if self.kind(key) == Some(Kind::Int) {
                return Ok(self.enumeration(e));
            }
        }
        self.py_type(key, 0)
    }

    fn kind(&self, key: &str) -> Option<Kind> {
        let t = self.model.effective(key)?;
        Some(Format(t.format?.0).kind())
    }

    /// The Python type of a value of type `key`.
    fn py_type(&self, key: &str, depth: u32) -> Result<String, Error> {
        if depth > 32 {
            return Ok("Any".into());
        }
        let Some(t) = self.model.effective(key) else {
            return Ok("Any".into());
        };
        if self.model.is_struct(key) {
            return Ok(self
                .model
                .names
                .get(&t.key)
                .cloned()
                .unwrap_or_else(|| "Record".into()));
        }
        if t.fields.as_ref().is_some_and(|f| !f.is_empty())
            && t.format.is_some_and(|f| Format(f.0).kind() == Kind::Record)
        {
            // A record the model keeps as a primitive: a class of its own (see [`render`]).
            self.records.borrow_mut().insert(t.key.clone());
            return Ok(record_name(&t.key));
        }
        let Some(format) = t.format.map(|f| Format(f.0)) else {
            return Ok("Any".into());
        };
        Ok(match format.kind() {
            Kind::Bool => "bool".into(),
            Kind::Int => {
                let param = |names: &[&str]| {
                    t.params
                        .iter()
                        .find(|p| names.contains(&p.name.as_str()))
                        .and_then(|p| match &p.arg {
                            Arg::Type(k) => Some(k.clone()),
                            Arg::Value(_) => None,
                        })
                };
                match (t.name.as_str(), param(&["tENUM", "tBITS"])) {
                    ("hkEnum", Some(e)) => self.enumeration(&e),
                    ("hkFlags", Some(e)) => union_int(self.enumeration(&e)),
                    _ if self.model.enums.contains(t.key.as_str()) => self.enumeration(&t.key),
                    _ => "int".into(),
                }
            }
            Kind::Float => "float".into(),
            Kind::String => "Optional[str]".into(),
            Kind::Pointer => {
                let target = t
                    .subtype
                    .as_deref()
                    .filter(|s| self.model.is_struct(s))
                    .and_then(|s| {
                        let e = self.model.effective(s)?;
                        self.model.names.get(&e.key).cloned()
                    });
                format!("Optional[{}]", target.as_deref().unwrap_or("Record"))
            }
            Kind::Record => "Record".into(),
            Kind::Array => {
                let Some(sub) = t.subtype.as_deref() else {
                    return Ok("Any".into());
                };
                let elem = self.model.effective(sub);
                let elem_kind = elem.and_then(|e| Some(Format(e.format?.0).kind()));
                let struct_elem = self.model.is_struct(sub);
                if format.is_fixed_array() {
                    match elem_kind {
                        Some(Kind::Float) if !struct_elem => "tuple[float, ...]".into(),
                        Some(Kind::Array)
                            if !struct_elem
                                && self.py_type(sub, depth + 1)? == "tuple[float, ...]" =>
                        {
                            "tuple[tuple[float, ...], ...]".into()
                        }
                        _ => format!("list[{}]", self.py_type(sub, depth + 1)?),
                    }
                } else {
                    // Variable arrays of plain numbers are read as memoryviews (see the package's
                    // `number_format`): integers of 1, 2, 4 or 8 bytes and 4-byte floats.
                    let size = elem.and_then(|e| e.size);
                    let numbers = !struct_elem
                        && match elem_kind {
                            Some(Kind::Int) => matches!(size, Some(1 | 2 | 4 | 8)),
                            Some(Kind::Float) => size == Some(4),
                            _ => false,
                        };
                    if numbers {
                        "memoryview".into()
                    } else {
                        format!("list[{}]", self.py_type(sub, depth + 1)?)
                    }
                }
            }
            _ => "Any".into(),
        })
    }
}

fn union_int(e: String) -> String {
    if e == "int" {
        e
    } else {
        format!("Union[{e}, int]")
    }
}

/// The `.pyi` module of the packfile SDK whose hkClass schema is `schema`: the classes and enums
/// the root crate generates structs and marker types for ([`super::packfile`]'s model, with its
/// names), each member typed as the package reads a packfile value of its kind.
pub fn render_packfile(schema: &ClassSchema) -> Result<String, Error> {
    let model = packfile::Model::new(schema, quote::quote!(::hktypes));
    let stubs = PackStubs { model: &model };
    let enums: Vec<EnumStub<'_>> = model
        .enums
        .iter()
        .filter_map(|key| {
            let items = stubs.items(key)?;
            Some((*key, model.names.get(*key)?.as_str(), items))
        })
        .collect();
    let mut w = PyWriter::default();
    header(&mut w, "the class schema", &schema.sdk, " (packfiles)", model.classes.len(), enums.len());
    for (key, name, items) in &enums {
        w.line("");
        w.line(&format!("class {name}(enum.IntEnum):"));
        w.indented(|w| {
            w.docstring(key);
            for (value, item) in items
                .iter()
                .filter(|(_, n)| is_py_name(n) && !n.starts_with('_'))
            {
                w.line(&format!("{item} = {value}"));
            }
        });
    }
    let keys: Vec<&str> = model.classes.keys().copied().collect();
    let ordered = bases_first(
        &keys,
        |k| *k,
        |k| {
            schema
                .classes
                .get(*k)
                .and_then(|c| c.parent.as_deref())
        },
    );
    for class in ordered {
        let (Some(c), Some(name)) = (schema.classes.get(*class), model.names.get(*class)) else {
            continue;
        };
        let base = c
            .parent
            .as_deref()
            .and_then(|p| model.names.get(p))
            .map_or("Record", String::as_str);
        w.line("");
        w.line(&format!("class {name}({base}):"));
        let doc = pack_class_doc(c, &schema.sdk);
        w.indented(|w| {
            w.docstring(&doc);
            for m in c.members.iter().filter(|m| is_py_name(&m.name)) {
                w.line(&format!("{}: {}", m.name, stubs.member(m)));
            }
        });
    }
    Ok(w.finish())
}

/// The docstring of a packfile class: its hkClass name, parent, version and signature, and each
/// own member's hkClass type (the class descriptions hold no prose to quote).
fn pack_class_doc(c: &crate::schema::model::ClassRecord, sdk: &str) -> String {
    let mut doc = format!("{}\n\nHavok class of SDK {sdk} (packfiles)", c.name);
    if let Some(p) = &c.parent {
        doc.push_str(&format!(", derived from {p}"));
    }
    if c.version > 0 {
        doc.push_str(&format!(", version {}", c.version));
    }
    if let Some(sig) = &c.signature {
        doc.push_str(&format!(", signature 0x{:08x}", sig.0));
    }
    doc.push('.');
    if !c.members.is_empty() {
        doc.push_str("\n\nOwn members, by hkClass type:");
        for m in &c.members {
            let mut ty = format!("{:?}", m.ty);
            if m.subtype != MemberType::Void {
                ty.push_str(&format!(" of {:?}", m.subtype));
            }
            if let Some(class) = m.class.as_deref().or(m.enumeration.as_deref()) {
                ty.push_str(&format!(" {class}"));
            }
            if m.c_array_size > 0 {
                ty.push_str(&format!("[{}]", m.c_array_size));
            }
            doc.push_str(&format!("\n- {}: {ty}", m.name));
        }
    }
    doc
}

/// The run-time module of stub module `module` (`hk2018_1`): it executes `<module>.pyi` (see the
/// package's `hkgen/classes/_runtime.py`), so that `from hkgen.classes import hk2018_1` works in
/// a program.
pub fn runtime_module(module: &str) -> String {
    format!(
        "# @generated by hkgen::codegen::stubs: the run-time twin of {module}.pyi (see _runtime.py); do not edit.\n\
         from hkgen.classes._runtime import load as _load\n\
         \n\
         _load(__name__, globals())\n\
         del _load\n"
    )
}

/// An enum of a packfile stub module: its key, its Python name, its items.
type EnumStub<'a> = (&'a str, &'a str, &'a [(i64, String)]);

struct PackStubs<'m, 's> {
    model: &'m packfile::Model<'s>,
}

impl PackStubs<'_, '_> {
    /// The items of enum `key`, when it has a marker type and the schema lists any.
    fn items(&self, key: &str) -> Option<&[(i64, String)]> {
        self.model
            .schema
            .enums
            .get(key)
            .map(|e| &e.items[..])
            .filter(|i| !i.is_empty() && self.model.enums.contains(key))
    }

    /// The Python class of the enum a member names, or `int` when the package has no items for it.
    fn enumeration(&self, m: &MemberRecord) -> String {
        let key = m.enumeration.as_deref().unwrap_or_default();
        match (self.items(key), self.model.names.get(key)) {
            (Some(_), Some(name)) => name.clone(),
            _ => "int".into(),
        }
    }

    /// The class a member's `class` names, when it has a stub; `Record` otherwise.
    fn class(&self, m: &MemberRecord) -> String {
        m.class
            .as_deref()
            .filter(|c| self.model.classes.contains_key(c))
            .and_then(|c| self.model.names.get(c))
            .cloned()
            .unwrap_or_else(|| "Record".into())
    }

    /// The Python type of member `m`: a C array is a list of its values.
    fn member(&self, m: &MemberRecord) -> String {
        let one = self.one(m, m.ty, false);
        if m.c_array_size > 0 {
            format!("list[{one}]")
        } else {
            one
        }
    }

    /// The Python type of one value of kind `ty` of member `m` (an array's element when `elem`).
    fn one(&self, m: &MemberRecord, ty: MemberType, elem: bool) -> String {
        match ty {
            MemberType::Void => "None".into(),
            MemberType::Bool => "bool".into(),
            MemberType::Char
            | MemberType::Int8
            | MemberType::Uint8
            | MemberType::Int16
            | MemberType::Uint16
            | MemberType::Int32
            | MemberType::Uint32
            | MemberType::Int64
            | MemberType::Uint64
            | MemberType::Ulong => "int".into(),
            MemberType::Real | MemberType::Half => "float".into(),
            MemberType::Vector4 | MemberType::Quaternion => "tuple[float, ...]".into(),
            MemberType::Matrix3
            | MemberType::Rotation
            | MemberType::QsTransform
            | MemberType::Matrix4
            | MemberType::Transform => "tuple[tuple[float, ...], ...]".into(),
            MemberType::CString | MemberType::StringPtr => "Optional[str]".into(),
            // The package gives an integer that names an enum the enum's `IntEnum` (a plain int
            // for a value no item has, as a combination of flags).
            MemberType::Enum | MemberType::Zero if m.subtype != ty => self.enumeration(m),
            MemberType::Flags if m.subtype != ty => union_int(self.enumeration(m)),
            MemberType::Pointer if elem || m.subtype == MemberType::Struct => {
                format!("Optional[{}]", self.class(m))
            }
            MemberType::Pointer | MemberType::FunctionPointer | MemberType::Variant => {
                "Optional[Record]".into()
            }
            MemberType::Struct => self.class(m),
            MemberType::Array | MemberType::SimpleArray | MemberType::RelArray if !elem => {
                // Arrays of plain numbers are read as memoryviews (the package's `list`).
                let numbers = matches!(
                    m.subtype,
                    MemberType::Real
                        | MemberType::Int8
                        | MemberType::Uint8
                        | MemberType::Int16
                        | MemberType::Uint16
                        | MemberType::Int32
                        | MemberType::Uint32
                        | MemberType::Int64
                        | MemberType::Uint64
                ) && m.enumeration.is_none();
                if numbers {
                    "memoryview".into()
                } else {
                    format!("list[{}]", self.one(m, m.subtype, true))
                }
            }
            _ => "Any".into(),
        }
    }
}

/// The head of a stub module: the generated-file line, the docstring, the imports.
fn header(w: &mut PyWriter, source: &str, sdk: &str, kind: &str, classes: usize, enums: usize) {
    w.line(&format!("# @generated by hkgen::codegen::stubs from {source} of SDK {sdk}: do not edit."));
    w.docstring(&format!("The classes of Havok SDK {sdk}{kind} as the hkgen package reads them: {classes} classes, {enums} enumerations."));
    w.line("");
    w.line("import enum");
    w.line("from typing import Any, Optional, Union");
    w.line("");
    w.line("from hkgen import Record");
}
