//! Reading a request's `tool` without decoding the whole packet.

/// The value of the top-level `"tool"` key of a JSON object, when it is a plain string.
///
/// Returns `None` for anything unusual (escapes in the name, malformed JSON, no `tool` key): the
/// caller then falls back to the full decode, which explains the problem. The scan stops at the
/// `tool` value, so `args` after it is never touched.
pub fn peek_tool(packet: &[u8]) -> Option<&str> {
    let mut i = skip_ws(packet, 0);
    if packet.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_ws(packet, i);
        let (key, key_escaped, after_key) = scan_string(packet, i)?;
        i = skip_ws(packet, after_key);
        if packet.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(packet, i + 1);
        if !key_escaped && key == b"tool" {
            let (value, escaped, _) = scan_string(packet, i)?;
            return if escaped {
                None
            } else {
                std::str::from_utf8(value).ok()
            };
        }
        i = skip_ws(packet, skip_value(packet, i)?);
        match packet.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// A string starting at `i`: its raw contents, whether it holds escapes, and the index after it.
fn scan_string(b: &[u8], i: usize) -> Option<(&[u8], bool, usize)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let mut j = start;
    let mut escaped = false;
    loop {
        match *b.get(j)? {
            b'"' => return Some((&b[start..j], escaped, j + 1)),
            b'\\' => {
                escaped = true;
                j += 2;
            }
            _ => j += 1,
        }
    }
}

/// The index just after the JSON value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => scan_string(b, i).map(|(_, _, end)| end),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = scan_string(b, j)?.2;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while !matches!(
                b.get(j),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::peek_tool;

    #[test]
    fn finds_tool_wherever_it_is() {
        let cases: &[(&str, Option<&str>)] = &[
            (r#"{"tool":"desk_windows"}"#, Some("desk_windows")),
            (
                r#" { "agent_id" : "a\"b" , "tool" : "desk_shot" } "#,
                Some("desk_shot"),
            ),
            (
                r#"{"args":{"x":[1,{"tool":"no"}],"s":"}"},"n":-1.5e3,"b":true,"z":null,"tool":"status"}"#,
                Some("status"),
            ),
            (r#"{"args":{},"agent_id":""}"#, None),
            (r#"{"tool":"desk_\u0077indows"}"#, None),
            (r#"{"tool":5}"#, None),
            (r#"["tool","x"]"#, None),
            (r#"{"tool""#, None),
            ("", None),
        ];
        for (packet, want) in cases {
            assert_eq!(peek_tool(packet.as_bytes()), *want, "{packet}");
        }
    }

    #[test]
    fn agrees_with_the_full_decode() {
        let packet = br#"{"agent_id":"claude-1","tool":"desk_click","args":{"x":10,"y":20}}"#;
        let full = crate::wire::decode_request(packet).unwrap();
        assert_eq!(peek_tool(packet), Some(full.tool.as_str()));
    }
}
