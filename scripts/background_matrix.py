#!/usr/bin/python3
"""Which apps honour background input: each app is started, a bystander window takes the
person's focus, and `shuttle desk type` sends a marker text to the app's window from the
agent's own devices. The app is judged by its own state where it has one (xterm runs a command that
writes a file, the Tk entry writes its text to a file) and otherwise by the accessibility tree,
read in a separate call (`snapshot`); the person's focus must stay on the bystander. Starts a
daemon of its own with input = "background"; run inside a desktop (scripts/desktop.sh).
Prints a markdown table of how many of RUNS runs (default 3) each held.
Usage: [RUNS=N] background_matrix.py SHUTTLE FIXTURE WORKDIR"""
import json
import os
import subprocess
import sys
import time

SHUTTLE, FIXTURE, WORK = sys.argv[1:4]
# Starts with a digit, so no autocorrect capitalises it.
MARK = "42 bgmark"


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()


def wait(check, limit=30.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    return None


def start_daemon():
    config = os.path.join(WORK, "matrix.toml")
    with open(config, "w", encoding="utf-8") as f:
        f.write('[daemon]\ninput = "background"\n\n[safety]\nindicator = false\n')
    env = dict(os.environ, SHUTTLE_SOCKET=os.path.join(WORK, "matrix.sock"),
               SHUTTLE_CONFIG=config, SHUTTLE_LOG="warn")
    proc = subprocess.Popen([SHUTTLE, "serve", "--foreground", "--display", "inherit"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait(lambda: subprocess.run([SHUTTLE, "status"], env=env,
                                       capture_output=True).returncode == 0, 10):
        sys.exit("the daemon did not start")
    return proc, env


def desk(env, *args):
    out = subprocess.run([SHUTTLE, "desk", *args], env=env, capture_output=True, text=True)
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        return {"error": (out.stderr or out.stdout).strip()}


def window_of(env, title_part):
    windows = desk(env, "windows")
    for window in windows if isinstance(windows, list) else []:
        if title_part.lower() in window["title"].lower():
            return window
    return None


def tree_shows(env, window, text):
    snapshot = desk(env, "snapshot", f"window={window['id']}", "view=all")
    return any(text in (n.get("value") or "") or text in n.get("name", "")
               for n in snapshot.get("nodes", []))


def page(title):
    """A page of its own, with an input that takes the focus, titled `title`."""
    path = os.path.join(WORK, title.replace(" ", "_") + ".html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"<title>{title}</title><input autofocus>")
    return "file://" + path


TK = """
import sys, tkinter
root = tkinter.Tk(); root.title("tk matrix")
text = tkinter.StringVar()
text.trace_add("write", lambda *a: open(sys.argv[1], "w").write(text.get()))
entry = tkinter.Entry(root, textvariable=text); entry.pack(); entry.focus_set()
root.mainloop()
"""

APPS = [
    # name, command, title to find, how to judge ("tree", or a file the app writes), text
    ("GTK 3 (tests/fixture/fixture.py)", ["/usr/bin/python3", FIXTURE, "--title",
                                          "gtk3 matrix", "--log", "FILE"],
     "gtk3 matrix", "file", MARK),
    ("GTK 4 (gnome-text-editor)", ["gnome-text-editor", "--standalone"], "text editor", "tree",
     MARK),
    ("Qt 5 (featherpad)", ["featherpad"], "untitled", "tree", MARK),
    ("Tk (tkinter entry)", ["/usr/bin/python3", "-c", TK, "FILE"], "tk matrix", "file", MARK),
    ("xterm", ["xterm", "-title", "xterm matrix"], "xterm matrix", "file",
     "echo " + MARK + " > FILE\n"),
    # Chromium's sandbox refuses to run as root.
    ("Chromium", ["chromium", "--no-first-run", "--force-renderer-accessibility",
                  f"--user-data-dir={WORK}/chromium"]
     + (["--no-sandbox"] if os.geteuid() == 0 else []) + [page("chromium matrix")],
     "chromium matrix", "tree", MARK),
    # Firefox will not open a data: URL at the top level.
    ("Firefox", ["firefox-esr", "--new-instance", "--profile", f"{WORK}/firefox",
                 page("firefox matrix")],
     "firefox matrix", "tree", MARK),
    ("LibreOffice Writer", ["libreoffice", "--writer", "--norestore", "--nologo"],
     "libreoffice writer", "tree", MARK),
]


def once(env, name, command, title, judge, text):
    """One run of one app: (the text landed, the reply read it back, the person's focus kept),
    or None when its window did not show."""
    out = os.path.join(WORK, name.split()[0] + ".out")
    if os.path.exists(out):
        os.remove(out)
    command = [c.replace("FILE", out) for c in command]
    text = text.replace("FILE", out)
    app = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    try:
        window = wait(lambda: window_of(env, title), 40)
        by = wait(lambda: window_of(env, "matrix bystander"), 10)
        if not window or not by:
            return None
        # The app's first paint and its own focus handling; some (mousepad) replace their
        # first window meanwhile, so it is looked up again, topmost first.
        time.sleep(2)
        window = window_of(env, title) or window
        run("xdotool", "windowactivate", "--sync", str(int(by["id"], 16)))
        focus = run("xdotool", "getwindowfocus")
        typed = desk(env, "type", f"text={text}", f"window={window['id']}")
        if "error" in typed:
            landed = False
        elif judge == "file":
            landed = bool(wait(lambda: MARK in (open(out).read() if os.path.exists(out)
                                                else ""), 5))
        else:
            landed = bool(wait(lambda: tree_shows(env, window, MARK), 5))
        kept = run("xdotool", "getwindowfocus") == focus
        verified = "unverified" not in typed and "error" not in typed
        return landed, verified, kept
    finally:
        os.killpg(app.pid, 15)
        app.wait()


def main():
    runs = int(os.environ.get("RUNS", "3"))
    proc, env = start_daemon()
    bystander = subprocess.Popen(["/usr/bin/python3", FIXTURE, "--title", "matrix bystander",
                                  "--log", os.path.join(WORK, "bystander.log"),
                                  "--size", "300x200"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait(lambda: window_of(env, "matrix bystander"), 20):
        sys.exit("the bystander window did not show")
    os.makedirs(f"{WORK}/firefox", exist_ok=True)
    rows = []
    for name, command, title, judge, text in APPS:
        results = [once(env, name, command, title, judge, text) for _ in range(runs)]
        shown = [r for r in results if r]
        tally = [f"{sum(r[i] for r in shown)}/{runs}" for i in range(3)]
        how = "its own file" if judge == "file" else "accessibility, read apart"
        missing = f" (no window in {runs - len(shown)})" if len(shown) < runs else ""
        rows.append(f"| {name} | {tally[0]} ({how}){missing} | {tally[1]} | {tally[2]} |")
    commit = run("git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse", "--short",
                 "HEAD")
    print(f"Printed by `scripts/background_matrix.py` at commit {commit} on "
          f"{time.strftime('%Y-%m-%d', time.gmtime())}, {runs} runs of each app:\n")
    print("| app | the text landed | the reply read it back (no `unverified`) "
          "| the person's focus kept |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    bystander.terminate()
    proc.terminate()


main()
