//! Unnamed shared memory (memfd), mapped: how a client hands the compositor a buffer or a
//! keymap.

use std::os::fd::{FromRawFd, OwnedFd};

use crate::session::WaylandError;

/// Shared memory of a fixed size, mapped into this process.
pub(crate) struct SharedMemory {
    /// The descriptor to send the compositor.
    pub(crate) fd: OwnedFd,
    /// The memory.
    pub(crate) map: memmap2::MmapMut,
}

impl SharedMemory {
    /// `size` bytes of zeros, for `what` (named in errors).
    pub(crate) fn new(size: usize, what: &str) -> Result<Self, WaylandError> {
        let failed =
            |e: std::io::Error| WaylandError::Refused(format!("shared memory for {what} ({e})"));
        // SAFETY: a valid C string and flags; the returned descriptor is checked.
        let raw = unsafe { libc::memfd_create(c"shuttle".as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(failed(std::io::Error::last_os_error()));
        }
        // SAFETY: `raw` is a descriptor just opened and owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let file = std::fs::File::from(fd.try_clone().map_err(failed)?);
        file.set_len(size as u64).map_err(failed)?;
        // SAFETY: the memory is ours; the compositor reads or writes it only when asked to.
        let map = unsafe { memmap2::MmapMut::map_mut(&file) }.map_err(failed)?;
        Ok(Self { fd, map })
    }

    /// Shared memory holding `bytes`, for `what`.
    pub(crate) fn holding(bytes: &[u8], what: &str) -> Result<Self, WaylandError> {
        let mut memory = Self::new(bytes.len(), what)?;
        memory.map.copy_from_slice(bytes);
        Ok(memory)
    }
}
