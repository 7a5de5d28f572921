//! The private display's cookie: a random MIT-MAGIC-COOKIE-1 the X server demands of every
//! client, so other users of the machine cannot connect to the agent's display.

use std::io::Read;
use std::path::Path;

/// The only authorisation protocol the cookie file holds.
pub(crate) const PROTOCOL: &str = "MIT-MAGIC-COOKIE-1";
/// An Xauthority entry that matches any host address (FamilyWild).
const FAMILY_WILD: u16 = 0xffff;

/// 16 random bytes from the kernel.
pub(crate) fn new_cookie() -> std::io::Result<[u8; 16]> {
    let mut cookie = [0; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut cookie)?;
    Ok(cookie)
}

/// One Xauthority entry for display `number` on any host, in the file format Xlib and xcb read
/// (each field a big-endian u16 length and its bytes).
pub(crate) fn entry(number: u32, cookie: &[u8]) -> Vec<u8> {
    let mut out = FAMILY_WILD.to_be_bytes().to_vec();
    let number = number.to_string();
    for field in [
        b"".as_slice(),
        number.as_bytes(),
        PROTOCOL.as_bytes(),
        cookie,
    ] {
        out.extend_from_slice(&(field.len() as u16).to_be_bytes());
        out.extend_from_slice(field);
    }
    out
}

/// Writes `path` (mode 0600) with an entry per display number after the entries of
/// `inherited`, the person's own Xauthority when there is one, so the daemon can still reach
/// the person's display (for the kill hotkey) with the one file.
pub(crate) fn write(
    path: &Path,
    numbers: &[u32],
    cookie: &[u8],
    inherited: Option<&Path>,
) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut content = inherited
        .and_then(|p| std::fs::read(p).ok())
        .unwrap_or_default();
    for number in numbers {
        content.extend(entry(*number, cookie));
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(&content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_family_wild_with_the_display_number_and_cookie() {
        let bytes = entry(105, &[7; 16]);
        assert_eq!(&bytes[..2], &[0xff, 0xff]);
        assert_eq!(&bytes[2..4], &[0, 0], "an empty address");
        assert_eq!(&bytes[4..6], &[0, 3]);
        assert_eq!(&bytes[6..9], b"105");
        assert_eq!(&bytes[9..11], &[0, 18]);
        assert_eq!(&bytes[11..29], PROTOCOL.as_bytes());
        assert_eq!(&bytes[29..31], &[0, 16]);
        assert_eq!(&bytes[31..], &[7; 16]);
    }

    #[test]
    fn the_file_keeps_the_inherited_entries_first_and_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("xauth-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let inherited = dir.join("person");
        std::fs::write(&inherited, b"PERSON").unwrap();
        let path = dir.join("Xauthority");
        write(&path, &[3], &[1; 16], Some(&inherited)).unwrap();
        let content = std::fs::read(&path).unwrap();
        assert!(content.starts_with(b"PERSON"));
        assert_eq!(&content[6..], entry(3, &[1; 16]).as_slice());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
