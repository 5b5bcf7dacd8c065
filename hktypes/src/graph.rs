//! The object graph of a tagfile: every object item as a typed object (a generated class that the
//! file's type table agrees with by name and hash) or, for any other type, an untyped object kept as
//! its bytes and the runs it owns. Pointers are handles (the object's item index in the file read)
//! that keep sharing and allow cycles; arrays and strings belong to the object that holds them.
//!
//! Writing turns the graph back into items and lays them out by the spec's walk
//! ([`crate::tagfile::write`]). A typed object keeps the bytes it was read from until it is taken
//! mutably: an object left alone is written from those bytes, so nothing read is lost, and one
//! that was changed is written through its class. [`TagfileDocument::write_typed`] writes every typed
//! object through its class, which is how `hkgen verify` checks the generated writers.

use crate::error::{ErrorKind, Result, ValueError, WriteError};
use crate::reflect::hash::Hasher;
use crate::reflect::layout::{Layouts, SlotKind, Slots};
use crate::reflect::{TypeIndex, TypeTable};
use crate::tagfile::items::{ItemBytes, ItemData, Items, References};
use crate::tagfile::type_writer;
use crate::tagfile::write::{self, TypesOut};
use crate::tagfile::{CompendiumSet, TagFile, TypeSource};
use crate::value::{self, ClassEntry, Object, Refs, Run, Target, Writer};
use crate::shared::{Counts, Handle};
use std::any::Any;
use std::sync::Arc;

/// One object of the graph.
pub enum Node {
    /// A generated class.
    Typed(Box<dyn Object>),
    /// Any other type: the object is item `item` of the file read, kept with the runs it reaches
    /// (see [`TagfileDocument::source_item`]); its reference slots hold that file's item indices.
    Untyped {
        /// The object's item index in the file read.
        item: u32,
    },
}

struct Entry {
    ty: TypeIndex,
    kind_byte: u8,
    node: Node,
    /// For a typed object: the string runs its slots named in the file read, in the order the
    /// object writes its strings. A string written where the same text was read keeps that run's
    /// identity, so runs the file shared between slots stay shared.
    strings: Origins,
    /// A typed object not yet taken mutably: written from its item in the file read.
    raw: Option<u32>,
}

/// String origins of a typed object (see [`Entry::strings`]): item indices of the file read.
type Origins = Box<[u32]>;

/// Where a document's types go when it is written.
#[derive(Clone, Debug)]
enum TypesRaw {
    /// The file's own `TYPE` section as read (a range of a shared buffer, or a copy).
    Section(ItemBytes),
    Reference(Vec<u8>),
    /// A document made from nothing: the section is written from the table
    /// ([`crate::tagfile::type_writer`]), its hashes in the order the data writer meets the types.
    Written,
}

/// A tagfile as objects.
pub struct TagfileDocument {
    sdkv: Vec<u8>,
    types: Arc<TypeTable>,
    raw_types: TypesRaw,
    /// By handle; `None` where the handle is not an object (index 0, runs).
    objects: Vec<Option<Entry>>,
    root: Handle,
    /// The items of the file read, which untyped and untouched typed objects are written from.
    source: Items,
    /// The bytes after the `TAG0` section of the file read, written back after it.
    trailing: Vec<u8>,
    /// The Phive wrapper the tagfile was read from, written back around it.
    phive: Option<Box<PhiveWrapper>>,
    /// The items of the SDK's enumerations (the classes' `ENUMS`), by which generic member
    /// access ([`crate::Document::members`]) names enum members.
    enums: value::EnumTable,
}

pub use crate::tagfile::phive::PhiveWrapper;

/// The file's items as the generated readers see them.
struct FileRuns<'a> {
    items: &'a Items,
    file: &'a TagFile<'a>,
}

impl value::Items for FileRuns<'_> {
    fn run(&self, index: u32) -> Result<Run<'_>, ValueError> {
        let it = self.items.items.get(index as usize).filter(|_| index != 0).ok_or_else(|| {
            ValueError::new(ErrorKind::IndexOutOfRange { what: "item", index: index.into(), count: self.items.items.len() as u64 })
        })?;
        let base = self.file.data_offset + u64::from(self.file.items[index as usize].offset);
        Ok(Run { data: &it.bytes, base, count: it.count })
    }
}

/// Classes by schema key, for [`TagfileDocument::read`]: the `CLASSES` table of a generated SDK module.
pub type Classes = &'static [ClassEntry];

