//! Where a call finds its API key: the process environment (a library's default), or a
//! [`Keys`] store that took the keys out of the environment, so that no process started
//! afterwards can inherit one.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::config::Config;

/// The suffix of variables taken as keys whatever the config names: a config changed while
/// the daemon runs may name one of them, and none should reach what the daemon starts.
const KEY_SUFFIX: &str = "_API_KEY";

/// API keys held in memory only. Their values never print: `Debug` shows the names.
#[derive(Default)]
pub struct Keys {
    taken: BTreeMap<String, String>,
    /// The names the config gave when the keys were taken, set or not.
    named: Vec<String>,
}

impl Keys {
    /// Takes out of the process environment the variables `config` names as keys (the
    /// configured one and the default), and every variable whose name ends in `_API_KEY`, and
    /// keeps their values.
    ///
    /// # Safety
    ///
    /// Changes the process environment: no other thread may read or write it meanwhile, so call
    /// it before the program starts any thread that could.
    pub unsafe fn take_from_env(config: &Config) -> Self {
        let named = config.key_variables();
        let mut taken = BTreeMap::new();
        for (name, value) in std::env::vars_os() {
            let Some(name) = name.to_str() else { continue };
            if !(named.iter().any(|n| n == name) || name.ends_with(KEY_SUFFIX)) {
                continue;
            }
            // SAFETY: the caller guarantees no other thread touches the environment.
            unsafe { std::env::remove_var(name) };
            if let Some(value) = value.to_str().filter(|v| !v.is_empty()) {
                taken.insert(name.to_string(), value.to_string());
            }
        }
        Self { taken, named }
    }

    /// Keys given by name, for tests and for embedders that keep keys elsewhere.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> Self {
        let taken: BTreeMap<String, String> = pairs.into_iter().collect();
        let named = taken.keys().cloned().collect();
        Self { taken, named }
    }

    /// The value of the key variable `name`, if it was set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.taken.get(name).map(String::as_str)
    }

    /// Whether `name` was looked for when the keys were taken: then its absence means unset.
    fn looked_for(&self, name: &str) -> bool {
        name.ends_with(KEY_SUFFIX) || self.named.iter().any(|n| n == name)
    }

    /// The names of the keys held.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.taken.keys().map(String::as_str)
    }
}

impl fmt::Debug for Keys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keys")
            .field("names", &self.taken.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Where [`crate::Models`] reads the key at each call.
#[derive(Debug, Clone, Default)]
pub enum KeySource {
    /// The process environment, read at each call.
    #[default]
    Environment,
    /// Keys taken out of the environment earlier ([`Keys::take_from_env`]).
    Held(Arc<Keys>),
}

/// What looking a key up found.
pub(crate) enum Lookup {
    Found(String),
    /// Not set where the source looks.
    Unset,
    /// Held keys were taken at start, and this variable was not among them.
    NotTaken,
}

impl KeySource {
    /// Looks up the variable `name`.
    pub(crate) fn lookup(&self, name: &str) -> Lookup {
        match self {
            Self::Environment => match std::env::var(name) {
                Ok(key) if !key.is_empty() => Lookup::Found(key),
                _ => Lookup::Unset,
            },
            Self::Held(keys) => match keys.get(name) {
                Some(key) => Lookup::Found(key.to_string()),
                None if keys.looked_for(name) => Lookup::Unset,
                None => Lookup::NotTaken,
            },
        }
    }

    /// Whether the key variable `name` has a value.
    pub fn has(&self, name: &str) -> bool {
        matches!(self.lookup(name), Lookup::Found(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_names_never_values() {
        let keys = Keys::from_pairs([("A_API_KEY".into(), "sk-secret-1".into())]);
        let own = format!("{keys:?}");
        let shown = format!("{own} {:?}", KeySource::Held(Arc::new(keys)));
        assert!(shown.contains("A_API_KEY"), "{shown}");
        assert!(!shown.contains("sk-secret-1"), "{shown}");
    }

    #[test]
    fn held_keys_tell_a_variable_never_taken_from_one_that_was_unset() {
        let source = KeySource::Held(Arc::new(Keys::from_pairs([(
            "MY_TOKEN".into(),
            "t".into(),
        )])));
        assert!(matches!(source.lookup("MY_TOKEN"), Lookup::Found(k) if k == "t"));
        assert!(matches!(source.lookup("OTHER_API_KEY"), Lookup::Unset));
        assert!(matches!(source.lookup("SOME_SECRET"), Lookup::NotTaken));
    }
}
