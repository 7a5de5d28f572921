//! Packets: a big-endian `u32` byte count, then that many bytes of payload.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest payload a packet may carry: 64 MiB.
///
/// A full-screen PNG of an 8K display stays well below this; anything longer is almost certainly
/// a stream that lost its packet boundaries, so the reader refuses it instead of allocating for it.
pub const MAX_PACKET: usize = 64 * 1024 * 1024;

/// Bytes of the length header.
const HEADER: usize = 4;
/// The most read buffer a connection keeps between packets.
const KEPT_CAPACITY: usize = 64 * 1024;

/// Why a packet could not be read. Every variant except [`PacketError::Io`] means the peer sent
/// something the stream cannot recover from, so the connection must be closed after reporting it.
#[derive(Debug, thiserror::Error)]
pub enum PacketError {
    /// The header announced more than [`MAX_PACKET`] bytes.
    #[error(
        "packet of {len} bytes is over the {MAX_PACKET}-byte limit; the connection will be closed \
         because the stream cannot be resynchronised"
    )]
    TooLong {
        /// The length the header announced.
        len: u64,
    },
    /// The peer closed its side in the middle of a packet.
    #[error(
        "truncated packet: the peer closed its side after {got} of {expected} bytes \
         (the {HEADER}-byte big-endian length header included)"
    )]
    Truncated {
        /// Header and payload bytes the packet should have had.
        expected: usize,
        /// Bytes that arrived before the peer closed.
        got: usize,
    },
    /// Reading from the connection failed.
    #[error("reading a packet failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads packets from a byte stream.
///
/// [`PacketReader::next_packet`] is cancel-safe: bytes read before a cancellation stay buffered,
/// so a caller may `select!` on it (to notice the peer closing while a call runs) without losing
/// a packet that was half-received.
#[derive(Debug)]
pub struct PacketReader<R> {
    inner: R,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> PacketReader<R> {
    /// Wraps a byte stream.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            buf: Vec::new(),
        }
    }

    /// Returns the next packet's payload, or `None` when the peer closed cleanly between packets.
    pub async fn next_packet(&mut self) -> Result<Option<Vec<u8>>, PacketError> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if let Some(payload) = self.take_packet()? {
                return Ok(Some(payload));
            }
            let n = self.inner.read(&mut chunk).await?;
            if n == 0 {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                return Err(PacketError::Truncated {
                    expected: self.expected_len().unwrap_or(HEADER),
                    got: self.buf.len(),
                });
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// Header plus payload length of the packet at the front of the buffer, once its header is in.
    fn expected_len(&self) -> Option<usize> {
        let header: [u8; HEADER] = self.buf.get(..HEADER)?.try_into().ok()?;
        Some(HEADER + u32::from_be_bytes(header) as usize)
    }

    /// Splits a complete packet off the front of the buffer, if one is there.
    fn take_packet(&mut self) -> Result<Option<Vec<u8>>, PacketError> {
        let Some(total) = self.expected_len() else {
            return Ok(None);
        };
        let len = total - HEADER;
        if len > MAX_PACKET {
            return Err(PacketError::TooLong { len: len as u64 });
        }
        if self.buf.len() < total {
            self.buf.reserve(total - self.buf.len());
            return Ok(None);
        }
        let payload = self.buf[HEADER..total].to_vec();
        self.buf.drain(..total);
        // A large packet's room is given back, so a long-lived connection does not keep it.
        if self.buf.capacity() > KEPT_CAPACITY {
            self.buf.shrink_to(KEPT_CAPACITY.max(self.buf.len()));
        }
        Ok(Some(payload))
    }

    /// The reader and the bytes already read past the last packet taken, for a caller that hands
    /// the rest of the stream to someone else (a service's connection).
    pub fn into_parts(self) -> (R, Vec<u8>) {
        (self.inner, self.buf)
    }

    /// The underlying stream.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }
}

/// Header and payload as one buffer, so a packet goes out in a single write.
///
/// # Panics
/// If `payload` is longer than [`MAX_PACKET`]; callers build payloads they control, so that is a
/// bug, not an input error.
pub fn encode_packet(payload: &[u8]) -> Vec<u8> {
    assert!(
        payload.len() <= MAX_PACKET,
        "packet payload of {} bytes is over MAX_PACKET",
        payload.len()
    );
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// Writes one packet and flushes it.
pub async fn write_packet<W: AsyncWrite + Unpin>(w: &mut W, payload: &[u8]) -> std::io::Result<()> {
    w.write_all(&encode_packet(payload)).await?;
    w.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn packets_of(bytes: &[u8]) -> Vec<Result<Option<Vec<u8>>, String>> {
        let mut reader = PacketReader::new(bytes);
        let mut out = Vec::new();
        loop {
            let next = reader.next_packet().await.map_err(|e| e.to_string());
            let stop = !matches!(next, Ok(Some(_)));
            out.push(next);
            if stop {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn reads_back_to_back_packets_then_clean_eof() {
        let mut bytes = encode_packet(b"{\"a\":1}");
        bytes.extend(encode_packet(b""));
        bytes.extend(encode_packet(b"xyz"));
        let got = packets_of(&bytes).await;
        assert_eq!(
            got,
            vec![
                Ok(Some(b"{\"a\":1}".to_vec())),
                Ok(Some(Vec::new())),
                Ok(Some(b"xyz".to_vec())),
                Ok(None)
            ]
        );
    }

    #[test]
    fn header_is_big_endian() {
        assert_eq!(&encode_packet(&[7u8; 258])[..4], &[0, 0, 1, 2]);
    }

    #[tokio::test]
    async fn truncated_payload_is_reported_with_counts() {
        let mut bytes = encode_packet(b"0123456789");
        bytes.truncate(9);
        let got = packets_of(&bytes).await;
        let err = got[0].clone().unwrap_err();
        assert!(err.contains("after 9 of 14 bytes"), "{err}");
    }

    #[tokio::test]
    async fn truncated_header_is_reported() {
        let got = packets_of(&[0, 0]).await;
        let err = got[0].clone().unwrap_err();
        assert!(err.starts_with("truncated packet"), "{err}");
    }

    #[tokio::test]
    async fn over_limit_is_refused_before_the_payload_arrives() {
        let header = ((MAX_PACKET + 1) as u32).to_be_bytes();
        let got = packets_of(&header).await;
        let err = got[0].clone().unwrap_err();
        assert!(err.contains("over the 67108864-byte limit"), "{err}");
    }

    #[tokio::test]
    async fn a_packet_split_across_reads_is_reassembled() {
        let (mut tx, rx) = tokio::io::duplex(4);
        let writer = tokio::spawn(async move {
            write_packet(&mut tx, b"{\"tool\":\"desk_windows\"}")
                .await
                .unwrap();
        });
        let mut reader = PacketReader::new(rx);
        let packet = reader.next_packet().await.unwrap().unwrap();
        assert_eq!(packet, b"{\"tool\":\"desk_windows\"}");
        writer.await.unwrap();
        assert!(reader.next_packet().await.unwrap().is_none());
    }
}
