//! Readbacks on a device that must not be waited on: a browser tab's. A page has one
//! thread, and a mapped buffer's bytes arrive only after the page has returned to the
//! browser, so `map_async` followed by a wait would never end. On such a device (a [`crate::Gpu`]
//! made with [`crate::Gpu::deferring`]) every readback is asked for, not waited for: the first call
//! starts the copy and answers [`SimError::NotYet`]; a later call with the same ranges — the
//! next frame's — gets the bytes.
//!
//! Which bytes is the point. The device counts batches of *work* ([`crate::Gpu::note_work`], which
//! an engine calls before each batch of steps it submits, keeping the count): a copy queued
//! after the n-th batch holds the state after it, so [`Freshness::Since`] with the engine's
//! count answers only with bytes taken after the engine's latest batch — what a blocking
//! readback would return now; another engine's work on the same device (the page's
//! self-check beside the live run) does not make them stale. The views that only show a
//! state (the heatmap, a hover) ask for [`Freshness::Latest`]: the newest bytes there are, a
//! frame or two old while the run advances, never torn (one copy's ranges come from one
//! point of the queue).
//!
//! The desktop tests the same path on its own device: `device.poll(Poll)` there runs the
//! callbacks the browser runs between frames.

use pdes_core::sim::SimError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How recent the bytes of a deferred readback must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Taken after the device's work batch of this count (an engine's latest, as
    /// [`crate::Gpu::note_work`] numbered it): the answer a blocking readback gives that engine.
    Since(u64),
    /// The newest there are (possibly from before the latest work): for what is only shown.
    Latest,
}

/// One readback's source ranges: (buffer, offset, size). The buffers are kept (a clone is a
/// handle): while an entry lives, no other buffer can take its identity.
type Key = Vec<(wgpu::Buffer, u64, u64)>;

/// A readback in flight or done, for one key.
#[derive(Default)]
struct Entry {
    /// The staging buffers of the copy in flight (empty: none in flight).
    staging: Vec<wgpu::Buffer>,
    /// How many of them are mapped (their callbacks ran).
    mapped: Arc<AtomicUsize>,
    /// A map failed (the device was lost).
    failed: Arc<AtomicBool>,
    /// The work count when the copy in flight was queued.
    queued_at: u64,
    /// The last bytes that came back and the work count they were taken at.
    ready: Option<(u64, Vec<Vec<u8>>)>,
}

/// The deferred readbacks of one device: the work count and every key's entry.
#[derive(Default)]
pub(crate) struct Deferred {
    work: AtomicU64,
    entries: Mutex<HashMap<Key, Entry>>,
}

/// Entries kept at most; past it the finished ones go (a hover over many cells asks for as
/// many keys).
const MAX_ENTRIES: usize = 64;

impl Deferred {
    /// One more batch of work submitted (see [`crate::Gpu::note_work`]): its count.
    pub(crate) fn note_work(&self) -> u64 {
        self.work.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The count of the latest batch of work on the device.
    pub(crate) fn work(&self) -> u64 {
        self.work.load(Ordering::Relaxed)
    }

    /// The bytes of `ranges` as fresh as `fresh` asks, or [`SimError::NotYet`] (a copy is
    /// then in flight: ask again after the page has returned to the browser).
    pub(crate) fn read(
        &self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        ranges: &[(&wgpu::Buffer, u64, u64)],
        fresh: Freshness,
    ) -> Result<Vec<Vec<u8>>, SimError> {
        // the desktop runs map callbacks here; in a browser this does nothing (the page's
        // event loop runs them)
        let _ = device.poll(wgpu::PollType::Poll);
        let now = self.work.load(Ordering::Relaxed);
        let key: Key = ranges
            .iter()
            .map(|(b, o, s)| ((*b).clone(), *o, *s))
            .collect();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if !entries.contains_key(&key) && entries.len() >= MAX_ENTRIES {
            entries.retain(|_, e| !e.staging.is_empty());
        }
        let entry = entries.entry(key).or_default();
        entry.collect()?;
        // a copy taken at or after `wanted` is what the caller asks for; for the newest
        // bytes, one after all the device's work
        let wanted = match fresh {
            Freshness::Since(work) => work,
            Freshness::Latest => now,
        };
        let taken_at = entry.ready.as_ref().map(|(at, _)| *at);
        if taken_at.is_none_or(|at| at < wanted) && entry.staging.is_empty() {
            entry.queue((device, queue), ranges, now);
        }
        match (&entry.ready, fresh) {
            (Some((at, bytes)), Freshness::Since(work)) if *at >= work => Ok(bytes.clone()),
            (Some((_, bytes)), Freshness::Latest) => Ok(bytes.clone()),
            _ => Err(SimError::NotYet),
        }
    }
}

impl Entry {
    /// Takes the bytes of the copy in flight if every staging buffer is mapped.
    fn collect(&mut self) -> Result<(), SimError> {
        if self.staging.is_empty() || self.mapped.load(Ordering::Acquire) < self.staging.len() {
            return Ok(());
        }
        let staging = std::mem::take(&mut self.staging);
        if self.failed.load(Ordering::Acquire) {
            return Err(SimError::Gpu("a readback could not be mapped".into()));
        }
        let mut bytes = Vec::with_capacity(staging.len());
        for s in &staging {
            let view = s
                .slice(..)
                .get_mapped_range()
                .map_err(|e| SimError::Gpu(format!("readback: {e}")))?;
            bytes.push(view.to_vec());
            drop(view);
            s.unmap();
        }
        self.ready = Some((self.queued_at, bytes));
        Ok(())
    }

    /// Queues the copy of `ranges` into fresh staging buffers and asks for them mapped.
    fn queue(
        &mut self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        ranges: &[(&wgpu::Buffer, u64, u64)],
        now: u64,
    ) {
        let mut enc = device.create_command_encoder(&Default::default());
        self.staging = ranges
            .iter()
            .map(|(src, offset, size)| {
                let dst = staging_buffer(device, *size);
                enc.copy_buffer_to_buffer(src, *offset, &dst, 0, *size);
                dst
            })
            .collect();
        queue.submit([enc.finish()]);
        self.mapped = Arc::new(AtomicUsize::new(0));
        self.failed = Arc::new(AtomicBool::new(false));
        self.queued_at = now;
        for s in &self.staging {
            let (mapped, failed) = (self.mapped.clone(), self.failed.clone());
            s.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                if r.is_err() {
                    failed.store(true, Ordering::Release);
                }
                mapped.fetch_add(1, Ordering::Release);
            });
        }
    }
}

/// A mappable buffer of `size` bytes a readback copies into.
pub(crate) fn staging_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}
