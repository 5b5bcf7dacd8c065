//! `hkgen._native`: the Python classes over [`backend`]. The package `hkgen` (python/hkgen/)
//! re-exports them; see its docstring for the API.

mod backend;
mod convert;

use backend::{Failure, Loc, Name, NewVal, SetError, Val};
use pyo3::create_exception;
use pyo3::exceptions::{PyAttributeError, PyException, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

create_exception!(
    hkgen,
    HavokError,
    PyException,
    "A Havok file could not be read or written. Attributes: layer, offset, section, path."
);
create_exception!(
    hkgen,
    ContainerError,
    HavokError,
    "Section framing, a packfile's header or tables."
);
create_exception!(
    hkgen,
    TypeTableError,
    HavokError,
    "A TYPE section: strings, names, bodies, hashes."
);
create_exception!(
    hkgen,
    ItemsError,
    HavokError,
    "The item and patch tables, a packfile's fixups."
);
create_exception!(
    hkgen,
    ValuesError,
    HavokError,
    "Member values read through a class or the file's type table."
);
create_exception!(
    hkgen,
    WriteError,
    HavokError,
    "Laying out and writing a file."
);
create_exception!(
    hkgen,
    FormatError,
    HavokError,
    "Not a file the package reads (or one it does not read yet)."
);

fn havok_error(py: Python<'_>, f: Failure) -> PyErr {
    let err = match f.layer {
        "container" => ContainerError::new_err(f.message),
        "type_table" => TypeTableError::new_err(f.message),
        "items" => ItemsError::new_err(f.message),
        "values" => ValuesError::new_err(f.message),
        "writer" => WriteError::new_err(f.message),
        _ => FormatError::new_err(f.message),
    };
    let v = err.value(py);
    // Setting attributes on a fresh exception instance does not fail.
    let _ = v.setattr("layer", f.layer);
    let _ = v.setattr("offset", f.offset);
    let _ = v.setattr("section", f.section);
    let _ = v.setattr("path", f.path.join("."));
    err
}

/// An open Havok file: `hkgen.open(...)`.
#[pyclass(module = "hkgen", unsendable)]
struct Document {
    inner: backend::OpenDoc,
    /// The `IntEnum` class of each Havok enumeration met (None: items not known).
    enums: HashMap<Name, Option<PyObject>>,
    /// Each enumeration value met, as Python holds it (the `IntEnum` member, or the plain int
    /// when no item has that value), by the address of the enumeration's name (kept alive in
    /// the entry, so that the address is not reused) and the value.
    enum_values: HashMap<(usize, i64), (Name, PyObject), ByAddress>,
    /// Member names as Python strings, interned: made once per name, not once per read; by the
    /// address of the backend's name, kept alive in the entry.
    keys: HashMap<usize, (Name, Py<PyString>), ByAddress>,
    /// Per assignment that had the tagfile written again by the writer's walk, the new item index
    /// of each old one: a record made before finds its item through them (see [`Record::at`]).
    renumberings: Vec<Vec<u32>>,
}

impl Document {
    fn key(&mut self, py: Python<'_>, name: &Name) -> Py<PyString> {
        let (_, key) = self
            .keys
            .entry(address(name))
            .or_insert_with(|| (Name::clone(name), PyString::intern(py, name).unbind()));
        key.clone_ref(py)
    }

    /// Value `value` of enumeration `name` as Python holds it.
    fn enum_value(&mut self, py: Python<'_>, name: &Name, value: i64) -> PyResult<PyObject> {
        if let Some((_, v)) = self.enum_values.get(&(address(name), value)) {
            return Ok(v.clone_ref(py));
        }
        let class = match self.enums.get(name) {
            Some(c) => c.as_ref().map(|c| c.clone_ref(py)),
            None => {
                let class = match self.inner.enum_items(name) {
                    Some(items) => Some(
                        py.import("hkgen._support")?
                            .getattr("enum_class")?
                            .call1((&**name, items))?
                            .unbind(),
                    ),
                    None => None,
                };
                self.enums
                    .insert(Name::clone(name), class.as_ref().map(|c| c.clone_ref(py)));
                class
            }
        };
        // A value no item has (a flags combination) stays a plain int.
        let v = match class.map(|c| c.call1(py, (value,))) {
            Some(Ok(v)) => v,
            _ => value.into_pyobject(py)?.into_any().unbind(),
        };
        self.enum_values
            .insert((address(name), value), (Name::clone(name), v.clone_ref(py)));
        Ok(v)
    }
}

/// The address of a shared name: a map key that is hashed without reading the text.
fn address(name: &Name) -> usize {
    Name::as_ptr(name).cast::<u8>() as usize
}

/// A hasher for keys that are addresses (and small integers): a rotate and a multiply, much
/// cheaper than the default SipHash, which a per-member lookup would pay on every read.
#[derive(Clone, Copy, Default)]
struct ByAddress;

impl std::hash::BuildHasher for ByAddress {
    type Hasher = AddressHasher;
    fn build_hasher(&self) -> AddressHasher {
        AddressHasher(0)
    }
}

struct AddressHasher(u64);

impl std::hash::Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// Where a record is, for messages (`hknpRagdollData#5.bodyCinfos[0]`): built only when asked
/// for, from nodes its parent and siblings share.
struct PathNode {
    parent: Option<Rc<PathNode>>,
    seg: Seg,
}

/// One step of a [`PathNode`].
enum Seg {
    /// An object: its class and handle.
    Object(Name, u32),
    /// A member.
    Member(Name),
    /// An element of an array.
    Elem(usize),
}

impl std::fmt::Display for PathNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(p) = &self.parent {
            p.fmt(f)?;
        }
        match &self.seg {
            Seg::Object(class, h) => write!(f, "{class}#{h}"),
            Seg::Member(name) => write!(f, ".{name}"),
            Seg::Elem(i) => write!(f, "[{i}]"),
        }
    }
}

fn node(parent: &Rc<PathNode>, seg: Seg) -> Rc<PathNode> {
    Rc::new(PathNode {
        parent: Some(Rc::clone(parent)),
        seg,
    })
}

