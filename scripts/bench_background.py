#!/usr/bin/python3
"""Background input against the foreground path and xdotool's window-targeted input, in one run:
typing 100 mixed characters into a window behind a focused bystander, a press of its button,
and wheel notches. Starts two daemons of its own (input = "foreground" and "background") on
sockets in WORKDIR; run inside a desktop (scripts/desktop.sh). Prints markdown.
Usage: bench_background.py SHUTTLE FIXTURE WORKDIR"""
import json
import os
import statistics
import subprocess
import sys
import time

import fixture_log
from fixture_log import events, settle_text

SHUTTLE, FIXTURE, WORK = sys.argv[1:4]
RUNS = int(os.environ.get("RUNS", "10"))
TEXT = ("Hello, shuttle! déjà vu naïve façade Ærøskøbing ñandú "
        "漢字かなカナ한국어 emoji 😀🎉🚀 done: 1234567890 ~!@#$%^&*()_+-= end.")
TEXT = (TEXT * 2)[:100]


def daemon(name, input_mode):
    """A daemon whose [daemon] input is `input_mode`; returns its process and environment."""
    config = os.path.join(WORK, f"{name}.toml")
    with open(config, "w", encoding="utf-8") as f:
        f.write(f'[daemon]\ninput = "{input_mode}"\n\n[safety]\nindicator = false\n')
    env = dict(os.environ, SHUTTLE_SOCKET=os.path.join(WORK, f"{name}.sock"),
               SHUTTLE_CONFIG=config, SHUTTLE_LOG="warn")
    proc = subprocess.Popen([SHUTTLE, "serve", "--foreground", "--display", "inherit"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while subprocess.run([SHUTTLE, "status"], env=env, capture_output=True).returncode != 0:
        if time.monotonic() > deadline:
            sys.exit(f"the {name} daemon did not start")
        time.sleep(0.05)
    return proc, env


def shuttle(env, *args):
    out = subprocess.run([SHUTTLE, *args], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def count(log, kind):
    return sum(1 for e in events(log) if e["event"] == kind)


def wait(check, limit=5.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.005)
    return False


def person():
    """The person's focus, pointer and stacking."""
    read = lambda *cmd: subprocess.run(cmd, capture_output=True, text=True).stdout
    return (read("xdotool", "getwindowfocus"), read("xdotool", "getmouselocation"),
            read("xprop", "-root", "_NET_CLIENT_LIST_STACKING"))


def main():
    fg_proc, fg = daemon("foreground", "foreground")
    bg_proc, bg = daemon("background", "background")
    target, log, ready = fixture_log.start(FIXTURE, WORK, "bench behind", ["--size", "500x400"])
    bystander, _, by_ready = fixture_log.start(FIXTURE, WORK, "bench bystander",
                                               ["--size", "300x200"])
    wid, bid = str(int(ready["id"], 16)), str(int(by_ready["id"], 16))
    subprocess.run(["xdotool", "windowmove", "--sync", bid, "1300", "700"], check=True)
    wid_hex = hex(int(wid))

    def to_bystander():
        # xdotool complains when the window manager publishes no active window; it still works.
        subprocess.run(["xdotool", "windowactivate", "--sync", bid], check=True,
                       stderr=subprocess.DEVNULL)
        subprocess.run(["xdotool", "mousemove", "3", "5"], check=True)

    def clear():
        shuttle(bg, "desk", "key", "keys=ctrl+a", f"window={wid_hex}")
        shuttle(bg, "desk", "key", "keys=BackSpace", f"window={wid_hex}")
        settle_text(log, "")

    # The clicks come first: after xdotool's typing into the window, some client held the
    # pointer grabbed for about ten seconds, which delayed every click after it.
    found = shuttle(bg, "desk", "find", f"window={wid_hex}", "name=Press me", "role=button")
    node = found["nodes"][0]["id"]
    shots = {
        "shuttle desk press (action), background": (
            bg, [SHUTTLE, "desk", "press", f"id={node}"], "clicked"),
        "shuttle desk click, foreground": (
            fg, [SHUTTLE, "desk", "click", "x=250", "y=300", f"window={wid_hex}"], "press"),
        "xdotool click --window (XSendEvent)": (
            os.environ, ["xdotool", "click", "--window", wid, "1"], "press"),
        "shuttle desk scroll 3, background": (
            bg, [SHUTTLE, "desk", "scroll", "direction=down", "amount=3", "x=250", "y=300",
                 f"window={wid_hex}"], "scroll"),
        "xdotool click --window 5 x3 (XSendEvent)": (
            os.environ, ["xdotool", "click", "--window", wid, "--repeat", "3", "--delay", "0",
                         "5"], "scroll"),
    }
    rows = []
    for name, (env, cmd, kind) in shots.items():
        command_ms, landed_ms, landed, kept = [], [], 0, 0
        for _ in range(RUNS):
            to_bystander()
            before, seen = person(), count(log, kind)
            start = time.monotonic()
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            command_ms.append((time.monotonic() - start) * 1000)
            if wait(lambda: count(log, kind) > seen, 2.0):
                landed += 1
                landed_ms.append((time.monotonic() - start) * 1000)
            kept += person() == before
        reached = f"{statistics.median(landed_ms):.1f}" if landed_ms else "never"
        rows.append(f"| `{name}` | {statistics.median(command_ms):.1f} | {reached} | "
                    f"{landed}/{RUNS} | {kept}/{RUNS} |")
    print(f"#### A press, a click and wheel notches in that window ({RUNS} runs each)\n")
    print("| command | command median ms | the app's event, median ms | runs the app saw | "
          "person's focus, pointer and stacking kept |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    typing = {
        "shuttle desk type, background": (bg, [SHUTTLE, "desk", "type", f"text={TEXT}",
                                               f"window={wid_hex}"]),
        "shuttle desk type, foreground": (fg, [SHUTTLE, "desk", "type", f"text={TEXT}",
                                               f"window={wid_hex}"]),
        "xdotool type --window (XSendEvent)": (os.environ, ["xdotool", "type", "--window", wid,
                                                            "--delay", "0", TEXT]),
    }
    rows = []
    for name, (env, cmd) in typing.items():
        command_ms, delivered_ms, exact, kept = [], [], 0, 0
        for _ in range(RUNS):
            clear()
            to_bystander()
            before = person()
            start = time.monotonic()
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            command_ms.append((time.monotonic() - start) * 1000)
            got, at = settle_text(log, TEXT)
            exact += got == TEXT
            if got == TEXT:
                delivered_ms.append((at - start) * 1000)
            kept += person() == before
        delivered = f"{statistics.median(delivered_ms):.1f}" if delivered_ms else "never"
        rows.append(f"| `{name}` | {statistics.median(command_ms):.1f} | {delivered} | "
                    f"{exact}/{RUNS} | {kept}/{RUNS} |")
    print(f"#### Typing 100 mixed characters into a window behind the person's ({RUNS} runs each)\n")
    print("| command | command median ms | exact text in the app, median ms | exact runs | "
          "person's focus, pointer and stacking kept |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print()

    for proc in (target, bystander, fg_proc, bg_proc):
        proc.terminate()
        proc.wait()


main()