impl TagfileDocument {
    /// Reads a tagfile; objects whose type a class of `classes` matches (same key, same computed
    /// hash) become typed. Pass `&[]` for a purely untyped graph.
    pub fn read(bytes: &[u8], compendia: &CompendiumSet, classes: &[ClassEntry]) -> Result<TagfileDocument> {
        let file = TagFile::read(bytes, compendia)?;
        Self::from_file(&file, classes)
    }

    /// Like [`TagfileDocument::read`], from a file already read (its type table may come from a
    /// [`crate::tagfile::TypeCache`]).
    pub fn from_file(file: &TagFile<'_>, classes: &[ClassEntry]) -> Result<TagfileDocument> {
        Self::from_file_sharing(file, None, classes)
    }

    /// Reads a tagfile held in a shared buffer: the document keeps the buffer instead of a copy
    /// of its `DATA`.
    pub fn read_shared(bytes: &Arc<[u8]>, compendia: &CompendiumSet, classes: &[ClassEntry]) -> Result<TagfileDocument> {
        let file = TagFile::read(bytes, compendia)?;
        Self::from_file_sharing(&file, Some(bytes), classes)
    }

    /// Like [`TagfileDocument::from_file`]; when `bytes` is the buffer `file` was read from, the document
    /// keeps it instead of a copy of `DATA` (see [`Items::read_sharing`]).
    pub fn from_file_sharing(file: &TagFile<'_>, bytes: Option<&Arc<[u8]>>, classes: &[ClassEntry]) -> Result<TagfileDocument> {
        let mut layouts = file.layouts();
        let (items, sharing) = Items::read_checked(file, bytes, &mut layouts)?;
        let mut hasher = file.hasher();
        // Type index -> class entry, decided once per type.
        let mut class_of: Vec<Option<Option<&ClassEntry>>> = vec![None; file.types.len()];
        let mut name = String::new();
        let runs = FileRuns { items: &items, file };
        // Typed objects own their arrays: a file in which some array run is named by more than
        // one slot is read as untyped objects, which keep run identities.
        let shared_arrays = sharing.shared_arrays;
        let mut objects: Vec<Option<Entry>> = (0..items.items.len()).map(|_| None).collect();
        // The string origins of the object being read (see `refs_agree`), reused.
        let mut strings: Vec<u32> = Vec::new();
        for (i, it) in items.items.iter().enumerate().skip(1) {
            if !it.is_object() {
                continue;
            }
            // Item types were checked to be in the table.
            let entry = match class_of.get(it.ty as usize).copied().flatten() {
                Some(e) => e,
                None => {
                    let e = find_class(classes, &file.types, it.ty, &mut hasher, &mut name);
                    if let Some(slot) = class_of.get_mut(it.ty as usize) {
                        *slot = Some(e);
                    }
                    e
                }
            };
            let mut node = None;
            strings.clear();
            if let Some(class) = entry.and_then(ClassEntry::as_tagfile).filter(|c| c.size == it.bytes.len() && !shared_arrays) {
                let base = file.data_offset + u64::from(file.items[i].offset);
                // A value the class cannot read (a hostile or odd file) leaves the object untyped, and
                // so does one whose references the class found elsewhere than the file's slots.
                if let Ok(obj) = (class.read)(&value::Reader::new(&it.bytes, base, &runs)) {
                    if refs_agree(&items, it, &*obj, &mut strings) {
                        node = Some(Node::Typed(obj));
                    }
                }
            }
            // The string origins gathered mean nothing for an object left untyped.
            let (node, raw, strings) = match node {
                Some(n) => (n, Some(i as u32), Origins::from(&strings[..])),
                None => (Node::Untyped { item: i as u32 }, None, Origins::default()),
            };
            objects[i] = Some(Entry { ty: it.ty, kind_byte: it.kind_byte, node, strings, raw });
        }
        let raw_types = match (&file.source, file.type_section) {
            (TypeSource::Own, Some(raw)) => TypesRaw::Section(ItemBytes::part_of(bytes, raw)),
            (TypeSource::Compendium { id, rest }, _) => TypesRaw::Reference([&id.0[..], rest].concat()),
            (TypeSource::Own, None) => return Err(crate::error::ContainerError::new(ErrorKind::MissingSection("TYPE")).into()),
        };
        let root = Handle(if objects.get(1).is_some_and(Option::is_some) { 1 } else { 0 });
        Ok(TagfileDocument {
            sdkv: file.sdkv_raw.to_vec(),
            types: Arc::clone(&file.types),
            raw_types,
            objects,
            root,
            source: items,
            trailing: file.trailing.to_vec(),
            phive: None,
            enums: value::EnumTable::default(),
        })
    }

