// GNOME Shell 45 and later load an extension as an ES module.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import St from 'gi://St';
import CairoGI from 'gi://cairo';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

/* the desk */

export default class ShuttleDesk extends Extension {
    enable() {
        this._desk = new Desk();
        this._desk.enable();
    }

    disable() {
        this._desk.disable();
        this._desk = null;
    }
}
