#!/usr/bin/python3
"""The GNOME desk's numbers: windows, a screen shot, a click, a key and 100 mixed characters
typed, by shuttle on a private GNOME seat (headless GNOME Shell), beside the GNOME APIs a peer
tool calls there, and the same verbs by shuttle on an Xvfb seat, in one run.

Each side is timed in one long-lived process, call after call, RUNS times (default 30):
shuttle's verbs over the desk wire (one connection, as `shuttle mcp` keeps one), the peer's
calls over the seat's session bus with GLib's D-Bus (python3-gi):
- shot: the Shell's Screenshot API (org.gnome.Shell.Screenshot), called as gnome-screenshot
  calls it (owning org.gnome.Screenshot, which the Shell asks of its callers), to a PNG file;
- key, click, typing: Mutter's RemoteDesktop session, keysym by keysym (what a remote desktop
  server or an input tool there sends); a keysym the keyboard layout lacks is dropped, so the
  peer's typing is checked for exactness as shuttle's is;
- windows: org.gnome.Shell.Introspect.GetWindows, which the Shell refuses to other callers
  (the refusal is printed).
Typing lands in a GTK 3 entry that writes its text to a file, read to check it is exact.

Prints a markdown table headed by the commit, the date and the machine.

Usage: bench_gnome.py SHUTTLE (a built shuttle binary; needs gnome-shell, pipewire, xvfb,
openbox, dbus, at-spi2-core, bubblewrap and python3-gi with GTK 3)."""
import atexit
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
from desk_wire import call  # noqa: E402

SHUTTLE = os.path.abspath(sys.argv[1])
RUNS = int(os.environ.get("RUNS", "30"))
HERE = os.path.dirname(os.path.abspath(__file__))
ENTRY = os.path.join(HERE, "..", "tests", "fixture", "wayland_entry.py")
AGENT = "bench"
# 100 characters: layout keys, accents, symbols, CJK and emoji.
TEXT = ("Hello, wörld! Ça va? ½ ✓ 日本語のテキスト 😀🎉 naïve café — 42 × 7 = 294; Ωμέγα "
        "ßtraße ¿qué? ok, all done now!")


def median_ms(times):
    return statistics.median(times) * 1000


def timed(work):
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return times


def wait(what, check, limit=20.0):
    deadline = time.monotonic() + limit
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            sys.exit(f"timed out waiting for {what}")
        time.sleep(0.02)


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""


