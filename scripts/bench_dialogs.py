#!/usr/bin/python3
"""Dialogs that real apps build after a shortcut, for scripts/bench.sh: how often the dialog is
in the shortcut's own reply, and how long that reply took. LibreOffice Writer's Save As
(ctrl+shift+s), GIMP's New Image (ctrl+n), and the fixture's ctrl+b (the app works 400 ms
before it maps its dialog), a case whose timing is known.

With BEFORE, an earlier build of shuttle runs beside this one, a daemon each on the same
desktop, the rounds taking turns, so the two columns come from one run.

Usage: bench_dialogs.py SHUTTLE FIXTURE WORKDIR [BEFORE] (inside a desktop: scripts/desktop.sh)."""
import json
import os
import socket
import statistics
import subprocess
import sys
import time

import desk_wire
from waiting import listed, until

SHUTTLE, FIXTURE, WORK = sys.argv[1:4]
BEFORE = sys.argv[4] if len(sys.argv) > 4 else None
ROUNDS = int(os.environ.get("ROUNDS", "10"))


def daemon(name, binary):
    """A daemon of `binary` on a socket of its own; answers its process and a connection."""
    path = os.path.join(WORK, f"dialogs-{name}.sock")
    env = dict(os.environ, SHUTTLE_SOCKET=path, SHUTTLE_LOG="warn")
    proc = subprocess.Popen([binary, "serve", "--foreground", "--display", "inherit"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    until(f"the {name} daemon", lambda: subprocess.run(
        [binary, "status"], env=env, capture_output=True).returncode == 0, 20)
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(path)
    return proc, sock


def call(sock, tool, args):
    return json.loads(desk_wire.call(sock, "bench-dialogs", tool, args)["text"])


def round_on(sock, main, keys, dialog):
    """One shortcut into `main`: whether `dialog` was in its own reply, and the reply's ms."""
    subprocess.run(["wmctrl", "-a", main], check=True)
    until(f"{main} to have the focus", lambda: main in subprocess.run(
        ["xdotool", "getwindowfocus", "getwindowname"], capture_output=True, text=True).stdout, 10)
    call(sock, "desk_screen", {})  # the news so far is told, so the reply holds the key's alone
    start = time.perf_counter()
    reply = call(sock, "desk_key", {"keys": keys})
    ms = (time.perf_counter() - start) * 1000
    opened = [w["title"] for w in (reply.get("windows_changed") or {}).get("opened", [])]
    until(f"{dialog} to open", lambda: listed(dialog), 60)
    call(sock, "desk_key", {"keys": "Escape", "window": dialog})
    until(f"{dialog} to close", lambda: not listed(dialog), 60)
    return dialog in opened, ms


def main():
    builds = [("this build", SHUTTLE)] + ([("before", BEFORE)] if BEFORE else [])
    daemons = [(name, *daemon(name.replace(" ", "-"), binary)) for name, binary in builds]
    apps = []
    try:
        lo = os.path.join(WORK, "lo-dialogs")
        cases = [
            ("LibreOffice Writer, ctrl+shift+s (Save As)",
             ["libreoffice", "--writer", "--norestore", "--nologo", f"-env:UserInstallation=file://{lo}"],
             "LibreOffice Writer", "ctrl+shift+s", "Save"),
            ("GIMP 2.10, ctrl+n (Create a New Image)",
             ["gimp", "--no-splash", "--no-data", "--new-instance"],
             "GNU Image Manipulation Program", "ctrl+n", "Create a New Image"),
            ("the fixture, ctrl+b (400 ms of work, then a dialog)",
             ["/usr/bin/python3", FIXTURE, "--title", "dialogs busy", "--opener", "--busy", "400",
              "--log", os.path.join(WORK, "dialogs-busy.log")],
             "dialogs busy", "ctrl+b", "Busy"),
        ]
        rows = []
        for label, command, main_title, keys, dialog in cases:
            apps.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            until(f"{main_title} to show", lambda: listed(main_title), 90)
            # Let the app finish starting (GIMP loads its plug-ins after its window shows).
            time.sleep(5)
            seen = {name: [] for name, _, _ in daemons}
            for _ in range(ROUNDS):
                for name, _, sock in daemons:
                    seen[name].append(round_on(sock, main_title, keys, dialog))
            cells = []
            for name, _, _ in daemons:
                own = sum(1 for in_own, _ in seen[name] if in_own)
                ms = statistics.median(ms for _, ms in seen[name])
                cells.append(f"{own}/{ROUNDS} | {ms:.0f}")
            rows.append(f"| {label} | " + " | ".join(cells) + " |")
            apps[-1].terminate()
            apps[-1].wait()
    finally:
        for app in apps:
            app.kill()
        for _, proc, _ in daemons:
            proc.terminate()
            proc.wait()
    print(f"#### A dialog an app builds after a shortcut: in the shortcut's own reply ({ROUNDS} rounds each)\n")
    head = " | ".join(f"{name}: in its own reply | {name}: reply median ms" for name, _, _ in daemons)
    print(f"| app and shortcut | {head} |")
    print("|---|" + "---|" * (2 * len(daemons)))
    print("\n".join(rows))
    print()
    if BEFORE:
        print(f"\"before\" is `{BEFORE}`, an earlier build, run beside this one.\n")


if __name__ == "__main__":
    main()