    /// An empty document of SDK `sdkv` (`20180100`, as a file's `SDKV` holds it) whose objects
    /// are described by `types` (every type of the SDK, as `hkgen`'s `schema::rebuild::to_table`
    /// gives them from a snapshot, or a compendium's). The first object added (`hktypes::Document::add`) is the
    /// root (handle 1). The writer writes a `TYPE` section of `types` through
    /// [`crate::tagfile::type_writer`], hashes in the order its data writer meets the types.
    pub fn new(sdkv: &str, types: Arc<TypeTable>) -> TagfileDocument {
        TagfileDocument {
            sdkv: sdkv.as_bytes().to_vec(),
            types,
            raw_types: TypesRaw::Written,
            objects: vec![None],
            root: Handle(1),
            source: Items { items: Vec::new() },
            trailing: Vec::new(),
            phive: None,
            enums: value::EnumTable::default(),
        }
    }

    /// An item of the file read (an untyped object's bytes, or a run it holds).
    pub fn source_item(&self, index: u32) -> Option<&ItemData> {
        self.source.items.get(index as usize)
    }

    /// The item of the file read that object `h` is written from: an untyped object's item, or a
    /// typed object's while it has not been taken mutably; `None` for an object changed through
    /// its class, one added, or no object. What generic member access
    /// ([`crate::Document::members`]) decodes.
    pub fn source_of(&self, h: Handle) -> Option<u32> {
        let e = self.objects.get(h.0 as usize)?.as_ref()?;
        match e.node {
            Node::Untyped { item } => Some(item),
            Node::Typed(_) => e.raw,
        }
    }

    /// The items of the file read (see [`TagfileDocument::source_of`]).
    pub fn source_items(&self) -> &Items {
        &self.source
    }

    /// The type table the objects are described by.
    pub fn types(&self) -> &TypeTable {
        &self.types
    }

    /// The SDK version of the file read, as [`TagFile::sdk_version`] gives it (`2018.1`).
    pub fn sdk_version(&self) -> String {
        crate::tagfile::sdk_version(&String::from_utf8_lossy(&self.sdkv))
    }

    /// The `SDKV` of the file read as it stores it (`20180100`).
    pub fn sdkv(&self) -> String {
        String::from_utf8_lossy(&self.sdkv).into_owned()
    }

    /// The root object (item 1).
    pub fn root(&self) -> Handle {
        self.root
    }

