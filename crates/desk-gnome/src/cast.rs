//! The screen's pixels from Mutter's screen-cast streams, read over PipeWire: each monitor's
//! stream is consumed on a thread of its own, which keeps the latest frame in memory. Mutter
//! sends a frame whenever what the monitor shows changes, so the latest frame is the monitor
//! as it stands, and a shot costs a copy of the part asked for, not a PNG the Shell writes.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use desk::image::RgbImage;
use desk_core::geometry::Rect;
use pipewire as pw;
use pw::properties::properties;
use pw::spa;
use pw::spa::param::video::{VideoFormat, VideoInfoRaw};
use pw::spa::pod::Pod;

use crate::shell::GnomeError;

/// How long the stream may take to connect and deliver its first frame.
const FIRST_FRAME: Duration = Duration::from_secs(3);

/// A frame as PipeWire hands it over: four bytes a pixel, the colours in `order`, the fourth
/// byte unused.
struct Frame {
    /// How many frames came before it: Mutter sends one only when the monitor's picture
    /// changed, so the same number means the same picture.
    seq: u64,
    width: u32,
    height: u32,
    stride: usize,
    order: Order,
    data: Vec<u8>,
}

/// Where red and blue sit in a pixel's four bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// B, G, R, then a byte unused (`BGRx`, `BGRA`): what Mutter offers first.
    Bgr,
    /// R, G, B, then a byte unused (`RGBx`, `RGBA`).
    Rgb,
}

impl Order {
    fn of(format: VideoFormat) -> Option<Self> {
        match format {
            VideoFormat::BGRx | VideoFormat::BGRA => Some(Order::Bgr),
            VideoFormat::RGBx | VideoFormat::RGBA => Some(Order::Rgb),
            _ => None,
        }
    }
}

impl Frame {
    /// The pixels of `area` (frame coordinates, within the frame) as RGB.
    fn rgb(&self, area: Rect) -> RgbImage {
        let mut pixels = Vec::with_capacity(area.w as usize * area.h as usize * 3);
        let (r, b) = match self.order {
            Order::Bgr => (2, 0),
            Order::Rgb => (0, 2),
        };
        let (left, width) = (area.x as usize * 4, area.w as usize * 4);
        for y in area.y..area.y + area.h as i32 {
            let row = y as usize * self.stride + left;
            for pixel in self.data[row..row + width].chunks_exact(4) {
                pixels.extend_from_slice(&[pixel[r], pixel[1], pixel[b]]);
            }
        }
        RgbImage {
            width: area.w,
            height: area.h,
            pixels,
        }
    }
}

/// One monitor's stream, consumed while this lives.
pub struct Cast {
    latest: Arc<Mutex<Option<Frame>>>,
    stop: pw::channel::Sender<()>,
    thread: Option<JoinHandle<()>>,
}

impl Cast {
    /// Consumes PipeWire node `node` (a Mutter stream) through the PipeWire socket `socket`
    /// (the environment's when `None`); returns once its first frame is in.
    pub fn start(node: u32, socket: Option<PathBuf>) -> Result<Self, GnomeError> {
        let latest = Arc::new(Mutex::new(None));
        let (stop, stopped) = pw::channel::channel();
        let (ready, started) = mpsc::channel();
        let kept = latest.clone();
        let thread = std::thread::Builder::new()
            .name(format!("gnome-cast-{node}"))
            .spawn(move || {
                if let Err(e) = consume(node, socket, kept, stopped, &ready) {
                    let _ = ready.send(Err(e));
                }
            })
            .map_err(|e| failed(&format!("starting a thread for stream {node}"), e))?;
        let cast = Self {
            latest,
            stop,
            thread: Some(thread),
        };
        match started.recv_timeout(FIRST_FRAME) {
            Ok(Ok(())) => Ok(cast),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(GnomeError::Failed {
                what: format!("reading screen-cast stream {node} over PipeWire"),
                reason: format!("no frame came within {} s", FIRST_FRAME.as_secs()),
            }),
        }
    }

    /// The pixels of `area` (the monitor's own coordinates) as the latest frame shows them,
    /// with that frame's number; `None` when the frame is not of `size` (a scaled monitor's
    /// frame is larger than the monitor is in the layout) or does not hold the area.
    pub fn pixels(&self, size: (u32, u32), area: Rect) -> Option<(u64, RgbImage)> {
        let latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        let frame = latest.as_ref()?;
        let within = area.x >= 0
            && area.y >= 0
            && area.x as u32 + area.w <= frame.width
            && area.y as u32 + area.h <= frame.height;
        ((frame.width, frame.height) == size && within).then(|| (frame.seq, frame.rgb(area)))
    }

    /// The latest frame's number: unchanged, the monitor shows what it showed.
    pub fn seq(&self) -> Option<u64> {
        let latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        latest.as_ref().map(|frame| frame.seq)
    }
}

