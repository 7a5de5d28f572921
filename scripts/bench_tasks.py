#!/usr/bin/python3
"""Calls per task, for scripts/bench.sh: everyday tasks done over the desk wire by a scripted
agent that learns of windows only from the replies' window news (`windows_changed`), never
from `windows`, on apps no other benchmark drives (mousepad, LibreOffice Calc and Impress,
Gnumeric, KCalc, a Swing form).

Each task is judged by the app's own result (the file on disk, what the app copied or logged).
For each it prints the calls the task took, how many acted, the `screen` calls the agent made
only to wait while an expected dialog had not been reported yet (this script asks every 50 ms;
an agent that thinks for a second between calls makes none), and the task's seconds. A task
that cannot be done the way the agent does it says where it failed.

With BEFORE, an earlier build of shuttle does the same tasks on a daemon of its own, so the
two columns come from one run.

Usage: bench_tasks.py SHUTTLE WORKDIR [BEFORE] (the daemon at SHUTTLE_SOCKET already runs)."""
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import zipfile

import desk_wire

from waiting import until

SHUTTLE, WORK = sys.argv[1:3]
BEFORE = sys.argv[3] if len(sys.argv) > 3 else None
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixture")
ACTIONS = {"desk_key", "desk_type", "desk_press", "desk_click", "desk_set_value", "desk_launch",
           "desk_close"}


class Refused(Exception):
    """A call refused before anything was sent."""


class Failed(Exception):
    """The task could not be done as the agent does it; says where."""


class Agent:
    """Counts its calls, and keeps the windows the news reported open."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
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
            raise Failed(f"{tool}: {text}")
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
                raise Failed(f"no reply said {title!r} {key}")
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
        raise Failed(f"no {role} {name!r} in {window}")


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
    raise Failed(f"{os.path.basename(path)} never held what was asked")


def workdir(name):
    """A directory of WORK's, emptied."""
    home = os.path.join(WORK, name)
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    return home


def saved_file(agent, window, keys, dialog_title, path):
    """Saves through the Save dialog `keys` opens in `window`: the name field takes `path`."""
    agent.call("desk_key", {"window": window, "keys": keys})
    dialog = agent.news_of("opened", dialog_title, role="dialog")["id"]
    agent.call("desk_set_value", {"id": agent.find(dialog, "Name", "text"), "value": path})
    agent.call("desk_press", {"id": agent.find(dialog, "Save", "button")})
    agent.news_of("closed", dialog_title, role="dialog")


def mousepad_save_as(agent):
    """Type a line into mousepad, save it under a new name through its Save As dialog."""
    home = workdir("tasks-mousepad")
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
        saved_file(agent, "draft.txt", "ctrl+shift+s", "Save As", saved)
        wait_file(saved, lambda data: data == b"a task done from replies")
    finally:
        os.killpg(app.pid, 15)
        app.wait()


def calc_save_as(agent):
    """Start Calc, type a number into its first cell, save the sheet under a name through its
    Save dialog."""
    home = workdir("tasks-calc")
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
        saved_file(agent, sheet, "ctrl+shift+s", "Save", saved)
        # An ODF file is a zip archive.
        wait_file(saved, lambda data: data.startswith(b"PK"))
    finally:
        subprocess.run(["pkill", "-f", f"UserInstallation=file://{home}/profile"])


def gnumeric_sum(agent):
    """Two numbers and their sum typed into a new Gnumeric sheet, saved under a name."""
    home = workdir("tasks-gnumeric")
    saved = os.path.join(home, "sums.gnumeric")
    launched = agent.call("desk_launch", {"app": "env", "args": [
        f"XDG_CONFIG_HOME={home}/config", "gnumeric"]})
    try:
        sheet = launched["window"]["id"]
        agent.call("desk_type", {"window": sheet, "text": "5\n7\n=sum(A1:A2)\n"})
        saved_file(agent, sheet, "ctrl+s", "Save the current workbook", saved)
        csv = os.path.join(home, "sums.csv")

        def holds_sum(_):
            subprocess.run(["ssconvert", saved, csv], capture_output=True)
            with open(csv) as read:
                return read.read().split() == ["5", "7", "12"]
        wait_file(saved, holds_sum)
    finally:
        os.killpg(launched["pid"], 15)


def kcalc_product(agent):
    """12 × 34 on KCalc's buttons, the result read from the interactive view, then copied."""
    home = workdir("tasks-kcalc")
    launched = agent.call("desk_launch", {"app": "env", "args": [
        f"XDG_CONFIG_HOME={home}/config", "kcalc"]})
    try:
        for name in ["1", "2", "×", "3", "4", "="]:
            agent.call("desk_press", {"id": agent.find("KCalc", name, "button")})
        view = agent.call("desk_snapshot", {"window": "KCalc", "view": "interactive"})
        if not any(n.get("name") == "408" for n in view["nodes"]):
            raise Failed("the interactive view shows no result")
        agent.call("desk_key", {"window": "KCalc", "keys": "ctrl+c"})
        copied = lambda: subprocess.run(["xclip", "-selection", "clipboard", "-o"],
                                        capture_output=True, text=True).stdout.strip() == "408"
        deadline = time.monotonic() + 5
        while not copied():
            if time.monotonic() > deadline:
                raise Failed("KCalc copied no 408")
            time.sleep(0.05)
    finally:
        os.killpg(launched["pid"], 15)