    /// Every object handle, in handle order.
    pub fn handles(&self) -> impl Iterator<Item = Handle> + '_ {
        self.objects.iter().enumerate().filter(|(_, e)| e.is_some()).map(|(i, _)| Handle(i as u32))
    }

    /// The object behind a handle, typed or untyped.
    pub fn node(&self, h: Handle) -> Option<&Node> {
        self.objects.get(h.0 as usize)?.as_ref().map(|e| &e.node)
    }

    /// The full type name of an object.
    pub fn type_name(&self, h: Handle) -> Option<String> {
        let e = self.objects.get(h.0 as usize)?.as_ref()?;
        Some(self.types.full_name(e.ty))
    }

    /// The object as class `T` (itself or one of its bases); `None` when it is untyped or neither.
    /// Typed access for users is `hktypes::Document::get`, one convention for both formats.
    pub(crate) fn get<T: Any>(&self, h: Handle) -> Option<&T> {
        match self.node(h)? {
            Node::Typed(o) => o.downcast_ref::<T>(),
            Node::Untyped { .. } => None,
        }
    }

    /// The object as class `T`, to change it. Only the object's own class, not a base, can be
    /// taken mutably.
    pub(crate) fn get_mut<T: Any>(&mut self, h: Handle) -> Option<&mut T> {
        let entry = self.objects.get_mut(h.0 as usize)?.as_mut()?;
        // From here on the object is written through its class.
        entry.raw = None;
        match &mut entry.node {
            Node::Typed(o) => {
                let any: &mut dyn Any = &mut **o;
                any.downcast_mut::<T>()
            }
            Node::Untyped { .. } => None,
        }
    }

    /// Every object of class `T` (or derived from it), with its handle.
    pub(crate) fn all<'a, T: Any>(&'a self) -> impl Iterator<Item = (Handle, &'a T)> + 'a {
        self.handles().filter_map(move |h| self.get::<T>(h).map(|o| (h, o)))
    }

    /// How many objects are typed and how many untyped (no class matched; `demoted` is 0).
    pub fn counts(&self) -> Counts {
        let typed = self.objects.iter().flatten().filter(|e| matches!(e.node, Node::Typed(_))).count();
        Counts { typed, untyped: self.objects.iter().flatten().count() - typed, demoted: 0 }
    }

    /// Adds a typed object of the class keyed `name` (its schema key) and returns its handle:
    /// what `hktypes::Document::add` does for a tagfile.
    pub(crate) fn add_object(&mut self, name: &str, obj: Box<dyn Object>) -> Result<Handle, ValueError> {
        let ty = self
            .types
            .iter()
            .find(|(i, _)| self.types.full_name(*i) == value::base_key(name))
            .map(|(i, _)| i)
            .ok_or_else(|| ValueError::new(ErrorKind::Invalid(format!("the file's type table has no type {name}"))))?;
        self.objects.push(Some(Entry { ty, kind_byte: 0x10, node: Node::Typed(obj), strings: Origins::default(), raw: None }));
        Ok(Handle(self.objects.len() as u32 - 1))
    }

    /// The objects `h` points at, directly or through its arrays, each once, in ascending order.
    pub fn pointers_of(&self, h: Handle) -> Vec<Handle> {
        let Some(e) = self.objects.get(h.0 as usize).and_then(Option::as_ref) else { return Vec::new() };
        let mut out = Vec::new();
        match &e.node {
            Node::Typed(o) => {
                let mut collect = PointerCollector { out: &mut out, depth: 0 };
                o.visit_object_refs(&mut collect);
            }
            Node::Untyped { item } => {
                // Pointers in the item and in the runs its arrays reach (strings hold none).
                let mut seen = std::collections::HashSet::new();
                let mut stack = vec![*item];
                while let Some(i) = stack.pop() {
                    let Some(it) = self.source.items.get(i as usize).filter(|_| seen.insert(i)) else { continue };
                    for (_, slot, t) in it.references() {
                        match slot.kind {
                            SlotKind::Pointer => out.push(t),
                            SlotKind::Array => stack.push(t),
                            SlotKind::String => {}
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out.retain(|&t| t != 0);
        out.into_iter().map(Handle).collect()
    }

    /// The objects that point at `h`, in handle order.
    pub fn referrers(&self, h: Handle) -> Vec<Handle> {
        self.handles().filter(|&o| o != h && self.pointers_of(o).contains(&h)).collect()
    }

    /// Removes object `h`. Refused while another object points at it (the error names them, see
    /// [`ErrorKind::Referenced`]) and for the root object; an unknown handle is an error too.
    /// The other objects keep their handles.
    pub fn remove(&mut self, h: Handle) -> Result<(), ValueError> {
        let name = |d: &TagfileDocument, o: Handle| format!("object {} ({})", o.0, d.type_name(o).unwrap_or_default());
        if self.node(h).is_none() {
            return Err(ValueError::new(ErrorKind::Invalid(format!("no object {}", h.0))));
        }
        if h == self.root {
            return Err(ValueError::new(ErrorKind::Invalid(format!("{} is the root object", name(self, h)))));
        }
        let referrers = self.referrers(h);
        if !referrers.is_empty() {
            let referrers = referrers.into_iter().map(|o| name(self, o)).collect();
            return Err(ValueError::new(ErrorKind::Referenced { object: name(self, h), referrers }));
        }
        self.objects[h.0 as usize] = None;
        Ok(())
    }

    /// Writes the document as a TAG0 file: the items by the spec's walk from the root, the type
    /// section as read. Typed objects not taken mutably are written from the bytes they were read
    /// from.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.write_with(false)
    }

    /// Like [`TagfileDocument::write`], but every typed object is written through its class: for a stock
    /// file this gives the same bytes when the generated writers are right.
    pub fn write_typed(&self) -> Result<Vec<u8>> {
        self.write_with(true)
    }

    /// The writer's own failures are [`WriteError`]s; a typed object that cannot write its values
    /// fails with their [`ValueError`].
    fn write_with(&self, all_typed: bool) -> Result<Vec<u8>> {
        let mut b = Builder::new(&self.types, &self.source, self.objects.len());
        for (h, e) in self.objects.iter().enumerate() {
            let Some(e) = e else { continue };
            let item = match (&e.node, &e.raw) {
                (Node::Typed(_), Some(index)) if !all_typed => b.untyped(&self.source, *index)?,
                (Node::Typed(o), _) => b.typed(e.ty, e.kind_byte, &**o, &e.strings)?,
                (Node::Untyped { item }, _) => b.untyped(&self.source, *item)?,
            };
            b.items[h] = item;
        }
        // Handles that are not objects (runs of the file read, removed objects) must not be
        // reached: the walk starts at the root and numbers what it meets.
        let items = Items { items: b.items };
        let mut layouts = Layouts::new(&self.types);
        let order_root = self.root;
        if order_root != Handle(1) {
            return Err(WriteError::new(ErrorKind::Invalid("the root object must keep handle 1".into())).into());
        }
        let plan = write::plan(&items, &mut layouts)?;
        let (data, mut table, mut patches) = write::lay_out(&items, &plan);
        let written;
        let types = match &self.raw_types {
            TypesRaw::Section(raw) => TypesOut::Section(raw),
            TypesRaw::Reference(body) => TypesOut::Reference(body),
            TypesRaw::Written => {
                // A document made from nothing is described by its SDK's whole table: the section
                // holds the types its items and slots use, renumbered.
                let order = type_writer::data_hash_order(&self.types, &table, &patches);
                let roots: Vec<_> = table.iter().map(|i| i.ty).chain(patches.iter().map(|p| p.ty)).collect();
                let (used, map) = type_writer::used_types(&self.types, roots);
                let new = |t: TypeIndex| map.get(t as usize).copied().flatten().unwrap_or(0);
                table.iter_mut().for_each(|i| i.ty = new(i.ty));
                patches.iter_mut().for_each(|p| p.ty = new(p.ty));
                let order: Vec<TypeIndex> = order.into_iter().map(new).collect();
                let style = type_writer::Style::for_sdk(&String::from_utf8_lossy(&self.sdkv));
                written = type_writer::write_ordered(&used, style, &order);
                TypesOut::Section(&written)
            }
        };
        let mut out = write::write_file(&self.sdkv, &data, types, &table, &patches);
        out.extend_from_slice(&self.trailing);
        Ok(match &self.phive {
            Some(w) => w.wrap(&out),
            None => out,
        })
    }

    /// The items of the SDK's enumerations that generic member access names enum members by
    /// (see [`TagfileDocument::set_enums`]); none by default.
    pub fn enums(&self) -> value::EnumTable {
        self.enums
    }

    /// Sets the enumerations' items that [`crate::Document::members`] names enum members by (a
    /// generated module's `ENUMS`, [`crate::ClassRegistry::tagfile_enums`]): [`crate::open`]
    /// sets those of the classes it was given.
    pub fn set_enums(&mut self, enums: value::EnumTable) {
        self.enums = enums;
    }

    /// The Phive wrapper the tagfile was read from (`None` for a plain TAG0 file).
    pub fn phive(&self) -> Option<&PhiveWrapper> {
        self.phive.as_deref()
    }

    /// Puts the tagfile in a Phive wrapper (or takes it out, with `None`): [`TagfileDocument::write`]
    /// then writes the whole wrapped file.
    pub fn set_phive(&mut self, wrapper: Option<PhiveWrapper>) {
        self.phive = wrapper.map(Box::new);
    }

    /// The bytes after the `TAG0` section of the file read (empty for a stock Havok file), which
    /// [`TagfileDocument::write`] writes after the section as they were.
    pub fn trailing(&self) -> &[u8] {
        &self.trailing
    }

    /// Replaces the bytes written after the `TAG0` section.
    pub fn set_trailing(&mut self, bytes: Vec<u8>) {
        self.trailing = bytes;
    }
}

/// The class of `classes` for type `ty`: by full name, or by `name#hash` where the SDK has several
/// layouts of the name, and only when the computed hashes agree.
/// `name` is a buffer for the type's full name.
fn find_class<'c>(
    classes: &'c [ClassEntry],
    table: &TypeTable,
    ty: TypeIndex,
    hasher: &mut Hasher<'_>,
    name: &mut String,
) -> Option<&'c ClassEntry> {
    table.full_name_into(ty, name);
    let name = name.as_str();
    // Hashing is the costly part: only a type some class is named after is hashed.
    let by_name = ClassEntry::find(classes, name);
    if by_name.is_none() && !ClassEntry::has_layouts_of(classes, name) {
        return None;
    }
    let hash = hasher.hash(ty).ok()?;
    let agrees = |c: &&ClassEntry| c.as_tagfile().is_some_and(|t| t.hash == hash);
    by_name.filter(agrees).or_else(|| ClassEntry::find(classes, &format!("{name}#{hash:08x}")).filter(agrees))
}

/// Whether the references of `obj`, read by its class from `item`, are the references the file's
/// slots hold: the same offsets, kinds and targets, and within every array run the same again,
/// element by element. A name and a hash do not promise that the file lays a type out as the
/// class does (a hostile table may give a member of the right name another format), and a class
/// that took plain bytes for a reference, or a reference for plain bytes, would be written back
/// wrong. Null slots agree with anything: they read as null either way.
///
/// On the way it appends to `strings` the string runs below `item` (itself, then through array
/// runs) in the order a typed object writes them: slots by offset within each element, elements
/// in order, an array's run entered where its slot stands. They mean nothing when the references
/// disagree.
fn refs_agree(items: &Items, item: &ItemData, obj: &dyn Object, strings: &mut Vec<u32>) -> bool {
    let mut check = ref_check(items, item, 0, strings);
    obj.visit_object_refs(&mut check);
    check.done()
}

/// Walks a value's reported references against the nonzero slots of the item it was read from
/// ([`ItemData::references`]; see [`refs_agree`]), both in ascending offset.
struct RefCheck<'a, 's> {
    items: &'a Items,
    /// The item's references not compared yet.
    expected: References<'a>,
    elem_size: usize,
    ok: bool,
    depth: u32,
    /// The string runs met so far.
    strings: &'s mut Vec<u32>,
}

/// A check of the references read from `item`, `depth` runs below the object.
fn ref_check<'a, 's>(items: &'a Items, item: &'a ItemData, depth: u32, strings: &'s mut Vec<u32>) -> RefCheck<'a, 's> {
    RefCheck {
        items,
        expected: item.references(),
        elem_size: item.elem_size as usize,
        ok: depth <= crate::value::MAX_DEPTH,
        depth,
        strings,
    }
}

impl RefCheck<'_, '_> {
    /// The item's next nonzero slot: offset within its bytes, kind and target.
    fn next_expected(&mut self) -> Option<(usize, SlotKind, u32)> {
        let (e, s, t) = self.expected.next()?;
        Some((e as usize * self.elem_size + s.offset as usize, s.kind, t))
    }

    fn done(&mut self) -> bool {
        self.ok && self.next_expected().is_none()
    }

    /// Whether a run the class read as `run` is the file's item `index`, element by element.
    fn run_agrees(&mut self, index: u32, run: &dyn value::RunValue) -> bool {
        let items = self.items;
        let Some(it) = items.items.get(index as usize) else { return false };
        if run.len() != it.count as usize || run.elem_size() != it.elem_size as usize {
            return false;
        }
        let mut inner = ref_check(items, it, self.depth + 1, self.strings);
        if run.holds_refs() {
            for i in 0..run.len() {
                run.visit_elem(i, i * run.elem_size(), &mut inner);
                if !inner.ok {
                    return false;
                }
            }
        }
        inner.done()
    }
}

impl value::Visitor for RefCheck<'_, '_> {
    fn reference(&mut self, at: usize, target: Target<'_>) {
        if !self.ok {
            return;
        }
        let Some((offset, kind, t)) = self.next_expected() else {
            self.ok = false;
            return;
        };
        self.ok = offset == at
            && match target {
                Target::Object(h) => kind == SlotKind::Pointer && h == t,
                Target::Str(_) => {
                    self.strings.push(t);
                    kind == SlotKind::String
                }
                Target::Run(r) => kind == SlotKind::Array && self.run_agrees(t, r),
            };
    }
}

/// Collects the object targets of a typed object's slots, through its arrays' elements.
struct PointerCollector<'o> {
    out: &'o mut Vec<u32>,
    depth: u32,
}

impl value::Visitor for PointerCollector<'_> {
    fn reference(&mut self, _at: usize, target: Target<'_>) {
        match target {
            Target::Object(t) => self.out.push(t),
            Target::Run(r) if r.holds_refs() && self.depth < crate::value::MAX_DEPTH => {
                let mut inner = PointerCollector { out: &mut *self.out, depth: self.depth + 1 };
                for i in 0..r.len() {
                    r.visit_elem(i, i * r.elem_size(), &mut inner);
                }
            }
            _ => {}
        }
    }
}

