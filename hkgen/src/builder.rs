//! Typed classes for your own files from a build script, in the style of `prost-build`.
//!
//! `hkgen extract --out DIR FILES...` writes a schema snapshot per SDK version it finds
//! (`DIR/<sdk>/sdk.ron` and `DIR/<sdk>/types/*.ron`) and the enumeration overlay `DIR/enums.ron`.
//! A [`Builder`] in `build.rs` turns one snapshot, or the classes of it you select, into a Rust
//! file in `OUT_DIR` that your crate includes:
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     hkgen::Builder::new()
//!         .schemas("schemas/2018.1")
//!         .classes(["hknpRagdollData", "hka*"])
//!         .generate()?; // writes $OUT_DIR/hk2018_1.rs
//!     Ok(())
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs
//! #[allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
//! pub mod havok {
//!     include!(concat!(env!("OUT_DIR"), "/hk2018_1.rs"));
//! }
//! ```
//!
//! The crate then depends on `hktypes` (the runtime the generated code names), and `build.rs` on
//! `hkgen` with `default-features = false` (the code generator alone, without the CLI's
//! dependencies).
//!
//! # What gets generated
//!
//! The selected classes (globs over Havok class names, [`Builder::classes`]) and everything their
//! values hold: base classes, the types of members, array elements, enumerations. Classes that a
//! selected class only points to are generated too unless [`Builder::follow_pointers`] is off or
//! they are [excluded](Builder::exclude); such a pointer is then a `Ptr<Unknown>`, and
//! `hktypes::graph::TagfileDocument` reads its target as a dynamic object. A class that a selected one
//! holds by value cannot be left out: excluding it is an error that names it
//! ([`BuildError::NeedsExcluded`]), as is a referenced type the snapshot lacks
//! ([`BuildError::Missing`]). So the generated file always compiles on its own.
//!
//! Rust names are assigned over the generated types only: a name that the whole SDK would
//! disambiguate with a hash suffix (two layouts under one Havok name) may be plain in a subset.

use crate::codegen::{self, overlay::Overlay, Config};
use crate::schema::{model::Arg, snapshot, Schema, Type};
use hktypes::reflect::{Kind, TypeFormat};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};

/// What can go wrong in [`Builder::generate`]. Its `Debug` is its message, so that a build
/// script's `.unwrap()` or `?` prints the message rather than the variant's fields.
#[derive(thiserror::Error)]
pub enum BuildError {
    /// The schemas path holds no `sdk.ron`; `found` lists the SDK snapshots under it, if any.
    #[error("{}: no schema snapshot (sdk.ron) here{}", path.display(), found_list(found))]
    NoSnapshot {
        /// The path given to [`Builder::schemas`].
        path: PathBuf,
        /// Snapshot directories found directly under it (give one of them instead).
        found: Vec<PathBuf>,
    },
    /// [`Builder::schemas`] was not called.
    #[error("no schema snapshot given: call Builder::schemas(\"DIR/<sdk>\") with a directory `hkgen extract --out DIR` wrote")]
    NoSchemas,
    /// A class glob matched no class of the snapshot.
    #[error("class pattern {pattern:?} matches no class of SDK {sdk}{}", suggest(similar))]
    NoMatch {
        /// The glob.
        pattern: String,
        /// The snapshot's SDK version.
        sdk: String,
        /// Up to five class names that share the pattern's leading characters.
        similar: Vec<String>,
    },
    /// Excluded classes that a selected class holds by value (as its base, a member, or an array
    /// element), so that the selection would not compile without them.
    #[error("excluded classes are needed by value: {}", needs_list(.0))]
    NeedsExcluded(Vec<Need>),
    /// Types that the selection needs and the snapshot does not hold (an incomplete or
    /// hand-edited snapshot).
    #[error("types missing from the snapshot: {}", needs_list(.0))]
    Missing(Vec<Need>),
    /// Neither [`Builder::out_file`] nor [`Builder::out_dir`] was given and `OUT_DIR` is not set
    /// (the builder is not running in a build script).
    #[error("no output path: call out_file or out_dir, or run from a build script (OUT_DIR unset)")]
    NoOutput,
    /// [`Builder::runtime_crate`] was given something that is not a Rust path.
    #[error("runtime crate path {0:?} is not a Rust path")]
    RuntimeCrate(String),
    /// Reading the snapshot or the overlay, generating or writing the code failed.
    #[error(transparent)]
    Hkgen(#[from] crate::error::Error),
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn found_list(found: &[PathBuf]) -> String {
    if found.is_empty() {
        return "; run `hkgen extract --out DIR FILES...` and point schemas at DIR/<sdk>".into();
    }
    let list: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
    format!("; snapshots under it: {}", list.join(", "))
}

fn suggest(similar: &[String]) -> String {
    if similar.is_empty() {
        String::new()
    } else {
        format!(" (classes with that start: {})", similar.join(", "))
    }
}

fn needs_list(needs: &[Need]) -> String {
    needs.iter().map(|n| n.to_string()).collect::<Vec<_>>().join("; ")
}

/// A type that one generated type needs: `ty` is needed by `by` as `how`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// The key of the needed type.
    pub ty: String,
    /// The key of the type that needs it.
    pub by: String,
    /// How: `base`, `member <name>`, `element`, `enumeration`.
    pub how: String,
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} of {})", self.ty, self.how, self.by)
    }
}

