// shuttle's window news: loaded into KWin for as long as the daemon drives it, it tells the
// daemon each window opened, closed, retitled or activated. The daemon fills in `shuttle` as
// JSON. KWin 6 names its signals for windows where 5.27 named them for clients.
var shuttle = SHUTTLE_REQUEST;

function tell(kind, w) {
    var id = w ? String(w.internalId).replace(/[{}]/g, "") : "";
    callDBus(shuttle.service, shuttle.path, shuttle.iface, "Event", shuttle.token, kind, id);
}

function watch(w) {
    w.captionChanged.connect(function () { tell("retitled", w); });
}

var six = !!workspace.windowList;
(six ? workspace.windowList() : workspace.clientList()).forEach(watch);
(six ? workspace.windowAdded : workspace.clientAdded).connect(function (w) { watch(w); tell("opened", w); });
(six ? workspace.windowRemoved : workspace.clientRemoved).connect(function (w) { tell("closed", w); });
(six ? workspace.windowActivated : workspace.clientActivated).connect(function (w) { tell("activated", w); });
