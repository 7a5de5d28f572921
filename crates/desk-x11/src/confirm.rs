//! The confirm dialog: what an agent is about to do, with Allow and Deny, in a window of its own.
//!
//! The dialog never takes the keyboard focus (its WM hints say it takes no input), so the
//! window the action is aimed at keeps the focus while the person decides; they answer with
//! the pointer. Closing it, or letting the time run out, counts as Deny. Its layout is fixed:
//! [`WIDTH`] by [`HEIGHT`], with the buttons at [`ALLOW`] and [`DENY`].

use std::time::{Duration, Instant};

use crate::patient::Conn;
use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, CreateGCAux, CreateWindowAux, EventMask, Font, Gcontext,
    PropMode, Rectangle, Window as Xid, WindowClass,
};
use x11rb::wrapper::ConnectionExt as _;

use desk::Cancel;
use desk::DeskError;
use desk::{Answer, Asks, Question};

/// The dialog's size.
pub const WIDTH: u16 = 520;
/// The dialog's height.
pub const HEIGHT: u16 = 210;
/// The Allow button: x, y, width, height inside the dialog.
pub const ALLOW: (i16, i16, u16, u16) = (300, 166, 100, 30);
/// The Deny button.
pub const DENY: (i16, i16, u16, u16) = (410, 166, 100, 30);
/// The dialog's title, by which it can be found.
pub const TITLE: &str = "shuttle: allow this action?";

/// The longest line, in characters of the fixed font.
const COLUMNS: usize = 70;
const LINE_HEIGHT: i16 = 17;
const LEFT: i16 = 12;
/// How often it looks for the answer, the deadline and a cancel.
const POLL: Duration = Duration::from_millis(15);
/// The fonts to try, Unicode first.
const FONTS: [&str; 2] = [
    "-misc-fixed-medium-r-normal--13-*-*-*-*-*-iso10646-1",
    "fixed",
];

const ATOMS: [&str; 8] = [
    "WM_PROTOCOLS",
    "WM_DELETE_WINDOW",
    "_NET_WM_NAME",
    "UTF8_STRING",
    "_NET_WM_WINDOW_TYPE",
    "_NET_WM_WINDOW_TYPE_DIALOG",
    "_NET_WM_STATE",
    "_NET_WM_STATE_ABOVE",
];

/// Shows `question` on `display` and waits for the answer.
pub(super) fn ask(
    display: &str,
    question: &Question,
    cancel: &Cancel,
) -> Result<Answer, DeskError> {
    let failed = |e: Box<dyn std::error::Error>| DeskError::Unreachable {
        system: "x11",
        reason: format!("the confirm dialog could not be shown on {display}: {e}"),
    };
    let (conn, screen_num) = crate::patient::connect(display).map_err(|e| failed(e.into()))?;
    let dialog = Dialog::open(&conn, screen_num, question).map_err(failed)?;
    let answer = dialog.wait(question.timeout, cancel);
    // The connection closing takes the window with it; destroying it first is just tidier.
    let _ = conn.destroy_window(dialog.window);
    let _ = conn.flush();
    answer.map_err(failed)
}

struct Dialog<'c> {
    conn: &'c Conn,
    window: Xid,
    gc: Gcontext,
    wide: bool,
    lines: Vec<String>,
    delete: u32,
    protocols: u32,
}

