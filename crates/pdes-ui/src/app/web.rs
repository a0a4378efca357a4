//! The window in a browser tab (`crates/pdes-web` calls [`start`]): the same [`PdesApp`]
//! on a canvas, drawn with WebGL2 through eframe's glow painter, its configuration read
//! from the page's URL ([`Link`]). The engines run on the browser's WebGPU where it offers
//! an adapter — a device whose readbacks are deferred (`pdes_gpu::deferred`: a page cannot
//! wait for the GPU), checked at start like the desktop's; the CPU engines, sweeps and fits
//! run on the CPU, single-threaded.

use super::PdesApp;
use pdes_models::link::Link;
use pdes_models::preset;
use wasm_bindgen::JsCast;

/// The prefix of the console line the page writes when a run reaches its end time: the
/// run's summary as JSON, the same fields `pdes-lab run --format json` prints (the browser
/// test compares them).
pub const SUMMARY_LINE: &str = "pdes-lab summary: ";

/// Starts the app on the canvas with id `canvas_id`, configured by the page's URL query.
/// A query that does not make a configuration opens the default preset with the reason.
pub async fn start(canvas_id: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let canvas: web_sys::HtmlCanvasElement = document
        .get_element_by_id(canvas_id)
        .ok_or_else(|| format!("the page has no element with id {canvas_id}"))?
        .dyn_into()
        .map_err(|_| format!("{canvas_id} is not a canvas"))?;
    // a link opens what it says; a bare address reopens the settings of the last visit
    let query = window.location().search().unwrap_or_default();
    let query = if query.trim_start_matches('?').is_empty() {
        remembered().unwrap_or_default()
    } else {
        query
    };
    // a link opens what it can: a bad parameter or assignment is refused alone, named, and
    // the rest (preset, engine, speed) kept; the address bar then holds only what was kept
    let (mut link, mut refused) = Link::parse_keeping(&query);
    let (config, note) = match link.config_keeping() {
        Ok((cfg, more)) => {
            refused.extend(more);
            let note = (!refused.is_empty())
                .then(|| format!("the link: {}; the rest of it opened", refused.join("; ")));
            (cfg, note)
        }
        Err(e) => {
            let name = preset::default_preset();
            link = Link::parse(&format!("preset={name}"))?;
            (
                preset::config_with(name, &[])?,
                Some(format!("the link: {e}; opened {name} instead")),
            )
        }
    };
    if note.is_some() {
        address_of(&link);
    }
    let (speed, preset_name) = (link.speed, link.preset.clone());
    loading_says("PDES Lab is opening the GPU (WebGPU)…");
    // the engines' device: the browser's WebGPU, or the reason there is none (the page then
    // runs every engine on the CPU and says why)
    let device = if window.is_secure_context() {
        pdes_gpu::Gpu::for_page().await.map(std::sync::Arc::new)
    } else {
        // a browser offers WebGPU only to a secure context: a class's page served over
        // plain http from another machine has none, whatever the browser (issue 56 §4)
        Err("no WebGPU here: this page came over plain http from another machine, and browsers offer WebGPU only over HTTPS or on localhost (serve it over HTTPS: the guide, In a browser tab, serving a class)".to_string())
    };
    loading_says(&format!(
        "PDES Lab is building {} and compiling its shaders…",
        preset_name
    ));
    // the run's session opened here, its shaders compiled before the window starts: the
    // window's first sizing of its canvas is a synchronous call to the browser's GPU
    // process, and shaders still compiling there held it (and the page, "loading…") for
    // 8 s on SwiftShader (issue 56 §2; `web/test/profile-start.mjs` finds such waits)
    let session = match &device {
        Ok(gpu) => {
            let panel = crate::panels::of(&config);
            let opened =
                crate::kit::session::Session::new(config.clone(), panel, Some(gpu.clone()));
            work_done(gpu).await;
            Some(opened)
        }
        Err(_) => None,
    };
    let options = eframe::WebOptions {
        renderer: eframe::Renderer::Glow,
        ..Default::default()
    };
    eframe::WebRunner::new()
        .start(
            canvas,
            options,
            Box::new(move |cc| {
                let mut app = PdesApp::in_page(cc, config, device, session)?;
                app.preset_name = preset_name;
                if let Some(s) = speed {
                    app.sim_rate = s;
                }
                if note.is_some() {
                    app.message = note;
                }
                Ok(Box::new(app))
            }),
        )
        .await
        .map_err(|e| format!("the window could not start: {e:?}"))
}

/// The id of the page's element that says "loading…" until the window's first frame.
const LOADING_ID: &str = "pdes-loading";

/// Puts `text` into the page's "loading…" element (web/index.html), where it still is.
fn loading_says(text: &str) {
    let element = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(LOADING_ID));
    if let Some(e) = element {
        e.set_text_content(Some(text));
    }
}