/// What [`Builder::generate`] wrote.
#[derive(Clone, Debug)]
pub struct Report {
    /// The SDK version of the snapshot (`2018.1`).
    pub sdk: String,
    /// The file written (left untouched when its contents did not change).
    pub path: PathBuf,
    /// The keys of the classes generated as structs, sorted.
    pub classes: Vec<String>,
    /// Number of schema types the generated code was built from (classes, typedefs, arrays,
    /// pointers, enumerations...).
    pub types: usize,
}

/// Generates typed classes from a schema snapshot; see the [module documentation](self).
///
/// Every option has a default but [`schemas`](Self::schemas). Paths are relative to the current
/// directory, which for a build script is the package root.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let schemas = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/2018.1");
/// let out = std::env::temp_dir().join(format!("hkgen-doctest-{}.rs", std::process::id()));
/// let report = hkgen::Builder::new()
///     .schemas(schemas)
///     .classes(["hknpBodyCinfo"])
///     .out_file(&out)
///     .cargo_metadata(false)
///     .generate()?;
/// assert_eq!(report.sdk, "2018.1");
/// // The class, and what it holds by value: hkVector4f maps to the runtime's Vector4, the
/// // quaternion too, so the rest is hknpBodyCinfo's own members.
/// assert!(report.classes.iter().any(|c| c == "hknpBodyCinfo"));
/// let code = std::fs::read_to_string(&out)?;
/// assert!(code.contains("pub struct hknpBodyCinfo"));
/// assert!(!code.contains("pub struct hknpWorldCinfo"));
/// # std::fs::remove_file(&out)?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    schemas: Option<PathBuf>,
    include: Vec<String>,
    exclude: Vec<String>,
    follow_pointers: bool,
    out: Option<Out>,
    runtime_crate: Option<String>,
    formatted: bool,
    enums_file: EnumsFile,
    enum_items: Vec<(String, Vec<(String, i64)>)>,
    member_enums: Vec<(String, String, String)>,
    header: Option<String>,
    module: Option<String>,
    cargo_metadata: Option<bool>,
}

#[derive(Clone, Debug)]
enum Out {
    File(PathBuf),
    Dir(PathBuf),
}

#[derive(Clone, Debug)]
enum EnumsFile {
    /// `<schemas>/../enums.ron` when it exists.
    Beside,
    Path(PathBuf),
    None,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            schemas: None,
            include: Vec::new(),
            exclude: Vec::new(),
            follow_pointers: true,
            out: None,
            runtime_crate: None,
            formatted: true,
            enums_file: EnumsFile::Beside,
            enum_items: Vec::new(),
            member_enums: Vec::new(),
            header: None,
            module: None,
            cargo_metadata: None,
        }
    }
}

