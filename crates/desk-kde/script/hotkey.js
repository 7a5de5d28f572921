// shuttle's kill hotkey: loaded into KWin (5.27 or 6) for as long as the daemon runs, it
// grabs the combination and tells the daemon each press. The daemon fills in `shuttle` as JSON.
var shuttle = SHUTTLE_REQUEST;

registerShortcut("shuttle-stop", "shuttle: stop every agent", shuttle.request.shortcut, function () {
    callDBus(shuttle.service, shuttle.path, shuttle.iface, "Pressed", shuttle.token);
});
