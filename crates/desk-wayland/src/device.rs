//! What the virtual keyboard and the virtual pointer share: the `wl_seat` they are made on, what it
//! says it has, and waiting for the compositor. Each is made once and kept: a headless
//! compositor's `wl_seat` gains a keyboard or a pointer only with the first virtual one, and the
//! apps bind theirs on their own time, so input sent at once can reach an app that has none yet
//! and be lost.

use wayland_client::protocol::wl_seat::{self, WlSeat};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, WEnum};

use crate::session::{Session, WaylandError};

/// What the compositor's `wl_seat` said it has.
pub(crate) struct SeatCaps {
    capabilities: wl_seat::Capability,
}

impl Dispatch<WlSeat, ()> for SeatCaps {
    fn event(
        caps: &mut Self,
        _: &WlSeat,
        event: wl_seat::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_seat::Event::Capabilities {
            capabilities: WEnum::Value(capabilities),
        } = event
        {
            caps.capabilities = capabilities;
        }
    }
}

/// A virtual device's event queue and what its `wl_seat` said.
pub(crate) struct Device {
    queue: EventQueue<SeatCaps>,
    caps: SeatCaps,
}

impl Device {
    /// Waits until the compositor has handled every request sent.
    pub(crate) fn sync(&mut self) -> Result<(), WaylandError> {
        self.queue
            .roundtrip(&mut self.caps)
            .map(drop)
            .map_err(|e| WaylandError::Broken(e.to_string()))
    }
}

impl Session {
    /// Makes a virtual device with `make` (given the queue and the compositor's first `wl_seat`),
    /// and answers it once the `wl_seat` says it has `capability`, with whether ours is the
    /// `wl_seat`'s first device of that kind (apps then bind theirs only now, on their own time).
    /// `needed_for` says what the device is for, should no `wl_seat` be offered.
    pub(crate) fn device<D>(
        &self,
        capability: wl_seat::Capability,
        needed_for: &'static str,
        make: impl FnOnce(&QueueHandle<SeatCaps>, &WlSeat) -> Result<D, WaylandError>,
    ) -> Result<(Device, D, bool), WaylandError> {
        let queue = self.conn.new_event_queue::<SeatCaps>();
        let qh = queue.handle();
        let wl_seat: WlSeat =
            self.globals
                .bind(&qh, 1..=7, ())
                .map_err(|_| WaylandError::Missing {
                    protocol: "wl_seat",
                    needed_for,
                })?;
        let mut device = Device {
            queue,
            caps: SeatCaps {
                capabilities: wl_seat::Capability::empty(),
            },
        };
        device.sync()?;
        let first = !device.caps.capabilities.contains(capability);
        let made = make(&qh, &wl_seat)?;
        while !device.caps.capabilities.contains(capability) {
            device.sync()?;
        }
        Ok((device, made, first))
    }
}
