//! Packfile documents made from nothing: an empty container as Havok's packer writes one (the
//! header for a contents version and layout rules, `__classnames__` listing the reflection classes
//! `hkClass`, `hkClassMember`, `hkClassEnum` and `hkClassEnumItem`, an empty `__types__` and
//! `__data__`), to which classes are declared from a [`ClassSource`] and objects added through
//! their generated structs (`hktypes::Document::add`). The writer lays `__data__` out as for any
//! document; its hkArrays carry the capacity-word flags of the contents version's files
//! ([`super::objects::stock_array_flags`]).

use super::file::{
    ClassName, ClassNames, ContentsVersion, Header, HeaderTail, PackFile, Section, SectionBody, CLASSNAMES, DATA, TYPES,
};
use super::layout::{ClassSet, ClassSource, ClassLayouts};
use super::objects::{copy_class, stock_array_flags, PackfileDocument};
use super::raw::{LayoutRules, FILL, VERSION_11};
use crate::error::{ErrorKind, ValueError};

impl PackfileDocument {
    /// An empty document of contents version `contents_version` (`hk_2014.2.0-r1`) and packfile
    /// version `file_version` (11 for 2014, 8 for 2010.2), laid out under `rules`.
    pub fn new(contents_version: &str, file_version: u32, rules: LayoutRules) -> PackfileDocument {
        let tail = if file_version >= VERSION_11 {
            // As in the corpus' stock files: no region after the header.
            HeaderTail::Predicates { max_predicate: 21, region: Vec::new() }
        } else {
            HeaderTail::Pad([FILL; 4])
        };
        let header = Header {
            user_tag: 0,
            file_version,
            layout: rules,
            contents_section_index: 2,
            contents_section_offset: 0,
            contents_class_name_section_index: 0,
            contents_class_name_section_offset: 0,
            contents_version: ContentsVersion::new(contents_version),
            flags: 0,
            tail,
        };
        let meta = ["hkClass", "hkClassMember", "hkClassEnum", "hkClassEnumItem"];
        let entries = meta
            .into_iter()
            .zip(super::xml::meta_signatures(file_version))
            .map(|(n, signature)| ClassName { signature, name: n.to_owned() });
        let mut names = Section::empty(CLASSNAMES);
        names.body = SectionBody::ClassNames(ClassNames { entries: entries.collect(), fill: None });
        let file = PackFile { header, sections: vec![names, Section::empty(TYPES), Section::empty(DATA)] };
        PackfileDocument { file, data_index: 2, objects: Vec::new(), classes: ClassSet::default(), root: None, demoted: 0, bad_values: None, declare_from: Default::default(), array_flags: stock_array_flags(contents_version), repairs: Vec::new() }
    }

    /// Declares class `class` from `source`: its description (with its parents and the classes
    /// of its struct members) for laying objects out, and a `__classnames__` entry with the
    /// signature `source` computes, so that `hktypes::Document::add` takes objects of it. A class the
    /// document already lists is left as it is.
    pub fn declare(&mut self, class: &str, source: &dyn ClassSource) -> Result<(), ValueError> {
        let invalid = |m: String| ValueError::new(ErrorKind::Invalid(m));
        let ci = self.file.section_index(CLASSNAMES).ok_or_else(|| invalid("the document has no __classnames__ section".into()))?;
        if self.file.class_names().get(class).is_some() {
            return Ok(());
        }
        let signature = source.signature(class).ok_or_else(|| invalid(format!("the class source computes no signature for {class}")))?;
        let mut classes = self.classes.clone();
        if !copy_class(source, class, &mut classes, 0) {
            return Err(invalid(format!("the class source does not describe {class} (or a class it uses)")));
        }
        ClassLayouts::new(&classes, self.layout()).class(class).map_err(|e| invalid(format!("{class} does not lay out: {e}")))?;
        self.classes = classes;
        let SectionBody::ClassNames(names) = &mut self.file.sections[ci].body else {
            return Err(invalid("__classnames__ holds no class names".into()));
        };
        names.entries.push(ClassName { signature, name: class.to_owned() });
        Ok(())
    }
}