fn object(py: Python<'_>, doc: &Py<Document>, h: u32) -> PyResult<Option<Record>> {
    let d = doc.borrow(py);
    let (Some(loc), Some(class)) = (d.inner.object_loc(h), d.inner.class_name(h)) else {
        return Ok(None);
    };
    let class: Name = Name::from(class);
    Ok(Some(Record {
        doc: doc.clone_ref(py),
        loc,
        type_name: Name::clone(&class),
        path: Rc::new(PathNode {
            parent: None,
            seg: Seg::Object(class, h),
        }),
        handle: Some(h),
        epoch: d.renumberings.len(),
    }))
}

#[pymethods]
impl Document {
    /// The SDK version, `2018.1`.
    #[getter]
    fn sdk(&self) -> String {
        self.inner.sdk()
    }

    /// `tag0`, `tagfile_xml`, `packfile` or `packfile_xml`: the form read (written back in its
    /// binary form).
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.format()
    }

    /// The root object (`hkRootLevelContainer`), or None.
    #[getter]
    fn root(slf: &Bound<'_, Self>) -> PyResult<Option<Record>> {
        let root = slf.borrow().inner.root();
        match root {
            Some(h) => object(slf.py(), &slf.clone().unbind(), h),
            None => Ok(None),
        }
    }

    /// The objects, in file order. With `class_name`, those of that class or of a class derived
    /// from it (of that class alone when `exact`); a name that no class of the file or of any
    /// SDK has raises `KeyError` naming it and the closest names.
    #[pyo3(signature = (class_name=None, *, exact=false))]
    fn objects(
        slf: &Bound<'_, Self>,
        class_name: Option<&str>,
        exact: bool,
    ) -> PyResult<Vec<Record>> {
        let py = slf.py();
        let doc = slf.clone().unbind();
        let handles: Vec<u32> = {
            let d = slf.borrow();
            match class_name {
                None => d.inner.handles(),
                Some(c) => match d.inner.handles_of(c, exact) {
                    Some(h) => h,
                    None if backend::is_known_class(c) => Vec::new(),
                    None => {
                        let names: Vec<&str> = backend::CLASS_NAMES.lines().collect();
                        let close: Vec<String> = py
                            .import("difflib")?
                            .getattr("get_close_matches")?
                            .call1((c, names, 3, 0.7))?
                            .extract()?;
                        let hint = if close.is_empty() {
                            String::new()
                        } else {
                            format!("; did you mean {}?", close.join(", "))
                        };
                        return Err(PyKeyError::new_err(format!(
                            "no class {c} in this file or any SDK's schema{hint}"
                        )));
                    }
                },
            }
        };
        let mut out = Vec::with_capacity(handles.len());
        for h in handles {
            if let Some(o) = object(py, &doc, h)? {
                out.push(o);
            }
        }
        Ok(out)
    }

    /// The object of handle `handle`.
    fn object(slf: &Bound<'_, Self>, handle: u32) -> PyResult<Record> {
        object(slf.py(), &slf.clone().unbind(), handle)?
            .ok_or_else(|| PyKeyError::new_err(format!("no object #{handle}")))
    }

    /// The file written: a tagfile with its assignments (every other byte as read), a packfile laid
    /// out again from its objects.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.inner.to_bytes().map_err(|f| havok_error(py, f))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// This file as SDK `sdk`'s, a new Document (see `convert.rs`); `prefer` as `hkgen convert
    /// --prefer` (`"hkp"`: a 2014.1 ragdoll stays hkp).
    #[pyo3(signature = (sdk, format=None, *, layout=None, allow_loss=false, prefer=None))]
    fn convert(&self, py: Python<'_>, sdk: &str, format: Option<&str>, layout: Option<&str>, allow_loss: bool, prefer: Option<&str>) -> PyResult<Document> {
        let bytes = self.inner.to_bytes().map_err(|f| havok_error(py, f))?;
        convert::document(py, &bytes, sdk, format, layout, allow_loss, prefer)
    }

    /// Writes the file to `path`.
    fn write(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let bytes = self.inner.to_bytes().map_err(|f| havok_error(py, f))?;
        std::fs::write(&path, bytes).map_err(|e| os_error(&path, e))?;
        Ok(())
    }

    /// The `enum.IntEnum` class of Havok enumeration `name` (`hknpMotionType::Enum`), or None
    /// when its items are not known for this file's SDK.
    fn enum_class<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner.enum_items(name) {
            Some(items) => Ok(Some(
                py.import("hkgen._support")?
                    .getattr("enum_class")?
                    .call1((name, items))?,
            )),
            None => Ok(None),
        }
    }

    /// One `Animation` per animation object of the file (every codec; `hkaAnimation`'s
    /// subclasses), in handle order. Read again after `set_frames`: the objects returned before
    /// describe the file as it was.
    fn animations(slf: &Bound<'_, Self>) -> PyResult<Vec<Animation>> {
        let py = slf.py();
        let anims = slf.borrow().inner.animations().map_err(|f| havok_error(py, f))?;
        Ok(anims.into_iter().map(|inner| Animation { doc: slf.clone().unbind(), inner }).collect())
    }

    /// The file (with `others`: documents that hold the skeleton its animations play on) as a
    /// binary glTF 2.0 (`.glb` bytes): skeletons, animations and shapes, as `hkgen gltf export`
    /// writes them. `up` is `"y"` or `"z"` (Skyrim); `root_motion=False` leaves root motion out.
    #[pyo3(signature = (*others, up="y", root_motion=true, name=None))]
    fn to_gltf<'py>(
        slf: &Bound<'py, Self>,
        others: Vec<PyRef<'py, Document>>,
        up: &str,
        root_motion: bool,
        name: Option<String>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let py = slf.py();
        let me = slf.borrow();
        let mut docs: Vec<(&backend::OpenDoc, String)> = vec![(&me.inner, name.unwrap_or_else(|| "document".into()))];
        for (i, o) in others.iter().enumerate() {
            docs.push((&o.inner, format!("document{}", i + 1)));
        }
        let bytes = backend::gltf_export(&docs, &gltf_options(up, root_motion)?).map_err(|f| havok_error(py, f))?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn __repr__(&self) -> String {
        format!(
            "<hkgen.Document {} {} ({} objects)>",
            self.inner.format(),
            self.inner.sdk(),
            self.inner.handles().len()
        )
    }
}