impl<'c> Dialog<'c> {
    fn open(
        conn: &'c Conn,
        screen_num: usize,
        question: &Question,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let screen = &conn.setup().roots[screen_num];
        let cookies: Vec<_> = ATOMS
            .iter()
            .map(|name| conn.intern_atom(false, name.as_bytes()))
            .collect::<Result<_, _>>()?;
        let atoms: Vec<u32> = cookies
            .into_iter()
            .map(|c| c.reply().map(|r| r.atom))
            .collect::<Result<_, _>>()?;
        let [
            protocols,
            delete,
            net_name,
            utf8,
            win_type,
            dialog_type,
            state,
            above,
        ] = atoms[..]
        else {
            unreachable!("one atom per name");
        };
        let window = conn.generate_id()?;
        let x = (screen.width_in_pixels as i16 - WIDTH as i16) / 2;
        let y = (screen.height_in_pixels as i16 - HEIGHT as i16) / 3;
        conn.create_window(
            x11rb::COPY_DEPTH_FROM_PARENT,
            window,
            screen.root,
            x,
            y,
            WIDTH,
            HEIGHT,
            0,
            WindowClass::INPUT_OUTPUT,
            x11rb::COPY_FROM_PARENT,
            &CreateWindowAux::new()
                .background_pixel(screen.white_pixel)
                .event_mask(
                    EventMask::EXPOSURE | EventMask::BUTTON_PRESS | EventMask::BUTTON_RELEASE,
                ),
        )?;
        conn.change_property8(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_NAME,
            AtomEnum::STRING,
            TITLE.as_bytes(),
        )?;
        conn.change_property8(PropMode::REPLACE, window, net_name, utf8, TITLE.as_bytes())?;
        conn.change_property8(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_CLASS,
            AtomEnum::STRING,
            b"shuttle-confirm\0shuttle\0",
        )?;
        conn.change_property32(
            PropMode::REPLACE,
            window,
            protocols,
            AtomEnum::ATOM,
            &[delete],
        )?;
        conn.change_property32(
            PropMode::REPLACE,
            window,
            win_type,
            AtomEnum::ATOM,
            &[dialog_type],
        )?;
        conn.change_property32(PropMode::REPLACE, window, state, AtomEnum::ATOM, &[above])?;
        // WM_HINTS with the input flag set to false: the window manager never focuses it.
        conn.change_property32(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_HINTS,
            AtomEnum::WM_HINTS,
            &[1, 0, 0, 0, 0, 0, 0, 0, 0],
        )?;
        // A fixed size: min and max (flags PMinSize | PMaxSize).
        let (w, h) = (u32::from(WIDTH), u32::from(HEIGHT));
        conn.change_property32(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_NORMAL_HINTS,
            AtomEnum::WM_SIZE_HINTS,
            &[
                (1 << 4) | (1 << 5),
                0,
                0,
                0,
                0,
                w,
                h,
                w,
                h,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
            ],
        )?;
        let (font, wide) = open_font(conn)?;
        let gc = conn.generate_id()?;
        conn.create_gc(
            gc,
            window,
            &CreateGCAux::new()
                .foreground(screen.black_pixel)
                .background(screen.white_pixel)
                .font(font),
        )?;
        conn.map_window(window)?;
        conn.flush()?;
        Ok(Self {
            conn,
            window,
            gc,
            wide,
            lines: lines(question),
            delete,
            protocols,
        })
    }

    /// Waits for a click on a button, a close, the deadline or a cancel.
    fn wait(
        &self,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<Answer, Box<dyn std::error::Error>> {
        let deadline = Instant::now() + timeout;
        let mut pressed: Option<Answer> = None;
        let mut shown_left = u64::MAX;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(Answer::NoAnswer);
            }
            if cancel.is_cancelled() {
                return Ok(Answer::Closed);
            }
            let left = (deadline - now).as_secs() + 1;
            if left != shown_left {
                shown_left = left;
                self.draw(left)?;
            }
            while let Some(event) = self.conn.poll_for_event()? {
                match event {
                    Event::Expose(e) if e.count == 0 => self.draw(shown_left)?,
                    Event::ButtonPress(e) => pressed = button_at(e.event_x, e.event_y),
                    Event::ButtonRelease(e) => {
                        let released = button_at(e.event_x, e.event_y);
                        if released.is_some() && released == pressed {
                            return Ok(released.unwrap_or(Answer::Deny));
                        }
                        pressed = None;
                    }
                    Event::ClientMessage(e)
                        if e.type_ == self.protocols && e.data.as_data32()[0] == self.delete =>
                    {
                        return Ok(Answer::Closed);
                    }
                    _ => {}
                }
            }
            std::thread::sleep(POLL);
        }
    }

    fn draw(&self, seconds_left: u64) -> Result<(), Box<dyn std::error::Error>> {
        let conn = self.conn;
        conn.clear_area(false, self.window, 0, 0, WIDTH, HEIGHT)?;
        let mut y = 24;
        for line in &self.lines {
            self.text(LEFT, y, line)?;
            y += LINE_HEIGHT;
        }
        self.text(LEFT, ALLOW.1 + 20, &format!("Deny in {seconds_left} s"))?;
        for ((x, y, w, h), label) in [(ALLOW, "Allow"), (DENY, "Deny")] {
            conn.poly_rectangle(
                self.window,
                self.gc,
                &[Rectangle {
                    x,
                    y,
                    width: w,
                    height: h,
                }],
            )?;
            let label_x = x + (w as i16 - 7 * label.len() as i16) / 2;
            self.text(label_x, y + 20, label)?;
        }
        conn.flush()?;
        Ok(())
    }

    fn text(&self, x: i16, y: i16, text: &str) -> Result<(), Box<dyn std::error::Error>> {
        if self.wide {
            let chars: Vec<x11rb::protocol::xproto::Char2b> = text
                .chars()
                .take(255)
                .map(|c| {
                    let code = u16::try_from(u32::from(c)).unwrap_or(u16::from(b'?'));
                    x11rb::protocol::xproto::Char2b {
                        byte1: (code >> 8) as u8,
                        byte2: code as u8,
                    }
                })
                .collect();
            self.conn.image_text16(self.window, self.gc, x, y, &chars)?;
        } else {
            let bytes: Vec<u8> = text
                .chars()
                .take(255)
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
                .collect();
            self.conn.image_text8(self.window, self.gc, x, y, &bytes)?;
        }
        Ok(())
    }
}