class Daemon:
    """A daemon whose agents get private seats of `seat`, with a GTK 3 entry open on the
    agent's seat, and `env` added to its environment."""

    def __init__(self, work, seat, env=None):
        self.dir = os.path.join(work, seat)
        home = os.path.join(self.dir, "home")
        os.makedirs(os.path.join(home, "shared"))
        os.chmod(self.dir, 0o700)
        with open(os.path.join(self.dir, "config.toml"), "w") as f:
            f.write(f'[daemon]\ndisplay = "per-agent"\nprivate_seat = "{seat}"\n'
                    '[apps]\nshare = ["~/shared"]\n')
        self.socket_path = os.path.join(self.dir, "desk.sock")
        env = dict(os.environ, HOME=home, SHUTTLE_SOCKET=self.socket_path,
                   SHUTTLE_CONFIG=os.path.join(self.dir, "config.toml"),
                   XDG_STATE_HOME=os.path.join(self.dir, "state"), SHUTTLE_LOG="warn",
                   **(env or {}))
        self.process = subprocess.Popen([SHUTTLE, "serve", "--foreground"], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # A run that fails midway still ends its daemon, which would otherwise keep its seat
        # and its hotkey grab on the person's display.
        atexit.register(self.process.terminate)
        wait("the daemon", lambda: os.path.exists(self.socket_path))
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(self.socket_path)
        self.typed = os.path.join(home, "shared", "typed")
        launched = self.call("desk_launch", {"app": "/usr/bin/python3",
                                             "args": [ENTRY, "bench entry", self.typed]})
        self.window = launched["window"]["id"]
        tree = self.call("desk_snapshot", {"window": self.window, "bounds": True})
        entry = next(n for n in tree["nodes"] if n["role"] == "text")
        x, y, w, h = entry["bounds"]
        self.centre = (x + w // 2, y + h // 2)

    def call(self, tool, args):
        return json.loads(call(self.sock, AGENT, tool, args)["text"])

    def status(self):
        return json.loads(call(self.sock, AGENT, "status", {})["text"])

    def clear(self):
        self.call("desk_key", {"window": self.window, "keys": "ctrl+a"})
        self.call("desk_key", {"window": self.window, "keys": "BackSpace"})
        wait("the entry to empty", lambda: read(self.typed) == "")

    def measure(self):
        times = {
            "windows": timed(lambda: self.call("desk_windows", {})),
            "shot": timed(lambda: self.call("desk_shot", {})),
            "click": timed(lambda: self.call("desk_click", {"x": self.centre[0],
                                                            "y": self.centre[1]})),
            "key": timed(lambda: self.call("desk_key", {"window": self.window,
                                                        "keys": "shift"})),
        }
        typing = []
        exact = True
        for _ in range(RUNS):
            self.clear()
            started = time.perf_counter()
            self.call("desk_type", {"window": self.window, "text": TEXT})
            typing.append(time.perf_counter() - started)
            landed = wait("the text to land", lambda: read(self.typed) == TEXT or None, 5.0)
            exact = exact and bool(landed)
        times["type"] = typing
        return times, exact

    def end(self):
        self.sock.close()
        self.process.terminate()
        self.process.wait(timeout=20)


class Peer:
    """The GNOME APIs a peer calls, on the seat's session bus at `address`."""

    def __init__(self, address, typed):
        self.typed = typed
        self.bus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        owned = []
        Gio.bus_own_name_on_connection(self.bus, "org.gnome.Screenshot",
                                       Gio.BusNameOwnerFlags.NONE,
                                       lambda *_: owned.append(True), None)
        wait("the name org.gnome.Screenshot", lambda: self.pump() or owned)
        remote = "org.gnome.Mutter.RemoteDesktop"
        self.session = self.dbus(remote, "/org/gnome/Mutter/RemoteDesktop", remote,
                                 "CreateSession", None, "(o)")[0]
        session_id = self.dbus(remote, self.session, "org.freedesktop.DBus.Properties", "Get",
                               GLib.Variant("(ss)", (remote + ".Session", "SessionId")),
                               "(v)")[0]
        cast = "org.gnome.Mutter.ScreenCast"
        cast_session = self.dbus(cast, "/org/gnome/Mutter/ScreenCast", cast, "CreateSession",
                                 GLib.Variant("(a{sv})", ({"remote-desktop-session-id":
                                                           GLib.Variant("s", session_id)},)),
                                 "(o)")[0]
        self.stream = self.dbus(cast, cast_session, cast + ".Session", "RecordMonitor",
                                GLib.Variant("(sa{sv})", ("Meta-0", {})), "(o)")[0]
        self.dbus(remote, self.session, remote + ".Session", "Start", None)
        time.sleep(0.3)
        # The first event of a new session is lost (as shuttle's desk finds): one to spare.
        self.keysym(0xFFE1)

    def pump(self):
        while GLib.MainContext.default().iteration(False):
            pass

    def dbus(self, name, path, interface, method, args, reply=None):
        return self.bus.call_sync(name, path, interface, method, args,
                                  GLib.VariantType(reply) if reply else None,
                                  Gio.DBusCallFlags.NONE, -1, None)

    def notify(self, method, args):
        remote = "org.gnome.Mutter.RemoteDesktop.Session"
        self.dbus("org.gnome.Mutter.RemoteDesktop", self.session, remote, method, args)

    def keysym(self, keysym):
        self.notify("NotifyKeyboardKeysym", GLib.Variant("(ub)", (keysym, True)))
        self.notify("NotifyKeyboardKeysym", GLib.Variant("(ub)", (keysym, False)))

    def click(self, x, y):
        self.notify("NotifyPointerMotionAbsolute", GLib.Variant("(sdd)", (self.stream, x, y)))
        self.notify("NotifyPointerButton", GLib.Variant("(ib)", (0x110, True)))
        self.notify("NotifyPointerButton", GLib.Variant("(ib)", (0x110, False)))

    def shot(self, path):
        ok, _ = self.dbus("org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot",
                          "org.gnome.Shell.Screenshot", "Screenshot",
                          GLib.Variant("(bbs)", (False, False, path)), "(bs)")
        if not ok:
            sys.exit("the Shell's Screenshot API failed")

    def windows(self):
        try:
            self.dbus("org.gnome.Shell.Introspect", "/org/gnome/Shell/Introspect",
                      "org.gnome.Shell.Introspect", "GetWindows", None)
            return "answered"
        except GLib.Error as e:
            return e.message.split(": ", 2)[-1]

    def typing(self, text):
        for ch in text:
            self.keysym(ord(ch) if ord(ch) < 0x100 else 0x1000000 + ord(ch))

    def measure(self, work, centre, clear):
        shots = os.path.join(work, "peer.png")
        times = {
            "shot": timed(lambda: self.shot(shots)),
            "click": timed(lambda: self.click(*centre)),
            "key": timed(lambda: self.keysym(0xFFE1)),
        }
        typing = []
        landed = ""
        for _ in range(RUNS):
            clear()
            started = time.perf_counter()
            self.typing(TEXT)
            typing.append(time.perf_counter() - started)
            # The keys the layout has land a moment later; what never lands is the peer's.
            before = None
            for _ in range(50):
                now = read(self.typed)
                if now == before:
                    break
                before = now
                time.sleep(0.1)
            landed = read(self.typed)
        times["type"] = typing
        return times, landed


def main():
    work = tempfile.mkdtemp(prefix="shuttle-bench-gnome-")
    os.chmod(work, 0o700)
    gnome = Daemon(work, "gnome")
    seat = gnome.status()["agents"]["agents"][0]["display"]
    bus = "unix:path=" + os.path.join(os.path.dirname(os.path.dirname(seat)), "bus")
    ours, ours_exact = gnome.measure()
    peer = Peer(bus, gnome.typed)
    refused = peer.windows()
    theirs, landed = peer.measure(work, gnome.centre, gnome.clear)
    gnome.end()
    x11 = Daemon(work, "xvfb")
    on_x11, x11_exact = x11.measure()
    x11.end()

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=HERE).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, cwd=HERE).stdout.strip()
    shell = subprocess.run(["gnome-shell", "--version"], capture_output=True,
                           text=True).stdout.strip()
    print(f"Printed by `scripts/bench_gnome.py` at commit {commit}"
          f"{', with uncommitted changes' if dirty else ''} on "
          f"{time.strftime('%Y-%m-%d', time.gmtime())}, with {os.path.relpath(SHUTTLE)}; "
          f"{shell}, headless "
          f"(one 1920x1080 virtual monitor). Machine: {os.cpu_count()} cores, "
          f"{platform.release()}. Medians of {RUNS} calls, each side in one process; typing "
          f"is {len(TEXT)} characters.\n")
    print("| verb | shuttle on GNOME, ms | peer on GNOME, ms | peer / shuttle | "
          "shuttle on X11 (Xvfb), ms |")
    print("|---|---|---|---|---|")
    peers = {
        "windows": None,
        "shot": "Shell Screenshot API",
        "click": "RemoteDesktop",
        "key": "RemoteDesktop",
        "type": "RemoteDesktop, keysym by keysym",
    }
    for verb, how in peers.items():
        mine = median_ms(ours[verb])
        if how is None:
            theirs_cell, ratio = "no peer: the Shell answers other callers " \
                f"\"{refused}\"", "-"
        else:
            other = median_ms(theirs[verb])
            theirs_cell, ratio = f"{other:.1f} ({how})", f"{other / mine:.2f}x"
        print(f"| {verb} | {mine:.1f} | {theirs_cell} | {ratio} | "
              f"{median_ms(on_x11[verb]):.1f} |")
    print()
    print(f"Typing exact: shuttle on GNOME {str(ours_exact).lower()}, on X11 "
          f"{str(x11_exact).lower()}; the peer's last run landed "
          f"{len(landed)} of {len(TEXT)} characters "
          f"({str(landed == TEXT).lower()}).")


if __name__ == "__main__":
    main()
