// shuttle's window news: loaded into KWin (5.27's scripting API) for as long as the daemon
// drives it, it tells the daemon each window opened, closed, retitled or activated. The
// daemon fills in `shuttle` as JSON.
var shuttle = SHUTTLE_REQUEST;

function tell(kind, w) {
    var id = w ? String(w.internalId).replace(/[{}]/g, "") : "";
    callDBus(shuttle.service, shuttle.path, shuttle.iface, "Event", shuttle.token, kind, id);
}

function watch(w) {
    w.captionChanged.connect(function () { tell("retitled", w); });
}

workspace.clientList().forEach(watch);
workspace.clientAdded.connect(function (w) { watch(w); tell("opened", w); });
workspace.clientRemoved.connect(function (w) { tell("closed", w); });
workspace.clientActivated.connect(function (w) { tell("activated", w); });
