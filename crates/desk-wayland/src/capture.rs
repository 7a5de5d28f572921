//! The outputs' pixels through `zwlr_screencopy_manager_v1`: for each output, the compositor
//! says the buffer it wants (format, size, stride), the client shares that much memory, asks
//! for a copy and waits for `ready`. Each output says its name (`wl_output` version 4), by
//! which the caller finds where the layout has it.

use std::os::fd::AsFd;

use desk::image::RgbImage;
use wayland_client::protocol::{
    wl_buffer::WlBuffer,
    wl_output::WlOutput,
    wl_shm::{self, WlShm},
    wl_shm_pool::WlShmPool,
};
use wayland_client::{Connection, Dispatch, QueueHandle, WEnum};
use wayland_protocols_wlr::screencopy::v1::client::{
    zwlr_screencopy_frame_v1::{self as frame, ZwlrScreencopyFrameV1},
    zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1,
};

use crate::session::{Session, WaylandError};
use crate::shm::SharedMemory;

/// What the frame's events said so far; while the outputs are bound, their names.
#[derive(Default)]
struct Copy {
    /// The shared-memory buffer the compositor offers to fill: format, width, height, stride.
    buffer: Option<(wl_shm::Format, u32, u32, u32)>,
    /// Whether it has said every buffer it offers (protocol version 3).
    offered: bool,
    /// Whether the copy is in the buffer, or failed.
    ready: bool,
    failed: bool,
    /// Whether the copy's content is upside down.
    flipped: bool,
    /// The name each output bound (by its index) says it has.
    names: Vec<Option<String>>,
}

impl Dispatch<WlOutput, usize> for Copy {
    fn event(
        copy: &mut Self,
        _: &WlOutput,
        event: wayland_client::protocol::wl_output::Event,
        index: &usize,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wayland_client::protocol::wl_output::Event::Name { name } = event
            && let Some(slot) = copy.names.get_mut(*index)
        {
            *slot = Some(name);
        }
    }
}

/// One output's pixels, and its name.
pub struct OutputCopy {
    /// The output's name (HEADLESS-1, DP-2); `None` from a compositor older than
    /// `wl_output` version 4, which names no outputs.
    pub name: Option<String>,
    /// Its pixels: the output's own, so as many per layout point as its scale.
    pub image: RgbImage,
}

impl Dispatch<ZwlrScreencopyFrameV1, ()> for Copy {
    fn event(
        copy: &mut Self,
        _: &ZwlrScreencopyFrameV1,
        event: frame::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            frame::Event::Buffer {
                format: WEnum::Value(format),
                width,
                height,
                stride,
            } => copy.buffer = Some((format, width, height, stride)),
            frame::Event::BufferDone => copy.offered = true,
            frame::Event::Flags {
                flags: WEnum::Value(flags),
            } => copy.flipped = flags.contains(frame::Flags::YInvert),
            frame::Event::Ready { .. } => copy.ready = true,
            frame::Event::Failed => copy.failed = true,
            _ => {}
        }
    }
}

// Objects whose events carry nothing the copy needs.
ignore_events!(Copy: ZwlrScreencopyManagerV1, WlShm, WlShmPool, WlBuffer);