/// Turns objects back into items: objects keep their handles as item indices; runs get fresh
/// indices after them.
struct Builder<'t> {
    table: &'t TypeTable,
    /// The items of the file read: the text of a string origin.
    source: &'t Items,
    layouts: Layouts<'t>,
    items: Vec<ItemData>,
    char_ty: Option<TypeIndex>,
    /// The string origins of the typed object being written, and how many were used.
    origins: &'t [u32],
    next_origin: usize,
    /// Runs of the file read already written (by untyped objects, or strings of typed objects
    /// whose text is unchanged) -> their new indices: a run two slots share is written once.
    /// Indexed by the run's item index in the file read; 0 for a run not written yet.
    old_runs: Vec<u32>,
}

/// The new index of run `old` in a table of [`Builder::old_runs`], once written.
fn written_run(old_runs: &[u32], old: u32) -> Option<u32> {
    old_runs.get(old as usize).copied().filter(|&n| n != 0)
}

impl<'t> Builder<'t> {
    fn new(table: &'t TypeTable, source: &'t Items, handles: usize) -> Self {
        // A table may name several types `char` (a hostile one may give one a size other than 1).
        let mut layouts = Layouts::new(table);
        let char_ty = table
            .iter()
            .filter(|(_, t)| t.name == "char")
            .map(|(i, _)| i)
            .find(|&i| layouts.size_of(i).ok() == Some(1));
        // Objects keep their handles; a round trip writes about as many runs as were read.
        let mut items = Vec::with_capacity(handles.max(source.items.len()));
        items.resize_with(handles, ItemData::null);
        Builder {
            table,
            source,
            layouts,
            items,
            char_ty,
            origins: &[],
            next_origin: 0,
            old_runs: vec![0; source.items.len()],
        }
    }

