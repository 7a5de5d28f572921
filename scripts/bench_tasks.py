#!/usr/bin/python3
"""Calls per task, for scripts/bench.sh: everyday tasks done over the desk wire by a scripted
agent that learns of windows only from the replies' window news (`windows_changed`), never
from `windows`.

Each task is judged by the app's own result (the file on disk). For each it prints the calls
the task took, how many acted, the `screen` calls the agent made only to wait while an
expected dialog had not been reported yet (this script asks every 50 ms; an agent that thinks
for a second between calls makes none), and, computed rather than run, what the same task
costs an agent that checks `windows` after every action: the calls plus one per action.

Usage: bench_tasks.py SHUTTLE WORKDIR (the daemon at SHUTTLE_SOCKET already runs)."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time

import desk_wire

SHUTTLE, WORK = sys.argv[1:3]
ACTIONS = {"desk_key", "desk_type", "desk_press", "desk_click", "desk_set_value", "desk_launch",
           "desk_close"}


class Refused(Exception):
    """A call refused before anything was sent."""


class Agent:
    """Counts its calls, and keeps the windows the news reported open."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(os.environ["SHUTTLE_SOCKET"])
        self.calls = self.actions = self.waits = 0
        self.opened, self.closed = [], []
        # An agent's first call: what is open. Every later reply says what changed since.
        self.call("desk_windows", {})
        self.calls = 0

    def call(self, tool, args):
        self.calls += 1
        self.actions += tool in ACTIONS
        reply = desk_wire.call(self.sock, "bench-tasks", tool, args, check=False)
        text = reply["text"]
        if reply["is_error"]:
            if "outcome: refused" in text:
                raise Refused(text)
            sys.exit(f"{tool} failed: {text}")
        result = json.loads(text) if text.startswith(("{", "[")) else {}
        news = result.get("windows_changed", {}) if isinstance(result, dict) else {}
        self.opened += news.get("opened", [])
        self.closed += news.get("closed", [])
        return result

    def news_of(self, key, title, role=None, limit=15.0):
        """The window whose title holds `title` (and of `role`, if given) the news reported
        `key` (opened, closed), asking for the screen size while it has not come yet."""
        deadline = time.monotonic() + limit
        while True:
            for window in getattr(self, key):
                if title in window["title"] and role in (None, window.get("role")):
                    getattr(self, key).remove(window)
                    return window
            if time.monotonic() > deadline:
                sys.exit(f"no reply said {title!r} {key}")
            self.waits += 1
            self.call("desk_screen", {})
            time.sleep(0.05)

    def find(self, window, name, role, shown=True):
        """The node named `name` with `role`: the first one shown, asked again while the
        window is still being built."""
        for _ in range(100):
            found = self.call("desk_find", {"window": window, "name": name, "role": role})
            nodes = [n for n in found.get("nodes", []) if not shown or "hidden" not in n.get("states", [])]
            if nodes:
                return nodes[0]["id"]
            time.sleep(0.1)
        sys.exit(f"no {role} {name!r} in {window}: {found}")


def wait_file(path, check, limit=20.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with open(path, "rb") as saved:
                if check(saved.read()):
                    return
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    sys.exit(f"{path} never held what was saved")


def mousepad_save_as(agent):
    """Type a line into mousepad, save it under a new name through its Save As dialog."""
    home = os.path.join(WORK, "tasks-mousepad")
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    draft = os.path.join(home, "draft.txt")
    open(draft, "w").close()
    env = dict(os.environ, XDG_CONFIG_HOME=f"{home}/config", XDG_DATA_HOME=f"{home}/data",
               XDG_STATE_HOME=f"{home}/state")
    app = subprocess.Popen(["mousepad", draft], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        agent.news_of("opened", "draft.txt")
        agent.calls = agent.actions = agent.waits = 0
        saved = os.path.join(home, "saved.txt")
        agent.call("desk_type", {"window": "draft.txt", "text": "a task done from replies"})
        agent.call("desk_key", {"window": "draft.txt", "keys": "ctrl+shift+s"})
        dialog = agent.news_of("opened", "Save As")["id"]
        name = agent.find(dialog, "Name", "text")
        agent.call("desk_set_value", {"id": name, "value": saved})
        agent.call("desk_press", {"id": agent.find(dialog, "Save", "button")})
        agent.news_of("closed", "Save As")
        wait_file(saved, lambda data: data == b"a task done from replies")
    finally:
        os.killpg(app.pid, 15)
        app.wait()


def calc_save_as(agent):
    """Start Calc, type a number into its first cell, save the sheet under a name through its
    Save dialog."""
    home = os.path.join(WORK, "tasks-calc")
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    saved = os.path.join(home, "numbers.ods")
    launched = agent.call("desk_launch", {"app": "localc", "args": [
        "--norestore", "--nologo", f"-env:UserInstallation=file://{home}/profile"]})
    try:
        sheet = launched["window"]["id"]
        # A new profile shows its tip of the day a moment after the sheet, taking the focus:
        # the refusal says nothing was typed, and the news names the dialog to close.
        for _ in range(20):
            tip = next((w for w in agent.opened if w["title"].startswith("Tip of the Day")), None)
            if tip is not None:
                agent.opened.remove(tip)
                agent.call("desk_close", {"window": tip["id"]})
            try:
                agent.call("desk_type", {"window": sheet, "text": "5\n"})
                break
            except Refused:
                agent.call("desk_screen", {})
        agent.call("desk_key", {"window": sheet, "keys": "ctrl+shift+s"})
        dialog = agent.news_of("opened", "Save", role="dialog")["id"]
        agent.call("desk_set_value", {"id": agent.find(dialog, "Name", "text"), "value": saved})
        agent.call("desk_press", {"id": agent.find(dialog, "Save", "button")})
        agent.news_of("closed", "Save", role="dialog")
        # An ODF file is a zip archive.
        wait_file(saved, lambda data: data.startswith(b"PK"))
    finally:
        subprocess.run(["pkill", "-f", f"UserInstallation=file://{home}/profile"])


def main():
    rows = []
    for name, task in (("mousepad: save under a new name through Save As", mousepad_save_as),
                       ("Calc: a number in a new sheet, saved under a name", calc_save_as)):
        agent = Agent()
        task(agent)
        steps = agent.calls - agent.waits
        rows.append(f"| {name} | {steps} | {agent.actions} | {agent.waits} | {steps + agent.actions} |")
    print("#### Calls per task, the windows learned from the replies\n")
    print("| task | calls | of them actions | `screen` calls while a dialog was still coming "
          "(one each 50 ms) | computed, not run: calls plus a `windows` after each action |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print()


main()
