//! What the virtual keyboard and the virtual pointer share: the seat they are made on, what it
//! says it has, and waiting for the compositor. Each is made once and kept: a headless seat
//! gains a keyboard or a pointer only with the first virtual one, and the apps bind theirs on
//! their own time, so input sent at once can reach an app that has none yet and be lost.

use wayland_client::protocol::wl_seat::{self, WlSeat};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, WEnum};

use crate::session::{Session, WaylandError};

/// What the seat said it has.
pub(crate) struct Seat {
    capabilities: wl_seat::Capability,
}

impl Dispatch<WlSeat, ()> for Seat {
    fn event(
        seat: &mut Self,
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
            seat.capabilities = capabilities;
        }
    }
}

/// A virtual device's event queue and its seat's word.
pub(crate) struct Device {
    queue: EventQueue<Seat>,
    seat: Seat,
}

impl Device {
    /// Waits until the compositor has handled every request sent.
    pub(crate) fn sync(&mut self) -> Result<(), WaylandError> {
        self.queue
            .roundtrip(&mut self.seat)
            .map(drop)
            .map_err(|e| WaylandError::Broken(e.to_string()))
    }
}

impl Session {
    /// Makes a virtual device with `make` (given the queue and the compositor's first seat),
    /// and answers it once the seat says it has `capability`, with whether ours is the seat's
    /// first device of that kind (apps then bind theirs only now, on their own time).
    /// `needed_for` says what the device is for, should the seat be missing.
    pub(crate) fn device<D>(
        &self,
        capability: wl_seat::Capability,
        needed_for: &'static str,
        make: impl FnOnce(&QueueHandle<Seat>, &WlSeat) -> Result<D, WaylandError>,
    ) -> Result<(Device, D, bool), WaylandError> {
        let queue = self.conn.new_event_queue::<Seat>();
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
            seat: Seat {
                capabilities: wl_seat::Capability::empty(),
            },
        };
        device.sync()?;
        let first = !device.seat.capabilities.contains(capability);
        let made = make(&qh, &wl_seat)?;
        while !device.seat.capabilities.contains(capability) {
            device.sync()?;
        }
        Ok((device, made, first))
    }
}