    /// The new index of run `old` of the file read, once written.
    fn written_run(&self, old: u32) -> Option<u32> {
        written_run(&self.old_runs, old)
    }

    fn push(&mut self, it: ItemData) -> u32 {
        self.items.push(it);
        self.items.len() as u32 - 1
    }

    /// The item of a typed object of type `ty`.
    fn typed(&mut self, ty: TypeIndex, kind_byte: u8, obj: &dyn Object, origins: &'t [u32]) -> Result<ItemData, ValueError> {
        self.origins = origins;
        self.next_origin = 0;
        let size = self.layouts.size_of(ty)? as usize;
        let slots = self.layouts.slots(ty)?;
        let mut bytes = vec![0u8; size];
        {
            let mut refs = Emit { b: self, ty, size };
            obj.write_object(&mut Writer::new(&mut bytes, 0, &mut refs))?;
        }
        Ok(ItemData { ty, kind_byte, count: 1, elem_size: size as u32, bytes: bytes.into(), slots })
    }

    /// The item of an untyped object, its owned runs copied under fresh indices.
    fn untyped(&mut self, source: &Items, index: u32) -> Result<ItemData, WriteError> {
        let item = source.items.get(index as usize).ok_or_else(|| WriteError::new(ErrorKind::Invalid(format!("no item {index}"))))?;
        // The runs the object reaches through arrays and strings that are not written yet, each
        // copied once (a run two objects share is written once).
        let mut fresh = Vec::new();
        let mut stack: Vec<u32> = item.references().filter(|(_, s, _)| s.kind != SlotKind::Pointer).map(|(_, _, t)| t).collect();
        while let Some(old) = stack.pop() {
            if self.written_run(old).is_some() {
                continue;
            }
            let it = &source.items[old as usize];
            stack.extend(it.references().filter(|(_, s, _)| s.kind != SlotKind::Pointer).map(|(_, _, t)| t));
            let new = self.push(it.clone());
            self.old_runs[old as usize] = new;
            fresh.push(new);
        }
        let remap = |it: &mut ItemData, map: &[u32]| -> Result<(), WriteError> {
            let elems = if it.slots.is_empty() { 0 } else { it.count };
            for e in 0..elems {
                for k in 0..it.slots.len() {
                    let s = it.slots[k];
                    let t = it.target(e, &s);
                    if s.kind == SlotKind::Pointer || t == 0 {
                        continue;
                    }
                    let new = written_run(map, t).ok_or_else(|| WriteError::new(ErrorKind::Invalid(format!("run {t} not owned"))))?;
                    // The bytes are copied only where an index changes.
                    if new != t {
                        let at = (e * it.elem_size + s.offset) as usize;
                        it.bytes.to_mut()[at..at + 4].copy_from_slice(&new.to_le_bytes());
                    }
                }
            }
            Ok(())
        };
        let Builder { items, old_runs, .. } = self;
        for new in fresh {
            remap(&mut items[new as usize], old_runs)?;
        }
        let mut out = item.clone();
        remap(&mut out, old_runs)?;
        Ok(out)
    }