impl Builder {
    /// A builder with the defaults: every class, pointers followed, output to
    /// `$OUT_DIR/<module>.rs`, runtime `::hktypes`, formatted, the overlay beside the snapshot,
    /// `cargo:` lines when run by cargo.
    pub fn new() -> Self {
        Self::default()
    }

    /// The snapshot of one SDK version: the `DIR/<sdk>` directory (holding `sdk.ron` and
    /// `types/`) that `hkgen extract --out DIR` wrote, or one under this repository's `schemas/`.
    /// Required.
    pub fn schemas(mut self, dir: impl AsRef<Path>) -> Self {
        self.schemas = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Selects classes by Havok name (the full name, template arguments and nesting included:
    /// `hkaSkeleton`, `hknpShape`, `hkaSkeleton::Partition`). A pattern is a glob: `*` matches any
    /// run of characters, `?` one character; `hknp*` selects every class whose name starts with
    /// `hknp`. Calls add up. Without any, every class of the snapshot is generated. A pattern that
    /// matches nothing is an error ([`BuildError::NoMatch`]), so a typo does not go unnoticed.
    pub fn classes<I, S>(mut self, patterns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.include.extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Leaves out classes matching these globs (as in [`classes`](Self::classes)), even when a
    /// selected class points to them: such pointers become `Ptr<Unknown>`. Excluding a class that
    /// a generated class holds by value is an error ([`BuildError::NeedsExcluded`]). Calls add up.
    pub fn exclude<I, S>(mut self, patterns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude.extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Whether classes that generated classes point to (`T*`, `hkRefPtr<T>`) are generated as
    /// well, and theirs, transitively (default `true`: pointers are typed, `Ptr<T>`). With
    /// `false`, only the selected classes and what they hold by value are generated, and a
    /// pointer to any other class is a `Ptr<Unknown>`, whose target `Document` reads as a dynamic
    /// object; much less code for a selection like `hknpShape`, whose pointers reach much of the
    /// SDK.
    pub fn follow_pointers(mut self, on: bool) -> Self {
        self.follow_pointers = on;
        self
    }

    /// Writes the code to this file (its directory must exist). Overrides
    /// [`out_dir`](Self::out_dir).
    pub fn out_file(mut self, path: impl AsRef<Path>) -> Self {
        self.out = Some(Out::File(path.as_ref().to_path_buf()));
        self
    }

    /// Writes the code to `DIR/<module>.rs`, `<module>` being the SDK's module name
    /// ([`codegen::module_name`]: `hk2018_1` for `2018.1`). Overrides
    /// [`out_file`](Self::out_file). Without either, `DIR` is `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out = Some(Out::Dir(dir.as_ref().to_path_buf()));
        self
    }

    /// The path under which the generated code names the runtime crate (default `::hktypes`):
    /// `::my_crate::hktypes` when your crate re-exports it and its users should not need the
    /// dependency. Checked by [`generate`](Self::generate) ([`BuildError::RuntimeCrate`]).
    pub fn runtime_crate(mut self, path: &str) -> Self {
        self.runtime_crate = Some(path.to_owned());
        self
    }

    /// Whether the code is pretty-printed (default `true`), which needs hkgen's `pretty` feature
    /// (on by default; with `default-features = false` add `features = ["pretty"]`). Without the
    /// feature, or with `false`, the same code is written one item per line, which is faster and
    /// enough for code nobody reads.
    pub fn formatted(mut self, on: bool) -> Self {
        self.formatted = on;
        self
    }

    /// The enumeration overlay (`enums.ron`, item names of enumerations and the members stored as
    /// bare integers that are enumerations) to apply. Default: `enums.ron` beside the snapshot
    /// directory (`DIR/enums.ron` for `DIR/<sdk>`, where `hkgen extract` writes it) when it
    /// exists. A path given here must exist.
    pub fn enums_file(mut self, path: impl AsRef<Path>) -> Self {
        self.enums_file = EnumsFile::Path(path.as_ref().to_path_buf());
        self
    }

    /// Applies no overlay file (the items of [`enum_items`](Self::enum_items) and
    /// [`member_enum`](Self::member_enum) still apply): enumerations get no item names, and
    /// members stored as integers stay integers.
    pub fn no_enums_file(mut self) -> Self {
        self.enums_file = EnumsFile::None;
        self
    }

    /// Names for the items of enumeration `key` (`hknpMotionType::Enum`), added to the overlay's:
    /// each becomes a constant of the generated enumeration type, and `Enum::name` finds it.
    pub fn enum_items<I, S>(mut self, key: &str, items: I) -> Self
    where
        I: IntoIterator<Item = (S, i64)>,
        S: Into<String>,
    {
        self.enum_items.push((key.to_owned(), items.into_iter().map(|(n, v)| (n.into(), v)).collect()));
        self
    }

    /// Types member `field` of class `class` (Havok names: `hknpBodyCinfo`, `motionType`) as
    /// enumeration `key` where the type table stores a bare integer, as the overlay's `members`
    /// do. The stored integer is kept: the member becomes `Enum<Key, u8>` for a `u8`.
    pub fn member_enum(mut self, class: &str, field: &str, key: &str) -> Self {
        self.member_enums.push((class.to_owned(), field.to_owned(), key.to_owned()));
        self
    }

    /// Text for the comment lines after the file's `@generated` line (default: the SDK, the
    /// snapshot path and the selection).
    pub fn header(mut self, text: &str) -> Self {
        self.header = Some(text.to_owned());
        self
    }

    /// Wraps the items in `pub mod NAME { ... }` with the lint allowances Havok names need
    /// (`non_camel_case_types`, ...), so that the file can be `include!`d at the top of a module
    /// as it is. Without it (the default) the file holds bare items, to `include!` inside a module
    /// of your own.
    pub fn module(mut self, name: &str) -> Self {
        self.module = Some(name.to_owned());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` lines for the snapshot and the overlay, so that
    /// cargo runs the build script again exactly when they change. Default: when running as a build
    /// script (cargo sets `OUT_DIR` and `TARGET`).
    pub fn cargo_metadata(mut self, on: bool) -> Self {
        self.cargo_metadata = Some(on);
        self
    }

    /// Reads the snapshot, selects the classes, writes the code.
    pub fn generate(&self) -> Result<Report, BuildError> {
        let dir = self.schemas.as_deref().ok_or(BuildError::NoSchemas)?;
        if !dir.join("sdk.ron").is_file() {
            let found = snapshot::list(dir).unwrap_or_default();
            return Err(BuildError::NoSnapshot { path: dir.to_path_buf(), found });
        }
        let cargo = self
            .cargo_metadata
            .unwrap_or_else(|| std::env::var_os("OUT_DIR").is_some() && std::env::var_os("TARGET").is_some());
        if cargo {
            // Cargo scans a directory recursively.
            println!("cargo:rerun-if-changed={}", dir.display());
        }
        let schema = snapshot::read(dir)?;
        let subset = self.select(&schema)?;

        let mut config = Config::new().formatted(self.formatted);
        if let Some(path) = &self.runtime_crate {
            config = config.runtime_crate(path).map_err(|_| BuildError::RuntimeCrate(path.clone()))?;
        }
        let overlay_path = match &self.enums_file {
            EnumsFile::Beside => dir.parent().map(|p| p.join(codegen::OVERLAY)).filter(|p| p.is_file()),
            EnumsFile::Path(p) => {
                if !p.is_file() {
                    return Err(crate::error::Error::Io { path: p.display().to_string(), message: "enumeration overlay not found".into() }.into());
                }
                Some(p.clone())
            }
            EnumsFile::None => None,
        };
        if let Some(p) = &overlay_path {
            if cargo {
                println!("cargo:rerun-if-changed={}", p.display());
            }
            config = Overlay::read(p)?.apply(config, &schema.sdk);
        }
        for (key, items) in &self.enum_items {
            config = config.enum_items(key, items.iter().cloned());
        }
        for (class, field, key) in &self.member_enums {
            config = config.member_enum(class, field, key);
        }
        let header = match &self.header {
            Some(h) => h.clone(),
            None => {
                let sel = if self.include.is_empty() { "every class".to_owned() } else { self.include.join(", ") };
                let ex = if self.exclude.is_empty() { String::new() } else { format!(" but {}", self.exclude.join(", ")) };
                format!("SDK {} from {}: {sel}{ex}; {} types.", schema.sdk, dir.display(), subset.types.len())
            }
        };
        let mut text = config.header(&header).render(&subset)?;
        if let Some(name) = &self.module {
            let body: String = text.lines().map(|l| format!("    {l}\n")).collect();
            text = format!(
                "#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code, clippy::all)]\npub mod {name} {{\n{body}}}\n"
            );
        }

        let path = match &self.out {
            Some(Out::File(p)) => p.clone(),
            Some(Out::Dir(d)) => d.join(format!("{}.rs", codegen::module_name(&schema.sdk))),
            None => {
                let d = std::env::var_os("OUT_DIR").ok_or(BuildError::NoOutput)?;
                PathBuf::from(d).join(format!("{}.rs", codegen::module_name(&schema.sdk)))
            }
        };
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, &text).map_err(|e| crate::error::Error::io(&path, e))?;
        }
        let classes = subset.types.values().filter(|t| is_class(t)).map(|t| t.key.clone()).collect();
        Ok(Report { sdk: schema.sdk.clone(), path, classes, types: subset.types.len() })
    }

    /// The part of `schema` that the selection needs: see the module documentation.
    pub fn select(&self, schema: &Schema) -> Result<Schema, BuildError> {
        let excluded = |t: &Type| is_class(t) && self.exclude.iter().any(|p| glob(p, t.full_name()));
        let mut roots: BTreeSet<&str> = BTreeSet::new();
        if self.include.is_empty() {
            roots.extend(schema.types.values().filter(|t| is_class(t) && !excluded(t)).map(|t| t.key.as_str()));
        } else {
            for p in &self.include {
                let hits: Vec<&str> =
                    schema.types.values().filter(|t| is_class(t) && glob(p, t.full_name())).map(|t| t.key.as_str()).collect();
                if hits.is_empty() {
                    return Err(BuildError::NoMatch { pattern: p.clone(), sdk: schema.sdk.clone(), similar: similar(schema, p) });
                }
                roots.extend(hits.into_iter().filter(|k| !excluded(&schema.types[*k])));
            }
        }

        let mut keep: BTreeSet<&str> = BTreeSet::new();
        let mut queue: VecDeque<&str> = roots.iter().copied().collect();
        let (mut missing, mut needs_excluded) = (Vec::new(), Vec::new());
        while let Some(key) = queue.pop_front() {
            if !keep.insert(key) {
                continue;
            }
            let t = &schema.types[key];
            for (dep, how) in deps(t) {
                let Some(d) = schema.types.get(dep) else {
                    // Enumerations are named by hkEnum without a record of their own, and a
                    // pointer to a type the snapshot lacks is a pointer to Unknown.
                    if !matches!(how, How::Enumeration | How::Pointee) {
                        missing.push(need(dep, key, &how));
                    }
                    continue;
                };
                match how {
                    How::Pointee if is_class(d) && (excluded(d) || !self.follow_pointers) => {}
                    _ if excluded(d) => needs_excluded.push(need(dep, key, &how)),
                    _ => queue.push_back(d.key.as_str()),
                }
            }
        }
        if !needs_excluded.is_empty() {
            return Err(BuildError::NeedsExcluded(needs_excluded));
        }
        if !missing.is_empty() {
            return Err(BuildError::Missing(missing));
        }
        let mut out = Schema { types: BTreeMap::new(), ..schema.clone() };
        out.variants.retain(|_, keys| keys.iter().any(|k| keep.contains(k.as_str())));
        for k in keep {
            out.types.insert(k.to_owned(), schema.types[k].clone());
        }
        Ok(out)
    }
}

enum How<'a> {
    Base,
    Member(&'a str),
    Element,
    Enumeration,
    Pointee,
}

fn need(ty: &str, by: &str, how: &How<'_>) -> Need {
    let how = match how {
        How::Base => "base".to_owned(),
        How::Member(m) => format!("member {m}"),
        How::Element => "element".to_owned(),
        How::Enumeration => "enumeration".to_owned(),
        How::Pointee => "pointee".to_owned(),
    };
    Need { ty: ty.to_owned(), by: by.to_owned(), how }
}

/// The types the generated code of `t` names. Template arguments other than an `hkEnum`'s or
/// `hkFlags`'s are not among them (the code generator maps `hkArray<T, A>` by its element type
/// and never names the allocator `A`), nor are interfaces.
fn deps(t: &Type) -> Vec<(&str, How<'_>)> {
    let mut out = Vec::new();
    if let Some(p) = &t.parent {
        out.push((p.as_str(), How::Base));
    }
    for f in t.fields.iter().flatten() {
        out.push((f.ty.as_str(), How::Member(&f.name)));
    }
    if let Some(s) = &t.subtype {
        let pointer = t.format.is_some_and(|f| TypeFormat(f.0).kind() == Kind::Pointer);
        out.push((s.as_str(), if pointer { How::Pointee } else { How::Element }));
    }
    if t.name == "hkEnum" || t.name == "hkFlags" {
        for p in &t.params {
            if let Arg::Type(k) = &p.arg {
                let how = if p.name == "tSTORAGE" { How::Element } else { How::Enumeration };
                out.push((k.as_str(), how));
            }
        }
    }
    // An empty key is a reference to no type (index 0 of a type table).
    out.retain(|(k, _)| !k.is_empty());
    out
}

/// A record with a layout: what the code generator makes a struct of (or a well-known runtime
/// type), and what class globs select.
fn is_class(t: &Type) -> bool {
    t.size.is_some() && t.format.is_some_and(|f| TypeFormat(f.0).kind() == Kind::Record)
}

fn similar(schema: &Schema, pattern: &str) -> Vec<String> {
    let lead: String = pattern.chars().take_while(|c| !matches!(c, '*' | '?')).collect::<String>().to_lowercase();
    let classes: Vec<&str> = schema.types.values().filter(|t| is_class(t)).map(|t| t.full_name()).collect();
    // The longest leading part of the pattern (three characters at least) that some class starts with.
    let mut n = lead.len();
    while n >= 3 {
        if lead.is_char_boundary(n) {
            let prefix = &lead[..n];
            let mut out: Vec<String> = Vec::new();
            for c in &classes {
                if c.to_lowercase().starts_with(prefix) && !out.iter().any(|o| o == c) && out.len() < 5 {
                    out.push(c.to_string());
                }
            }
            if !out.is_empty() {
                return out;
            }
        }
        n -= 1;
    }
    Vec::new()
}

/// Whether `text` matches the glob `pattern` (`*` any run, `?` one character).
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("hknp*", "hknpBodyCinfo"));
        assert!(glob("*", ""));
        assert!(glob("hk?Skeleton", "hkaSkeleton"));
        assert!(glob("hka*::Partition", "hkaSkeleton::Partition"));
        assert!(!glob("hknp*", "hkaSkeleton"));
        assert!(!glob("hknpBodyCinfo", "hknpBodyCinfoX"));
        assert!(glob("*Cinfo", "hknpBodyCinfo"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxbyy"));
    }
}