def impress_title(agent):
    """A title typed on Impress's first slide, the deck saved under a name."""
    home = workdir("tasks-impress")
    saved = os.path.join(home, "plan.odp")
    launched = agent.call("desk_launch", {"app": "libreoffice", "args": [
        "--impress", "--norestore", "--nologo", f"-env:UserInstallation=file://{home}/profile"]})
    try:
        deck = launched["window"]["id"]
        for dialog in launched.get("dialogs", []):
            if dialog["title"] == "Select a Template":
                agent.call("desk_press", {"id": agent.find(dialog["id"], "Close", "button")})
                agent.news_of("closed", "Select a Template")
        agent.call("desk_press", {"id": agent.find(deck, "PresentationTitle", "panel")})
        agent.call("desk_type", {"window": deck, "text": "Quarterly plan"})
        agent.call("desk_key", {"window": deck, "keys": "escape"})
        saved_file(agent, deck, "ctrl+shift+s", "Save", saved)

        def has_title(data):
            with zipfile.ZipFile(io.BytesIO(data)) as deck_file:
                return b"Quarterly plan" in deck_file.read("content.xml")
        wait_file(saved, lambda data: data.startswith(b"PK") and has_title(data))
    finally:
        subprocess.run(["pkill", "-f", f"UserInstallation=file://{home}/profile"])


def swing_pick(agent):
    """A name typed and a department picked in a Swing form's combo box by pressing the item
    in its open list, as an agent that sees the list would, then saved."""
    home = workdir("tasks-swing")
    log = os.path.join(home, "saved.log")
    launched = agent.call("desk_launch", {"app": "java", "args": [
        os.path.join(FIXTURES, "SwingForm.java"), log]})
    try:
        form = launched["window"]["id"]
        view = agent.call("desk_snapshot", {"window": form, "view": "interactive"})
        field = next(n["id"] for n in view["nodes"] if n["role"] == "text")
        agent.call("desk_set_value", {"id": field, "value": "Ada"})
        agent.call("desk_press", {"id": agent.find(form, "Sales", "combo box")})
        agent.call("desk_press", {"id": agent.find(form, "Research", "label")})
        agent.call("desk_press", {"id": agent.find(form, "Save", "button")})

        def saved(data):
            if data.startswith(b"saved") and data != b"saved | Ada | Research\n":
                raise Failed(f"the form saved {data.decode().strip()!r}")
            return data == b"saved | Ada | Research\n"
        wait_file(log, saved)
    finally:
        os.killpg(launched["pid"], 15)


TASKS = (
    ("mousepad: save under a new name through Save As", mousepad_save_as),
    ("Calc: a number in a new sheet, saved under a name", calc_save_as),
    ("Gnumeric: two numbers and their sum, saved under a name", gnumeric_sum),
    ("Impress: a title on the first slide, saved under a name", impress_title),
    ("KCalc: 12 × 34 on its buttons, the result read and copied", kcalc_product),
    ("Swing form: a name, a department pressed in the open list, saved", swing_pick),
)


def before_daemon():
    """A daemon of the BEFORE build on a socket of its own."""
    path = os.path.join(WORK, "tasks-before.sock")
    env = dict(os.environ, SHUTTLE_SOCKET=path, SHUTTLE_LOG="warn")
    proc = subprocess.Popen([BEFORE, "serve", "--foreground", "--display", "inherit"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    until("the before daemon", lambda: subprocess.run(
        [BEFORE, "status"], env=env, capture_output=True).returncode == 0, 20)
    return proc, path


def run(path, task):
    """The task's cells: calls, actions, waits and seconds, or where it failed."""
    agent = Agent(path)
    start = time.monotonic()
    try:
        task(agent)
    except (Failed, Refused) as failed:
        return f"failed: {str(failed).splitlines()[0][:160]} | | |"
    seconds = time.monotonic() - start
    return f"{agent.calls - agent.waits} | {agent.actions} | {agent.waits} | {seconds:.1f}"


def main():
    builds = [("this build", os.environ["SHUTTLE_SOCKET"])]
    proc = None
    if BEFORE:
        proc, path = before_daemon()
        builds.append(("before", path))
    rows = []
    try:
        for name, task in TASKS:
            rows.append(f"| {name} | " + " | ".join(run(path, task) for _, path in builds) + " |")
    finally:
        if proc:
            proc.terminate()
            proc.wait()
    print("#### Calls per task, the windows learned from the replies\n")
    head = " | ".join(f"{build}: calls | {build}: of them actions | {build}: `screen` calls while "
                      f"a dialog was still coming (one each 50 ms) | {build}: seconds"
                      for build, _ in builds)
    print(f"| task | {head} |")
    print("|---|" + "---|" * (4 * len(builds)))
    print("\n".join(rows))
    print()
    if BEFORE:
        print(f"\"before\" is `{BEFORE}`, an earlier build, doing the same tasks on a daemon of "
              "its own in the same run.\n")


main()
