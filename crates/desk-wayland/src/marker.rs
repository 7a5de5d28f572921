//! The marker that shows an agent is acting: a small red square in the top right corner of
//! the output, drawn on a `zwlr_layer_shell_v1` overlay surface. It takes no keyboard focus and
//! its input region is empty, so clicks pass through it. A thread of its own, on a connection
//! of its own, swaps its buffer between the square and a transparent one, when
//! [`desk::marker`] says.

use std::os::fd::AsFd;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use desk_core::geometry::Rect;
use wayland_client::protocol::{
    wl_buffer::WlBuffer,
    wl_compositor::WlCompositor,
    wl_region::WlRegion,
    wl_shm::{self, WlShm},
    wl_shm_pool::WlShmPool,
    wl_surface::WlSurface,
};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle};
use wayland_protocols_wlr::layer_shell::v1::client::{
    zwlr_layer_shell_v1::{Layer, ZwlrLayerShellV1},
    zwlr_layer_surface_v1::{
        self as layer_surface, Anchor, KeyboardInteractivity, ZwlrLayerSurfaceV1,
    },
};

use crate::session::{Session, WaylandError};
use crate::shm::SharedMemory;

/// The square's side, its white border included.
const SIDE: u32 = 18;
/// The white border that keeps it visible on red.
const BORDER: u32 = 2;
/// Its distance from the output's edges.
const MARGIN: i32 = 4;
/// ARGB8888 pixels, as little-endian bytes (B, G, R, A).
const RED: [u8; 4] = [0x24, 0x1b, 0xe0, 0xff];
const WHITE: [u8; 4] = [0xff; 4];
const CLEAR: [u8; 4] = [0; 4];

/// The layer surface's state.
#[derive(Default)]
struct Overlay {
    /// The serial of a configure not acknowledged yet.
    configure: Option<u32>,
    /// Whether the compositor closed the surface.
    closed: bool,
}

impl Dispatch<ZwlrLayerSurfaceV1, ()> for Overlay {
    fn event(
        overlay: &mut Self,
        _: &ZwlrLayerSurfaceV1,
        event: layer_surface::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            layer_surface::Event::Configure { serial, .. } => overlay.configure = Some(serial),
            layer_surface::Event::Closed => overlay.closed = true,
            _ => {}
        }
    }
}

ignore_events!(Overlay: WlCompositor, WlShm, WlShmPool, WlBuffer, WlSurface, WlRegion, ZwlrLayerShellV1);

/// The marker's handle: tell it when actions start and end. Dropping it ends its thread.
pub struct Marker {
    tell: Sender<bool>,
}

impl Marker {
    /// Starts the marker's thread, which makes the (transparent) marker on the compositor at
    /// `socket` and then shows it when told; a compositor that cannot show it is logged once,
    /// and the marker stays away.
    pub fn start(socket: Option<&Path>) -> Result<Self, WaylandError> {
        let socket = socket.map(Path::to_path_buf);
        let (tell, told) = mpsc::channel();
        std::thread::Builder::new()
            .name("shuttle-wayland-marker".into())
            .spawn(move || {
                let session = match &socket {
                    Some(path) => Session::connect_to(path),
                    None => Session::connect(),
                };
                match session.and_then(Drawn::new) {
                    Ok(drawn) => show_while_acting(drawn, &told),
                    Err(e) => tracing::warn!(error = %e, "could not create the acting marker"),
                }
            })
            .map_err(|e| WaylandError::Broken(format!("cannot start the marker's thread: {e}")))?;
        Ok(Self { tell })
    }

    /// An action started (`true`) or ended.
    pub fn set(&self, acting: bool) {
        let _ = self.tell.send(acting);
    }

    /// Where it is drawn on an output `layout` large.
    pub fn rect(layout: Rect) -> Rect {
        Rect::new(
            layout.x + layout.w as i32 - SIDE as i32 - MARGIN,
            layout.y + MARGIN,
            SIDE,
            SIDE,
        )
    }
}

/// The surface and its two buffers.
struct Drawn {
    _session: Session,
    queue: EventQueue<Overlay>,
    overlay: Overlay,
    layer: ZwlrLayerSurfaceV1,
    surface: WlSurface,
    square: WlBuffer,
    clear: WlBuffer,
    _memory: SharedMemory,
}

