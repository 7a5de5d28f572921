#!/usr/bin/python3
"""The KDE desk's numbers: windows, a screen shot, a click, a key and 100 mixed characters
typed, by shuttle on a private KDE seat (headless KWin), beside KWin's own interfaces called
directly, and the same verbs by shuttle on an Xvfb seat, in one run.

Each side is timed in one long-lived process, call after call, RUNS times (default 30):
shuttle's verbs over the desk wire (one connection, as `shuttle mcp` keeps one), the peer's
calls over the seat's session bus with GLib's D-Bus (python3-gi):
- shot: `org.kde.KWin.ScreenShot2`'s CaptureArea of the whole screen, its raw pixels read
  from the pipe (no PNG made, where shuttle's reply carries one). KWin grants ScreenShot2 to
  the programs a desktop file among its applications names: this script writes one naming its
  Python into a data directory of its own, which the daemon passes on to the seat's KWin in
  XDG_DATA_DIRS, before KWin starts and reads its applications. It is named as Debian's own
  file for that Python (python3.11.desktop), which it hides: KWin asks the first file that
  names the program, and Debian's grants nothing;
- windows: a KWin script that lists the windows and calls back with them, loaded, run and
  unloaded over /Scripting (what kdotool does: KWin gives D-Bus clients no window list);
- click, key, typing: no peer. KWin takes input only from the clients it authorises for fake
  input, which no tool in Debian speaks; ydotool writes to a uinput device, which a virtual
  KWin, reading no input devices, would not see (not tried).
Typing lands in a GTK 3 entry that writes its text to a file, read to check it is exact.

Prints a markdown table headed by the commit, the date and the machine.

Usage: bench_kde.py SHUTTLE (a built shuttle binary; needs kwin-wayland, xvfb, openbox, dbus,
at-spi2-core, bubblewrap and python3-gi with GTK 3)."""
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_gnome import TEXT, Daemon, median_ms, timed, wait  # noqa: E402

SHUTTLE = os.path.abspath(sys.argv[1])
RUNS = int(os.environ.get("RUNS", "30"))
HERE = os.path.dirname(os.path.abspath(__file__))

PEER_INTERFACE = "dev.shuttle.BenchPeer"
LIST = """
var out = workspace.clientList().map(function (w) {
    return {id: String(w.internalId), pid: w.pid, title: w.caption,
            frame: [w.frameGeometry.x, w.frameGeometry.y, w.frameGeometry.width,
                    w.frameGeometry.height]};
});
callDBus(SERVICE, "/peer", "dev.shuttle.BenchPeer", "Reply", JSON.stringify(out));
"""


class Peer:
    """KWin's own interfaces, called by this script on the seat's session bus at `address`."""

    def __init__(self, address, work):
        self.work = work
        self.bus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        node = Gio.DBusNodeInfo.new_for_xml(
            f'<node><interface name="{PEER_INTERFACE}"><method name="Reply">'
            '<arg type="s" direction="in"/></method></interface></node>')
        self.replies = []

        def answered(_conn, _sender, _path, _iface, _method, params, invocation):
            self.replies.append(params.unpack()[0])
            invocation.return_value(None)

        self.bus.register_object("/peer", node.interfaces[0], answered, None, None)
        self.script = os.path.join(work, "list.js")
        with open(self.script, "w") as f:
            f.write(LIST.replace("SERVICE", json.dumps(self.bus.get_unique_name())))
        self.n = 0

    def pump(self):
        while GLib.MainContext.default().iteration(False):
            pass

    def kwin(self, path, interface, method, args, reply=None, fds=None):
        return self.bus.call_with_unix_fd_list_sync(
            "org.kde.KWin", path, interface, method, args,
            GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, -1, fds, None)

    def windows(self):
        self.n += 1
        plugin = f"bench-peer-{self.n}"
        scripting = "org.kde.kwin.Scripting"
        (sid,), _ = self.kwin("/Scripting", scripting, "loadScript",
                              GLib.Variant("(ss)", (self.script, plugin)), "(i)")
        self.kwin(f"/{sid}", "org.kde.kwin.Script", "run", None)
        wait("the script's answer", lambda: self.pump() or self.replies, 5.0)
        self.replies.clear()
        self.kwin("/Scripting", scripting, "unloadScript", GLib.Variant("(s)", (plugin,)), "(b)")

    def shot(self, width, height):
        reader, writer = os.pipe()
        fds = Gio.UnixFDList.new()
        fds.append(writer)
        os.close(writer)
        (results,), _ = self.kwin(
            "/org/kde/KWin/ScreenShot2", "org.kde.KWin.ScreenShot2", "CaptureArea",
            GLib.Variant("(iiuua{sv}h)", (0, 0, width, height, {}, 0)), "(a{sv})", fds)
        del fds
        size = results["stride"] * results["height"]
        got = 0
        with os.fdopen(reader, "rb") as pipe:
            while got < size:
                chunk = pipe.read(size - got)
                if not chunk:
                    sys.exit(f"ScreenShot2 sent {got} of {size} bytes")
                got += len(chunk)

    def measure(self, screen):
        return {"windows": timed(self.windows),
                "shot": timed(lambda: self.shot(screen["width"], screen["height"]))}


