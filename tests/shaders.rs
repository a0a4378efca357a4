//! Every composed WGSL module parses and validates with naga (no GPU needed).

#[test]
fn every_shader_validates() {
    for (name, src) in pdes_lab::gpu::shaders::all() {
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