/// An object or a nested record: members by Havok name, as attributes and as a read-only mapping.
/// Subclassable so that the classes of `hkgen.classes.<sdk>` derive from it at run time.
#[pyclass(module = "hkgen", unsendable, subclass)]
struct Record {
    doc: Py<Document>,
    loc: Loc,
    type_name: Name,
    /// `hknpRagdollData#5.bodyCinfos[0]`, for messages.
    path: Rc<PathNode>,
    /// The object's handle (None for a nested record).
    handle: Option<u32>,
    /// How many renumberings of the document's items there had been when the record was made.
    epoch: usize,
}

impl Record {
    /// Where the record is now, and its handle: an item index made before a renumbering of the
    /// document's items (an assignment of a tagfile's pointer, string or array) is followed
    /// through it.
    fn at(&self, py: Python<'_>) -> (std::borrow::Cow<'_, Loc>, Option<u32>) {
        self.at_in(&self.doc.borrow(py))
    }

    /// [`Record::at`] in document `d`, borrowed already.
    fn at_in(&self, d: &Document) -> (std::borrow::Cow<'_, Loc>, Option<u32>) {
        let later = d.renumberings.get(self.epoch..).unwrap_or_default();
        if later.is_empty() {
            return (std::borrow::Cow::Borrowed(&self.loc), self.handle);
        }
        let follow = |mut i: u32| {
            for map in later {
                i = map.get(i as usize).copied().unwrap_or(0);
            }
            i
        };
        let loc = match &self.loc {
            Loc::Tag { handle, ty, steps } => Loc::Tag {
                handle: follow(*handle),
                ty: *ty,
                steps: steps.clone(),
            },
            other => other.clone(),
        };
        (std::borrow::Cow::Owned(loc), self.handle.map(follow))
    }

    fn member(&self, py: Python<'_>, name: &str) -> PyResult<Option<PyObject>> {
        let (val, epoch) = {
            let d = self.doc.borrow(py);
            let (loc, _) = self.at_in(&d);
            let val = d.inner.get(&loc, name).map_err(|f| {
                havok_error(
                    py,
                    Failure {
                        path: vec![self.path.to_string(), name.to_owned()],
                        ..f
                    },
                )
            })?;
            (val, d.renumberings.len())
        };
        match val {
            Some(v) => Ok(Some(to_py(
                py,
                &self.doc,
                v,
                &self.path,
                Seg::Member(Name::from(name)),
                epoch,
            )?)),
            None => Ok(None),
        }
    }
}

/// `v` as a Python value; `parent` and `seg` name it in the member path a nested record keeps,
/// `epoch` is the document's count of renumberings (see [`Record::at`]).
fn to_py(
    py: Python<'_>,
    doc: &Py<Document>,
    v: Val,
    parent: &Rc<PathNode>,
    seg: Seg,
    epoch: usize,
) -> PyResult<PyObject> {
    Ok(match v {
        Val::None => py.None(),
        Val::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Val::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Val::UInt(u) => u.into_pyobject(py)?.into_any().unbind(),
        Val::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        Val::Str(s) => PyString::new(py, &s).into_any().unbind(),
        Val::Bytes(b) => PyBytes::new(py, &b).into_any().unbind(),
        Val::Enum { name, value } => doc.borrow_mut(py).enum_value(py, &name, value)?,
        Val::Floats(f, 0) => PyTuple::new(py, f)?.into_any().unbind(),
        Val::Floats(f, width) => {
            let rows: Vec<Bound<'_, PyTuple>> = f
                .chunks(width)
                .map(|r| PyTuple::new(py, r))
                .collect::<PyResult<_>>()?;
            PyTuple::new(py, rows)?.into_any().unbind()
        }
        Val::Object(h) => match object(py, doc, h)? {
            Some(o) => Py::new(py, o)?.into_any(),
            None => py.None(),
        },
        Val::List(items) => {
            let at = node(parent, seg);
            let mut out = Vec::with_capacity(items.len());
            for (i, v) in items.into_iter().enumerate() {
                out.push(to_py(py, doc, v, &at, Seg::Elem(i), epoch)?);
            }
            PyList::new(py, out)?.into_any().unbind()
        }
        Val::Numbers { format, bytes } => {
            let view = py
                .import("builtins")?
                .getattr("memoryview")?
                .call1((PyBytes::new(py, &bytes),))?;
            view.call_method1("cast", (format,))?.unbind()
        }
        Val::Record(loc, type_name) => Py::new(
            py,
            Record {
                doc: doc.clone_ref(py),
                loc,
                type_name,
                path: node(parent, seg),
                handle: None,
                epoch,
            },
        )?
        .into_any(),
    })
}

#[pymethods]
impl Record {
    /// The Havok class name (`hknpRagdollData`).
    #[getter]
    fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The object's handle (its item index in a tagfile, its index in a packfile), or None for a
    /// nested record.
    #[getter]
    fn handle(&self, py: Python<'_>) -> Option<u32> {
        self.at(py).1
    }

    /// The member path of this record (`hknpRagdollData#5.bodyCinfos[0]`).
    #[getter]
    fn path(&self) -> String {
        self.path.to_string()
    }

    /// The member names, ancestors' first.
    fn keys(&self, py: Python<'_>) -> Vec<String> {
        let (loc, _) = self.at(py);
        self.doc.borrow(py).inner.keys(&loc)
    }