    /// A run of `value`'s elements of type `elem`.
    fn run(&mut self, elem: TypeIndex, value: &dyn value::RunValue) -> Result<u32, ValueError> {
        let size = self.layouts.size_of(elem)? as usize;
        if size != value.elem_size() {
            return Err(ValueError::new(ErrorKind::Invalid(format!(
                "array of {} has {}-byte elements where the type table says {size}",
                self.table.full_name(elem),
                value.elem_size()
            ))));
        }
        let slots = self.layouts.slots(elem)?;
        let n = value.len();
        let mut bytes = vec![0u8; n * size];
        let plain = value.write_plain(&mut bytes);
        for i in (0..n).filter(|_| !plain) {
            let mut refs = Emit { b: self, ty: elem, size };
            let base = (i * size) as u64;
            value.write_elem(i, &mut Writer::new(&mut bytes[i * size..(i + 1) * size], base, &mut refs))?;
        }
        Ok(self.push(ItemData { ty: elem, kind_byte: 0x20, count: n as u32, elem_size: size as u32, bytes: bytes.into(), slots }))
    }

    fn string(&mut self, s: &str) -> Result<u32, ValueError> {
        // The run this string had in the file read, if the text is still the one read there.
        let source = self.source;
        let text_read = |old: u32| source.items.get(old as usize).map(|it| it.bytes.strip_suffix(&[0]).unwrap_or(&[]));
        let origin = match self.origins.get(self.next_origin) {
            Some(&old) if text_read(old) == Some(s.as_bytes()) => Some(old),
            _ => None,
        };
        self.next_origin += 1;
        if let Some(new) = origin.and_then(|o| self.written_run(o)) {
            return Ok(new);
        }
        // The type of the run read there, if it held one-byte characters; else `char`.
        let read_ty = origin.and_then(|o| self.source.items.get(o as usize)).filter(|it| it.elem_size == 1).map(|it| it.ty);
        let ty = read_ty
            .or(self.char_ty)
            .ok_or_else(|| ValueError::new(ErrorKind::Invalid("the type table has no one-byte `char` type for strings".into())))?;
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        let count = bytes.len() as u32;
        let i = self.push(ItemData { ty, kind_byte: 0x20, count, elem_size: 1, bytes: bytes.into(), slots: Slots::NONE });
        if let Some(slot) = origin.and_then(|o| self.old_runs.get_mut(o as usize)) {
            *slot = i;
        }
        Ok(i)
    }
}

