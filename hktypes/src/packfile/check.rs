//! What `hkgen verify` checks of a packfile's objects beyond reading them: where their pointers
//! point.
//!
//! A pointer member whose class description names a pointee class `T` (`T*`, `hkRefPtr<T>`, the
//! elements of an `hkArray<T*>`) holds a global fixup that must name the start of an object of
//! `__data__` whose class is `T` or derives from `T`. A pointer without a pointee class (`void*`,
//! `hkVariant`) takes any object. Only typed objects are checked (a raw object's bytes are not
//! matched to members); a target whose class no description covers has no known ancestry and is
//! accepted, as is a pointer into another section (a class in `__types__`).

use super::layout::{ClassSource, Member, MemberType};
use super::objects::{Body, PackfileDocument, Ref, MemberValue};
use crate::shared::Handle;
use crate::error::ItemsError;

/// How deep values nest before the walk stops (struct members within struct members: stock
/// classes nest a few levels; the reader refuses cycles).
const MAX_DEPTH: usize = 64;

/// How many classes a parent chain is followed up (a cyclic chain ends).
const MAX_ANCESTRY: usize = 64;

impl PackfileDocument {
    /// Every pointer of a typed object names what its member expects: the start of an object of
    /// the member's pointee class or of a class derived from it. The error is located at the
    /// holding object's start in the file and names the object, its class and the member path
    /// (`object 3 (hkaAnimationContainer).skeletons[1]`). Ancestry comes from the document's own
    /// classes, then from `sources` in order (a target kept raw is described only there).
    pub fn check_pointers(&self, sources: &[&dyn ClassSource]) -> Result<(), ItemsError> {
        let mut walk = Walk { doc: self, sources, fits: Default::default(), members: Default::default() };
        // File offset of `__data__`, for the error's location.
        let base = super::write::plan(&self.file).map_or(0, |p| u64::from(p.sections[self.data_index].start));
        let starts: Vec<u32> = self.file.sections[self.data_index].virtuals.iter().map(|v| v.src).collect();
        for (i, o) in self.objects.iter().enumerate() {
            let Body::Typed(values) = &o.body else { continue };
            let mut path = format!("object {i} ({})", o.class);
            if let Err(problem) = walk.record(&o.class, values, &mut path, 0) {
                let at = base + u64::from(starts.get(i).copied().unwrap_or(0));
                return Err(ItemsError::invalid(at, problem).in_section("__data__", base).in_context(path));
            }
        }
        Ok(())
    }
}

struct Walk<'a> {
    doc: &'a PackfileDocument,
    sources: &'a [&'a dyn ClassSource],
    /// Per (pointee class, target class): whether the target is the pointee or derives from it.
    fits: std::collections::HashMap<(String, String), bool>,
    /// Per class: its members, ancestors' first.
    members: std::collections::HashMap<String, std::rc::Rc<[Member]>>,
}