    /// (name, value) pairs of every member.
    fn items(&self, py: Python<'_>) -> PyResult<Vec<(Py<PyString>, PyObject)>> {
        // One borrow of the document for the values and their names.
        let (vals, keys, epoch) = {
            let mut d = self.doc.borrow_mut(py);
            let (loc, _) = self.at_in(&d);
            let vals = d.inner.get_all(&loc).map_err(|f| {
                havok_error(
                    py,
                    Failure {
                        path: vec![self.path.to_string()],
                        ..f
                    },
                )
            })?;
            drop(loc);
            let keys: Vec<Py<PyString>> = vals.iter().map(|(k, _)| d.key(py, k)).collect();
            (vals, keys, d.renumberings.len())
        };
        let mut out = Vec::with_capacity(vals.len());
        for ((k, v), key) in vals.into_iter().zip(keys) {
            let v = to_py(py, &self.doc, v, &self.path, Seg::Member(k), epoch)?;
            out.push((key, v));
        }
        Ok(out)
    }

    /// Every member as plain data that `json.dumps` takes, recursively: nested records as dicts,
    /// arrays as lists (number arrays too), vectors and matrices as lists of floats (rows as
    /// lists), enumeration values as their ints, bytes no type describes as a hex string, and a
    /// pointer as `{"$ref": handle, "$class": class name}` (None when null): objects are not
    /// copied into the objects that point at them (`doc.object(handle).to_dict()` gives one).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (loc, _) = self.at(py);
        let loc = loc.into_owned();
        let d = self.doc.borrow(py);
        plain_record(py, &d, &loc, &self.path.to_string(), 0)
    }

    /// Member `name` as a numpy array: numbers of shape (n,), vectors and quaternions of shape
    /// (n, 4) (float32), matrices (n, rows, columns), one vector (4,). A tagfile's variable array
    /// is a read-only view of the packed numbers its member holds (it keeps them after an
    /// assignment); a packfile's, or a fixed array, is a copy. Assign an array back to change the
    /// member: `rec.name = arr`. `TypeError` for a member that is not numbers or vectors;
    /// `ImportError` without numpy.
    fn array<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        // A tagfile's run of numbers or vectors: a read-only view of its packed numbers, shaped.
        let run = {
            let d = self.doc.borrow(py);
            let (loc, _) = self.at_in(&d);
            d.inner.number_run(&loc, name)
        };
        if let Some(run) = run {
            let mut shape = vec![run.count];
            shape.extend(&run.shape);
            let view = py
                .import("builtins")?
                .getattr("memoryview")?
                .call1((PyBytes::new(py, &run.bytes),))?
                .call_method1("cast", (run.format, shape))?;
            return py.import("numpy")?.getattr("asarray")?.call1((view,));
        }
        let v = self.member(py, name)?.ok_or_else(|| {
            PyAttributeError::new_err(format!(
                "{} ({}) has no member {name}",
                self.path, self.type_name
            ))
        })?;
        py.import("hkgen._support")?
            .getattr("to_array")?
            .call1((v, format!("{}.{name}", self.path)))
    }

    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        self.member(py, name)?.ok_or_else(|| {
            PyAttributeError::new_err(format!(
                "{} ({}) has no member {name}",
                self.path, self.type_name
            ))
        })
    }

    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        self.member(py, name)?
            .ok_or_else(|| PyKeyError::new_err(name.to_owned()))
    }

    fn __contains__(&self, py: Python<'_>, name: &str) -> bool {
        self.keys(py).iter().any(|k| k == name)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(PyList::new(py, self.keys(py))?
            .call_method0("__iter__")?
            .unbind())
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.keys(py).len()
    }

    fn __setattr__(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let member_path = format!("{}.{name}", self.path);
        let new = new_val(value, &self.doc, &member_path, 0)?;
        let (loc, _) = self.at(py);
        let loc = loc.into_owned();
        let result = self.doc.borrow_mut(py).inner.set(&loc, name, new);
        match result {
            Ok(renumbered) => {
                let mut d = self.doc.borrow_mut(py);
                if let Some(map) = renumbered {
                    d.renumberings.push(map);
                }
                Ok(())
            }
            Err(SetError::Type(m)) => Err(PyTypeError::new_err(format!("{}.{m}", self.path))),
            Err(SetError::Range(m)) => Err(PyValueError::new_err(format!("{}.{m}", self.path))),
            Err(SetError::NoMember(m)) => Err(PyAttributeError::new_err(format!(
                "{} ({}) has no member {m}",
                self.path, self.type_name
            ))),
            Err(SetError::Havok(f)) => Err(havok_error(py, f)),
        }
    }

    fn __repr__(&self) -> String {
        format!("<{} {}>", self.type_name, self.path)
    }
}

/// The record at `loc` as a dict of plain data (see `Record.to_dict`); `path` names it in errors.
fn plain_record<'py>(
    py: Python<'py>,
    d: &Document,
    loc: &Loc,
    path: &str,
    depth: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let vals = d.inner.get_all(loc).map_err(|f| {
        havok_error(
            py,
            Failure {
                path: vec![path.to_owned()],
                ..f
            },
        )
    })?;
    let out = PyDict::new(py);
    for (k, v) in vals {
        out.set_item(&*k, plain(py, d, v, path, depth + 1)?)?;
    }
    Ok(out)
}

/// `v` as plain data (see `Record.to_dict`).
fn plain(py: Python<'_>, d: &Document, v: Val, path: &str, depth: usize) -> PyResult<PyObject> {
    if depth > 128 {
        return Err(PyValueError::new_err(format!(
            "{path}: records nested more than 128 deep"
        )));
    }
    Ok(match v {
        Val::None => py.None(),
        Val::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Val::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Val::UInt(u) => u.into_pyobject(py)?.into_any().unbind(),
        Val::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        Val::Str(s) => PyString::new(py, &s).into_any().unbind(),
        Val::Bytes(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            PyString::new(py, &hex).into_any().unbind()
        }
        Val::Enum { value, .. } => value.into_pyobject(py)?.into_any().unbind(),
        Val::Floats(f, 0) => PyList::new(py, f)?.into_any().unbind(),
        Val::Floats(f, width) => {
            let rows: Vec<Bound<'_, PyList>> = f
                .chunks(width)
                .map(|r| PyList::new(py, r))
                .collect::<PyResult<_>>()?;
            PyList::new(py, rows)?.into_any().unbind()
        }
        Val::Object(h) => {
            let r = PyDict::new(py);
            r.set_item("$ref", h)?;
            r.set_item("$class", d.inner.class_name(h))?;
            r.into_any().unbind()
        }
        Val::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for v in items {
                out.push(plain(py, d, v, path, depth + 1)?);
            }
            PyList::new(py, out)?.into_any().unbind()
        }
        Val::Numbers { format, bytes } => numbers_list(py, format, &bytes)?,
        Val::Record(loc, _) => plain_record(py, d, &loc, path, depth + 1)?
            .into_any()
            .unbind(),
    })
}

