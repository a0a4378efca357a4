//! PDES Lab in a browser tab. The binary (`src/main.rs`) starts pdes-ui's window on the
//! page's canvas `pdes-canvas`; `web/build.sh` compiles it for `wasm32-unknown-unknown`,
//! runs wasm-bindgen and writes the static site to `web/site/` (index.html, the .wasm and
//! its JS glue). Nothing here is used on the desktop.

/// The id of the page's canvas the window draws on (web/index.html).
pub const CANVAS_ID: &str = "pdes-canvas";

/// The id of the page's element that shows why the window did not start.
pub const FAILURE_ID: &str = "pdes-failure";