impl Drop for Cast {
    fn drop(&mut self) {
        let _ = self.stop.send(());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn failed(what: &str, e: impl std::fmt::Display) -> GnomeError {
    GnomeError::Failed {
        what: what.to_string(),
        reason: e.to_string(),
    }
}

/// Links Mutter's stream to ours, as a session manager would: a seat runs none. PipeWire 1.x
/// refuses a link to a node whose input port is not yet registered, which comes after the
/// stream is paused, so the link is made once both our node and its port are known.
struct Linker {
    core: pw::core::CoreRc,
    /// Mutter's node.
    output: u32,
    /// Our stream's node, once paused.
    ours: Cell<Option<u32>>,
    /// The input ports the registry showed, by the node they belong to.
    inputs: RefCell<HashMap<u32, u32>>,
    link: RefCell<Option<pw::link::Link>>,
}

impl Linker {
    fn link(&self) {
        if self.link.borrow().is_some() {
            return;
        }
        let Some(ours) = self.ours.get() else { return };
        let Some(port) = self.inputs.borrow().get(&ours).copied() else {
            return;
        };
        let linked = self.core.create_object::<pw::link::Link>(
            "link-factory",
            &properties! {
                "link.output.node" => self.output.to_string(),
                "link.input.node" => ours.to_string(),
                "link.input.port" => port.to_string(),
            },
        );
        match linked {
            Ok(made) => *self.link.borrow_mut() = Some(made),
            Err(e) => {
                tracing::warn!(node = self.output, error = %e, "could not link the screen-cast stream")
            }
        }
    }
}

/// The stream's format as negotiated, and whether the first frame has been told.
#[derive(Default)]
struct State {
    format: VideoInfoRaw,
    told: bool,
}

/// Runs the PipeWire loop that consumes `node` until `stopped` hears from its sender.
fn consume(
    node: u32,
    socket: Option<PathBuf>,
    latest: Arc<Mutex<Option<Frame>>>,
    stopped: pw::channel::Receiver<()>,
    ready: &mpsc::Sender<Result<(), GnomeError>>,
) -> Result<(), GnomeError> {
    let what = format!("reading screen-cast stream {node} over PipeWire");
    pw::init();
    let main_loop = pw::main_loop::MainLoopRc::new(None).map_err(|e| failed(&what, e))?;
    let context = pw::context::ContextRc::new(&main_loop, None).map_err(|e| failed(&what, e))?;
    let remote = socket.map(|s| properties! { *pw::keys::REMOTE_NAME => s.display().to_string() });
    let core = context
        .connect_rc(remote)
        .map_err(|e| failed(&format!("{what} (connecting to PipeWire)"), e))?;
    // What PipeWire refuses (a link, a format) comes back as an error on the core.
    let _errors = core
        .add_listener_local()
        .error(move |id, _, res, message| {
            tracing::warn!(
                node,
                object = id,
                res,
                message,
                "PipeWire refused a request"
            );
        })
        .register();
    let stream = pw::stream::StreamBox::new(
        &core,
        "shuttle-screen",
        properties! {
            *pw::keys::MEDIA_TYPE => "Video",
            *pw::keys::MEDIA_CATEGORY => "Capture",
            *pw::keys::MEDIA_ROLE => "Screen",
        },
    )
    .map_err(|e| failed(&what, e))?;
    let ready_on_frame = ready.clone();
    let ended = latest.clone();
    let linker = std::rc::Rc::new(Linker {
        core: core.clone(),
        output: node,
        ours: Cell::new(None),
        inputs: RefCell::default(),
        link: RefCell::new(None),
    });
    let registry = core.get_registry_rc().map_err(|e| failed(&what, e))?;
    let port_linker = linker.clone();
    let _ports = registry
        .add_listener_local()
        .global(move |global| {
            let Some(props) = global.props else { return };
            if global.type_ != pw::types::ObjectType::Port
                || props.get(*pw::keys::PORT_DIRECTION) != Some("in")
            {
                return;
            }
            if let Some(owner) = props.get(*pw::keys::NODE_ID).and_then(|n| n.parse().ok()) {
                port_linker.inputs.borrow_mut().insert(owner, global.id);
                port_linker.link();
            }
        })
        .register();
    let _listener = stream
        .add_local_listener_with_user_data(State::default())
        .state_changed(move |stream, _, old, new| {
            tracing::debug!(node, ?old, ?new, "screen-cast stream");
            // A stream that ended (the person stopped the session, Mutter went) shows nothing
            // any more: its last frame is dropped, and shots come from the Shell.
            if matches!(
                new,
                pw::stream::StreamState::Error(_) | pw::stream::StreamState::Unconnected
            ) {
                *ended.lock().unwrap_or_else(PoisonError::into_inner) = None;
                return;
            }
            if new == pw::stream::StreamState::Paused {
                linker.ours.set(Some(stream.node_id()));
                linker.link();
            }
        })
        .param_changed(|_, state, id, param| {
            if id != pw::spa::param::ParamType::Format.as_raw() {
                return;
            }
            if let Some(param) = param
                && state.format.parse(param).is_err()
            {
                tracing::warn!("the screen-cast stream's format could not be read");
            }
        })
        .process(move |stream, state| {
            let Some(mut buffer) = stream.dequeue_buffer() else {
                return;
            };
            let Some(order) = Order::of(state.format.format()) else {
                return;
            };
            let size = state.format.size();
            let Some(data) = buffer.datas_mut().first_mut() else {
                return;
            };
            let chunk = data.chunk();
            let (offset, stride) = (chunk.offset() as usize, chunk.stride());
            let stride = if stride > 0 {
                stride as usize
            } else {
                size.width as usize * 4
            };
            let length = stride * size.height as usize;
            // Mutter marks a frame it failed to record (empty, or corrupted): the buffer then
            // holds an older frame, which is no picture of the screen now.
            let whole = chunk.size() as usize >= length
                && !chunk.flags().contains(spa::buffer::ChunkFlags::CORRUPTED)
                && stride >= size.width as usize * 4;
            if !whole {
                return;
            }
            let Some(bytes) = data.data() else {
                return;
            };
            let Some(pixels) = bytes.get(offset..offset + length) else {
                return;
            };
            let mut latest = latest.lock().unwrap_or_else(PoisonError::into_inner);
            let frame = latest.get_or_insert_with(|| Frame {
                seq: 0,
                width: 0,
                height: 0,
                stride: 0,
                order,
                data: Vec::new(),
            });
            frame.seq += 1;
            frame.width = size.width;
            frame.height = size.height;
            frame.stride = stride;
            frame.order = order;
            frame.data.clear();
            frame.data.extend_from_slice(pixels);
            drop(latest);
            if !state.told {
                state.told = true;
                let _ = ready_on_frame.send(Ok(()));
            }
        })
        .register()
        .map_err(|e| failed(&what, e))?;
    let format = format_pod().map_err(|e| failed(&what, e))?;
    let mut params = [Pod::from_bytes(&format).ok_or_else(|| failed(&what, "a bad format"))?];
    stream
        .connect(
            spa::utils::Direction::Input,
            Some(node),
            pw::stream::StreamFlags::MAP_BUFFERS,
            &mut params,
        )
        .map_err(|e| failed(&what, e))?;
    let quit = main_loop.clone();
    let _stop = stopped.attach(main_loop.loop_(), move |()| quit.quit());
    main_loop.run();
    Ok(())
}

/// The formats asked for: raw video, four bytes a pixel, in the order Mutter offers first;
/// any size and rate. No modifier is offered, so the frames come in shared memory.
fn format_pod() -> Result<Vec<u8>, String> {
    let object = pw::spa::pod::object!(
        pw::spa::utils::SpaTypes::ObjectParamFormat,
        pw::spa::param::ParamType::EnumFormat,
        pw::spa::pod::property!(
            pw::spa::param::format::FormatProperties::MediaType,
            Id,
            pw::spa::param::format::MediaType::Video
        ),
        pw::spa::pod::property!(
            pw::spa::param::format::FormatProperties::MediaSubtype,
            Id,
            pw::spa::param::format::MediaSubtype::Raw
        ),
        pw::spa::pod::property!(
            pw::spa::param::format::FormatProperties::VideoFormat,
            Choice,
            Enum,
            Id,
            VideoFormat::BGRx,
            VideoFormat::BGRx,
            VideoFormat::BGRA,
            VideoFormat::RGBx,
            VideoFormat::RGBA
        ),
    );
    pw::spa::pod::serialize::PodSerializer::serialize(
        std::io::Cursor::new(Vec::new()),
        &pw::spa::pod::Value::Object(object),
    )
    .map(|(cursor, _)| cursor.into_inner())
    .map_err(|e| format!("{e:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_gives_its_area_in_rgb_whatever_its_byte_order_and_padding() {
        // 2x2 pixels, 12 bytes a row (4 of padding): red, green / blue, white.
        let row0 = [0, 0, 255, 0, 0, 255, 0, 0, 9, 9, 9, 9];
        let row1 = [255, 0, 0, 0, 255, 255, 255, 0, 9, 9, 9, 9];
        let frame = Frame {
            seq: 1,
            width: 2,
            height: 2,
            stride: 12,
            order: Order::Bgr,
            data: [row0, row1].concat(),
        };
        let all = frame.rgb(Rect::new(0, 0, 2, 2));
        assert_eq!(all.pixels, [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]);
        assert_eq!(frame.rgb(Rect::new(1, 1, 1, 1)).pixels, [255, 255, 255]);
        let rgb = Frame {
            order: Order::Rgb,
            ..frame
        };
        assert_eq!(rgb.rgb(Rect::new(0, 0, 1, 1)).pixels, [0, 0, 255]);
    }
}
