// GNOME Shell 43 and 44 load an extension as a script.
const {Gio, GLib, Meta, Shell, St} = imports.gi;
const CairoGI = imports.gi.cairo;
const Main = imports.ui.main;

const rectangle = (x, y, width, height) => new CairoGI.RectangleInt({x, y, width, height});

/* the desk */

function init() {
    return new Desk();
}
