//! Reading members by name for the shapes: each object's members once (cached), and readers of
//! numbers, vectors, lists and pointers whose errors name the object, its class and the member
//! path (`object 4 (hknpCompressedMeshShapeData) .meshTree.sections[2].primitives`).

use crate::dump::{Members, Val};
use crate::error::{Error, ErrorKind, Result, ValueError};
use crate::members::ValExt;
use crate::{Document, Handle};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// An error of kind `kind` at member `path` of object `h` of class `class`.
pub(crate) fn located(h: Handle, class: &str, path: &str, kind: ErrorKind) -> Error {
    let mut e = ValueError::new(kind);
    if !path.is_empty() {
        e = e.in_context(path.to_owned());
    }
    e.in_context(format!("object {} ({class})", h.0)).into()
}

/// An [`ErrorKind::Invalid`] at member `path` of object `h`.
pub(crate) fn invalid(h: Handle, class: &str, path: &str, msg: impl Into<String>) -> Error {
    located(h, class, path, ErrorKind::Invalid(msg.into()))
}

/// Index `index` of the table `what` (of `count` entries) out of range at member `path`.
pub(crate) fn out_of_range(h: Handle, class: &str, path: &str, what: &'static str, index: u64, count: u64) -> Error {
    located(h, class, path, ErrorKind::IndexOutOfRange { what, index, count })
}

/// The objects of a document read through [`Document::members`], each once.
pub(crate) struct Objects<'d> {
    pub doc: &'d Document,
    cache: RefCell<HashMap<Handle, Rc<Obj>>>,
}

/// One object: its handle, class and members.
pub(crate) struct Obj {
    pub h: Handle,
    pub class: String,
    pub ms: Members,
}

impl<'d> Objects<'d> {
    pub(crate) fn new(doc: &'d Document) -> Self {
        Objects { doc, cache: RefCell::new(HashMap::new()) }
    }

    /// Object `h` with its members.
    pub(crate) fn get(&self, h: Handle) -> Result<Rc<Obj>> {
        if let Some(o) = self.cache.borrow().get(&h) {
            return Ok(o.clone());
        }
        let class = self.doc.class_name(h).ok_or_else(|| -> Error {
            ValueError::new(ErrorKind::Invalid(format!("pointer to object {}, which the document does not hold", h.0))).into()
        })?;
        let ms = self.doc.members(h)?;
        let o = Rc::new(Obj { h, class, ms });
        self.cache.borrow_mut().insert(h, o.clone());
        Ok(o)
    }

    /// The class of object `h`, without reading its members.
    pub(crate) fn class(&self, h: Handle) -> Option<String> {
        self.doc.class_name(h)
    }
}

/// A value and where it is: the object it belongs to and its member path, for errors.
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    pub h: Handle,
    pub class: &'a str,
    pub v: &'a Val,
}

/// `path` with `.name` after it.
pub(crate) fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

impl Obj {
    /// The object's members as a record value, to read through [`At`] (path `""`).
    pub(crate) fn at<'a>(&'a self, root: &'a Val) -> At<'a> {
        At { h: self.h, class: &self.class, v: root }
    }

    /// Member `name`, if the object has it.
    pub(crate) fn get(&self, name: &str) -> Option<&Val> {
        self.ms.get(name)
    }

    /// Member `name`, or an error naming it.
    pub(crate) fn need(&self, name: &str) -> Result<&Val> {
        self.get(name).ok_or_else(|| invalid(self.h, &self.class, name, "no such member"))
    }

    /// Member `name` as a value with its place.
    pub(crate) fn field<'a>(&'a self, name: &str) -> Result<(At<'a>, String)> {
        Ok((At { h: self.h, class: &self.class, v: self.need(name)? }, name.to_owned()))
    }

    pub(crate) fn err(&self, path: &str, msg: impl Into<String>) -> Error {
        invalid(self.h, &self.class, path, msg)
    }

    /// Member `name` as a real.
    pub(crate) fn f32(&self, name: &str) -> Result<f32> {
        let (a, p) = self.field(name)?;
        a.f32(&p)
    }

    /// Member `name` as at least three reals (a vector's x, y, z).
    pub(crate) fn v3(&self, name: &str) -> Result<[f32; 3]> {
        let (a, p) = self.field(name)?;
        a.v3(&p)
    }

    /// Member `name` as a pointer (`None` when null).
    pub(crate) fn ptr(&self, name: &str) -> Result<Option<Handle>> {
        let (a, p) = self.field(name)?;
        a.ptr(&p)
    }

    /// The object's name (`name` member) where it has a non-empty one.
    pub(crate) fn name(&self) -> Option<String> {
        self.get("name").and_then(|v| v.as_str()).filter(|s| !s.is_empty()).map(str::to_owned)
    }
}

