//! A transport wrapper that hands rmcp one `tools/call` at a time, in arrival order.
//!
//! rmcp runs every request concurrently as soon as it is read. shuttle answers tool calls in the
//! order they came, one at a time, while still reading the client meanwhile: so this layer
//! holds later calls back until the running one is answered. A `notifications/cancelled` for a
//! held call removes it (it gets no reply); for the running call it passes through, and rmcp
//! cancels that call's token, which closes its daemon connection.
//!
//! Other requests (initialize, ping, tools/list) pass straight through: they answer at once.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::Notify;

/// Which call runs; shared between the receive side and the send side.
#[derive(Default)]
struct Running {
    id: Option<RequestId>,
}

/// Wraps a transport so tool calls are released one at a time.
pub struct Ordered<T> {
    inner: T,
    held: VecDeque<RxJsonRpcMessage<RoleServer>>,
    running: Arc<Mutex<Running>>,
    finished: Arc<Notify>,
}

impl<T> Ordered<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> Self {
        Self {
            inner,
            held: VecDeque::new(),
            running: Arc::default(),
            finished: Arc::new(Notify::new()),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, Running> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next held call, when none runs.
    fn release(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        if self.running().id.is_some() {
            return None;
        }
        let next = self.held.pop_front()?;
        self.running().id = call_id(&next).cloned();
        Some(next)
    }

    /// Decides what to do with a message just read: pass it on now, or keep it.
    fn admit(
        &mut self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
        if call_id(&message).is_some() {
            self.held.push_back(message);
            return self.release();
        }
        if let Some(cancelled) = cancelled_id(&message) {
            let before = self.held.len();
            self.held.retain(|held| call_id(held) != Some(&cancelled));
            if self.held.len() != before {
                // A call that never started: dropping it is the whole cancellation.
                return None;
            }
            let mut running = self.running();
            if running.id.as_ref() == Some(&cancelled) {
                // rmcp cancels the call and drops its reply, so the send side never sees one.
                running.id = None;
                self.finished.notify_one();
            }
        }
        Some(message)
    }
}

fn call_id(message: &RxJsonRpcMessage<RoleServer>) -> Option<&RequestId> {
    match message {
        JsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::CallToolRequest(_)) =>
        {
            Some(&request.id)
        }
        _ => None,
    }
}

fn cancelled_id(message: &RxJsonRpcMessage<RoleServer>) -> Option<RequestId> {
    match message {
        JsonRpcMessage::Notification(n) => match &n.notification {
            ClientNotification::CancelledNotification(c) => c.params.request_id.clone(),
            _ => None,
        },
        _ => None,
    }
}

fn answered_id(message: &TxJsonRpcMessage<RoleServer>) -> Option<&RequestId> {
    match message {
        JsonRpcMessage::Response(response) => Some(&response.id),
        JsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Ordered<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let mut running = self.running();
        if running.id.is_some() && answered_id(&item) == running.id.as_ref() {
            running.id = None;
            self.finished.notify_one();
        }
        drop(running);
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(next) = self.release() {
                return Some(next);
            }
            let finished = self.finished.clone();
            tokio::select! {
                message = self.inner.receive() => match self.admit(message?) {
                    Some(message) => return Some(message),
                    None => continue,
                },
                () = finished.notified() => continue,
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}
