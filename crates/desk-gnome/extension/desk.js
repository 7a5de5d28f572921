// shuttle's GNOME Shell extension: what Mutter gives no ordinary client. It lists the windows
// (id, title, app, pid, frames, focus, stacking), acts on one (activate, close, minimize,
// maximize, restore, move and resize), captures the screen or one window's own pixels as PNG,
// reports window events as signals, commits text through the input method, reads (bounded)
// and writes the clipboard in any type by its MIME name, grabs the kill hotkey and shows the
// acting marker. It answers only the process that claimed it first (on any of its bus
// connections), until that process leaves the bus.
//
// The body below is the same for every GNOME version; shuttle wraps it in the form the Shell
// in use loads (a script up to 44, an ES module from 45: see legacy.js and module.js).

const BUS_NAME = 'dev.shuttle.Gnome';
const OBJECT_PATH = '/dev/shuttle/Gnome';
const VERSION = 2;
const COMMIT_DELAY_MS = 20;
const COMMIT_FOCUS_MS = 500;
const COMMIT_REFOCUS_MS = 100;
// The acting marker: a red square this far from the screen's top right corner.
const MARKER_SIDE = 24;
const MARKER_MARGIN = 8;
// The most of one clipboard read the Shell holds: the daemon's largest limit (a file list's,
// 10,000 paths of up to 4096 bytes) and a byte, so that the daemon can tell a clipboard over its
// limit. Without a bound the Shell would take in whatever an app sends before the daemon could
// refuse it.
const CLIPBOARD_READ_MOST = 10000 * 4096 + 1;
// How long an app has to send the clipboard, as the other desks allow.
const CLIPBOARD_READ_SECONDS = 3;

const INTERFACE = `<node>
  <interface name="dev.shuttle.Gnome1">
    <method name="Claim"><arg type="u" direction="out" name="version"/></method>
    <method name="Windows"><arg type="s" direction="out" name="json"/></method>
    <method name="Act">
      <arg type="t" direction="in" name="id"/>
      <arg type="s" direction="in" name="action"/>
      <arg type="ai" direction="in" name="frame"/>
    </method>
    <method name="Shot">
      <arg type="t" direction="in" name="window"/>
      <arg type="ai" direction="in" name="area"/>
      <arg type="s" direction="in" name="path"/>
    </method>
    <method name="Pointer">
      <arg type="i" direction="out" name="x"/>
      <arg type="i" direction="out" name="y"/>
    </method>
    <method name="ClipboardWrite">
      <arg type="s" direction="in" name="text"/>
    </method>
    <method name="ClipboardTypes">
      <arg type="as" direction="out" name="types"/>
    </method>
    <method name="ClipboardContent">
      <arg type="s" direction="in" name="type"/>
      <arg type="b" direction="out" name="present"/>
      <arg type="ay" direction="out" name="bytes"/>
    </method>
    <method name="ClipboardSetContent">
      <arg type="s" direction="in" name="type"/>
      <arg type="ay" direction="in" name="bytes"/>
    </method>
    <method name="Commit">
      <arg type="s" direction="in" name="text"/>
      <arg type="b" direction="out" name="committed"/>
    </method>
    <method name="Grab">
      <arg type="s" direction="in" name="accelerator"/>
      <arg type="b" direction="out" name="grabbed"/>
    </method>
    <method name="Marker">
      <arg type="b" direction="in" name="shown"/>
      <arg type="ai" direction="out" name="rect"/>
    </method>
    <signal name="HotkeyPressed"/>
    <signal name="WindowEvent">
      <arg type="s" name="kind"/>
      <arg type="t" name="id"/>
    </signal>
  </interface>
</node>`;

class Desk {
    constructor() {
        // The claiming process: its pid and its connections' unique names.
        this._owner = null;
        this._signals = [];
        this._windowSignals = new Map();
        this._hotkey = null;
        this._marker = null;
    }