def main():
    work = tempfile.mkdtemp(prefix="shuttle-bench-kde-")
    os.chmod(work, 0o700)
    # The desktop file that has KWin grant this script's Python ScreenShot2.
    applications = os.path.join(work, "peer-data", "applications")
    os.makedirs(applications)
    python = os.path.realpath(sys.executable)
    with open(os.path.join(applications, f"{os.path.basename(python)}.desktop"), "w") as f:
        f.write("[Desktop Entry]\nType=Application\nName=shuttle's benchmark peer\n"
                f"Exec={python}\nNoDisplay=true\n"
                "X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n")
    data_dirs = os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share"
    kde = Daemon(work, "kde", {"XDG_DATA_DIRS": f"{os.path.dirname(applications)}:{data_dirs}"})
    seat = kde.status()["agents"]["agents"][0]["display"]
    seat_dir = os.path.dirname(os.path.dirname(seat))
    ours, ours_exact = kde.measure()
    screen = kde.call("desk_screen", {})
    peer = Peer("unix:path=" + os.path.join(seat_dir, "bus"), work)
    theirs = peer.measure(screen)
    kde.end()
    x11 = Daemon(work, "xvfb")
    on_x11, x11_exact = x11.measure()
    x11.end()

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=HERE).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, cwd=HERE).stdout.strip()
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "kwin-wayland"],
                             capture_output=True, text=True).stdout.strip()
    print(f"Printed by `scripts/bench_kde.py` at commit {commit}"
          f"{', with uncommitted changes' if dirty else ''} on "
          f"{time.strftime('%Y-%m-%d', time.gmtime())}, with {os.path.relpath(SHUTTLE)}; "
          f"KWin {version} (Debian's kwin-wayland), headless "
          f"(one {screen['width']}x{screen['height']} virtual output). Machine: "
          f"{os.cpu_count()} cores, {platform.release()}. Medians of {RUNS} calls, each side "
          f"in one process; typing is {len(TEXT)} characters.\n")
    print("| verb | shuttle on KDE, ms | peer on KDE, ms | peer / shuttle | "
          "shuttle on X11 (Xvfb), ms |")
    print("|---|---|---|---|---|")
    no_input = "no peer: KWin takes input only from the clients it authorises"
    peers = {
        "windows": "a KWin script, as kdotool runs one",
        "shot": "ScreenShot2's CaptureArea, raw pixels, no PNG",
        "click": no_input,
        "key": no_input,
        "type": no_input,
    }
    for verb, how in peers.items():
        mine = median_ms(ours[verb])
        if verb in theirs:
            other = median_ms(theirs[verb])
            theirs_cell, ratio = f"{other:.1f} ({how})", f"{other / mine:.2f}x"
        else:
            theirs_cell, ratio = how, "-"
        print(f"| {verb} | {mine:.1f} | {theirs_cell} | {ratio} | "
              f"{median_ms(on_x11[verb]):.1f} |")
    print()
    print(f"Typing exact: shuttle on KDE {str(ours_exact).lower()}, on X11 "
          f"{str(x11_exact).lower()}.")


if __name__ == "__main__":
    main()