/// Little-endian elements of `struct` format `format` as a list of Python numbers.
fn numbers_list(py: Python<'_>, format: &str, b: &[u8]) -> PyResult<PyObject> {
    let view = py
        .import("builtins")?
        .getattr("memoryview")?
        .call1((PyBytes::new(py, b),))?;
    Ok(view
        .call_method1("cast", (format,))?
        .call_method0("tolist")?
        .unbind())
}

/// A Python value to assign, checked for what it can be: `None`, a bool, an int (an `IntEnum`
/// member included), a float, a str, an object of document `doc`, or a list, tuple or memoryview
/// of such values (nested up to 4 deep: a vector array's elements).
fn new_val(
    value: &Bound<'_, PyAny>,
    doc: &Py<Document>,
    member_path: &str,
    depth: usize,
) -> PyResult<NewVal> {
    use pyo3::types::{PyBool, PyFloat, PyInt, PyMemoryView};
    if value.is_none() {
        return Ok(NewVal::None);
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(NewVal::Bool(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        return match value.extract::<i128>() {
            Ok(i) => Ok(NewVal::Int(i)),
            Err(_) => Err(PyValueError::new_err(format!(
                "{member_path}: {value} is out of range"
            ))),
        };
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(NewVal::Float(value.extract()?));
    }
    if let Ok(s) = value.downcast::<PyString>() {
        return Ok(NewVal::Str(s.extract()?));
    }
    if let Ok(r) = value.downcast::<Record>() {
        let r = r.borrow();
        return match r.at(value.py()).1 {
            Some(h) if r.doc.is(doc) => Ok(NewVal::Object(h)),
            Some(_) => Err(PyTypeError::new_err(format!(
                "{member_path}: {} belongs to another document",
                r.path
            ))),
            None => Err(PyTypeError::new_err(format!(
                "{member_path}: {} is a nested record, not an object a pointer can name",
                r.path
            ))),
        };
    }
    // numpy's scalars (float32, int16, bool_...) are no Python int or float.
    let ty_name = value.get_type().name()?.to_string();
    if ty_name == "bool" || ty_name == "bool_" {
        return Ok(NewVal::Bool(value.is_truthy()?));
    }
    let is_seq = value.is_instance_of::<PyList>()
        || value.is_instance_of::<PyTuple>()
        || (!value.is_instance_of::<PyDict>()
            && value.downcast::<pyo3::types::PySequence>().is_ok());
    if !is_seq {
        if value.hasattr("__index__")? {
            if let Ok(i) = value.call_method0("__index__") {
                return new_val(&i, doc, member_path, depth);
            }
        }
        if value.hasattr("__float__")? && !value.hasattr("__len__")? {
            if let Ok(f) = value.call_method0("__float__") {
                return new_val(&f, doc, member_path, depth);
            }
        }
    }
    // A buffer (a numpy array, array.array, a memoryview, bytes): its elements as the buffer's
    // format gives them, nested by its shape; a 0-d buffer is one value.
    let buffer = if value.is_instance_of::<PyMemoryView>() {
        Some(value.clone())
    } else if is_seq && (value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>()) {
        None
    } else {
        PyMemoryView::from(value).ok().map(Bound::into_any)
    };
    if let Some(view) = buffer {
        let list = view.call_method0("tolist").map_err(|e| {
            PyTypeError::new_err(format!(
                "{member_path}: a {ty_name} buffer whose elements Python cannot read ({e})"
            ))
        })?;
        return new_val(&list, doc, member_path, depth);
    }
    let seq = if is_seq { Some(value.clone()) } else { None };
    if let Some(seq) = seq.filter(|_| depth < 4) {
        let mut out = Vec::new();
        for (k, v) in seq.try_iter()?.enumerate() {
            out.push(new_val(
                &v?,
                doc,
                &format!("{member_path}[{k}]"),
                depth + 1,
            )?);
        }
        return Ok(NewVal::Seq(out));
    }
    Err(PyTypeError::new_err(format!(
        "{member_path}: a {ty_name} is not assignable (numbers, booleans, enums, str, None, objects of this document, and sequences, numpy arrays and other buffers of them are)"
    )))
}

/// Opens a Havok file: a path (str or os.PathLike) or its bytes. `compendium`: TCM0 files or
/// folders for a tagfile that names one; by default, and only when the file names one, it is
/// looked for in the file's folder and its subfolders one level down (see
/// [`backend::compendia_beside`]).
#[pyfunction]
#[pyo3(signature = (path_or_bytes, compendium=None))]
fn open(
    py: Python<'_>,
    path_or_bytes: &Bound<'_, PyAny>,
    compendium: Option<&Bound<'_, PyAny>>,
) -> PyResult<Document> {
    let named: Vec<PathBuf> = match compendium {
        None => Vec::new(),
        Some(c) if c.extract::<PathBuf>().is_ok() => vec![c.extract()?],
        Some(c) => c.extract()?,
    };
    let (bytes, path) = if let Ok(b) = path_or_bytes.downcast::<PyBytes>() {
        (b.as_bytes().to_vec(), None)
    } else if let Ok(b) = path_or_bytes.downcast::<pyo3::types::PyByteArray>() {
        (b.to_vec(), None)
    } else {
        let p: PathBuf = path_or_bytes.extract()?;
        read_member_path(py, p)?
    };
    let in_file = |f: Failure| {
        let err = match &path {
            Some(p) => havok_error(
                py,
                Failure {
                    message: format!("{}: {}", p.display(), f.message),
                    ..f
                },
            ),
            None => havok_error(py, f),
        };
        if let Some(p) = &path {
            let _ = err.value(py).setattr("filename", p.display().to_string());
        }
        err
    };
    let mut missing = None;
    let compendia = match (&path, named.is_empty()) {
        (Some(p), true) => {
            let beside = backend::compendia_beside(p, &bytes).map_err(&in_file)?;
            missing = beside.missing;
            beside.set
        }
        _ => backend::compendia_for(path.as_deref(), &named).map_err(&in_file)?,
    };
    let inner = py
        .allow_threads(|| backend::OpenDoc::open(bytes, compendia))
        .map_err(|f| {
            let f = match &missing {
                Some((id, dir)) => Failure {
                    message: format!(
                        "{} (the file names compendium {id}, and no TCM0 file in {} or its subfolders holds it: pass compendium=)",
                        f.message,
                        dir.display()
                    ),
                    ..f
                },
                None => f,
            };
            in_file(f)
        })?;
    Ok(Document {
        inner,
        enums: Default::default(),
        enum_values: Default::default(),
        keys: Default::default(),
        renumberings: Vec::new(),
    })
}

/// The `OSError` of a file that could not be read, with its errno and file name set (Python makes
/// it the subclass the errno says: `FileNotFoundError`, `PermissionError`, `IsADirectoryError`).
fn os_error(path: &std::path::Path, e: std::io::Error) -> PyErr {
    let name = path.display().to_string();
    match e.raw_os_error() {
        Some(code) => {
            // The message without Rust's " (os error N)" suffix, as Python words it.
            let text = e.to_string();
            let text = match text.rfind(" (os error") {
                Some(i) => text[..i].to_owned(),
                None => text,
            };
            pyo3::exceptions::PyOSError::new_err((code, text, name))
        }
        None => pyo3::exceptions::PyOSError::new_err(format!("{name}: {e}")),
    }
}

/// The bytes a path names for [`open`]: a file, an archive member `ARCHIVE:MEMBER` (its full name
/// or a unique ending: `c3570.anibnd.dcx:skeleton.hkx`), or a compressed file (`x.hkx.dcx`); and
/// the file on disk to find compendia beside. Archive errors are `HavokError`s.
fn read_member_path(py: Python<'_>, p: PathBuf) -> PyResult<(Vec<u8>, Option<PathBuf>)> {
    use hktypes::archive;
    let text = p.to_string_lossy().into_owned();
    // A plain file (or one that does not exist and names no member): its OSError names it.
    if p.is_file() || archive::split_member_path(&text).1.is_none() {
        let bytes = std::fs::read(&p).map_err(|e| os_error(&p, e))?;
        if !archive::is_archive(&bytes) {
            return Ok((bytes, Some(p)));
        }
    }
    let (bytes, origin) = py
        .allow_threads(|| archive::read_path(&text, &archive::OpenOptions::default()))
        .map_err(|e| archive_error(py, e))?;
    Ok((bytes, Some(origin.file)))
}

/// An archive error as a `HavokError`.
fn archive_error(py: Python<'_>, e: hktypes::archive::Error) -> PyErr {
    if e.kind == hktypes::archive::ErrorKind::Io {
        return pyo3::exceptions::PyOSError::new_err(e.to_string());
    }
    let _ = py;
    HavokError::new_err(e.to_string())
}

/// Replaces the archive member a member path names (`ARCHIVE:MEMBER`) with `data` (bytes, e.g.
/// `Document.to_bytes()`), compressed as the member was, and rewrites the archive atomically with
/// every size, offset and hash recomputed. Returns the member's full path.
#[pyfunction]
fn write_member(py: Python<'_>, path: PathBuf, data: Vec<u8>) -> PyResult<String> {
    let text = path.to_string_lossy().into_owned();
    let origin = py
        .allow_threads(|| hktypes::archive::write_member(&text, data, &hktypes::archive::OpenOptions::default()))
        .map_err(|e| archive_error(py, e))?;
    Ok(origin.display())
}

/// The members of a game archive (DCX, BND3, BND4, BHF4+BDF4, Yaz0, SARC, zstd) as a list of
/// dicts: `index`, `name`, `id`, `size`, `compression`, `kind` (the Havok format, or None).
#[pyfunction]
fn archive_members<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyList>> {
    let a = py
        .allow_threads(|| hktypes::archive::Archive::open(&path, &hktypes::archive::OpenOptions::default()))
        .map_err(|e| archive_error(py, e))?;
    let out = PyList::empty(py);
    for m in a.members() {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("index", m.index)?;
        d.set_item("name", m.name)?;
        d.set_item("id", m.id)?;
        d.set_item("size", m.size)?;
        d.set_item("compression", m.compression)?;
        d.set_item("kind", m.kind.map(|k| k.name()))?;
        out.append(d)?;
    }
    Ok(out)
}

/// The report of `hkgen verify --json` for one file, as a dict. `compendium`: as for [`open`].
#[pyfunction]
#[pyo3(signature = (path, compendium=None))]
fn verify<'py>(
    py: Python<'py>,
    path: PathBuf,
    compendium: Option<Vec<PathBuf>>,
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = std::fs::read(&path).map_err(|e| os_error(&path, e))?;
    // As `open` looks for them: only when the file names one, in its folder (and one level down).
    let named = compendium.unwrap_or_default();
    let compendia = if named.is_empty() {
        backend::compendia_beside(&path, &bytes).map(|b| b.set)
    } else {
        backend::compendia_for(Some(&path), &named)
    }
    .map_err(|f| havok_error(py, f))?;
    let json = py
        .allow_threads(|| backend::verify(&path, &bytes, &compendia))
        .map_err(|f| havok_error(py, f))?;
    py.import("json")?.getattr("loads")?.call1((json,))
}

fn gltf_options(up: &str, root_motion: bool) -> PyResult<hktypes::gltf::ExportOptions> {
    let up = match up {
        "y" | "Y" => hktypes::gltf::Up::Y,
        "z" | "Z" => hktypes::gltf::Up::Z,
        _ => return Err(PyValueError::new_err(format!("up={up:?}: \"y\" or \"z\""))),
    };
    Ok(hktypes::gltf::ExportOptions { up, root_motion, ..hktypes::gltf::ExportOptions::default() })
}

/// `hkgen.gltf.export(docs, path=None, up="y", root_motion=True)`: the documents as one binary
/// glTF 2.0 (`.glb` bytes, also written to `path` when given).
#[pyfunction]
#[pyo3(signature = (docs, path=None, *, up="y", root_motion=true))]
fn gltf_export<'py>(
    py: Python<'py>,
    docs: Vec<PyRef<'py, Document>>,
    path: Option<PathBuf>,
    up: &str,
    root_motion: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let list: Vec<(&backend::OpenDoc, String)> = docs.iter().enumerate().map(|(i, d)| (&d.inner, format!("document{i}"))).collect();
    let bytes = backend::gltf_export(&list, &gltf_options(up, root_motion)?).map_err(|f| havok_error(py, f))?;
    if let Some(p) = path {
        std::fs::write(&p, &bytes).map_err(|e| os_error(&p, e))?;
    }
    Ok(PyBytes::new(py, &bytes))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(write_member, m)?)?;
    m.add_function(wrap_pyfunction!(archive_members, m)?)?;
    m.add_function(wrap_pyfunction!(gltf_export, m)?)?;
    m.add_class::<Document>()?;
    m.add_class::<Record>()?;
    m.add_class::<Animation>()?;
    m.add("HavokError", py.get_type::<HavokError>())?;
    m.add("ContainerError", py.get_type::<ContainerError>())?;
    m.add("TypeTableError", py.get_type::<TypeTableError>())?;
    m.add("ItemsError", py.get_type::<ItemsError>())?;
    m.add("ValuesError", py.get_type::<ValuesError>())?;
    m.add("WriteError", py.get_type::<WriteError>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Animations (issue 33)

/// `numpy.ndarray` of `float32` of `shape` holding `values` (a copy, writable).
fn float32_array<'py>(py: Python<'py>, values: &[f32], shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let mut bytes = Vec::with_capacity(4 * values.len());
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let np = py.import("numpy")?;
    let a = np.getattr("frombuffer")?.call1((PyBytes::new(py, &bytes), "<f4"))?;
    a.call_method1("reshape", (PyTuple::new(py, shape)?,))?.call_method0("copy")
}

