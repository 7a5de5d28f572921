#!/usr/bin/python3
"""Input benchmarks for scripts/bench.sh: typing exactness and speed against xdotool, stopping a
long type (shuttle's kill hotkey against killing xdotool), and the latency of `still`. Run inside a desktop with a shuttle daemon listening; prints
markdown. Usage: bench_input.py SHUTTLE FIXTURE WORKDIR"""
import json
import os
import statistics
import subprocess
import sys
import time

import fixture_log
from fixture_log import events, settle_text, text_now

SHUTTLE, FIXTURE, WORK = sys.argv[1:4]
RUNS = int(os.environ.get("RUNS", "10"))
TEXT = ("Hello, shuttle! déjà vu naïve façade Ærøskøbing ñandú "
        "漢字かなカナ한국어 emoji 😀🎉🚀 done: 1234567890 ~!@#$%^&*()_+-= end.")
TEXT = (TEXT * 2)[:100]


def shuttle(*args):
    out = subprocess.run([SHUTTLE, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def start_fixture(title, extra=()):
    proc, log, _ = fixture_log.start(FIXTURE, WORK, title, extra)
    return proc, log


def typing():
    proc, log = start_fixture("bench typing")
    window = shuttle("desk", "windows")
    wid = next(w["id"] for w in window if w["title"] == "bench typing")
    shuttle("desk", "focus", f"window={wid}")
    tools = {
        "shuttle desk type": [SHUTTLE, "desk", "type", f"text={TEXT}"],
        "xdotool type --delay 0": ["xdotool", "type", "--delay", "0", TEXT],
    }
    rows = []
    samples = {}
    for name, cmd in tools.items():
        command_ms, delivered_ms, exact = [], [], 0
        for _ in range(RUNS):
            subprocess.run(["xdotool", "key", "ctrl+a", "BackSpace"], check=True)
            settle_text(log, "")
            start = time.monotonic()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            command_ms.append((time.monotonic() - start) * 1000)
            got, at = settle_text(log, TEXT)
            exact += got == TEXT
            if got == TEXT:
                delivered_ms.append((at - start) * 1000)
            samples[name] = got
        delivered = f"{statistics.median(delivered_ms):.1f}" if delivered_ms else "never"
        rows.append(f"| `{name}` | {statistics.median(command_ms):.1f} | {delivered} | {exact}/{RUNS} | "
                    f"{window_maps_after():.1f} |")
    proc.terminate()
    proc.wait()
    print(f"#### Typing a 100-character mixed string ({RUNS} runs each)\n")
    print(f"Text: `{TEXT}`\n")
    print("| command | command median ms | exact text in the app, median ms | exact runs | "
          "then a new window maps after, s |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    for name, got in samples.items():
        print(f"- last text `{name}` left in the field: `{got}`")
    print()


def window_maps_after():
    """Seconds until a new window maps: the window manager reloads its key bindings after each
    keymap change a typist made, and maps nothing meanwhile."""
    start = time.monotonic()
    probe, _, _ = fixture_log.start(FIXTURE, WORK, "bench probe", limit=300)
    took = time.monotonic() - start
    probe.terminate()
    probe.wait()
    return took


def still_latency():
    over = []
    for _ in range(RUNS * 2):
        reply = shuttle("desk", "still")
        assert reply["still"], reply
        over.append(reply["ms"] - 40)
    print(f"#### `still` on a static screen ({RUNS * 2} runs, hold_ms 40)\n")
    print(f"Answer time minus hold_ms, as the daemon measured it: median {statistics.median(over):.0f} ms, "
          f"max {max(over)} ms.\n")


def length_at(log, moment):
    """How long the entry's text was at `moment` (time.monotonic, the fixture's clock too)."""
    texts = [e for e in events(log) if e["event"] == "text" and e["t"] <= moment]
    return len(texts[-1]["text"]) if texts else 0


def resume():
    """Resumes after the kill hotkey as the person does: `shuttle resume` asks them in a dialog
    on their display, and the Allow button is clicked (desk_x11::confirm's place for it)."""
    asking = subprocess.Popen([SHUTTLE, "resume"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    dialog = ""
    while not dialog:
        if time.monotonic() > deadline:
            sys.exit("shuttle resume showed no dialog within 10 s")
        dialog = subprocess.run(["xdotool", "search", "--name", "shuttle: allow this action"],
                                capture_output=True, text=True).stdout.split("\n")[0]
        time.sleep(0.05)
    subprocess.run(["xdotool", "mousemove", "--window", dialog, "350", "181", "click", "1"],
                   check=True)
    if asking.wait(timeout=10) != 0:
        sys.exit("shuttle resume was refused")


def stopping():
    proc, log = start_fixture("bench stopping")
    window = shuttle("desk", "windows")
    wid = next(w["id"] for w in window if w["title"] == "bench stopping")
    shuttle("desk", "focus", f"window={wid}")
    long_text = "abcdefghij" * 200
    ways = {
        "shuttle desk type, then the kill hotkey": (
            [SHUTTLE, "desk", "type", f"text={long_text}"],
            lambda p: subprocess.run(["xdotool", "key", "super+alt+Escape"], check=True)),
        "xdotool type --delay 0, then SIGTERM to it": (
            ["xdotool", "type", "--delay", "0", long_text],
            lambda p: p.terminate()),
    }
    rows = []
    for name, (cmd, stop) in ways.items():
        ended_ms, late, stopped = [], [], 0
        for _ in range(RUNS // 2 or 1):
            subprocess.run(["xdotool", "key", "ctrl+a", "BackSpace"], check=True)
            settle_text(log, "")
            typist = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 20
            while len(text_now(log)[0]) < 100:
                if time.monotonic() > deadline:
                    sys.exit(f"{name}: 100 characters did not land within 20 s")
                time.sleep(0.005)
            pressed = time.monotonic()
            stop(typist)
            typist.wait()
            ended_ms.append((time.monotonic() - pressed) * 1000)
            final = len(settle_text(log, long_text)[0])
            stopped += final < len(long_text)
            late.append(final - length_at(log, pressed))
            if "hotkey" in name:
                resume()
        rows.append(f"| {name} | {statistics.median(ended_ms):.0f} | {statistics.median(late):.0f} | "
                    f"{stopped}/{len(late)} |")
    proc.terminate()
    proc.wait()
    print(f"#### Stopping a 2000-character type once 100 characters have landed\n")
    print("| how | command ended after the stop, median ms | characters that still landed after it, median | runs stopped short |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    print()


# Typing comes after stopping: xdotool's keymap changes keep the window manager busy for a
# while, which the typing table measures and waits out.
stopping()
typing()
still_latency()
