// heatmap.wgsl — draws a rows × cols grid from a storage buffer of two words per cell,
// (tokens, error step) for the torus or (temperature bits, 0) for diffusion, through a
// perceptual colormap, inside an egui paint callback.

struct View {
    rows: u32, cols: u32, mode: u32, step: u32,
    // visible part of the grid in grid coordinates (x0, y0, x1, y1)
    window: vec4<f32>,
    max_value: f32, fade_steps: f32, min_value: f32, pad0: f32,
    // the viewport in framebuffer pixels (left, top, width, height), as egui-wgpu sets it
    viewport: vec4<f32>,
}

@group(0) @binding(0) var<uniform> V: View;
@group(0) @binding(1) var<storage, read> cells: array<vec2<u32>>;

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

// One triangle covering the callback's viewport.
@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> VsOut {
    let x = f32((i << 1u) & 2u);
    let y = f32(i & 2u);
    var o: VsOut;
    o.pos = vec4<f32>(x * 2.0 - 1.0, 1.0 - y * 2.0, 0.0, 1.0);
    o.uv = vec2<f32>(x, y);
    return o;
}

// Viridis, polynomial fit (perceptually uniform; Matt Zucker's coefficients).
fn viridis(t: f32) -> vec3<f32> {
    let c0 = vec3<f32>(0.2777273, 0.0054073, 0.3340998);
    let c1 = vec3<f32>(0.1050930, 1.4046135, 1.3845901);
    let c2 = vec3<f32>(-0.3308618, 0.2148476, 0.0950952);
    let c3 = vec3<f32>(-4.6342305, -5.7991010, -19.3324410);
    let c4 = vec3<f32>(6.2282699, 14.1799334, 56.6905526);
    let c5 = vec3<f32>(4.7763849, -13.7451454, -65.3530326);
    let c6 = vec3<f32>(-5.4354559, 4.6458526, 26.3124352);
    return c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))));
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    // The grid point of this pixel's centre, from the pixel's own position (exact: j + 0.5)
    // and the view, not from the interpolated uv: interpolation carries an error that
    // varies along a row, and where a cell edge fell on the line band's end that error
    // decided pixel by pixel whether the line was drawn — a dashed row boundary.
    let p = in.pos.xy - V.viewport.xy;
    let scale = (V.window.zw - V.window.xy) / max(V.viewport.zw, vec2<f32>(1.0));
    let g = V.window.xy + p * scale;
    if g.x < 0.0 || g.y < 0.0 || g.x >= f32(V.cols) || g.y >= f32(V.rows) {
        return vec4<f32>(0.08, 0.08, 0.09, 1.0);
    }
    let c = u32(g.x);
    let r = u32(g.y);
    let raw = cells[r * V.cols + c];
    // the torus marks the facilities of the next step in bit 31 of the count
    let next_step = V.mode != 3u && (raw.x & 0x80000000u) != 0u;
    let cell = vec2<u32>(select(raw.x & 0x7fffffffu, raw.x, V.mode == 3u), raw.y);
    var rgb: vec3<f32>;
    if V.mode == 0u { // tokens present
        rgb = viridis(clamp(f32(cell.x) / max(V.max_value, 1.0), 0.0, 1.0));
    } else if V.mode == 1u { // busy / idle
        rgb = select(vec3<f32>(0.12, 0.12, 0.16), vec3<f32>(0.99, 0.80, 0.20), cell.x > 0u);
    } else if V.mode == 5u { // DEVS benchmark, each digit with its flips undone (word 2)
        rgb = select(vec3<f32>(0.12, 0.12, 0.16), vec3<f32>(0.99, 0.80, 0.20), cell.y > 0u);
    } else if V.mode == 4u { // DEVS SIR: S green, R blue, and the infected as a red
        // overlay at full strength from i = 5% (they are a few percent of a cell at most)
        let v = cell.x;
        let sr = vec3<f32>(0.0, f32(v & 0x3ffu), f32((v >> 20u) & 0x3ffu)) / 1000.0;
        let w = min(f32((v >> 10u) & 0x3ffu) / 50.0, 1.0) * 0.85;
        rgb = mix(sr, vec3<f32>(1.0, 0.1, 0.1), w);
    } else if V.mode == 3u { // temperature: the word holds the f32's bits
        let v = bitcast<f32>(cell.x);
        rgb = viridis(clamp((v - V.min_value) / max(V.max_value - V.min_value, 1e-30), 0.0, 1.0));
    } else { // recent causality errors, fading over fade_steps
        let base = viridis(clamp(f32(cell.x) / max(V.max_value, 1.0), 0.0, 1.0)) * 0.35;
        var flash = 0.0;
        if cell.y > 0u && V.step >= cell.y {
            let age = f32(V.step - cell.y);
            flash = clamp(1.0 - age / max(V.fade_steps, 1.0), 0.0, 1.0);
        }
        rgb = mix(base, vec3<f32>(1.0, 0.15, 0.1), flash);
    }
    // grid lines when zoomed in enough (later for the smooth temperature field, where thin
    // lines only add moiré): one colour, near the window's background — a line that only
    // darkened its cell (× 0.6) vanished between dark cells and showed between light ones,
    // so lines looked dashed and dark cells merged — in a band exactly one pixel wide,
    // which holds one pixel centre across every cell edge whatever its phase. The band starts a quarter pixel before the edge: a grid centred in
    // its rectangle puts edges on pixel centres or between them, and a band starting exactly
    // there left it to rounding, pixel by pixel, which row drew the line (a dashed row).
    // From 8 px cells (a 16-row grid at its least height is exactly 10 px: a threshold at
    // 10 flickered along the rows); smaller cells would get a mesh over the field.
    let cell_px = 1.0 / max(scale.x, 1e-6);
    let fx = fract(g);
    // each axis: the edge nearest this pixel, the one pixel whose centre lies in
    // [edge − ¼, edge + ¾) px draws it — decided from the edge's index and the view alone,
    // so every pixel of a row (a column) decides alike
    let edge_index = floor(g + vec2<f32>(0.5));
    let edge_px = (edge_index - V.window.xy) / scale;
    let on_line = floor(edge_px + vec2<f32>(0.25)) == floor(p);
    let lines_from = select(8.0, 24.0, V.mode == 3u);
    if cell_px > lines_from && (on_line.x || on_line.y) {
        rgb = vec3<f32>(0.05, 0.05, 0.06);
    }
    // the next step's facilities: a white outline (when cells are at least 4 px wide)
    let edge = min(min(fx.x, fx.y), min(1.0 - fx.x, 1.0 - fx.y)) * cell_px;
    if next_step && cell_px >= 4.0 && edge < max(1.5, cell_px * 0.12) {
        rgb = vec3<f32>(1.0, 1.0, 1.0);
    }
    // the target is sRGB or linear; egui's own colours assume a non-sRGB target, so do we
    return vec4<f32>(rgb, 1.0);
}
