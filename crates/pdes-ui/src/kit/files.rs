//! Files as the platform offers them. On the desktop: rfd's dialogs and the file system. In
//! a browser tab: the page's file picker, whose answer arrives a frame or more later (a
//! [`Pick`] is polled), and downloads instead of writes. Dropped files come as paths on the
//! desktop and as bytes in the browser; [`Picked`] holds either.

/// A file the user chose or dropped.
pub enum Picked {
    /// A file on this machine's file system (the desktop).
    Path(std::path::PathBuf),
    /// A file's name and contents (the browser hands over bytes, never a path).
    Bytes {
        /// The file's name, for messages.
        name: String,
        /// Its contents.
        bytes: Vec<u8>,
    },
}

impl Picked {
    /// The name to show.
    pub fn name(&self) -> String {
        match self {
            Self::Path(p) => p.display().to_string(),
            Self::Bytes { name, .. } => name.clone(),
        }
    }
}

/// A file asked for: on the desktop answered at once, in the browser when the user has
/// chosen (or cancelled).
pub struct Pick {
    #[cfg(not(target_arch = "wasm32"))]
    answer: Option<Option<Picked>>,
    #[cfg(target_arch = "wasm32")]
    answer: std::rc::Rc<std::cell::RefCell<Option<Option<Picked>>>>,
}

impl Pick {
    /// The answer once there is one: `Some(None)` when nothing was chosen.
    pub fn take(&mut self) -> Option<Option<Picked>> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.answer.take()
        }
        #[cfg(target_arch = "wasm32")]
        {
            self.answer.borrow_mut().take()
        }
    }
}

/// Asks for a file of kind `what` (e.g. "preset") with one of `extensions`.
pub fn pick(what: &str, extensions: &[&str]) -> Pick {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let chosen = rfd::FileDialog::new()
            .add_filter(what, extensions)
            .pick_file()
            .map(Picked::Path);
        Pick {
            answer: Some(chosen),
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        let answer = std::rc::Rc::new(std::cell::RefCell::new(None));
        let slot = answer.clone();
        let dialog = rfd::AsyncFileDialog::new().add_filter(what, extensions);
        wasm_bindgen_futures::spawn_local(async move {
            let picked = match dialog.pick_file().await {
                Some(handle) => Some(Picked::Bytes {
                    name: handle.file_name(),
                    bytes: handle.read().await,
                }),
                None => None,
            };
            *slot.borrow_mut() = Some(picked);
        });
        Pick { answer }
    }
}

/// What became of a save.
pub enum Saved {
    /// Written (or downloaded): where, in words.
    Done(String),
    /// No file was chosen.
    Cancelled,
    /// Why it could not be written.
    Failed(String),
}

impl Saved {
    /// The status line for a save of `what` ("saved …", "could not save …", or that
    /// nothing was chosen and why that may be).
    pub fn message(&self, what: &str) -> String {
        match self {
            Self::Done(place) => format!("{what}: {place}"),
            Self::Failed(why) => format!("{what}: {why}"),
            Self::Cancelled if cfg!(target_arch = "wasm32") => {
                format!("{what}: no file was chosen")
            }
            Self::Cancelled => format!(
                "{what}: no file was chosen (cancelled, or this desktop offers no file dialog: rfd needs the XDG desktop portal or GTK; the command line writes the same files, see pdes-lab run --help)"
            ),
        }
    }
}

/// Saves `bytes` as a file the user names (default `name`, kind `what` with `extensions`):
/// on the desktop through a save dialog, written whole or not at all; in the browser as a
/// download called `name`.
pub fn save(name: &str, what: &str, extensions: &[&str], bytes: &[u8]) -> Saved {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let Some(path) = rfd::FileDialog::new()
            .add_filter(what, extensions)
            .set_file_name(name)
            .save_file()
        else {
            return Saved::Cancelled;
        };
        match pdes_runs::output::write_bytes_atomically(&path, bytes) {
            Ok(()) => Saved::Done(format!("wrote {}", path.display())),
            Err(e) => Saved::Failed(format!("could not write {}: {e}", path.display())),
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (what, extensions);
        match download(name, bytes) {
            Ok(()) => Saved::Done(format!("downloaded {name}")),
            Err(e) => Saved::Failed(format!("the download of {name} failed: {e}")),
        }
    }
}

/// Offers `bytes` to the browser as a download called `name` (a Blob behind a link that is
/// clicked once).
#[cfg(target_arch = "wasm32")]
fn download(name: &str, bytes: &[u8]) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    let fail = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let parts = js_sys::Array::new();
    parts.push(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let link: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(fail)?
        .dyn_into()
        .map_err(|_| "not a link".to_string())?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    web_sys::Url::revoke_object_url(&url).map_err(fail)
}

/// The first file dropped on the window this frame, as a [`Pick`] (the browser reads a
/// dropped file's bytes asynchronously).
pub fn dropped(ctx: &eframe::egui::Context) -> Option<Pick> {
    let file = ctx.input(|i| i.raw.dropped_files.first().cloned())?;
    #[cfg(not(target_arch = "wasm32"))]
    {
        let p = file.path().to_path_buf();
        (!p.as_os_str().is_empty()).then_some(Pick {
            answer: Some(Some(Picked::Path(p))),
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        let answer = std::rc::Rc::new(std::cell::RefCell::new(None));
        let slot = answer.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let name = file.path().display().to_string();
            let picked = file
                .bytes_async()
                .await
                .ok()
                .map(|bytes| Picked::Bytes { name, bytes });
            *slot.borrow_mut() = Some(picked);
        });
        Some(Pick { answer })
    }
}
