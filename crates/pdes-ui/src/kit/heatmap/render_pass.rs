//! The heatmap's wgpu render pass: egui-wgpu paint callbacks that draw a session's display
//! buffer (on the GPU, never read back) through heatmap.wgsl's colormap, with the
//! pipeline and one bind group per callback kept in egui-wgpu's callback resources.

use super::{Mode, View};
use eframe::egui;
use eframe::egui_wgpu::{self, CallbackResources, CallbackTrait, ScreenDescriptor};
use std::collections::HashMap;

/// The uniform block of heatmap.wgsl.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ViewUniform {
    rows: u32,
    cols: u32,
    mode: u32,
    step: u32,
    window: [f32; 4],
    max_value: f32,
    fade_steps: f32,
    min_value: f32,
    pad: f32,
    /// The viewport in framebuffer pixels (left, top, width, height), as egui-wgpu sets it
    /// for this callback: the shader finds each pixel's grid point from its position.
    viewport: [f32; 4],
}

/// Pipeline and per-callback bind groups, kept in egui-wgpu's callback resources.
pub struct HeatmapResources {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    groups: HashMap<u64, (wgpu::Buffer, wgpu::BindGroup)>,
}

impl HeatmapResources {
    /// Builds the render pipeline for `target_format` (once, at start-up).
    pub fn new(device: &wgpu::Device, target_format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("heatmap"),
            source: wgpu::ShaderSource::Wgsl(pdes_gpu::shaders::HEATMAP.into()),
        });
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("heatmap"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform),
                entry(1, wgpu::BufferBindingType::Storage { read_only: true }),
            ],
        });
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("heatmap"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("heatmap"),
            layout: Some(&pl),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                buffers: &[],
                compilation_options: Default::default(),
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                targets: &[Some(target_format.into())],
                compilation_options: Default::default(),
            }),
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        });
        Self {
            pipeline,
            layout,
            groups: HashMap::new(),
        }
    }
}

/// One heatmap draw.
pub struct HeatmapCallback {
    /// Distinguishes the heatmaps of one frame (A/B).
    pub id: u64,
    /// The session's display buffer.
    pub cells: wgpu::Buffer,
    /// Grid size.
    pub rows: u32,
    /// Grid size.
    pub cols: u32,
    /// What to colour.
    pub mode: Mode,
    /// Steps completed (for the error fade).
    pub step: u32,
    /// Zoom and pan.
    pub view: View,
    /// Aspect ratio of the rectangle (width / height).
    pub aspect: f32,
    /// Value drawn at the top of the colormap (tokens, or temperature).
    pub max_value: f32,
    /// Value drawn at the bottom of the colormap (temperature; 0 for tokens).
    pub min_value: f32,
    /// The callback's rectangle, in points.
    pub rect: egui::Rect,
}

impl CallbackTrait for HeatmapCallback {
    fn prepare(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        screen: &ScreenDescriptor,
        _encoder: &mut wgpu::CommandEncoder,
        resources: &mut CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        let Some(res) = resources.get_mut::<HeatmapResources>() else {
            return Vec::new();
        };
        let u = ViewUniform {
            rows: self.rows,
            cols: self.cols,
            mode: self.mode.code(),
            step: self.step,
            window: [
                self.view.x0,
                self.view.y0,
                self.view.x0 + self.view.span,
                self.view.y0 + self.view.span / self.aspect.max(1e-3),
            ],
            max_value: self.max_value,
            fade_steps: 8.0,
            min_value: self.min_value,
            pad: 0.0,
            viewport: {
                // the same rounding and clamping egui-wgpu applies to the callback's viewport
                let v = egui::epaint::ViewportInPixels::from_points(
                    &self.rect,
                    screen.pixels_per_point,
                    screen.size_in_pixels,
                );
                [
                    v.left_px as f32,
                    v.top_px as f32,
                    v.width_px as f32,
                    v.height_px as f32,
                ]
            },
        };
        let ubuf = res
            .groups
            .remove(&self.id)
            .map(|(b, _)| b)
            .unwrap_or_else(|| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("heatmap view"),
                    size: std::mem::size_of::<ViewUniform>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            });
        queue.write_buffer(&ubuf, 0, bytemuck::bytes_of(&u));
        // A new bind group every frame: the session (and its cells buffer) may have been
        // rebuilt, and creating one is cheap.
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("heatmap"),
            layout: &res.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: ubuf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.cells.as_entire_binding(),
                },
            ],
        });
        res.groups.insert(self.id, (ubuf, group));
        Vec::new()
    }

    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        resources: &CallbackResources,
    ) {
        let Some(res) = resources.get::<HeatmapResources>() else {
            return;
        };
        let Some((_, group)) = res.groups.get(&self.id) else {
            return;
        };
        pass.set_pipeline(&res.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.draw(0..3, 0..1);
    }
}

/// Adds the heatmap resources to a render state (call once at start-up).
pub fn install(rs: &egui_wgpu::RenderState) {
    let res = HeatmapResources::new(&rs.device, rs.target_format);
    rs.renderer.write().callback_resources.insert(res);
}