impl Walk<'_> {
    /// The values of a record of `class` (ancestors' members first); on a bad pointer, `path` is
    /// left naming it and the problem is returned.
    fn record(&mut self, class: &str, values: &[MemberValue], path: &mut String, depth: usize) -> Result<(), String> {
        let members = match self.members.get(class) {
            Some(m) => m.clone(),
            None => {
                let m: std::rc::Rc<[Member]> = self.doc.members_of(class).cloned().collect();
                self.members.insert(class.to_owned(), m.clone());
                m
            }
        };
        for (k, v) in values.iter().enumerate() {
            let len = path.len();
            let m = members.get(k);
            path.push('.');
            path.push_str(m.map_or("?", |m| m.name.as_str()));
            self.value(m, v, path, depth)?;
            path.truncate(len);
        }
        Ok(())
    }

    fn value(&mut self, m: Option<&Member>, v: &MemberValue, path: &mut String, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        match v {
            MemberValue::Ptr(r) => {
                let Some(pointee) = m.filter(|m| m.ty == MemberType::Pointer).and_then(|m| m.class.as_deref()) else {
                    return Ok(());
                };
                self.target(pointee, r)
            }
            // A typed array holds numbers only: no pointer to check.
            MemberValue::Array(a) => a.values().map_or(Ok(()), |items| self.elements(m, items, path, depth, true)),
            MemberValue::RelArray(items) => self.elements(m, items, path, depth, true),
            MemberValue::CArray(items) => self.elements(m, items, path, depth, false),
            MemberValue::Struct(vals) => match m.and_then(|m| m.class.clone()) {
                Some(c) => self.record(&c, vals, path, depth + 1),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// The elements of an array (`of_subtype`: the elements are of the member's subtype) or of a
    /// C array.
    fn elements(&mut self, m: Option<&Member>, items: &[MemberValue], path: &mut String, depth: usize, of_subtype: bool) -> Result<(), String> {
        let elem = m.map(|m| Member {
            ty: if of_subtype { m.subtype } else { m.ty },
            subtype: if of_subtype { MemberType::Void } else { m.subtype },
            c_array_size: 0,
            ..m.clone()
        });
        for (e, x) in items.iter().enumerate() {
            let len = path.len();
            path.push_str(&format!("[{e}]"));
            self.value(elem.as_ref(), x, path, depth + 1)?;
            path.truncate(len);
        }
        Ok(())
    }

    /// Whether `r`, in a pointer to `pointee`, names an object that fits.
    fn target(&mut self, pointee: &str, r: &Ref) -> Result<(), String> {
        let doc = self.doc;
        match *r {
            Ref::Object(Handle(t)) => {
                let Some(target) = doc.objects.get(t as usize) else { return Ok(()) };
                if self.derives(&target.class, pointee) {
                    Ok(())
                } else {
                    Err(format!("points to object {t}, a {}, which is neither a {pointee} nor a class derived from it", target.class))
                }
            }
            Ref::Inside(Handle(t), off) => {
                let class = doc.objects.get(t as usize).map_or("?", |o| o.class.as_str());
                Err(format!("points {off:#x} bytes into object {t} (a {class}), where a {pointee} object's start is expected"))
            }
            Ref::Null | Ref::Section(..) => Ok(()),
        }
    }

    /// Whether `class` is `ancestor` or derives from it; a class of unknown ancestry fits. The
    /// chain is followed in the description the reader would type the class by: the document's
    /// own (a typed object's class and its parents), else the first of `sources` that describes
    /// it with the signature the file stores (the first source also where it computes none), as
    /// [`PackfileDocument::from_file_with`] picks them. Neighbouring SDKs' records of a class whose
    /// signature differs say nothing of this file's class.
    fn derives(&mut self, class: &str, ancestor: &str) -> bool {
        if class == ancestor {
            return true;
        }
        let key = (ancestor.to_owned(), class.to_owned());
        if let Some(&fits) = self.fits.get(&key) {
            return fits;
        }
        let doc = self.doc;
        let source: &dyn ClassSource = if doc.classes.classes.contains_key(class) {
            &doc.classes
        } else {
            let stored = doc.file.class_names().get(class).map(|c| c.signature);
            let fits_file = |k: usize, s: &&dyn ClassSource| {
                let sig = s.signature(class);
                let sig_ok = if k == 0 { sig.is_none() || sig == stored } else { sig.is_some() && sig == stored };
                sig_ok && s.class(class).is_some()
            };
            match self.sources.iter().enumerate().find(|(k, s)| fits_file(*k, s)) {
                Some((_, s)) => *s,
                // Nothing describes it as the file has it: its ancestry is unknown.
                None => {
                    self.fits.insert(key, true);
                    return true;
                }
            }
        };
        let mut cur = class.to_owned();
        let mut fits = false;
        for _ in 0..MAX_ANCESTRY {
            match source.class(&cur).and_then(|c| c.parent.clone()) {
                Some(p) if p == ancestor => {
                    fits = true;
                    break;
                }
                Some(p) => cur = p,
                None => break,
            }
        }
        self.fits.insert(key, fits);
        fits
    }
}
