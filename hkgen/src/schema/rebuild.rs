//! Rebuilds a [`TypeTable`] from a schema, so that a snapshot alone recomputes every hash it
//! stores: the check that a snapshot lost nothing.

use super::model::{Arg, Schema};
use crate::error::SchemaError;
use crate::error::Error;
use hktypes::reflect::hash::{check_table, HashCheck};
use hktypes::reflect::{Field, Interface, SizeAlign, TemplateArg, TemplateParam, TypeIndex, TypeRecord, TypeTable};
use std::collections::BTreeMap;

/// Every type of `schema` in one table, in key order from index 1; with the index of each key.
pub fn to_table(schema: &Schema) -> Result<(TypeTable, BTreeMap<&str, TypeIndex>), Error> {
    let index: BTreeMap<&str, TypeIndex> =
        schema.types.keys().enumerate().map(|(i, k)| (k.as_str(), i as TypeIndex + 1)).collect();
    let resolve = |owner: &str, key: &str| -> Result<TypeIndex, Error> {
        if key.is_empty() {
            return Ok(0);
        }
        index.get(key).copied().ok_or_else(|| Error::Schema(SchemaError::new(format!("refers to unknown type {key:?}")).in_context(owner)))
    };
    let mut types = vec![TypeRecord::default()];
    for t in schema.types.values() {
        let owner = t.key.as_str();
        let params = t
            .params
            .iter()
            .map(|p| {
                Ok(TemplateParam {
                    name: p.name.as_str().into(),
                    arg: match &p.arg {
                        Arg::Type(k) => TemplateArg::Type(resolve(owner, k)?),
                        Arg::Value(v) => TemplateArg::Value(*v),
                    },
                })
            })
            .collect::<Result<_, Error>>()?;
        let fields = match &t.fields {
            None => None,
            Some(fs) => Some(
                fs.iter()
                    .map(|f| Ok(Field { name: f.name.as_str().into(), flags: f.flags.0, offset: f.offset, ty: resolve(owner, &f.ty)?, aux: f.aux }))
                    .collect::<Result<Vec<_>, Error>>()?,
            ),
        };
        let interfaces = match &t.interfaces {
            None => None,
            Some(is) => Some(
                is.iter()
                    .map(|x| Ok(Interface { ty: resolve(owner, &x.ty)?, value: x.value }))
                    .collect::<Result<Vec<_>, Error>>()?,
            ),
        };
        let size = match (t.size, t.align) {
            (Some(size), Some(align)) => Some(SizeAlign { size, align }),
            (None, None) => None,
            _ => return Err(SchemaError::new("size and align must be given together").in_context(owner).into()),
        };
        types.push(TypeRecord {
            name: t.name.as_str().into(),
            params,
            parent: match &t.parent {
                Some(p) => resolve(owner, p)?,
                None => 0,
            },
            format: t.format.map(|h| h.0),
            subtype: t.subtype.as_deref().map(|s| resolve(owner, s)).transpose()?,
            version: t.version,
            size,
            flags: t.flags.map(|h| h.0),
            properties: t.properties,
            fields,
            interfaces,
            hash: t.hash.map(|h| h.0),
        });
    }
    Ok((TypeTable::from_records(types), index))
}

/// Recomputes, from the schema alone, every stored hash and every computed hash it records.
pub fn check(schema: &Schema) -> Result<(HashCheck, usize), Error> {
    let (table, index) = to_table(schema)?;
    let stored = check_table(&table, schema.recipe)?;
    let mut hasher = hktypes::reflect::hash::Hasher::new(&table, schema.recipe);
    let mut computed_ok = 0;
    for (key, &i) in &index {
        let h = hasher.hash(i)?;
        if h == schema.types[*key].computed.0 {
            computed_ok += 1;
        }
    }
    Ok((stored, computed_ok))
}