/// The Unicode fixed font where the server has it, else the always-present `fixed`.
fn open_font(conn: &Conn) -> Result<(Font, bool), Box<dyn std::error::Error>> {
    for (i, name) in FONTS.iter().enumerate() {
        let font = conn.generate_id()?;
        if conn.open_font(font, name.as_bytes())?.check().is_ok() {
            return Ok((font, i == 0));
        }
    }
    Err("the X server has no fixed font".into())
}

fn button_at(x: i16, y: i16) -> Option<Answer> {
    let inside = |(bx, by, w, h): (i16, i16, u16, u16)| {
        x >= bx && y >= by && x < bx + w as i16 && y < by + h as i16
    };
    if inside(ALLOW) {
        Some(Answer::Allow)
    } else if inside(DENY) {
        Some(Answer::Deny)
    } else {
        None
    }
}

/// The dialog's text, wrapped to the fixed width and cut to fit above the buttons.
fn lines(question: &Question) -> Vec<String> {
    let first = match question.asks {
        Asks::Act if question.agent.is_empty() => {
            "A caller without an agent name (such as shuttle desk) asks to act on this desktop:"
                .to_string()
        }
        Asks::Act => format!("Agent {:?} asks to act on this desktop:", question.agent),
        Asks::Resume => "Resume shuttle? Agents could act again. Asked by:".to_string(),
    };
    let mut lines = wrap(&first, COLUMNS);
    if question.asks == Asks::Resume {
        lines.extend(wrap(&question.agent, COLUMNS));
    }
    lines.extend(wrap(&question.action, COLUMNS));
    if let Some(text) = &question.text {
        let shown: String = text.chars().take(120).collect();
        let more = if text.chars().count() > 120 {
            "…"
        } else {
            ""
        };
        lines.extend(wrap(&format!("Text: {shown:?}{more}"), COLUMNS));
    }
    lines.truncate(7);
    lines
}

fn wrap(text: &str, columns: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(columns)
        .map(|chunk| chunk.iter().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buttons_are_hit_inside_only() {
        assert_eq!(button_at(ALLOW.0 + 1, ALLOW.1 + 1), Some(Answer::Allow));
        assert_eq!(button_at(DENY.0 + 50, DENY.1 + 10), Some(Answer::Deny));
        assert_eq!(button_at(ALLOW.0 - 1, ALLOW.1), None);
        assert_eq!(button_at(5, 5), None);
    }

    #[test]
    fn text_is_wrapped_and_cut() {
        let question = Question {
            asks: Asks::Act,
            agent: "claude".into(),
            action: "x".repeat(200),
            text: Some("secret".repeat(50)),
            timeout: Duration::from_secs(3),
        };
        let lines = lines(&question);
        assert!(lines.len() <= 7);
        assert!(lines.iter().all(|l| l.chars().count() <= COLUMNS));
        assert!(lines[0].contains("claude"));
        let resume = Question {
            asks: Asks::Resume,
            agent: "process 42 (shuttle resume)".into(),
            action: "let agents act again".into(),
            text: None,
            timeout: Duration::from_secs(3),
        };
        let lines = super::lines(&resume);
        assert!(lines[0].starts_with("Resume shuttle?"), "{lines:?}");
        assert!(lines.iter().any(|l| l.contains("process 42")), "{lines:?}");
    }
}
