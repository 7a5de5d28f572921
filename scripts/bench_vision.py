#!/usr/bin/python3
"""Vision-loop benchmarks for scripts/bench.sh, over the desk wire (no process start-up on our side):

- computer_state on gtk3-widget-factory (windows, elements, a 1024-pixel JPEG) beside a
  full-screen PNG shot, and beside ImageMagick `import` (the screen scaled to 1024, as JPEG) plus
  `xdotool search` (the window list), the nearest a script gets without shuttle;
- computer_act clicking an element, request to reply with its screenshot, minus the settle's hold.

Usage: bench_vision.py SHUTTLE FIXTURE WORKDIR (the daemon at SHUTTLE_SOCKET already runs)."""
import base64
import os
import re
import socket
import statistics
import subprocess
import sys
import time

import desk_wire

SHUTTLE, FIXTURE, WORK = sys.argv[1:4]
RUNS = int(os.environ.get("RUNS", "30"))
# crates/desk/src/verbs/computer_act.rs SETTLE_HOLD_MS
HOLD_MS = 150


def call(sock, tool, args):
    return desk_wire.call(sock, "bench-vision", tool, args)


def timed(f, runs=RUNS):
    times, last = [], None
    for _ in range(runs):
        start = time.perf_counter()
        last = f()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), last


def p99(times):
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, (len(ordered) * 99) // 100)]


def main():
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(os.environ["SHUTTLE_SOCKET"])
    factory = subprocess.run(["pgrep", "-n", "gtk3-widget-fac"], capture_output=True, text=True).stdout.split()
    if not factory:
        sys.exit("gtk3-widget-factory is not running")
    pid = int(factory[0])

    state_ms, state = timed(lambda: call(sock, "desk_computer_state", {"pid": pid}))
    jpeg_bytes = len(base64.b64decode(state["image_b64"]))
    elements = len(re.findall(r"^  \[\d+\]", state["text"], re.M))
    text_bytes = len(state["text"].encode())
    shot_ms, shot = timed(lambda: call(sock, "desk_shot", {}))
    png_bytes = len(base64.b64decode(shot["image_b64"]))

    def peer():
        subprocess.run(["import", "-window", "root", "-resize", "1024x", f"jpeg:{WORK}/peer.jpg"], check=True)
        return subprocess.run(["xdotool", "search", "--name", "."], capture_output=True, check=True).stdout

    peer_ms, _ = timed(peer, runs=max(5, RUNS // 3))
    peer_bytes = os.path.getsize(f"{WORK}/peer.jpg")

    print("#### Vision loop: computer_state on gtk3-widget-factory (1920x1080 screen)\n")
    print("| call | median ms | image bytes | ratio to computer_state |")
    print("|---|---|---|---|")
    print(f"| computer_state: windows, {elements} elements ({text_bytes} bytes of text), 1024-pixel JPEG "
          f"| {state_ms:.1f} | {jpeg_bytes} | 1.00x |")
    print(f"| shot: the full screen as PNG | {shot_ms:.1f} | {png_bytes} | {shot_ms / state_ms:.2f}x |")
    print(f"| `import -window root -resize 1024x jpeg:` + `xdotool search --name .` (no elements) "
          f"| {peer_ms:.1f} | {peer_bytes} | {peer_ms / state_ms:.2f}x |")
    print(f"\nJPEG against the full PNG: {jpeg_bytes / png_bytes:.2f} of its bytes.\n")

    # A click on the bench fixture's button by index: it logs the click, and nothing moves.
    fixture = subprocess.run(["pgrep", "-f", "-n", "fixture.py --title bench 1"], capture_output=True, text=True)
    fixture_pid = int(fixture.stdout.split()[0])
    call(sock, "desk_focus", {"pid": fixture_pid})
    state = call(sock, "desk_computer_state", {"pid": fixture_pid})
    index = next(int(m.group(1)) for m in re.finditer(r"^  \[(\d+)\] (?:push )?button \"Press me\"", state["text"], re.M))
    totals, settles = [], []
    for _ in range(RUNS):
        start = time.perf_counter()
        reply = call(sock, "desk_computer_act", {"action": "click", "element": index})
        totals.append((time.perf_counter() - start) * 1000)
        settles.append(int(re.search(r"screen still after (\d+) ms", reply["text"]).group(1)))
    total = statistics.median(totals)
    print("#### Vision loop: computer_act click on an element, request to reply with its screenshot\n")
    print("| measure | p50 ms | p99 ms |")
    print("|---|---|---|")
    own = sorted(t - s for t, s in zip(totals, settles))
    print(f"| request to reply | {total:.1f} | {p99(totals):.1f} |")
    print(f"| of which waiting for the screen to be still (the hold is {HOLD_MS} ms) | {statistics.median(settles):.0f} | {p99(settles):.0f} |")
    print(f"| request to reply minus the hold | {total - HOLD_MS:.1f} | {p99(totals) - HOLD_MS:.1f} |")
    print(f"| shuttle's own time: request to reply minus the whole wait for stillness | {statistics.median(own):.1f} | {p99(own):.1f} |")
    print()


main()