/// Set by the window's first frame ([`first_frame_drawn`]).
static FIRST_FRAME: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Resolves once the window's first frame has been drawn, and `ms` milliseconds more. The
/// start-up check waits for it (issue 56 §2): its shaders, compiled in the browser's GPU
/// process, held up the canvas's first sizing — a synchronous call to that same process —
/// for 20 s on SwiftShader (`web/test/profile-start.mjs` found `set_width` holding the
/// page's one thread), and the page stayed on "loading…" meanwhile.
pub async fn after_first_frame(ms: i32) {
    while !FIRST_FRAME.load(std::sync::atomic::Ordering::Relaxed) {
        sleep(50).await;
    }
    sleep(ms).await;
}

/// Resolves when the GPU has done the work submitted so far — and, the browser's GPU
/// process taking its commands in order, compiled the pipelines created before.
async fn work_done(gpu: &pdes_gpu::Gpu) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    gpu.queue.submit([]);
    gpu.queue
        .on_submitted_work_done(move || flag.store(true, Ordering::Relaxed));
    while !done.load(Ordering::Relaxed) {
        sleep(20).await;
    }
}

/// Resolves after `ms` milliseconds (a timeout: the page's thread free meanwhile).
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Removes the page's "loading…" element: called by every frame, it acts on the first
/// (drawn in the same task of the browser, so the page is never dark in between; issue 56
/// §4: GPU links showed a dark page for 3.5–10.7 s after "loading…" went).
pub fn first_frame_drawn() {
    use std::sync::atomic::Ordering;
    if FIRST_FRAME.swap(true, Ordering::Relaxed) {
        return;
    }
    let element = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(LOADING_ID));
    if let Some(e) = element {
        e.remove();
    }
}

/// Writes the finished run's summary (JSON) to the console as one line ([`SUMMARY_LINE`]).
pub fn log_summary(summary_json: &str) {
    let line = format!("{SUMMARY_LINE}{}", summary_json.replace('\n', ""));
    web_sys::console::log_1(&line.into());
}

/// The prefix of the console line the page writes when its start-up check of the GPU ends.
pub const VERIFY_LINE: &str = "pdes-lab verify: ";

/// Writes the page's GPU check to the console: one line "N passed, M failed on ADAPTER"
/// ([`VERIFY_LINE`]; the browser test reads it), then each failed check with its details.
pub fn log_verification(v: &pdes_runs::verify::Verification) {
    let line = format!(
        "{VERIFY_LINE}{} passed, {} failed on {} (reductions: {})",
        v.passed,
        v.failed,
        v.adapter,
        v.reductions.join(", ")
    );
    web_sys::console::log_1(&line.into());
    for c in v.checks.iter().filter(|c| !c.passed) {
        let text = format!("  failed: {}\n    {}", c.name, c.details.join("\n    "));
        web_sys::console::log_1(&text.into());
    }
}

/// Writes to the console that the page's GPU check was taken from its memory: one line
/// "remembered: N passed (checked DATE)" after [`VERIFY_LINE`] (the browser test reads it).
pub fn log_remembered(r: &pdes_runs::trust::Remembered) {
    let line = format!(
        "{VERIFY_LINE}remembered: {} passed (checked {})",
        r.passed, r.date
    );
    web_sys::console::log_1(&line.into());
}

/// The page's address with `link` as its query, also put in the address bar (a reload
/// then opens the same run).
pub fn address_of(link: &Link) -> String {
    let Some(window) = web_sys::window() else {
        return format!("?{}", link.query());
    };
    let location = window.location();
    let base = format!(
        "{}{}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default()
    );
    let address = format!("{base}?{}", link.query());
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&address));
    }
    address
}

/// The local-storage key under which the page keeps its settings (the current link).
const SETTINGS_KEY: &str = "pdes-lab.settings";

/// Keeps `query` as the settings the next visit opens with (local storage; a browser that
/// refuses storage keeps nothing, silently: the page works the same).
pub fn remember(query: &str) {
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(SETTINGS_KEY, query);
    }
}

/// The settings kept by the last visit, if any.
fn remembered() -> Option<String> {
    let storage = web_sys::window()?.local_storage().ok()??;
    storage.get_item(SETTINGS_KEY).ok()?
}

/// Runs `work` — straight-line code that yields while the page's device has not answered
/// (`pdes_core::sim::waiting`) — as a task of the page: polled again after each yield from a
/// zero-delay timer, so that the browser runs the map callbacks in between (a yield that
/// woke the task at once would loop without ever returning to the browser) and the work
/// does not wait for the window's frames.
pub async fn drive<T>(work: impl std::future::Future<Output = T>) -> T {
    let mut work = std::pin::pin!(work);
    loop {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        if let std::task::Poll::Ready(out) = work.as_mut().poll(&mut cx) {
            return out;
        }
        next_task().await;
    }
}

/// Resolves after the browser has run the tasks already queued (a zero-delay timeout).
async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback(&resolve);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
