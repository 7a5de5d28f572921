"""Reading tests/fixture/fixture.py from the benchmarks: starting it, and what its log says."""
import json
import os
import subprocess
import sys
import time


def events(log):
    """The fixture's events so far; a last line the fixture is still writing is left for later."""
    try:
        with open(log, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except FileNotFoundError:
        return []
    # Only lines ended by a newline are whole.
    return [json.loads(line) for line in lines[:-1] if line.strip()]


def start(fixture, work, title, extra=(), limit=20):
    """Starts the fixture titled `title`, its log in `work`; answers its process, its log and
    its ready event once it has shown, within `limit` seconds."""
    log = os.path.join(work, title.replace(" ", "_") + ".log")
    # A log left by an earlier fixture of the same title would answer for this one.
    if os.path.exists(log):
        os.remove(log)
    stderr = open(log + ".stderr", "w", encoding="utf-8")
    proc = subprocess.Popen(["/usr/bin/python3", fixture, "--title", title, "--log", log, *extra],
                            stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + limit
    while not any(e["event"] == "ready" for e in events(log)):
        if time.monotonic() > deadline:
            # Say what it got to and what it said, so a run that stops here can be read.
            with open(log + ".stderr", encoding="utf-8") as said:
                last = said.read()[-2000:]
            sys.exit(f"fixture {title} did not start within {limit} s (exit status "
                     f"{proc.poll()}); its events: {events(log)}; its stderr: {last}")
        time.sleep(0.02)
    return proc, log, next(e for e in events(log) if e["event"] == "ready")


def text_now(log):
    """The entry's last text and when it showed."""
    texts = [e for e in events(log) if e["event"] == "text"]
    return (texts[-1]["text"], texts[-1]["t"]) if texts else ("", 0.0)


def settle_text(log, expected, limit=5.0):
    """The entry's text once it equals `expected` or stops changing for 0.5 s."""
    deadline = time.monotonic() + limit
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = text_now(log)
        if now[0] == expected:
            return now
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since > 0.5:
            return now
        time.sleep(0.01)
    return text_now(log)
