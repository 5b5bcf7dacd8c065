//! The code generator: one core that turns a [`Schema`] into Rust items, as a token stream
//! ([`Config::generate`]) or as pretty-printed source starting with an `@generated` line
//! ([`Config::render`]). The root crate's build script ([`generate_sdks`]) and `hkgen codegen`
//! both call it, so they print the same code. [`stubs`] writes Python type stubs of the same
//! model for the Python package ([`generate_stubs`], `hkgen stubs`), for the tagfile and the packfile
//! SDKs.
//!
//! The generated items use the runtime of `hktypes::value` and contain no inner attributes, so
//! that a module can `include!` them.
//!
//! A snapshot parsed from text in memory, and the struct generated for its one class:
//!
//! ```
//! use hkgen::schema::snapshot;
//!
//! let sdk = r#"(sdk: "2018.1", sdkv: "20180100", recipe: InheritedFields,
//!     sources: (tagfiles: 1, compendia: [], registry: false), variants: {})"#;
//! let types = r#"#![enable(implicit_some)]
//! [
//!   (key: "unsigned int", name: "unsigned int", format: "0x00008004", size: 4, align: 4,
//!    computed: "0x94e0eb06", seen: (files: 1)),
//!   (key: "hkUint32", name: "hkUint32", parent: "unsigned int", computed: "0x664be534", seen: (files: 1)),
//!   (key: "hknpBodyId", name: "hknpBodyId", format: "0x00000007", size: 4, align: 4,
//!    fields: [(name: "serialAndIndex", flags: "0x00000022", offset: 0, ty: "hkUint32")],
//!    computed: "0x96199f12", seen: (files: 1)),
//! ]"#;
//! let schema = snapshot::parse("sdk.ron", sdk, vec![("types.ron".into(), types.into())])?;
//! let code = hkgen::codegen::Config::new().formatted(false).render(&schema)?;
//! assert!(code.starts_with("// @generated"));
//! assert!(code.contains("pub struct hknpBodyId"));
//! assert!(code.contains("pub serial_and_index : u32"));
//! # Ok::<(), hkgen::Error>(())
//! ```

mod emit;
pub mod names;
pub mod overlay;
pub mod packfile;
pub mod stubs;
pub mod types;

use crate::schema::model::ClassSchema;
use crate::schema::{snapshot, Schema};
use crate::error::Error;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// How an SDK's files describe their classes, and so which generator makes its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SdkFiles {
    /// TAG0 tagfiles (2015 and later), whose type tables the RON snapshot under `schemas/<sdk>/`
    /// holds: [`generate_sdks`].
    Tagfile,
    /// Packfiles (5.5 to 2014), whose hkClass records are the schemas under
    /// `schemas/<sdk>/classes/`: [`packfile`], [`generate_packfile_sdks`].
    Packfile,
}

/// One SDK version the root crate has a feature for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sdk {
    /// The version as users see it everywhere (`2018.1`, `2014.2`); its module and feature is
    /// [`module_name`] of it (`hk2018_1`).
    pub version: &'static str,
    /// The kind of files it has, and so its schema.
    pub files: SdkFiles,
}

/// The one list of SDKs: the root crate's build script writes the enabled ones to
/// `OUT_DIR/sdks.rs`, from which `src/lib.rs` makes the modules and lookups. Adding an SDK is an
/// entry here and its feature in Cargo.toml.
pub const SDKS: &[Sdk] = &[
    Sdk { version: "2015.1", files: SdkFiles::Tagfile },
    Sdk { version: "2016.2", files: SdkFiles::Tagfile },
    Sdk { version: "2018.1", files: SdkFiles::Tagfile },
    Sdk { version: "2019.1", files: SdkFiles::Tagfile },
    Sdk { version: "2022.1", files: SdkFiles::Tagfile },
    Sdk { version: "2014.2", files: SdkFiles::Packfile },
    Sdk { version: "2014.1", files: SdkFiles::Packfile },
    Sdk { version: "2013.1", files: SdkFiles::Packfile },
    Sdk { version: "2011.1", files: SdkFiles::Packfile },
    Sdk { version: "2010.2", files: SdkFiles::Packfile },
    Sdk { version: "7.1", files: SdkFiles::Packfile },
    Sdk { version: "6.6", files: SdkFiles::Packfile },
    Sdk { version: "5.5", files: SdkFiles::Packfile },
];

