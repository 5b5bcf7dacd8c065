//! hkClass reflection as a schema source for the packfile SDKs (2010-2014): importers that turn a
//! reflection dump ([`botw`]: the BotW Switch JSON; [`fromsoft`]: the FromSoftware 2014.1 type
//! table; [`serde_hkx`]: the Skyrim 2010.2 class JSON; [`dsmapstudio`]: the Dark Souls III 2014.1
//! class XML, both checked against the signatures and offsets they state by [`facts`];
//! [`types_section`]: the hkClass objects a packfile embeds; [`transcribed`]: the records
//! transcribed or derived into the repository's `classdata/`) into platform-neutral [`ClassSchema`] records,
//! the class signature recipe ([`signature`]) that packfiles store in `__classnames__`, and the
//! member offsets and class sizes a platform's layout rules give ([`layout`]). [`sources::extract`]
//! builds the 2014.2, 2014.1, 2013.1, 2010.2, 5.5, 6.6, 7.1 and 2011.1 schemas from all of them and
//! [`snapshot`] writes them under
//! `schemas/<sdk>/classes/`. [`check`] is what `hkgen verify` reports of a packfile.
//!
//! [`ClassSchema`]: crate::schema::model::ClassSchema

// The signature recipe, the runtime class descriptions and the snapshot files are all a build
// script's code generator needs; the importers and checks come with the `tool` feature.
#[cfg(feature = "tool")]
pub mod botw;
#[cfg(feature = "tool")]
pub mod check;
#[cfg(feature = "tool")]
pub mod dsmapstudio;
#[cfg(feature = "tool")]
pub mod facts;
#[cfg(feature = "tool")]
pub mod fromsoft;
pub mod layout;
#[cfg(feature = "tool")]
pub mod serde_hkx;
pub mod signature;
pub mod snapshot;
#[cfg(feature = "tool")]
pub mod sources;
#[cfg(feature = "tool")]
pub mod transcribed;
#[cfg(feature = "tool")]
pub mod types_section;
