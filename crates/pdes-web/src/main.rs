//! The browser build's entry point: the window on the page's canvas, configured by the
//! URL's query (`?preset=teaching-16x16&run.d=2`). If it cannot start, the page says why.

#[cfg(target_arch = "wasm32")]
fn main() {
    // a panic stops the page's one thread for good: its reason goes onto the page, not
    // only into the console of a page left dark (issue 56 §4)
    std::panic::set_hook(Box::new(|info| {
        show_failure(&format!(
            "{info}\n(this is a bug in PDES Lab; reload the page to start again, and please report the line above)"
        ));
    }));
    wasm_bindgen_futures::spawn_local(async {
        if let Err(e) = pdes_ui::app::web::start(pdes_web::CANVAS_ID).await {
            show_failure(&e);
        }
    });
}

/// Puts `why` into the page's failure element (and the console).
#[cfg(target_arch = "wasm32")]
fn show_failure(why: &str) {
    web_sys::console::error_1(&why.into());
    let element = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(pdes_web::FAILURE_ID));
    if let Some(e) = element {
        e.set_text_content(Some(&format!("PDES Lab could not start: {why}")));
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "pdes-web is PDES Lab's browser build: build it with web/build.sh and open web/site/ (the desktop window is `cargo run --release`)"
    );
    std::process::exit(2);
}
