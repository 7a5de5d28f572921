//! The fake desktop as an [`Input`]: every key, text, click and wheel lands in the log.

use super::*;

impl Input for FakeDesk {
    fn request_focus(&self, id: &str) -> Result<(), DeskError> {
        let mut state = self.state();
        let window = state.window(id)?;
        let (refuses, closes) = (window.refuses_focus, window.closes_on_focus);
        state.log.push(Event::Focus(id.into()));
        if closes {
            state.windows.retain(|w| w.window.id != id);
        } else if !refuses && state.focus_lag == 0 {
            state.grant_focus(id);
        } else if !refuses {
            state.pending_focus = Some((id.into(), state.focus_lag));
        }
        Ok(())
    }

    fn request_close(&self, id: &str) -> Result<(), DeskError> {
        let mut state = self.state();
        let sticky = state.window(id)?.sticky;
        let asks = state.window(id)?.asks_on_close.clone();
        state.log.push(Event::Close(id.into()));
        if let Some(question) = asks {
            let asking = state.window(id)?.clone();
            let mut dialog = FakeWindow::new(
                &format!("{id}-ask"),
                &question,
                asking.window.pid.unwrap_or_default(),
                asking.rect.unwrap_or(Rect::new(0, 0, 200, 100)),
            );
            dialog.window.role = role::DIALOG.into();
            state.windows.push(dialog);
        } else if !sticky {
            let pid = state.window(id)?.window.pid;
            state.windows.retain(|w| w.window.id != id);
            if state.focus.as_deref() == Some(id) {
                state.focus = None;
            }
            // An app whose last window closed ends, as most do.
            if let Some(pid) = pid
                && !state.windows.iter().any(|w| w.window.pid == Some(pid))
            {
                state.exited.push(pid);
            }
        }
        Ok(())
    }

    fn press_keys(
        &self,
        keysyms: &[u32],
        _focused: Option<&Window>,
        _cancel: &Cancel,
    ) -> Result<(), DeskError> {
        let mut state = self.state();
        let window = state.focus.clone();
        state.log.push(Event::Keys {
            window,
            keysyms: keysyms.to_vec(),
        });
        state.edit_with_keys(keysyms);
        Ok(())
    }

    fn type_text(
        &self,
        text: &str,
        _focused: Option<&Window>,
        cancel: &Cancel,
        progress: &Progress,
    ) -> Result<usize, DeskError> {
        let mut state = self.state();
        let window = state.focus.clone();
        let total = text.chars().count();
        let sent = state.stop_typing_after.map_or(total, |n| n.min(total));
        if sent > 0 {
            let typed: String = text.chars().take(sent).collect();
            state.edit_with_text(&typed);
            state.log.push(Event::Text {
                window,
                text: typed,
            });
            progress.typed(sent, total);
        }
        if sent < total {
            cancel.stop();
            let ended = DeskError::TypingEnded {
                why: "cancelled before it finished".into(),
                typed: sent,
                total,
            };
            return Err(if sent == 0 { ended.unsent() } else { ended });
        }
        Ok(total)
    }

    fn move_pointer(&self, x: i32, y: i32) -> Result<(), DeskError> {
        self.state().pointer = (x, y);
        Ok(())
    }

    fn click(&self, button: Button, count: u8) -> Result<(), DeskError> {
        let mut state = self.state();
        let (x, y) = state.pointer;
        let window = state.top_at(x, y);
        state.log.push(Event::Click {
            window,
            x,
            y,
            button,
            count,
        });
        Ok(())
    }

    fn scroll(&self, direction: Direction, amount: u32, _cancel: &Cancel) -> Result<(), DeskError> {
        let mut state = self.state();
        let (x, y) = state.pointer;
        let window = state.top_at(x, y);
        state.log.push(Event::Scroll {
            window,
            direction,
            amount,
        });
        Ok(())
    }

    fn drag(&self, from: (i32, i32), to: (i32, i32), _cancel: &Cancel) -> Result<(), DeskError> {
        let mut state = self.state();
        let event = Event::Drag {
            from: state.top_at(from.0, from.1),
            to: state.top_at(to.0, to.1),
        };
        state.log.push(event);
        state.pointer = to;
        Ok(())
    }

