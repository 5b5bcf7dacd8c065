//! Member offsets and class sizes of the schema's classes under a file's layout rules. The
//! algorithm is the runtime's ([`hktypes::packfile::layout`], one copy for the schema tool and for
//! reading objects); this module makes a [`ClassSchema`] one of its class sources, converting each
//! record when it is first asked for (with its layout override and its computed signature).

use crate::schema::model::{ClassRecord, ClassSchema};
use hktypes::packfile::layout::{Class, ClassSource, FixedLayout, Member};
use hktypes::packfile::LayoutRules;
use std::borrow::Cow;
use std::collections::BTreeMap;

pub use hktypes::packfile::layout::{ClassLayout, LayoutError};

/// The sizes and offsets a reflection source states for one platform's layout rules, kept apart
/// from the neutral records (what the BotW dump says of the Switch, what serde-hkx's and DSMapStudio's
/// class files say of theirs, what a packfile's embedded hkClass objects say of its own).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObservedLayout {
    /// Class -> object size.
    pub sizes: BTreeMap<String, u32>,
    /// Class -> declared members' offsets, in order.
    pub offsets: BTreeMap<String, Vec<u32>>,
}

/// Layouts of a [`ClassSchema`]'s classes under one set of rules.
pub type ClassLayouts<'a> = hktypes::packfile::layout::ClassLayouts<'a, ClassSchema>;

/// The runtime description of one schema class, with its override.
pub fn runtime_class(schema: &ClassSchema, c: &ClassRecord) -> Class {
    let over = schema.overrides.get(&c.name);
    Class {
        name: c.name.clone(),
        parent: c.parent.clone(),
        interfaces: c.interfaces,
        members: c
            .members
            .iter()
            .map(|m| Member {
                name: m.name.clone(),
                ty: m.ty,
                subtype: m.subtype,
                class: m.class.clone(),
                c_array_size: m.c_array_size,
                flags: m.flags,
                enumeration: m.enumeration.clone(),
            })
            .collect(),
        hidden_members: over.is_some_and(|o| o.hidden_members),
        fixed: over
            .map(|o| {
                o.fixed
                    .iter()
                    .filter_map(|(k, f)| Some((LayoutRules::parse(k)?, FixedLayout { size: f.size, align: f.align, offsets: f.offsets.clone() })))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

impl ClassSource for ClassSchema {
    fn class(&self, name: &str) -> Option<Cow<'_, Class>> {
        self.classes.get(name).map(|c| Cow::Owned(runtime_class(self, c)))
    }

    fn signature(&self, name: &str) -> Option<u32> {
        super::signature::class_signature(self, name).ok()
    }

    fn enumeration(&self, name: &str) -> Option<Cow<'_, [(i64, String)]>> {
        self.enums.get(name).map(|e| Cow::Borrowed(e.items.as_slice()))
    }
}

/// Every class of `schema` as a runtime [`ClassSet`](hktypes::packfile::layout::ClassSet), with the signatures the schema recomputes
/// (computed once: reading many files through the set is cheaper than through the schema, which
/// converts a record and recomputes its signature on every request).
pub fn class_set(schema: &ClassSchema) -> hktypes::packfile::layout::ClassSet {
    let mut set = hktypes::packfile::layout::ClassSet::default();
    for c in schema.classes.values() {
        set.classes.insert(c.name.clone(), runtime_class(schema, c));
        if let Ok(sig) = super::signature::class_signature(schema, &c.name) {
            set.signatures.insert(c.name.clone(), sig);
        }
    }
    set.enums = schema.enums.iter().map(|(k, e)| (k.clone(), e.items.clone())).collect();
    set
}