impl Session {
    /// The pixels of every output, each with where it sits; one plugged in since the
    /// connection counts.
    /// Only the outputs whose name `wanted` takes are copied (all of them where the
    /// compositor names none).
    pub fn capture_outputs(
        &self,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<OutputCopy>, WaylandError> {
        let listed = self.outputs()?;
        let globals = &self.globals;
        let mut queue = self.conn.new_event_queue::<Copy>();
        let qh = queue.handle();
        let missing = |protocol, needed_for| WaylandError::Missing {
            protocol,
            needed_for,
        };
        let manager: ZwlrScreencopyManagerV1 = globals
            .bind(&qh, 1..=3, ())
            .map_err(|_| missing("zwlr_screencopy_manager_v1", "screen captures"))?;
        let shm: WlShm = globals
            .bind(&qh, 1..=1, ())
            .map_err(|_| missing("wl_shm", "screen captures"))?;
        if listed.is_empty() {
            return Err(missing("wl_output", "screen captures"));
        }
        let outputs: Vec<WlOutput> = listed
            .iter()
            .enumerate()
            .map(|(i, &(name, version))| {
                globals
                    .registry()
                    .bind::<WlOutput, _, _>(name, version.min(4), &qh, i)
            })
            .collect();
        let broken = |e: wayland_client::DispatchError| WaylandError::Broken(e.to_string());
        let mut named = Copy {
            names: vec![None; outputs.len()],
            ..Copy::default()
        };
        queue.roundtrip(&mut named).map_err(broken)?;
        let ends_offers = self
            .version_of("zwlr_screencopy_manager_v1")
            .is_some_and(|v| v >= 3);
        let mut copies = Vec::with_capacity(outputs.len());
        for (output, name) in outputs.iter().zip(named.names) {
            if name.as_deref().is_some_and(|n| !wanted(n)) {
                output.release();
                continue;
            }
            let image = copy_output(&mut queue, &manager, &shm, output, ends_offers)?;
            copies.push(OutputCopy { name, image });
            output.release();
        }
        Ok(copies)
    }
}

/// Copies `output` whole through `manager`, into memory shared through `shm`. Version 3 of the
/// manager ends its offers with `buffer_done` (`ends_offers`); before it, the buffer event is
/// the offer.
fn copy_output(
    queue: &mut wayland_client::EventQueue<Copy>,
    manager: &ZwlrScreencopyManagerV1,
    shm: &WlShm,
    output: &WlOutput,
    ends_offers: bool,
) -> Result<RgbImage, WaylandError> {
    let qh = queue.handle();
    let broken = |e: wayland_client::DispatchError| WaylandError::Broken(e.to_string());
    let mut copy = Copy::default();
    let copy = &mut copy;
    let frame = manager.capture_output(0, output, &qh, ());
    while !(copy.failed || (copy.buffer.is_some() && (copy.offered || !ends_offers))) {
        queue.blocking_dispatch(copy).map_err(broken)?;
    }
    let Some((format, width, height, stride)) = copy.buffer.filter(|_| !copy.failed) else {
        return Err(WaylandError::Refused("a screen capture".into()));
    };
    let size = stride as usize * height as usize;
    let memory = SharedMemory::new(size, "a capture")?;
    let pool = shm.create_pool(memory.fd.as_fd(), size as i32, &qh, ());
    let buffer = pool.create_buffer(
        0,
        width as i32,
        height as i32,
        stride as i32,
        format,
        &qh,
        (),
    );
    frame.copy(&buffer);
    while !(copy.ready || copy.failed) {
        queue.blocking_dispatch(copy).map_err(broken)?;
    }
    frame.destroy();
    buffer.destroy();
    pool.destroy();
    if copy.failed {
        return Err(WaylandError::Refused("a screen capture".into()));
    }
    to_rgb(
        &memory.map[..size],
        format,
        width,
        height,
        stride,
        copy.flipped,
    )
}

/// The copy as RGB rows, top first. wl_shm's formats name their channels from the highest
/// byte of a little-endian word: XRGB8888 is B, G, R, X in memory.
fn to_rgb(
    data: &[u8],
    format: wl_shm::Format,
    width: u32,
    height: u32,
    stride: u32,
    flipped: bool,
) -> Result<RgbImage, WaylandError> {
    let order: [usize; 3] = match format {
        wl_shm::Format::Xrgb8888 | wl_shm::Format::Argb8888 => [2, 1, 0],
        wl_shm::Format::Xbgr8888 | wl_shm::Format::Abgr8888 => [0, 1, 2],
        other => {
            return Err(WaylandError::Refused(format!(
                "a screen capture in a pixel format shuttle does not read ({other:?})"
            )));
        }
    };
    let mut pixels = Vec::with_capacity(width as usize * height as usize * 3);
    for row in 0..height {
        let source = if flipped { height - 1 - row } else { row };
        let start = (source * stride) as usize;
        for pixel in data[start..start + width as usize * 4].chunks_exact(4) {
            pixels.extend(order.map(|i| pixel[i]));
        }
    }
    Ok(RgbImage {
        width,
        height,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xrgb_rows_become_rgb_and_a_flipped_copy_is_turned_upright() {
        // Two rows of one pixel, stride 8: red on top, blue below, each B, G, R, X.
        let data = [0, 0, 255, 0, 9, 9, 9, 9, 255, 0, 0, 0, 9, 9, 9, 9];
        let upright = to_rgb(&data, wl_shm::Format::Xrgb8888, 1, 2, 8, false).unwrap();
        assert_eq!(upright.pixels, [255, 0, 0, 0, 0, 255]);
        let flipped = to_rgb(&data, wl_shm::Format::Xrgb8888, 1, 2, 8, true).unwrap();
        assert_eq!(flipped.pixels, [0, 0, 255, 255, 0, 0]);
        assert!(to_rgb(&data, wl_shm::Format::Rgb565, 1, 2, 8, false).is_err());
    }
}