    fn ping(&self, window: &Window, limit: Duration) -> Pong {
        const LATE: Duration = Duration::from_millis(40);
        let (pong, late) = {
            let mut state = self.state();
            let (confirms, received) = (state.confirms, state.log.len());
            match state.windows.iter_mut().find(|w| w.window.id == window.id) {
                Some(w) if confirms && !w.silent => {
                    let late = w.pinged_at == Some(received) && w.busy_pings > 0 && limit >= LATE;
                    if late {
                        w.busy_pings -= 1;
                    }
                    w.pinged_at = Some(received);
                    (Pong::Answered, late)
                }
                Some(_) if confirms => (Pong::Silent, false),
                _ => (Pong::Unasked, false),
            }
        };
        // A silent app is waited for, and a busy one answers late, as on a real display.
        match (pong, late) {
            (Pong::Silent, _) => std::thread::sleep(limit),
            (_, true) => std::thread::sleep(LATE),
            _ => {}
        }
        pong
    }

    fn release(&self) -> Result<(), DeskError> {
        Ok(())
    }

    fn write_clipboard(&self, clip: Clip) -> Result<(), DeskError> {
        let mut state = self.state();
        state.log.push(Event::Clipboard);
        state.clipboard = Some(clip);
        Ok(())
    }

    fn request_frame(&self, id: &str, change: FrameChange) -> Result<(), DeskError> {
        let mut state = self.state();
        state.window(id)?;
        state.log.push(Event::Frame(id.into(), change));
        let screen = state.screen;
        let index = state
            .windows
            .iter()
            .position(|w| w.window.id == id)
            .unwrap();
        let now = state.windows[index].rect;
        match change {
            FrameChange::Set {
                x,
                y,
                width,
                height,
            } => {
                if let Some(r) = now {
                    state.windows[index].rect = Some(Rect::new(
                        x.unwrap_or(r.x),
                        y.unwrap_or(r.y),
                        width.unwrap_or(r.w),
                        height.unwrap_or(r.h),
                    ));
                }
            }
            FrameChange::Minimize => {
                state.minimized.insert(id.into(), now);
                state.windows[index].rect = None;
            }
            FrameChange::Maximize => {
                state.maximized.insert(id.into(), now);
                state.windows[index].rect = Some(screen);
            }
            FrameChange::Restore => {
                if let Some(before) = state.minimized.remove(id) {
                    state.windows[index].rect = before;
                }
                if let Some(before) = state.maximized.remove(id) {
                    state.windows[index].rect = before;
                }
            }
        }
        Ok(())
    }
}

impl Background for FakeDesk {
    fn agents(&self) -> Vec<String> {
        Vec::new()
    }

    fn end(&self, _agent: &str) {}

    fn aim(&self, agent: &str, into: &Window) -> Result<(), DeskError> {
        self.behind(agent, &into.id, "focus".into())
    }

    fn press_keys(
        &self,
        agent: &str,
        keysyms: &[u32],
        into: &Window,
        _cancel: &Cancel,
    ) -> Result<(), DeskError> {
        let keys: Vec<String> = keysyms.iter().map(|k| format!("0x{k:x}")).collect();
        self.behind(agent, &into.id, format!("keys {}", keys.join(" ")))
    }

    fn type_text(
        &self,
        agent: &str,
        text: &str,
        into: &Window,
        _cancel: &Cancel,
        _progress: &Progress,
    ) -> Result<usize, DeskError> {
        self.behind(agent, &into.id, format!("text {text}"))?;
        if let Some(pid) = into.pid {
            self.state().edit_app_with_text(pid, text);
        }
        Ok(text.chars().count())
    }

    fn scroll(
        &self,
        agent: &str,
        at: (i32, i32),
        direction: Direction,
        amount: u32,
        _cancel: &Cancel,
    ) -> Result<(), DeskError> {
        let window = self.state().top_at(at.0, at.1).unwrap_or_default();
        self.behind(
            agent,
            &window,
            format!("scroll {} {amount}", direction.name()),
        )?;
        let mut state = self.state();
        if state.focus_follows_agent {
            state.focus = Some(window);
        }
        Ok(())
    }
}

impl FakeDesk {
    /// Logs input from `agent`'s own devices to window `id`, refused when it is gone.
    fn behind(&self, agent: &str, id: &str, what: String) -> Result<(), DeskError> {
        let mut state = self.state();
        if !state.windows.iter().any(|w| w.window.id == id) {
            return Err(DeskError::WindowGone { id: id.into() }.unsent());
        }
        state.log.push(Event::Behind {
            agent: agent.into(),
            window: id.into(),
            what,
        });
        Ok(())
    }
}