/// The values of an array-like of `float32` with its shape (through `numpy.ascontiguousarray`).
fn float32_values(py: Python<'_>, array: &Bound<'_, PyAny>, what: &str) -> PyResult<(Vec<f32>, Vec<usize>)> {
    let np = py.import("numpy")?;
    let a = np
        .getattr("ascontiguousarray")?
        .call1((array, "<f4"))
        .map_err(|e| PyValueError::new_err(format!("{what}: not an array of numbers ({e})")))?;
    let shape: Vec<usize> = a.getattr("shape")?.extract()?;
    let bytes: Vec<u8> = a.call_method0("tobytes")?.extract()?;
    let values = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Ok((values, shape))
}

/// An animation object of a document (`Document.animations()`): its codec, duration, tracks and
/// bone mapping, its frames decoded as numpy arrays, and `set_frames` to replace them.
#[pyclass(module = "hkgen", unsendable)]
struct Animation {
    doc: Py<Document>,
    inner: hktypes::anim::Animation,
}

#[pymethods]
impl Animation {
    /// The animation object's handle.
    #[getter]
    fn handle(&self) -> u32 {
        self.inner.handle.0
    }

    /// Its class (`hkaSplineCompressedAnimation`, ...).
    #[getter]
    fn class_name(&self) -> String {
        self.inner.class.clone()
    }

