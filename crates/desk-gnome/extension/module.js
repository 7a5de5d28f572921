// GNOME Shell 45 and later load an extension as an ES module.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import St from 'gi://St';
import Mtk from 'gi://Mtk';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

// Mutter 45 and later take their own rectangle where 43 and 44 took cairo's.
const rectangle = (x, y, width, height) => new Mtk.Rectangle({x, y, width, height});

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
