#!/usr/bin/python3
"""The window news, for scripts/bench.sh: a dialog that a fixture opens 300 ms after a press.

ROUNDS times (default 100), over the desk wire as one agent: press the fixture's Later button;
wait until the fixture says the dialog is shown and wmctrl lists it; read the screen size. The
dialog must be in the press's reply or the read's, as the only change; the round counts the
reply it was in and its after_ms. The dialog is then closed with a key, whose going must be
reported the same way.

Usage: bench_replies.py SHUTTLE FIXTURE WORKDIR (the daemon at SHUTTLE_SOCKET already runs)."""
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
ROUNDS = int(os.environ.get("ROUNDS", "100"))


def call(sock, tool, args):
    return json.loads(desk_wire.call(sock, "bench-replies", tool, args)["text"])


def main():
    log = os.path.join(WORK, "late.log")
    app = subprocess.Popen(
        ["/usr/bin/python3", FIXTURE, "--title", "bench late", "--log", log, "--opener", "--late", "300"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def opened():
        try:
            return sum('"opened"' in line for line in open(log))
        except FileNotFoundError:
            return 0

    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(os.environ["SHUTTLE_SOCKET"])
        query = {"name": "Later", "role": "button", "window": "bench late"}
        until("the fixture's Later button", lambda: listed("bench late") and call(sock, "desk_find", query)["nodes"], 20)
        later = call(sock, "desk_find", query)["nodes"][0]["id"]
        in_press = in_next = missed = extra = closed_told = 0
        delays, press_ms = [], []
        for round in range(1, ROUNDS + 1):
            start = time.perf_counter()
            pressed = call(sock, "desk_press", {"id": later})
            press_ms.append((time.perf_counter() - start) * 1000)
            until("the dialog", lambda: opened() >= round and listed("Later"), 5)
            news = pressed.get("windows_changed")
            where = "press"
            if not news or not news.get("opened"):
                news = call(sock, "desk_screen", {}).get("windows_changed") or {}
                where = "next"
            titles = [w["title"] for w in news.get("opened", [])]
            if titles == ["Later"] and set(news) <= {"opened", "raised"}:
                in_press += where == "press"
                in_next += where == "next"
                delays.append(news["opened"][0].get("after_ms"))
            elif "Later" in titles:
                extra += 1
            else:
                missed += 1
            closing = call(sock, "desk_key", {"keys": "Escape", "window": "Later"})
            until("the dialog to go", lambda: not listed("Later"), 5)
            gone = closing.get("windows_changed") or call(sock, "desk_screen", {}).get("windows_changed") or {}
            closed_told += [w["title"] for w in gone.get("closed", [])] == ["Later"]
    finally:
        app.terminate()
        app.wait()

    known = [d for d in delays if d is not None]
    print(f"#### A dialog that opens 300 ms after a press ({ROUNDS} rounds)\n")
    print("| what | rounds |")
    print("|---|---|")
    print(f"| the dialog in the press's reply | {in_press} |")
    print(f"| the dialog in the next reply | {in_next} |")
    print(f"| reported with something else | {extra} |")
    print(f"| never reported | {missed} |")
    print(f"| its closing reported (the key's reply or the next) | {closed_told} |")
    print()
    if known:
        print(f"after_ms of the dialog: median {statistics.median(known):.0f}, min {min(known)}, max {max(known)}; "
              f"the press itself: median {statistics.median(press_ms):.1f} ms")
        print()


if __name__ == "__main__":
    main()