    /// `"spline"`, `"interleaved"`, `"delta"`, `"wavelet"`, `"quantized"`, `"predictive"`, or the
    /// class name of another.
    #[getter]
    fn codec(&self) -> String {
        self.inner.codec.name().to_owned()
    }

    /// Seconds.
    #[getter]
    fn duration(&self) -> f32 {
        self.inner.duration
    }

    /// Frames per track.
    #[getter]
    fn frame_count(&self) -> usize {
        self.inner.frame_count
    }

    /// Transform tracks.
    #[getter]
    fn track_count(&self) -> usize {
        self.inner.track_count
    }

    /// Float tracks.
    #[getter]
    fn float_track_count(&self) -> usize {
        self.inner.float_track_count
    }

    /// The bone index each transform track drives (the binding's mapping, else track i drives
    /// bone i), None where it drives none.
    #[getter]
    fn track_to_bone(&self) -> Vec<Option<usize>> {
        self.inner.track_to_bone()
    }

    /// The name of the bone each track drives, where the file holds the skeleton.
    #[getter]
    fn bone_names(&self) -> Vec<Option<String>> {
        (0..self.inner.track_count).map(|t| self.inner.bone_name(t).map(str::to_owned)).collect()
    }

    /// The name of the skeleton the binding names (or the file's one skeleton), or None.
    #[getter]
    fn skeleton(&self) -> Option<String> {
        match (&self.inner.skeleton, &self.inner.binding) {
            (Some(s), _) => Some(s.name.clone()),
            (None, Some(b)) if !b.skeleton_name.is_empty() => Some(b.skeleton_name.clone()),
            _ => None,
        }
    }

