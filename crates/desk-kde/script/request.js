// One request from shuttle's daemon, run once inside KWin and answered by a D-Bus call back to
// the daemon that loaded it. The daemon fills in `shuttle` as JSON. KWin 6 renamed a client a
// window (`windowList`, `activeWindow`); the script speaks to both 5.27 and 6.
var shuttle = SHUTTLE_REQUEST;

var six = !!workspace.windowList;

function allWindows() {
    return six ? workspace.windowList() : workspace.clientList();
}

function rect(r) {
    return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
}

function id(w) {
    return String(w.internalId).replace(/[{}]/g, "");
}

function kind(w) {
    // Wayland has no dialog type: a toplevel with a parent is one, as Mutter takes it too.
    if (w.dialog || (w.normalWindow && w.transientFor)) return "dialog";
    if (w.splash) return "splash";
    if (w.normalWindow) return "normal";
    if (w.popupWindow || w.dropdownMenu || w.popupMenu || w.comboBox || w.tooltip) return "popup";
    if (w.utility || w.toolbar || w.menu) return "utility";
    return "other";
}

function maximized(w) {
    var area = workspace.clientArea(KWin.MaximizeArea, w);
    var f = w.frameGeometry;
    return f.x === area.x && f.y === area.y && f.width === area.width && f.height === area.height;
}

function record(w) {
    return {
        id: id(w),
        pid: w.pid,
        title: w.caption,
        app: w.desktopFileName || w.resourceClass,
        kind: kind(w),
        frame: rect(w.frameGeometry),
        buffer: rect(w.bufferGeometry),
        active: w.active,
        minimized: w.minimized,
        maximized: maximized(w),
        transient_for: w.transientFor ? id(w.transientFor) : null,
        modal: w.modal,
        stacking: w.stackingOrder,
        managed: w.managed,
        special: w.specialWindow || w.desktopWindow || w.dock,
    };
}

function find(wanted) {
    var all = allWindows();
    for (var i = 0; i < all.length; i++) {
        if (id(all[i]) === wanted) return all[i];
    }
    throw new Error("no window " + wanted);
}

function handle(request) {
    switch (request.verb) {
    case "windows":
        return {
            windows: allWindows().map(record),
            cursor: [workspace.cursorPos.x, workspace.cursorPos.y],
            screen: rect(workspace.virtualScreenGeometry),
        };
    case "activate":
        var w = find(request.id);
        if (w.minimized) w.minimized = false;
        if (six) workspace.activeWindow = w;
        else workspace.activeClient = w;
        return null;
    case "close":
        find(request.id).closeWindow();
        return null;
    case "frame":
        var f = request.frame;
        find(request.id).frameGeometry = { x: f[0], y: f[1], width: f[2], height: f[3] };
        return null;
    case "minimize":
        find(request.id).minimized = true;
        return null;
    case "maximize":
        find(request.id).setMaximize(true, true);
        return null;
    case "restore":
        var r = find(request.id);
        r.minimized = false;
        r.setMaximize(false, false);
        return null;
    }
    throw new Error("unknown request " + request.verb);
}

var answer;
try {
    answer = { ok: handle(shuttle.request) };
} catch (e) {
    answer = { error: String(e) };
}
callDBus(shuttle.service, shuttle.path, shuttle.iface, "Answer", shuttle.token, JSON.stringify(answer));