    enable() {
        this._exported = Gio.DBusExportedObject.wrapJSObject(INTERFACE, this);
        this._exported.export(Gio.DBus.session, OBJECT_PATH);
        this._nameId = Gio.bus_own_name_on_connection(
            Gio.DBus.session, BUS_NAME, Gio.BusNameOwnerFlags.NONE, null, null);
        this._ownerWatch = Gio.DBus.session.signal_subscribe(
            'org.freedesktop.DBus', 'org.freedesktop.DBus', 'NameOwnerChanged',
            '/org/freedesktop/DBus', null, Gio.DBusSignalFlags.NONE,
            (_c, _s, _p, _i, _n, params) => {
                const [name, , newOwner] = params.deep_unpack();
                if (this._owner && newOwner === '' && this._owner.names.delete(name) &&
                    this._owner.names.size === 0)
                    this._release();
            });
        const display = global.display;
        this._connect(display, 'window-created', (_d, window) => this._track(window, true));
        this._connect(display, 'accelerator-activated', (_d, action) => {
            if (this._hotkey !== null && action === this._hotkey)
                this._exported.emit_signal('HotkeyPressed', null);
        });
        this._connect(display, 'notify::focus-window', () => {
            const focused = display.get_focus_window();
            this._emit('activated', focused ? focused.get_id() : 0);
        });
        for (const actor of global.get_window_actors())
            this._track(actor.meta_window, false);
        // A seat of shuttle's own opens on its windows, not on the overview.
        if (GLib.getenv('SHUTTLE_SEAT')) {
            if (Main.layoutManager._startingUp)
                this._connect(Main.layoutManager, 'startup-complete', () => Main.overview.hide());
            else
                Main.overview.hide();
        }
    }

    disable() {
        this._release();
        for (const [object, id] of this._signals)
            object.disconnect(id);
        this._signals = [];
        for (const [window, ids] of this._windowSignals)
            ids.forEach(id => window.disconnect(id));
        this._windowSignals.clear();
        Gio.DBus.session.signal_unsubscribe(this._ownerWatch);
        Gio.bus_unown_name(this._nameId);
        this._exported.unexport();
        this._exported = null;
    }

    _connect(object, signal, handler) {
        this._signals.push([object, object.connect(signal, handler)]);
    }

    // Windows an app shows as its own: not menus, tooltips, panels or the desktop, whose
    // coming and going is no news to an agent.
    _track(window, fresh) {
        const kinds = [Meta.WindowType.NORMAL, Meta.WindowType.DIALOG,
            Meta.WindowType.MODAL_DIALOG, Meta.WindowType.TOOLBAR, Meta.WindowType.UTILITY,
            Meta.WindowType.SPLASHSCREEN];
        if (this._windowSignals.has(window) || window.is_override_redirect() ||
            !kinds.includes(window.get_window_type()))
            return;
        const id = window.get_id();
        this._windowSignals.set(window, [
            window.connect('notify::title', () => this._emit('retitled', id)),
            window.connect('unmanaged', () => {
                this._windowSignals.delete(window);
                this._emit('closed', id);
            }),
        ]);
        if (fresh)
            this._emit('opened', id);
    }

    _emit(kind, id) {
        if (this._exported)
            this._exported.emit_signal('WindowEvent', new GLib.Variant('(st)', [kind, id]));
    }

    _release() {
        this._owner = null;
        if (this._hotkey !== null) {
            global.display.ungrab_accelerator(this._hotkey);
            this._hotkey = null;
        }
        this._showMarker(false);
    }