impl Drawn {
    fn new(session: Session) -> Result<Self, WaylandError> {
        let mut queue = session.conn.new_event_queue::<Overlay>();
        let qh = queue.handle();
        let needed_for = "the acting marker";
        let missing = |protocol| WaylandError::Missing {
            protocol,
            needed_for,
        };
        let compositor: WlCompositor = session
            .globals
            .bind(&qh, 4..=4, ())
            .map_err(|_| missing("wl_compositor"))?;
        let shm: WlShm = session
            .globals
            .bind(&qh, 1..=1, ())
            .map_err(|_| missing("wl_shm"))?;
        let layers: ZwlrLayerShellV1 = session
            .globals
            .bind(&qh, 1..=4, ())
            .map_err(|_| missing("zwlr_layer_shell_v1"))?;
        let pixels = (SIDE * SIDE) as usize;
        let mut bytes = Vec::with_capacity(pixels * 8);
        for y in 0..SIDE {
            for x in 0..SIDE {
                let edge = x < BORDER || y < BORDER || x >= SIDE - BORDER || y >= SIDE - BORDER;
                bytes.extend_from_slice(if edge { &WHITE } else { &RED });
            }
        }
        bytes.extend(std::iter::repeat_n(CLEAR, pixels).flatten());
        let memory = SharedMemory::holding(&bytes, "the acting marker")?;
        let pool = shm.create_pool(memory.fd.as_fd(), bytes.len() as i32, &qh, ());
        let buffer = |offset: usize| {
            pool.create_buffer(
                offset as i32,
                SIDE as i32,
                SIDE as i32,
                (SIDE * 4) as i32,
                wl_shm::Format::Argb8888,
                &qh,
                (),
            )
        };
        let (square, clear) = (buffer(0), buffer(pixels * 4));
        pool.destroy();
        let surface = compositor.create_surface(&qh, ());
        // No input: clicks go to whatever is below.
        let region = compositor.create_region(&qh, ());
        surface.set_input_region(Some(&region));
        region.destroy();
        let layer = layers.get_layer_surface(
            &surface,
            None,
            Layer::Overlay,
            "shuttle-marker".into(),
            &qh,
            (),
        );
        layer.set_size(SIDE, SIDE);
        layer.set_anchor(Anchor::Top | Anchor::Right);
        layer.set_margin(MARGIN, MARGIN, 0, 0);
        layer.set_exclusive_zone(-1);
        layer.set_keyboard_interactivity(KeyboardInteractivity::None);
        surface.commit();
        let mut overlay = Overlay::default();
        let broken = |e: wayland_client::DispatchError| WaylandError::Broken(e.to_string());
        while overlay.configure.is_none() && !overlay.closed {
            queue.blocking_dispatch(&mut overlay).map_err(broken)?;
        }
        if overlay.closed {
            return Err(WaylandError::Refused(
                "an overlay surface for the marker".into(),
            ));
        }
        let mut drawn = Self {
            _session: session,
            queue,
            overlay,
            layer,
            surface,
            square,
            clear,
            _memory: memory,
        };
        drawn.show(false)?;
        Ok(drawn)
    }

    /// Shows the square (`true`) or nothing, acknowledging any configure first.
    fn show(&mut self, square: bool) -> Result<(), WaylandError> {
        let broken = |e: wayland_client::DispatchError| WaylandError::Broken(e.to_string());
        self.queue
            .dispatch_pending(&mut self.overlay)
            .map_err(broken)?;
        if self.overlay.closed {
            return Err(WaylandError::Refused(
                "the marker's overlay (it was closed)".into(),
            ));
        }
        if let Some(serial) = self.overlay.configure.take() {
            // The size it names is the one set.
            self.layer.ack_configure(serial);
        }
        let buffer = if square { &self.square } else { &self.clear };
        self.surface.attach(Some(buffer), 0, 0);
        self.surface.damage_buffer(0, 0, SIDE as i32, SIDE as i32);
        self.surface.commit();
        self.queue
            .flush()
            .map_err(|e| WaylandError::Broken(e.to_string()))
    }
}

fn show_while_acting(mut drawn: Drawn, told: &Receiver<bool>) {
    // An overlay stays above windows by itself: nothing to redo while shown.
    desk::marker::show_while_acting(told, Duration::from_secs(3600), |acting| drawn.show(acting));
}