    /// `"normal"` or `"additive"` (the binding's blend hint), None without a binding.
    #[getter]
    fn blend_hint(&self) -> Option<&'static str> {
        self.inner.binding.as_ref().map(|b| match b.blend_hint {
            hktypes::anim::BlendHint::Normal => "normal",
            hktypes::anim::BlendHint::Additive => "additive",
        })
    }

    /// The annotation tracks: `[(track_name, [(time, text), ...]), ...]`.
    #[getter]
    fn annotations(&self) -> Vec<(String, Vec<(f32, String)>)> {
        self.inner
            .annotations
            .iter()
            .map(|t| (t.name.clone(), t.annotations.iter().map(|a| (a.time, a.text.clone())).collect()))
            .collect()
    }

    /// Every frame of every transform track: `numpy.ndarray` of `float32`, shape
    /// `(frame_count, track_count, 10)`; each row translation xyz, rotation quaternion xyzw,
    /// scale xyz.
    fn frames<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.inner.frames().map_err(|e| havok_error(py, e.into()))?;
        let flat: Vec<f32> = f.transforms.iter().flatten().copied().collect();
        float32_array(py, &flat, &[f.frame_count, f.track_count, 10])
    }

    /// The float tracks: shape `(frame_count, float_track_count)`.
    fn float_frames<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.inner.frames().map_err(|e| havok_error(py, e.into()))?;
        float32_array(py, &f.floats, &[f.frame_count, f.float_track_count])
    }

    /// Root motion (`hkaDefaultAnimatedReferenceFrame.referenceFrameSamples`): shape
    /// `(samples, 4)`, translation xyz and the turn about the up axis (radians) as w; None when
    /// the animation has no such reference frame.
    fn root_motion<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.inner.root_motion {
            None => Ok(None),
            Some(r) => {
                let flat: Vec<f32> = r.samples.iter().flatten().copied().collect();
                Ok(Some(float32_array(py, &flat, &[r.samples.len(), 4])?))
            }
        }
    }

    /// Every transform track at `time` seconds, as Havok's runtime samples between frames
    /// (linear translation and scale, nlerp rotation): shape `(track_count, 10)`.
    fn sample<'py>(&self, py: Python<'py>, time: f32) -> PyResult<Bound<'py, PyAny>> {
        let pose = self.inner.sample(time).map_err(|e| havok_error(py, e.into()))?;
        let flat: Vec<f32> = pose.iter().flatten().copied().collect();
        float32_array(py, &flat, &[pose.len(), 10])
    }

    /// Replaces the animation's frames by `frames` (shape `(frame_count, track_count, 10)`, any
    /// frame count), encoded as `codec` (the animation's own: `"interleaved"` is lossless,
    /// `"spline"` compresses within the tolerances), and `float_frames` (shape
    /// `(frame_count, float_track_count)`; by default the ones it has, when the frame count
    /// stays). Afterwards `doc.to_bytes()` holds the re-encoded animation and this object
    /// describes it. A bad array (wrong shape, a NaN or infinity, a rotation that is not a unit
    /// quaternion) raises `ValueError` naming it, and nothing is written.
    #[pyo3(signature = (frames, codec="spline", position_tolerance=0.01, rotation_tolerance=0.01, scale_tolerance=0.01, float_tolerance=0.01, rotation_quantization="ThreeComp40", float_frames=None))]
    #[allow(clippy::too_many_arguments)]
    fn set_frames(
        &mut self,
        py: Python<'_>,
        frames: &Bound<'_, PyAny>,
        codec: &str,
        position_tolerance: f32,
        rotation_tolerance: f32,
        scale_tolerance: f32,
        float_tolerance: f32,
        rotation_quantization: &str,
        float_frames: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let (values, shape) = float32_values(py, frames, "frames")?;
        let tracks = self.inner.track_count;
        if shape.len() != 3 || shape[1] != tracks || shape[2] != 10 {
            return Err(PyValueError::new_err(format!(
                "frames: shape {shape:?}; this animation takes (frame_count, {tracks}, 10)"
            )));
        }
        let n = shape[0];
        let float_tracks = self.inner.float_track_count;
        let floats = match float_frames {
            Some(a) => {
                let (v, s) = float32_values(py, a, "float_frames")?;
                if s.len() != 2 || s[0] != n || s[1] != float_tracks {
                    return Err(PyValueError::new_err(format!(
                        "float_frames: shape {s:?}; this animation takes ({n}, {float_tracks})"
                    )));
                }
                v
            }
            None if float_tracks == 0 => Vec::new(),
            None => {
                let f = self.inner.frames().map_err(|e| havok_error(py, e.into()))?;
                if f.frame_count != n {
                    return Err(PyValueError::new_err(format!(
                        "float_frames: the animation has {float_tracks} float tracks of {} frames; give them for {n} frames",
                        f.frame_count
                    )));
                }
                f.floats
            }
        };
        let transforms = values.chunks_exact(10).map(|c| {
            let mut t = [0f32; 10];
            t.copy_from_slice(c);
            t
        });
        let frames = hktypes::anim::Frames {
            frame_count: n,
            track_count: tracks,
            transforms: transforms.collect(),
            float_track_count: float_tracks,
            floats,
        };
        hktypes::anim::interleaved::check(&frames).map_err(|e| PyValueError::new_err(format!("frames: {e}")))?;
        let codec = match codec {
            "spline" => hktypes::anim::Codec::Spline,
            "interleaved" => hktypes::anim::Codec::Interleaved,
            other => return Err(PyValueError::new_err(format!("codec {other:?}: \"spline\" or \"interleaved\""))),
        };
        let options = hktypes::anim::EncodeOptions {
            codec,
            position_tolerance,
            rotation_tolerance,
            scale_tolerance,
            float_tolerance,
            rotation_quantization: rotation_quantization.to_owned(),
        };
        let handle = self.inner.handle.0;
        let mut d = self.doc.borrow_mut(py);
        let (h, map) = d.inner.set_animation_frames(handle, &frames, &options).map_err(|f| havok_error(py, f))?;
        if let Some(map) = map {
            d.renumberings.push(map);
        }
        let again = d.inner.animations().map_err(|f| havok_error(py, f))?;
        self.inner = again
            .into_iter()
            .find(|a| a.handle.0 == h)
            .ok_or_else(|| PyValueError::new_err(format!("animation #{h} is gone after set_frames")))?;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "<hkgen.Animation #{} {} ({}): {} tracks, {} frames, {} s>",
            self.inner.handle.0,
            self.inner.codec.name(),
            self.inner.class,
            self.inner.track_count,
            self.inner.frame_count,
            self.inner.duration
        )
    }
}