    _pid(name) {
        const reply = Gio.DBus.session.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
            'org.freedesktop.DBus', 'GetConnectionUnixProcessID', new GLib.Variant('(s)', [name]),
            null, Gio.DBusCallFlags.NONE, -1, null);
        return reply.deep_unpack()[0];
    }

    // Refuses a caller that is not of the claiming process; true when it is.
    _allowed(invocation) {
        if (this._owner && this._owner.names.has(invocation.get_sender()))
            return true;
        invocation.return_dbus_error('dev.shuttle.Gnome1.Error.Claimed',
            this._owner === null
                ? 'call Claim first'
                : `another process (pid ${this._owner.pid}) holds shuttle's extension`);
        return false;
    }

    // Every method goes through here: only the claiming process is served.
    _serve(invocation, work) {
        if (!this._allowed(invocation))
            return;
        try {
            const reply = work();
            invocation.return_value(reply === undefined ? null : reply);
        } catch (e) {
            invocation.return_dbus_error('dev.shuttle.Gnome1.Error.Failed', `${e.message}`);
        }
    }

    ClaimAsync(_params, invocation) {
        const sender = invocation.get_sender();
        try {
            const pid = this._pid(sender);
            if (this._owner === null)
                this._owner = {pid, names: new Set()};
            if (this._owner.pid === pid)
                this._owner.names.add(sender);
        } catch (e) {
            invocation.return_dbus_error('dev.shuttle.Gnome1.Error.Failed', `${e.message}`);
            return;
        }
        this._serve(invocation, () => new GLib.Variant('(u)', [VERSION]));
    }

    GrabAsync(params, invocation) {
        this._serve(invocation, () => {
            const [accelerator] = params;
            if (this._hotkey !== null)
                global.display.ungrab_accelerator(this._hotkey);
            this._hotkey = null;
            const action = global.display.grab_accelerator(accelerator, Meta.KeyBindingFlags.NONE);
            if (action === Meta.KeyBindingAction.NONE)
                return new GLib.Variant('(b)', [false]);
            this._hotkey = action;
            Main.wm.allowKeybinding(Meta.external_binding_name_for_action(action),
                Shell.ActionMode.ALL);
            return new GLib.Variant('(b)', [true]);
        });
    }

    _showMarker(shown) {
        if (!shown) {
            if (this._marker) {
                this._marker.destroy();
                this._marker = null;
            }
            return null;
        }
        const monitor = Main.layoutManager.primaryMonitor;
        const x = monitor.x + monitor.width - MARKER_SIDE - MARKER_MARGIN;
        const y = monitor.y + MARKER_MARGIN;
        if (!this._marker) {
            // Drawn above everything, and passing clicks through to what is under it.
            this._marker = new St.Widget({
                style: 'background-color: rgb(230, 20, 20);',
                reactive: false,
                width: MARKER_SIDE,
                height: MARKER_SIDE,
            });
            global.stage.add_child(this._marker);
        }
        this._marker.set_position(x, y);
        global.stage.set_child_above_sibling(this._marker, null);
        return [x, y, MARKER_SIDE, MARKER_SIDE];
    }

    MarkerAsync(params, invocation) {
        this._serve(invocation, () => {
            const [shown] = params;
            return new GLib.Variant('(ai)', [this._showMarker(shown) || []]);
        });
    }

    WindowsAsync(_params, invocation) {
        this._serve(invocation, () => {
            const tracker = Shell.WindowTracker.get_default();
            // The Shell's own UI (the overview, till it has gone, or a menu) may hold the
            // keyboard while Mutter still names a focused window; keys then go to the Shell.
            const keys = global.stage.get_key_focus();
            const shellHasKeys = Main.overview.visible || (keys !== null && keys !== global.stage);
            const focus = shellHasKeys ? null : global.display.get_focus_window();
            const list = global.get_window_actors().map(actor => actor.meta_window).reverse();
            const windows = list.map(window => {
                const frame = window.get_frame_rect();
                const client = window.frame_rect_to_client_rect(frame);
                const buffer = window.get_buffer_rect();
                const app = tracker.get_window_app(window);
                return {
                    id: window.get_id(),
                    title: window.get_title() || '',
                    app: window.get_gtk_application_id() || window.get_wm_class() ||
                        (app ? app.get_id() : null),
                    pid: window.get_pid(),
                    type: window.get_window_type(),
                    popup: window.is_override_redirect(),
                    x11: window.get_client_type() === Meta.WindowClientType.X11,
                    frame: [frame.x, frame.y, frame.width, frame.height],
                    client: [client.x, client.y, client.width, client.height],
                    buffer: [buffer.x, buffer.y, buffer.width, buffer.height],
                    focused: window === focus,
                    minimized: window.minimized,
                    maximized: window.get_maximized() === Meta.MaximizeFlags.BOTH,
                    shown: window.showing_on_its_workspace() && (window.is_on_all_workspaces() ||
                        window.get_workspace() === global.workspace_manager.get_active_workspace()),
                    transient: window.get_transient_for() ? window.get_transient_for().get_id() : 0,
                };
            });
            return new GLib.Variant('(s)', [JSON.stringify(windows)]);
        });
    }

    PointerAsync(_params, invocation) {
        this._serve(invocation, () => {
            const [x, y] = global.get_pointer();
            return new GLib.Variant('(ii)', [x, y]);
        });
    }

    ClipboardWriteAsync(params, invocation) {
        this._serve(invocation, () => {
            const [text] = params;
            St.Clipboard.get_default().set_text(St.ClipboardType.CLIPBOARD, text);
        });
    }

    // The MIME types the clipboard's owner offers.
    ClipboardTypesAsync(_params, invocation) {
        this._serve(invocation, () => new GLib.Variant('(as)',
            [St.Clipboard.get_default().get_mimetypes(St.ClipboardType.CLIPBOARD)]));
    }

    // The clipboard's content as `type`, at most CLIPBOARD_READ_MOST bytes of it: not present
    // when its owner does not offer the type, an error when it does and the transfer fails.
    // St.Clipboard's reads take no bound, so this asks Mutter's selection directly.
    ClipboardContentAsync(params, invocation) {
        if (!this._allowed(invocation))
            return;
        try {
            const [type] = params;
            if (!St.Clipboard.get_default().get_mimetypes(St.ClipboardType.CLIPBOARD).includes(type)) {
                invocation.return_value(new GLib.Variant('(bay)', [false, new Uint8Array(0)]));
                return;
            }
            const selection = global.display.get_selection();
            const output = Gio.MemoryOutputStream.new_resizable();
            // An app that never finishes sending would hold the call for ever.
            const cancellable = new Gio.Cancellable();
            const deadline = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT,
                CLIPBOARD_READ_SECONDS, () => {
                    cancellable.cancel();
                    return GLib.SOURCE_REMOVE;
                });
            selection.transfer_async(Meta.SelectionType.SELECTION_CLIPBOARD, type,
                CLIPBOARD_READ_MOST, output, cancellable, (_selection, result) => {
                    if (!cancellable.is_cancelled())
                        GLib.source_remove(deadline);
                    try {
                        if (cancellable.is_cancelled())
                            throw new Error(`it did not finish sending within ${CLIPBOARD_READ_SECONDS} s`);
                        selection.transfer_finish(result);
                        output.close(null);
                        const data = output.steal_as_bytes().get_data() ?? new Uint8Array(0);
                        invocation.return_value(new GLib.Variant('(bay)', [true, data]));
                    } catch (e) {
                        invocation.return_dbus_error('dev.shuttle.Gnome1.Error.Failed',
                            `the app that holds the clipboard did not send it as ${type}: ${e.message}`);
                    }
                });
        } catch (e) {
            invocation.return_dbus_error('dev.shuttle.Gnome1.Error.Failed', `${e.message}`);
        }
    }

    ClipboardSetContentAsync(params, invocation) {
        this._serve(invocation, () => {
            const [type, bytes] = params;
            St.Clipboard.get_default().set_content(St.ClipboardType.CLIPBOARD, type,
                new GLib.Bytes(bytes));
        });
    }

    _window(id) {
        const actor = global.get_window_actors().find(a => a.meta_window.get_id() === id);
        if (!actor)
            throw new Error(`no window ${id}`);
        return actor;
    }

    // Focuses `window`, leaving the overview, and takes the keyboard from whatever of the
    // Shell's own held it (the overview's search field, say), as a click in the window would:
    // until then the window's text fields get no text from the input method.
    // Under the overview, Mutter may give the focus to another window once the overview has
    // gone, so the window is activated again then.
    _activate(window, now) {
        if (Main.overview.visible) {
            const id = Main.overview.connect('hidden', () => {
                Main.overview.disconnect(id);
                // After what the Shell does once the overview has gone.
                GLib.idle_add(GLib.PRIORITY_LOW, () => {
                    if (!window.is_override_redirect() && window.get_compositor_private()) {
                        window.activate(global.display.get_current_time_roundtrip());
                        global.stage.set_key_focus(null);
                    }
                    return GLib.SOURCE_REMOVE;
                });
            });
        }
        Main.activateWindow(window, now);
        global.stage.set_key_focus(null);
    }

    ActAsync(params, invocation) {
        this._serve(invocation, () => {
            const [id, action, frame] = params;
            const window = this._window(id).meta_window;
            // A time of now: with the time of the Shell's last event instead, Mutter takes a
            // request as older than the newest window's and raises without focusing.
            const now = global.display.get_current_time_roundtrip();
            switch (action) {
            case 'activate':
                this._activate(window, now);
                break;
            case 'close':
                window.delete(now);
                break;
            case 'minimize':
                window.minimize();
                break;
            case 'maximize':
                window.maximize(Meta.MaximizeFlags.BOTH);
                break;
            case 'restore':
                if (window.get_maximized())
                    window.unmaximize(Meta.MaximizeFlags.BOTH);
                if (window.minimized)
                    window.unminimize();
                this._activate(window, now);
                break;
            case 'frame': {
                if (window.get_maximized())
                    window.unmaximize(Meta.MaximizeFlags.BOTH);
                const [x, y, w, h] = frame;
                window.move_resize_frame(true, x, y, w, h);
                break;
            }
            default:
                throw new Error(`unknown action ${action}`);
            }
        });
    }

    // Writes a PNG to `path`: the screen's `area`, or when `window` is not 0 that window's own
    // pixels (whatever covers it), cut to `area` in the window's buffer coordinates.
    ShotAsync(params, invocation) {
        if (!this._allowed(invocation))
            return;
        const [id, area, path] = params;
        const [x, y, w, h] = area;
        try {
            if (id !== 0) {
                const actor = this._window(id);
                const surface = actor.get_image(rectangle(x, y, w, h));
                if (!surface)
                    throw new Error(`window ${id} has no pixels to give (is it shown?)`);
                surface.writeToPNG(path);
                invocation.return_value(null);
                return;
            }
            const file = Gio.File.new_for_path(path);
            const stream = file.replace(null, false, Gio.FileCreateFlags.PRIVATE, null);
            const shooter = new Shell.Screenshot();
            shooter.screenshot_area(x, y, w, h, stream, (source, result) => {
                try {
                    source.screenshot_area_finish(result);
                    stream.close(null);
                    invocation.return_value(null);
                } catch (e) {
                    invocation.return_dbus_error('dev.shuttle.Gnome1.Error.Failed', `${e.message}`);
                }
            });
        } catch (e) {
            invocation.return_dbus_error('dev.shuttle.Gnome1.Error.Failed', `${e.message}`);
        }
    }

    // Commits `text` to the focused text field through the input method, exact whatever the
    // keyboard layout. Keys sent just before reach the Shell through Mutter's input thread,
    // while a commit goes out at once, so it waits for the main loop to run dry, and a moment
    // more, before committing. A Wayland window focused a moment ago may not have asked for
    // the input method yet: it gets up to COMMIT_FOCUS_MS to. One that never does (seen with
    // a window that opened under the overview) does once its focus is taken and given back.
    CommitAsync(params, invocation) {
        if (!this._allowed(invocation))
            return;
        const [text] = params;
        const started = GLib.get_monotonic_time();
        let refocused = false;
        GLib.timeout_add(GLib.PRIORITY_LOW, COMMIT_DELAY_MS, () => {
            const method = Main.inputMethod;
            const focused = global.display.get_focus_window();
            const wayland = focused &&
                focused.get_client_type() === Meta.WindowClientType.WAYLAND;
            const waited = (GLib.get_monotonic_time() - started) / 1000;
            const waiting = method && !method.currentFocus && wayland;
            if (waiting && !refocused && waited >= COMMIT_REFOCUS_MS) {
                refocused = true;
                const now = global.display.get_current_time_roundtrip();
                global.display.unset_input_focus(now);
                focused.focus(now);
            }
            if (waiting && waited < COMMIT_FOCUS_MS)
                return GLib.SOURCE_CONTINUE;
            this._serve(invocation, () => {
                if (!method || !method.currentFocus)
                    return new GLib.Variant('(b)', [false]);
                method.commit(text);
                return new GLib.Variant('(b)', [true]);
            });
            return GLib.SOURCE_REMOVE;
        });
    }
}
