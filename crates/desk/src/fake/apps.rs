//! The fake desktop's [`Apps`]: names, launches, ends, openers.

use super::*;

impl Apps for FakeDesk {
    fn names(&self, pid: u32) -> Vec<String> {
        self.state().names.get(&pid).cloned().unwrap_or_default()
    }

    fn own_pid(&self) -> u32 {
        self.state().own_pid
    }

    fn launch(
        &self,
        app: &str,
        _args: &[String],
        sandbox: Option<&Sandbox>,
    ) -> Result<Launched, DeskError> {
        let mut state = self.state();
        state.sandboxes.push(sandbox.cloned());
        let crash = state.crashes.get(app).cloned();
        let Some(title) = state
            .programs
            .get(app)
            .cloned()
            .or(crash.as_ref().map(|_| String::new()))
        else {
            let missing = DeskError::Invalid(format!("cannot launch {app:?}: no such program"));
            return Err(missing.unsent());
        };
        state.log.push(Event::Launch(app.into()));
        let pid = state.next_pid;
        state.next_pid += 1;
        if let Some(exit) = crash {
            state.exited.push(pid);
            return Ok(Launched {
                pid,
                sandboxed: sandbox.is_some(),
                scoped: false,
                added: Vec::new(),
                exit: Arc::new(OnceLock::from(exit)),
            });
        }
        let id = format!("0x{pid:x}");
        let rect = Rect::new(10, 10, 200, 100);
        state.windows.push(FakeWindow::new(&id, &title, pid, rect));
        if state.splash_first {
            let mut splash = FakeWindow::new(&format!("{id}0"), "Loading", pid, rect);
            splash.window.role = role::SPLASH.into();
            state.windows.insert(0, splash);
        }
        state.names.insert(pid, vec![app.to_string()]);
        if let Some(&busy) = state.busy_for.get(app) {
            state.cpu.insert(pid, (std::time::Instant::now(), busy));
        }
        let added = if app == "chromium" {
            vec![FORCE_ACCESSIBILITY.to_string()]
        } else {
            Vec::new()
        };
        Ok(Launched {
            pid,
            sandboxed: sandbox.is_some(),
            scoped: false,
            added,
            exit: Arc::default(),
        })
    }

    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        pid == ancestor
    }

    fn accessibility_off(&self, pid: u32) -> Option<AccessibilityOff> {
        let names = self.names(pid);
        if names.iter().any(|n| n == "chromium") {
            Some(AccessibilityOff::Chromium)
        } else if names.iter().any(|n| n == "gimp") {
            Some(AccessibilityOff::Gtk2 { installed: true })
        } else {
            None
        }
    }

    fn cpu_time(&self, pid: u32) -> Option<std::time::Duration> {
        let (started, busy) = *self.state().cpu.get(&pid)?;
        Some(started.elapsed().min(busy))
    }

    fn running(&self, pid: u32) -> bool {
        let state = self.state();
        !state.exited.contains(&pid) && state.names.contains_key(&pid)
    }

    fn end(&self, pid: u32, ending: Ending) -> Result<(), DeskError> {
        let mut state = self.state();
        state.log.push(Event::End(pid, ending));
        if ending == Ending::Kill || !state.ignores_term.contains(&pid) {
            state.exited.push(pid);
            state.windows.retain(|w| w.window.pid != Some(pid));
        }
        Ok(())
    }

    fn opener(&self, target: &str) -> Result<Opener, DeskError> {
        let kind = match target.split_once("://") {
            Some((scheme, _)) => format!("x-scheme-handler/{scheme}"),
            None if target.ends_with(".txt") => "text/plain".into(),
            None => "application/octet-stream".into(),
        };
        let program = self
            .state()
            .openers
            .get(&kind)
            .cloned()
            .ok_or_else(|| DeskError::Invalid(format!("no app opens {kind} here")).unsent())?;
        Ok(Opener {
            entry: format!("{program}.desktop"),
            kind,
            args: vec![target.to_string()],
            program,
        })
    }
}