/// The versions of [`SDKS`] whose files are `files` (`None`: every one), in the list's order.
pub fn sdk_versions(files: Option<SdkFiles>) -> Vec<&'static str> {
    SDKS.iter().filter(|s| files.is_none_or(|f| s.files == f)).map(|s| s.version).collect()
}

/// The module (and cargo feature) name of an SDK version: `2018.1` -> `hk2018_1`.
///
/// ```
/// assert_eq!(hkgen::codegen::module_name("2018.1"), "hk2018_1");
/// ```
pub fn module_name(sdk: &str) -> String {
    format!("hk{}", sdk.replace(['.', '-'], "_"))
}

/// Generation settings, built up like prost-build's `Config`.
#[derive(Clone)]
pub struct Config {
    krate: TokenStream,
    enum_items: BTreeMap<String, Vec<(String, i64)>>,
    member_enums: BTreeMap<(String, String), String>,
    header: String,
    formatted: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            krate: quote!(::hktypes),
            enum_items: BTreeMap::new(),
            member_enums: BTreeMap::new(),
            header: String::new(),
            formatted: true,
        }
    }
}

impl Config {
    /// The default settings: runtime `::hktypes`, no enumeration names, formatted, no header.
    pub fn new() -> Self {
        Self::default()
    }

    /// The path under which generated code finds the runtime crate (default `::hktypes`).
    pub fn runtime_crate(mut self, path: &str) -> Result<Self, Error> {
        let ok = path.split("::").enumerate().all(|(i, seg)| {
            (i == 0 && seg.is_empty()) || (!seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        });
        let p: Option<TokenStream> = path.parse().ok().filter(|_| ok);
        self.krate = p.ok_or_else(|| Error::codegen(format!("runtime crate path {path:?} is not a path")))?;
        Ok(self)
    }

    /// Names for the values of an enumeration (by schema key, `hknpMotionType::Enum`).
    pub fn enum_items(mut self, key: &str, items: impl IntoIterator<Item = (String, i64)>) -> Self {
        self.enum_items.entry(key.to_owned()).or_default().extend(items);
        self
    }

    /// Types member `field` of `class` (a full name; every layout of it) as enumeration `key`,
    /// stored as the integer the schema gives.
    pub fn member_enum(mut self, class: &str, field: &str, key: &str) -> Self {
        self.member_enums.insert((class.to_owned(), field.to_owned()), key.to_owned());
        self
    }

    /// Whether [`Self::render`] pretty-prints (with the `pretty` feature; the default) or writes one
    /// item per line. Build scripts turn it off: nobody reads their output, and a build whose
    /// features enable `pretty` elsewhere would otherwise spend seconds formatting it.
    pub fn formatted(mut self, on: bool) -> Self {
        self.formatted = on;
        self
    }

    /// A line to put after the `@generated` line (what the code was generated from).
    pub fn header(mut self, text: &str) -> Self {
        self.header = text.to_owned();
        self
    }

    /// The items of one SDK module.
    pub fn generate(&self, schema: &Schema) -> Result<TokenStream, Error> {
        Ok(self.items(schema)?.into_iter().collect())
    }

    /// The items of one SDK module, one token stream per generated type. An error names the SDK.
    fn items(&self, schema: &Schema) -> Result<Vec<TokenStream>, Error> {
        self.items_of(schema).map_err(|e| e.for_sdk(&schema.sdk))
    }

    fn items_of(&self, schema: &Schema) -> Result<Vec<TokenStream>, Error> {
        let krate = &self.krate;
        let model = types::Model::with_members(schema, quote!(#krate::value), &self.member_enums)?;
        let mut out = Vec::new();
        for key in &model.enums {
            let items = self.enum_items.get(*key).map(Vec::as_slice).unwrap_or(&[]);
            out.push(emit::enumeration(&model, key, items)?);
        }
        for t in &model.aliases {
            out.push(emit::alias(&model, t)?);
        }
        for t in &model.structs {
            out.push(emit::class(&model, t)?);
        }
        out.push(emit::class_table(&model));
        out.push(emit::enum_table(&model));
        Ok(out)
    }

    /// The source of one SDK module: an `@generated` line, then the items, pretty-printed with
    /// the `pretty` feature and one item per line without it (the same tokens either way).
    pub fn render(&self, schema: &Schema) -> Result<String, Error> {
        self.source("schema snapshot", self.items(schema)?)
    }

    /// The items of one packfile SDK module from its hkClass schema (see [`packfile`]).
    pub fn generate_packfile(&self, schema: &ClassSchema) -> Result<TokenStream, Error> {
        Ok(self.packfile_items(schema)?.into_iter().collect())
    }

    /// The source of one packfile SDK module, as [`Self::render`] prints a tagfile SDK's.
    pub fn render_packfile(&self, schema: &ClassSchema) -> Result<String, Error> {
        self.source("class schema", self.packfile_items(schema)?)
    }

    /// The items of one packfile SDK module. An error names the SDK.
    fn packfile_items(&self, schema: &ClassSchema) -> Result<Vec<TokenStream>, Error> {
        packfile::items(schema, &self.krate).map_err(|e| e.for_sdk(&schema.sdk))
    }

    /// A module's source: the `@generated` line naming its input, the header as comments, then the
    /// items, pretty-printed with the `pretty` feature and one item per line without it.
    fn source(&self, input: &str, items: Vec<TokenStream>) -> Result<String, Error> {
        let mut s = format!("// @generated by hkgen::codegen from the {input}; edit the schema, not this file.\n");
        for line in self.header.lines() {
            s.push_str("// ");
            s.push_str(line);
            s.push('\n');
        }
        s.push_str(&if self.formatted { print(items)? } else { print_plain(items) });
        Ok(s)
    }
}

#[cfg(feature = "pretty")]
fn print(items: Vec<TokenStream>) -> Result<String, Error> {
    let tokens: TokenStream = items.into_iter().collect();
    let file: syn::File = syn::parse2(tokens).map_err(|e| Error::codegen(format!("generated code does not parse: {e}")))?;
    Ok(prettyplease::unparse(&file))
}

#[cfg(not(feature = "pretty"))]
fn print(items: Vec<TokenStream>) -> Result<String, Error> {
    Ok(print_plain(items))
}

fn print_plain(items: Vec<TokenStream>) -> String {
    let mut s = String::new();
    for item in items {
        s.push_str(&item.to_string());
        s.push('\n');
    }
    s
}

/// What [`generate_sdks`] did for one SDK.
pub struct Generated {
    /// The SDK version (`2018.1`).
    pub sdk: String,
    /// The module file written (always; empty of items when there is no snapshot).
    pub path: PathBuf,
    /// Number of types in the snapshot, or `None` when there is none.
    pub types: Option<usize>,
}

/// Where the enumeration overlay lives under the snapshot directory.
pub const OVERLAY: &str = "enums.ron";

/// Writes `OUT/<module>.rs` for every SDK of `sdks` from the snapshot `schemas/<sdk>/`. An SDK
/// without a snapshot gets a file without items, so that its feature still builds. The overlay
/// `schemas/enums.ron`, when present, is applied to `config` with the items it gives each SDK. Files whose contents do not change
/// are left alone.
pub fn generate_sdks(config: &Config, schemas: &Path, out: &Path, sdks: &[&str]) -> Result<Vec<Generated>, Error> {
    let mut done = Vec::new();
    let overlay = overlay::Overlay::read(&schemas.join(OVERLAY))?;
    for sdk in sdks {
        let config = &overlay.apply(config.clone(), sdk);
        let path = out.join(format!("{}.rs", module_name(sdk)));
        let dir = schemas.join(sdk);
        let (text, types) = if dir.join("sdk.ron").is_file() {
            let schema = snapshot::read(&dir)?;
            let n = schema.types.len();
            let text = config.clone().header(&format!("SDK {sdk}: {n} types.")).render(&schema)?;
            (text, Some(n))
        } else {
            let krate = &config.krate;
            let text = format!(
                "// @generated by hkgen::codegen: no schema snapshot for SDK {sdk}.\n{}\n",
                quote!(
                    pub static CLASSES: &[#krate::value::ClassEntry] = &[];
                    pub static ENUMS: #krate::value::EnumTable = #krate::value::EnumTable { enums: &[], members: &[] };
                )
            );
            (text, None)
        };
        if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
        }
        done.push(Generated { sdk: sdk.to_string(), path, types });
    }
    Ok(done)
}

/// How [`write_type_sections`] names the type table of SDK `sdk`: `hk2018_1.types`.
pub fn type_section_file(sdk: &str) -> String {
    format!("{}.types", module_name(sdk))
}

/// Writes `OUT/<module>.types` for every SDK of `sdks`: the type table rebuilt from the snapshot
/// `schemas/<sdk>/` ([`crate::schema::rebuild::to_table`]) as a tagfile `TYPE` section
/// ([`hktypes::tagfile::type_writer::write`] in the SDK's style), which the root crate embeds so
/// that a document made from nothing has its SDK's types without `hkgen`
/// (`hkclasses::tagfile_types_for_sdk`). An SDK without a snapshot gets an empty file. Returns the
/// number of types written per SDK (`None`: no snapshot). Files whose contents do not change are
/// left alone.
pub fn write_type_sections(schemas: &Path, out: &Path, sdks: &[&str]) -> Result<Vec<Generated>, Error> {
    let mut done = Vec::new();
    for sdk in sdks {
        let path = out.join(type_section_file(sdk));
        let dir = schemas.join(sdk);
        let (bytes, types) = if dir.join("sdk.ron").is_file() {
            let schema = snapshot::read(&dir)?;
            let (table, _) = crate::schema::rebuild::to_table(&schema)?;
            let style = hktypes::tagfile::type_writer::Style::for_sdk(&schema.sdkv);
            (hktypes::tagfile::type_writer::write(&table, style), Some(schema.types.len()))
        } else {
            (Vec::new(), None)
        };
        if fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            fs::write(&path, bytes).map_err(|e| Error::io(&path, e))?;
        }
        done.push(Generated { sdk: sdk.to_string(), path, types });
    }
    Ok(done)
}

/// Writes `OUT/<module>.rs` for every packfile SDK of `sdks` from the class schema
/// `schemas/<sdk>/classes/` (an SDK without one gets a module with an empty `CLASSES`). `types`
/// of each [`Generated`] counts the classes that got a struct. Files whose contents do not
/// change are left alone.
pub fn generate_packfile_sdks(config: &Config, schemas: &Path, out: &Path, sdks: &[&str]) -> Result<Vec<Generated>, Error> {
    let mut done = Vec::new();
    for sdk in sdks {
        let path = out.join(format!("{}.rs", module_name(sdk)));
        let (text, types) = if packfile::has_schema(schemas, sdk) {
            let schema = packfile::read_schema(schemas, sdk)?;
            let (n, skipped) = packfile::coverage(&schema);
            let header = format!("SDK {sdk}: {n} classes with a struct, {skipped} without (their signature does not recompute).");
            (config.clone().header(&header).render_packfile(&schema)?, Some(n))
        } else {
            let krate = &config.krate;
            let text = format!(
                "// @generated by hkgen::codegen: no class schema for SDK {sdk}.\n{}\n",
                quote!(
                    pub const SDK: &str = #sdk;
                    pub static CLASSES: &[#krate::value::ClassEntry] = &[];
                    pub static SCHEMA: #krate::packfile::layout::StaticClassSet =
                        #krate::packfile::layout::StaticClassSet { sdk: #sdk, classes: &[], enums: &[] };
                )
            );
            (text, None)
        };
        if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
        }
        done.push(Generated { sdk: sdk.to_string(), path, types });
    }
    Ok(done)
}

/// Writes `OUT/<module>.pyi`, the Python type stubs of [`stubs`], for every SDK of `sdks`: a
/// tagfile SDK's from the snapshot `schemas/<sdk>/` and the overlay `schemas/enums.ron`, a packfile
/// SDK's from its class schema `schemas/<sdk>/classes/`, and beside each its run-time twin
/// `OUT/<module>.py` ([`stubs::runtime_module`]). Files whose contents do not change are left
/// alone. Returns the paths, the `.pyi` then the `.py` of each SDK.
pub fn generate_stubs(schemas: &Path, out: &Path, sdks: &[&str]) -> Result<Vec<PathBuf>, Error> {
    let overlay = overlay::Overlay::read(&schemas.join(OVERLAY))?;
    fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let mut done = Vec::new();
    for sdk in sdks {
        let dir = schemas.join(sdk);
        let text = if dir.join("sdk.ron").is_file() || !packfile::has_schema(schemas, sdk) {
            stubs::render(&snapshot::read(&dir)?, &overlay)?
        } else {
            stubs::render_packfile(&packfile::read_schema(schemas, sdk)?).map_err(|e| e.for_sdk(sdk))?
        };
        let path = out.join(format!("{}.pyi", module_name(sdk)));
        if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
        }
        done.push(path);
        // Its run-time twin, which executes the stubs (`from hkgen.classes import <module>`).
        let runtime = stubs::runtime_module(&module_name(sdk));
        let path = out.join(format!("{}.py", module_name(sdk)));
        if fs::read_to_string(&path).ok().as_deref() != Some(runtime.as_str()) {
            fs::write(&path, runtime).map_err(|e| Error::io(&path, e))?;
        }
        done.push(path);
    }
    Ok(done)
}
