//! Every composed WGSL module parses and validates with naga (no GPU needed).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

#[test]
fn every_shader_validates() {
    let mut modules = pdes_lab::models::registry::shader_modules();
    modules.extend(pdes_lab::bench::floor::shader_modules());
    assert!(modules.len() > 20, "{} modules", modules.len());
    for (name, src) in modules {
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
}
