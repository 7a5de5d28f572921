//! The desk wire: how `shuttle mcp`, `shuttle desk` and scripts talk to `shuttle serve`.
//!
//! A connection carries a sequence of calls. Each call is one request frame from the client and
//! one reply frame from the daemon; the client may send the next request once it has its reply.
//! Closing the connection while a call runs cancels that call.
//!
//! A frame is a `u32` length in **big-endian** byte order followed by exactly that many bytes of
//! UTF-8 JSON ([`frame`]). A request is `{"agent_id": string, "tool": string, "args": object}`;
//! a reply is `{"text": string, "is_error": bool, "image_b64"?: string, "secrets"?: [[field,
//! value]]}` ([`message`]). A bad request is answered with an `is_error` reply and the connection
//! stays usable; only a frame longer than [`frame::MAX_FRAME`] or a truncated one ends it, since
//! the stream can no longer be split into frames.
//!
//! [`tools`] names what a request can call. [`peek::peek_tool`] reads the `tool` of a request without decoding the rest, so the daemon can
//! route a frame before paying for a full decode.

pub mod frame;
pub mod message;
pub mod peek;
pub mod tools;

pub use frame::{FrameError, FrameReader, MAX_FRAME, encode_frame, write_frame};
pub use message::{Reply, Request, RequestError, decode_reply, decode_request};
pub use peek::peek_tool;
pub use tools::Tool;
