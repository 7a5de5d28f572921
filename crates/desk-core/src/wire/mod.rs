//! The desk wire: how `shuttle mcp`, `shuttle desk` and scripts talk to `shuttle serve`.
//!
//! A connection carries a sequence of calls. Each call is one request packet from the client and
//! one reply packet from the daemon; the client may send the next request once it has its reply.
//! A request with `"progress": true` may get [`Progress`] packets (`{"progress": string}`) before
//! its reply, each saying what the call is doing.
//! Closing the connection while a call runs cancels that call.
//!
//! A packet is a `u32` length in **big-endian** byte order followed by exactly that many bytes of
//! UTF-8 JSON ([`packet`]). A request is `{"agent_id": string, "tool": string, "args": object}`;
//! a reply is `{"text": string, "is_error": bool, "image_b64"?: string, "secrets"?: [[field,
//! value]]}` ([`message`]). A bad request is answered with an `is_error` reply and the connection
//! stays usable; only a packet longer than [`packet::MAX_PACKET`] or a truncated one ends it, since
//! the stream can no longer be split into packets.
//!
//! [`tools`] names what a request can call. [`peek::peek_tool`] reads the `tool` of a request without decoding the rest, so the daemon can
//! route a packet before paying for a full decode.

pub mod message;
pub mod packet;
pub mod peek;
pub mod tools;

pub use message::{
    Answer, Format, Progress, Reply, Request, RequestError, decode_answer, decode_reply,
    decode_request,
};
pub use packet::{MAX_PACKET, PacketError, PacketReader, encode_packet, write_packet};
pub use peek::peek_tool;
pub use tools::Tool;

/// The agent id `shuttle mcp` sends: its own pid, so the daemon can tell when the session is
/// over (the process is gone) and end what it kept for it.
pub fn session_agent_id(pid: u32) -> String {
    format!("mcp-{pid}")
}

/// The pid of the MCP session an agent id names, if it is one.
pub fn session_pid(agent_id: &str) -> Option<u32> {
    agent_id.strip_prefix("mcp-")?.parse().ok()
}

/// The agent an agent id belongs to: a run's calls (`AGENT/run-N`) are its agent's.
pub fn agent_of(agent_id: &str) -> &str {
    match agent_id.rsplit_once("/run-") {
        Some((agent, n)) if n.parse::<u64>().is_ok() => agent,
        _ => agent_id,
    }
}

#[cfg(test)]
mod session_tests {
    use super::*;

    #[test]
    fn a_session_agent_id_names_its_pid_and_nothing_else_does() {
        assert_eq!(session_pid(&session_agent_id(4242)), Some(4242));
        assert_eq!(session_pid("mcp-"), None);
        assert_eq!(session_pid("mcp-12/run-3"), None);
        assert_eq!(session_pid("agent-7"), None);
        assert_eq!(session_pid(""), None);
    }
}
