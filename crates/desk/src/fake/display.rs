//! The fake desktop as a [`Display`]: its windows, screen and pixels.

use super::*;

impl Display for FakeDesk {
    fn info(&self) -> DisplayInfo {
        let state = self.state();
        DisplayInfo {
            system: "fake",
            display: "memory".into(),
            capture: "memory",
            window_pixels: state.window_pixels,
            confirms: state.confirms,
            lacking: Vec::new(),
        }
    }

    fn windows(&self) -> Result<Vec<Window>, DeskError> {
        let mut state = self.state();
        if std::mem::take(&mut state.panic_next) {
            drop(state);
            panic!("the fake desk was told to panic");
        }
        state.tick();
        Ok(state
            .windows
            .iter()
            .map(|w| Window {
                active: state.focus.as_deref() == Some(w.window.id.as_str()),
                ..w.window.clone()
            })
            .collect())
    }

    fn screen(&self) -> Result<Rect, DeskError> {
        Ok(self.state().screen)
    }

    fn window_at(&self, x: i32, y: i32) -> Result<Option<Window>, DeskError> {
        let windows = self.windows()?;
        let state = self.state();
        Ok(state
            .top_at(x, y)
            .and_then(|id| windows.into_iter().find(|w| w.id == id)))
    }

    fn window_rect(&self, id: &str) -> Result<Option<Rect>, DeskError> {
        Ok(self.state().window(id)?.rect)
    }

    fn capture(&self, rect: Rect) -> Result<RgbImage, DeskError> {
        let mut state = self.state();
        state.captures += 1;
        let spin = [(state.captures * 37 % 256) as u8, 0, 0];
        let mut pixels = Vec::with_capacity((rect.w * rect.h * 3) as usize);
        for y in rect.y..rect.y + rect.h as i32 {
            for x in rect.x..rect.x + rect.w as i32 {
                if state.spinner.is_some_and(|r| r.contains_point(x, y)) {
                    pixels.extend(spin);
                    continue;
                }
                let top = state
                    .windows
                    .iter()
                    .find(|w| w.rect.is_some_and(|r| r.contains_point(x, y)));
                pixels.extend(top.map_or([0, 0, 0], |w| w.colour));
            }
        }
        Ok(RgbImage {
            width: rect.w,
            height: rect.h,
            pixels,
        })
    }

    fn capture_scaled(&self, rect: Rect, width: u32) -> Result<RgbImage, DeskError> {
        Ok(crate::image::shrink(&self.capture(rect)?, width))
    }

    fn capture_window(&self, id: &str, area: Rect) -> Result<Option<RgbImage>, DeskError> {
        let state = self.state();
        let window = state.window(id)?;
        Ok(state
            .window_pixels
            .then(|| fill(window.colour, area.w, area.h)))
    }

    fn fingerprint(&self) -> Result<u64, DeskError> {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let mut hasher = DefaultHasher::new();
        for w in &self.state().windows {
            w.window.id.hash(&mut hasher);
        }
        Ok(hasher.finish())
    }

    fn window_events(&self, after: u64) -> WindowEvents {
        let mut state = self.state();
        state.notice();
        let count = state.events.len() as u64;
        WindowEvents {
            stream: 1,
            last: count,
            events: state.events.iter().skip(after as usize).cloned().collect(),
            dropped: 0,
        }
    }

    fn has_focus(&self, id: &str) -> Result<bool, DeskError> {
        let state = self.state();
        let follows = state.window(id).is_ok_and(|w| !w.focus_stays_out);
        Ok(follows && state.focus.as_deref() == Some(id))
    }

    fn read_clipboard(&self, format: ClipFormat) -> Result<Option<Clip>, DeskError> {
        let held = self.state().clipboard.clone();
        Ok(held.filter(|clip| {
            matches!(
                (clip, format),
                (Clip::Text(_), ClipFormat::Text)
                    | (Clip::Png(_), ClipFormat::Image)
                    | (Clip::Files(_), ClipFormat::Files)
            )
        }))
    }

    fn frame_extents(&self, id: &str) -> Result<[u32; 4], DeskError> {
        let state = self.state();
        state.window(id)?;
        Ok(state.decorations)
    }

    fn window_state(&self, id: &str) -> Result<WindowState, DeskError> {
        let state = self.state();
        state.window(id)?;
        Ok(WindowState {
            minimized: state.minimized.contains_key(id),
            maximized: state.maximized.contains_key(id),
        })
    }
}