/// Hands out item indices while one element of type `ty` is written.
struct Emit<'b, 't> {
    b: &'b mut Builder<'t>,
    ty: TypeIndex,
    size: usize,
}

impl Refs for Emit<'_, '_> {
    fn index(&mut self, slot: u64, target: Target<'_>) -> Result<u32, ValueError> {
        let within = (slot as usize % self.size.max(1)) as u32;
        let slots = self.b.layouts.slots(self.ty)?;
        let s = slots.iter().find(|s| s.offset == within).copied().ok_or_else(|| {
            ValueError::new(ErrorKind::Invalid(format!("{} has no reference slot at {within}", self.b.table.full_name(self.ty))))
        })?;
        let kind = match target {
            Target::Object(_) => SlotKind::Pointer,
            Target::Str(_) => SlotKind::String,
            Target::Run(_) => SlotKind::Array,
        };
        if s.kind != kind {
            return Err(ValueError::new(ErrorKind::Invalid(format!(
                "the class writes a {kind:?} slot at {within} where {} has a {:?} slot",
                self.b.table.full_name(self.ty),
                s.kind
            ))));
        }
        match target {
            Target::Object(h) => Ok(h),
            Target::Str(None) => Ok(0),
            Target::Str(Some(text)) => self.b.string(text),
            Target::Run(r) if r.is_empty() => Ok(0),
            Target::Run(r) => {
                let elem = self.b.element_of(s.ty)?;
                self.b.run(elem, r)
            }
        }
    }
}

impl Builder<'_> {
    /// The element type of an array slot type (its shape's subtype).
    fn element_of(&mut self, slot_ty: TypeIndex) -> Result<TypeIndex, ValueError> {
        self.layouts
            .element_of(slot_ty)?
            .ok_or_else(|| ValueError::new(ErrorKind::Invalid(format!("array type {} has no element type", self.table.full_name(slot_ty)))))
    }
}
