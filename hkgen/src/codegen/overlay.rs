//! The enumeration overlay (`schemas/enums.ron`): what the type tables do not say about
//! enumerations (spec: "Enumerated members"). Tables name an enumeration but list none of its
//! items, and some members that Havok declares as an enumeration are stored as a bare integer
//! (`hknpBodyCinfo.motionType` is `unsigned char`). The overlay gives item names by enumeration
//! key and an enumeration per such member; the stored integer is kept either way.

use super::Config;
use crate::Error;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlay {
    /// Items by enumeration key (`hknpMotionType::Enum`), as (name, value).
    #[serde(default)]
    pub enums: BTreeMap<String, Vec<(String, i64)>>,
    /// Enumeration key by member (`hknpBodyCinfo.motionType`), for members stored as an integer.
    #[serde(default)]
    pub members: BTreeMap<String, String>,
}

impl Overlay {
    pub fn parse(text: &str) -> Result<Self, Error> {
        ron::from_str(text).map_err(|e| Error::Schema(format!("enumeration overlay: {e}")))
    }

    /// Reads `path`; a missing file is an empty overlay.
    pub fn read(path: &Path) -> Result<Self, Error> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text).map_err(|e| Error::Schema(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// `config` with the overlay's names and member enumerations added.
    pub fn apply(&self, mut config: Config) -> Config {
        for (key, items) in &self.enums {
            config = config.enum_items(key, items.iter().cloned());
        }
        for (member, e) in &self.members {
            if let Some((class, field)) = member.rsplit_once('.') {
                config = config.member_enum(class, field, e);
            }
        }
        config
    }
}