impl<'a> At<'a> {
    pub(crate) fn err(&self, path: &str, msg: impl Into<String>) -> Error {
        invalid(self.h, self.class, path, msg)
    }

    /// The same place, another value.
    pub(crate) fn with(&self, v: &'a Val) -> At<'a> {
        At { h: self.h, class: self.class, v }
    }

    /// Field `name` of this record value.
    pub(crate) fn field(&self, path: &str, name: &str) -> Result<(At<'a>, String)> {
        let p = join(path, name);
        let v = self.v.field(name).ok_or_else(|| self.err(&p, "no such member"))?;
        Ok((self.with(v), p))
    }

    /// Field `name` if the record has it.
    pub(crate) fn opt(&self, name: &str) -> Option<At<'a>> {
        self.v.field(name).map(|v| self.with(v))
    }

    pub(crate) fn f32(&self, path: &str) -> Result<f32> {
        match self.v.as_f64() {
            Some(x) => Ok(x as f32),
            None => match self.v.reals().as_slice() {
                [x] => Ok(*x),
                _ => Err(self.err(path, "not a number")),
            },
        }
    }

    pub(crate) fn u64(&self, path: &str) -> Result<u64> {
        if let Some(u) = self.v.as_u64() {
            return Ok(u);
        }
        // A one-member record of an integer (`{serialAndIndex: 3}`, `{data: 48}`).
        if let Val::Record(m) = self.v {
            if let [(_, inner)] = m.0.as_slice() {
                return self.with(inner).u64(path);
            }
        }
        Err(self.err(path, "not a non-negative integer"))
    }

    pub(crate) fn i64(&self, path: &str) -> Result<i64> {
        self.v.as_i64().ok_or_else(|| self.err(path, "not an integer"))
    }

    /// Every real of the value, in storage order, exactly `n` of them (or at least `n` when
    /// `at_least`), each finite.
    pub(crate) fn reals(&self, path: &str, n: usize, at_least: bool) -> Result<Vec<f32>> {
        let r = self.v.reals();
        if r.len() < n || (!at_least && r.len() != n) {
            return Err(self.err(path, format!("{} reals where {}{n} belong", r.len(), if at_least { "at least " } else { "" })));
        }
        if let Some(i) = r.iter().position(|x| !x.is_finite()) {
            return Err(self.err(path, format!("real {i} is {} (not finite)", r[i])));
        }
        Ok(r)
    }

    pub(crate) fn v3(&self, path: &str) -> Result<[f32; 3]> {
        let r = self.reals(path, 3, true)?;
        Ok([r[0], r[1], r[2]])
    }

    pub(crate) fn v4(&self, path: &str) -> Result<[f32; 4]> {
        let r = self.reals(path, 4, true)?;
        Ok([r[0], r[1], r[2], r[3]])
    }

    pub(crate) fn list(&self, path: &str) -> Result<&'a [Val]> {
        // An `hkFreeListArray` is a record of its `elements`.
        if let Some(e) = self.v.field("elements") {
            return self.with(e).list(&join(path, "elements"));
        }
        self.v.as_list().ok_or_else(|| self.err(path, "not an array"))
    }

    pub(crate) fn ptr(&self, path: &str) -> Result<Option<Handle>> {
        match self.v {
            Val::Null => Ok(None),
            Val::Ref(h, _) => Ok(Some(Handle(*h))),
            // A variant is its object and class pointers.
            Val::List(l) if l.len() == 2 && matches!(l[0], Val::Ref(..) | Val::Null) => self.with(&l[0]).ptr(path),
            _ => Err(self.err(path, "not a pointer")),
        }
    }

    /// A list of vectors: `n` reals each, the first three kept.
    pub(crate) fn points(&self, path: &str) -> Result<Vec<[f32; 3]>> {
        let l = self.list(path)?;
        let mut out = Vec::with_capacity(l.len());
        for (i, v) in l.iter().enumerate() {
            out.push(self.with(v).v3(&format!("{path}[{i}]"))?);
        }
        Ok(out)
    }

    /// A list of integers.
    pub(crate) fn ints(&self, path: &str) -> Result<Vec<u64>> {
        let l = self.list(path)?;
        let mut out = Vec::with_capacity(l.len());
        for (i, v) in l.iter().enumerate() {
            out.push(self.with(v).u64(&format!("{path}[{i}]"))?);
        }
        Ok(out)
    }
}
