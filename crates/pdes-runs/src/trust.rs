//! Trust once, remembered (issue 56 §3): the outcome of the quick GPU ≡ CPU check per
//! adapter, driver and PDES Lab build, kept in the user's cache directory, so that the
//! window's second start and `--devices` need not check again. A new driver or a new build
//! is another key, so it is checked again; `pdes-lab verify` always runs afresh (and records
//! what it found); only a passed check is trusted, a failed one is checked again.
//!
//! In a browser tab the same JSON is kept in the page's local storage (per site), and the
//! build is the one `web/build.sh` stamps (`PDES_BUILD_ID` at compile time; a build without
//! it remembers nothing).
//!
//! The file is JSON, one entry per key, written whole and atomically
//! ([`crate::output::write_atomically`]); a file that cannot be read is treated as empty
//! and one that cannot be written leaves the check unremembered, silently: the memory only
//! saves time, it never decides anything a fresh check would not.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What was found the last time this adapter was checked with this build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
    /// When, as YYYY-MM-DD (UTC).
    pub date: String,
}

impl Remembered {
    /// True when every check passed.
    pub fn ok(&self) -> bool {
        self.failed == 0 && self.passed > 0
    }

    /// "passed on DATE (N checks)" or "failed on DATE (M of N checks)".
    pub fn state(&self) -> String {
        if self.ok() {
            format!(
                "GPU = CPU checked on {} ({} checks passed)",
                self.date, self.passed
            )
        } else {
            format!(
                "GPU ≠ CPU on {} ({} of {} checks failed)",
                self.date,
                self.failed,
                self.passed + self.failed
            )
        }
    }
}

/// The page's local-storage key of the memory.
pub const PAGE_KEY: &str = "pdes-lab.gpu-checks";

/// The environment variable that moves the memory's folder (a cluster's scratch).
pub const DIR_VARIABLE: &str = "PDES_CACHE_DIR";

/// Where the outcomes are kept: one JSON file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    /// The file.
    pub file: PathBuf,
}

impl Memory {
    /// The user's: `$PDES_CACHE_DIR/gpu-checks.json`, else the user's cache directory's
    /// `pdes-lab/gpu-checks.json`; None where there is neither.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn users() -> Option<Self> {
        let dir = match std::env::var_os(DIR_VARIABLE) {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => dirs::cache_dir()?.join("pdes-lab"),
        };
        Some(Self::in_folder(dir))
    }

    /// The page's: its local storage under [`PAGE_KEY`] (shown as the "file"); None for a
    /// build without `web/build.sh`'s stamp, which could not tell two builds apart.
    #[cfg(target_arch = "wasm32")]
    pub fn users() -> Option<Self> {
        option_env!("PDES_BUILD_ID")?;
        Some(Self {
            file: PathBuf::from(format!("local storage: {PAGE_KEY}")),
        })
    }

    /// The memory kept in `dir` (tests use a folder of their own).
    pub fn in_folder(dir: PathBuf) -> Self {
        Self {
            file: dir.join("gpu-checks.json"),
        }
    }

    fn read_all(&self) -> BTreeMap<String, Remembered> {
        self.load()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// The memory's text, if there is any.
    #[cfg(not(target_arch = "wasm32"))]
    fn load(&self) -> Option<String> {
        std::fs::read_to_string(&self.file).ok()
    }

    /// Replaces the memory's text (whole and atomically; a failure keeps nothing).
    #[cfg(not(target_arch = "wasm32"))]
    fn store(&self, text: &str) {
        if let Some(dir) = self.file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = crate::output::write_atomically(&self.file, text);
    }

    /// The memory's text in the page's local storage, if there is any.
    #[cfg(target_arch = "wasm32")]
    fn load(&self) -> Option<String> {
        let storage = web_sys::window()?.local_storage().ok()??;
        storage.get_item(PAGE_KEY).ok()?
    }

    /// Replaces the memory's text in local storage (a browser that refuses keeps nothing).
    #[cfg(target_arch = "wasm32")]
    fn store(&self, text: &str) {
        if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
            let _ = storage.set_item(PAGE_KEY, text);
        }
    }

    /// What the last check of `info` with this build found, if it was made.
    pub fn recall(&self, info: &wgpu::AdapterInfo) -> Option<Remembered> {
        self.read_all().remove(&key(info))
    }

    /// Keeps the outcome of a check of `info` (`passed` and `failed` checks) dated today.
    pub fn remember(&self, info: &wgpu::AdapterInfo, passed: usize, failed: usize) {
        let mut all = self.read_all();
        all.insert(
            key(info),
            Remembered {
                passed,
                failed,
                date: today(),
            },
        );
        if let Ok(text) = serde_json::to_string_pretty(&all) {
            self.store(&(text + "\n"));
        }
    }
}

/// What the user's memory holds for `info` with this build ([`Memory::users`]).
pub fn recall(info: &wgpu::AdapterInfo) -> Option<Remembered> {
    Memory::users()?.recall(info)
}

/// Keeps a check's outcome in the user's memory ([`Memory::users`]), where there is one.
pub fn remember(info: &wgpu::AdapterInfo, passed: usize, failed: usize) {
    if let Some(m) = Memory::users() {
        m.remember(info, passed, failed);
    }
}

/// The key of `info` with this build: adapter, ids, backend, driver and its version, and
/// the build (the version and the executable's size and time: any rebuild is new).
pub fn key(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} [{:04x}:{:04x}] {:?} {} {} | pdes-lab {}",
        info.name,
        info.vendor,
        info.device,
        info.backend,
        info.driver,
        info.driver_info,
        build()
    )
}

/// This build of PDES Lab in a page: its version and `web/build.sh`'s stamp.
#[cfg(target_arch = "wasm32")]
fn build() -> String {
    format!(
        "{} {}",
        env!("CARGO_PKG_VERSION"),
        option_env!("PDES_BUILD_ID").unwrap_or_default()
    )
}

/// This build of PDES Lab: its version and its executable's size and modification time.
#[cfg(not(target_arch = "wasm32"))]
fn build() -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{t}", m.len())
        })
        .unwrap_or_default();
    format!("{} {exe}", env!("CARGO_PKG_VERSION"))
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
pub fn today() -> String {
    let secs = web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date((secs / 86_400) as i64)
}

/// The proleptic Gregorian date of `days` since 1970-01-01, as YYYY-MM-DD (Howard
/// Hinnant's days-to-civil algorithm).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn days_since_the_epoch_are_calendar_dates() {
        assert_eq!(super::civil_date(0), "1970-01-01");
        assert_eq!(super::civil_date(59), "1970-03-01");
        assert_eq!(super::civil_date(11_016), "2000-02-29");
        assert_eq!(super::civil_date(20_785), "2026-11-28");
    }
}
