#!/usr/bin/python3
"""Accessibility benchmarks for scripts/bench.sh: a full snapshot by shuttle against a pyatspi walk
reading the same fields (role, name, states, screen bounds), and, per view (all, shown,
interactive), the nodes, bytes and time of the JSON nodes and of the outline, for every app of
the test matrix. Usage: bench_a11y.py SHUTTLE FIXTURE WORKDIR

Both sides leave a container with more than 1000 children unwalked (LibreOffice Calc's sheet
reports 2^31 cells); shuttle then reads the cells that show."""
import json
import os
import signal
import statistics
import subprocess
import sys
import time

import pyatspi

SHUTTLE, FIXTURE, WORK = sys.argv[1:4]
RUNS = int(os.environ.get("RUNS", "10"))
# APPS="Writer,Evince": only the apps whose names hold one of these words.
ONLY = [word for word in os.environ.get("APPS", "").split(",") if word]


def frame_of(title, name):
    """The accessible window whose name holds `title` (or the first window of the app of
    that name: GTK 3's widget factory leaves its window unnamed), once its app is on the bus."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for app in pyatspi.Registry.getDesktop(0):
            try:
                for i in range(app.childCount if app is not None else 0):
                    frame = app.getChildAtIndex(i)
                    if frame is not None and (title in frame.name or app.name == title):
                        return app, frame
            except Exception:
                # An app that left the bus meanwhile.
                continue
        time.sleep(0.2)
    sys.exit(f"{name} did not show {title!r} on the accessibility bus")


def walk(node, out):
    component = "Component" in node.get_interfaces()
    extents = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS) if component else None
    out.append((node.name, node.getRole(), node.getState().getStates(), extents))
    if node.childCount > 1000:
        return out
    for i in range(node.childCount):
        child = node.getChildAtIndex(i)
        if child is not None:
            walk(child, out)
    return out


def pyatspi_walk(app, frame):
    times = []
    for _ in range(max(3, RUNS // 2)):
        app.clear_cache()
        start = time.perf_counter()
        # The window's subtree, as shuttle reads it.
        count = len(walk(frame, []))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), count


def ours(window, disturb=None):
    """The median ms and the node count of a full snapshot; with `disturb`, each run follows a
    change the app makes, so that no tree kept from the run before can answer it."""
    times, count = [], 0
    for _ in range(RUNS):
        if disturb is not None:
            disturb()
        start = time.perf_counter()
        out = subprocess.run([SHUTTLE, "desk", "snapshot", f"window={window}", "bounds=true", "view=all"],
                             capture_output=True, text=True, check=True).stdout
        times.append((time.perf_counter() - start) * 1000)
        count = len(json.loads(out)["nodes"])
    return statistics.median(times), count


def views(window):
    """Per view: nodes, JSON bytes, the JSON bytes of `changes` with nothing changed, outline
    bytes, and the outline's median ms."""
    out = []
    for view in ("all", "shown", "interactive"):
        as_json = subprocess.run([SHUTTLE, "desk", "snapshot", f"window={window}", f"view={view}"],
                                 capture_output=True, check=True).stdout
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            as_text = subprocess.run([SHUTTLE, "desk", "snapshot", f"window={window}", f"view={view}", "text=true"],
                                     capture_output=True, check=True).stdout
            times.append((time.perf_counter() - start) * 1000)
        nodes = len(json.loads(as_json)["nodes"])
        # The same view again, asking only what changed since (the CLI is one caller).
        changes = subprocess.run([SHUTTLE, "desk", "snapshot", f"window={window}", f"view={view}", "changes=true"],
                                 capture_output=True, check=True).stdout
        out.append((view, nodes, len(as_json), len(changes), len(as_text), statistics.median(times)))
    return out


FIXTURES = os.path.dirname(os.path.abspath(FIXTURE))
FORM = "file://" + os.path.join(FIXTURES, "web", "form.html")
SHEET = os.path.join(WORK, "fruit.ods")
with open(os.path.join(WORK, "fruit.csv"), "w") as csv:
    csv.write("name,qty\n" + "".join(f"item {i},{i}\n" for i in range(200)))
subprocess.run(["soffice", f"-env:UserInstallation=file://{WORK}/lo-convert", "--headless",
                "--convert-to", "ods", "--outdir", WORK, os.path.join(WORK, "fruit.csv")],
               capture_output=True, check=True)
NOTES = os.path.join(WORK, "notes.txt")
with open(NOTES, "w") as notes:
    notes.write("".join(f"line {i}\n" for i in range(100)))
firefox_profile = os.path.join(WORK, "firefox")
os.makedirs(firefox_profile, exist_ok=True)
with open(os.path.join(FIXTURES, "web", "firefox-user.js")) as prefs, \
        open(os.path.join(firefox_profile, "user.js"), "w") as out:
    out.write(prefs.read())
chromium = ["chromium", "--force-renderer-accessibility", f"--user-data-dir={WORK}/chromium",
            "--no-first-run", "--no-default-browser-check", "--disable-gpu", FORM]
if os.geteuid() == 0:
    chromium.append("--no-sandbox")

# The apps of issue 27: each with settings of its own, so that nothing of an earlier run returns.
def own_settings(name):
    home = os.path.join(WORK, name)
    return ["env"] + [f"{var}={home}/{var.lower()}" for var in
                      ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")]


PDF = os.path.join(WORK, "five.pdf")
pages = 5
objects = ["<< /Type /Catalog /Pages 2 0 R >>",
           "<< /Type /Pages /Kids [%s] /Count %d >>"
           % (" ".join(f"{3 + 2 * i} 0 R" for i in range(pages)), pages)]
for i in range(pages):
    text = f"BT /F1 24 Tf 72 720 Td (Page {i + 1} of {pages}) Tj ET"
    objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                   f"/Resources << /Font << /F1 {3 + 2 * pages} 0 R >> >> >>")
    objects.append(f"<< /Length {len(text)} >>\nstream\n{text}\nendstream")
objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
pdf, offsets = "%PDF-1.4\n", []
for i, body in enumerate(objects):
    offsets.append(len(pdf))
    pdf += f"{i + 1} 0 obj\n{body}\nendobj\n"
xref = len(pdf)
pdf += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n" + "".join(f"{o:010d} 00000 n \n" for o in offsets)
pdf += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
with open(PDF, "w") as out:
    out.write(pdf)
MEMO = os.path.join(WORK, "memo.txt")
with open(MEMO, "w") as memo:
    memo.write("".join(f"line {i}\n" for i in range(100)))
FOLDER = os.path.join(WORK, "fruit")
os.makedirs(os.path.join(FOLDER, "stones"), exist_ok=True)
for name in ("apples.txt", "pears.txt"):
    open(os.path.join(FOLDER, name), "w").close()

# name, command, the title its window starts with
apps = [
    ("gtk3-widget-factory", ["gtk3-widget-factory"], "gtk3-widget-factory"),
    ("gnome-calculator (GTK 4)", ["gnome-calculator"], "Calculator"),
    ("mousepad", ["mousepad", NOTES], "notes.txt"),
    ("Firefox ESR, web form", ["firefox-esr", "--new-instance", "--profile", firefox_profile, FORM],
     "Shuttle form"),
    ("Chromium, web form", chromium, "Shuttle form"),
    ("LibreOffice Calc, 200 rows", ["localc", "--norestore", "--nologo",
                                    f"-env:UserInstallation=file://{WORK}/lo", SHEET], "fruit.ods"),
    ("LibreOffice Writer, a new document", ["lowriter", "--norestore", "--nologo",
                                            f"-env:UserInstallation=file://{WORK}/lo"],
     "Untitled 1 - LibreOffice Writer"),
    ("Qt 5 form", ["/usr/bin/python3", os.path.join(FIXTURES, "qt_form.py"),
                   os.path.join(WORK, "qt.log")], "Qt form"),
    ("GNOME Text Editor (GTK 4)", own_settings("gte") + ["gnome-text-editor", "--standalone"],
     "Text Editor"),
    ("Evince, a 5-page PDF", own_settings("evince") + ["evince", PDF], "five.pdf"),
    ("Thunar, a folder", own_settings("thunar") + ["thunar", FOLDER], "fruit - Thunar"),
    ("FeatherPad (Qt 5)", own_settings("featherpad") + ["featherpad", MEMO], "memo.txt"),
    ("Galculator", own_settings("galculator") + ["galculator"], "galculator"),
    ("fixture with 1000 buttons", ["/usr/bin/python3", FIXTURE, "--title", "bench tree", "--many", "1000",
                                   "--size", "1200x900", "--mutable", "--log", os.path.join(WORK, "tree.log")],
     "bench tree"),
]


def relabel(proc):
    """The fixture renames a label by itself (SIGUSR1), and says so in its log."""
    log = os.path.join(WORK, "tree.log")
    before = open(log).read().count('"relabelled"')
    os.kill(proc.pid, signal.SIGUSR1)
    while open(log).read().count('"relabelled"') == before:
        time.sleep(0.005)


def move_cell_cursor(title):
    """Calc's cell cursor moves down or back up, as xdotool's keys say: the sheet's tree
    changes (another cell has the focus) without growing."""
    window = subprocess.run(["xdotool", "search", "--name", title], capture_output=True,
                            text=True).stdout.split()[0]
    move_cell_cursor.down = not getattr(move_cell_cursor, "down", False)
    # Sent to the focus: a key sent to a window (XSendEvent) is ignored by LibreOffice.
    subprocess.run(["xdotool", "windowactivate", "--sync", window, "key",
                    "Down" if move_cell_cursor.down else "Up"], check=True)
    time.sleep(0.05)


# Apps whose trees are read both warm (nothing changed since the last snapshot) and cold (the
# app changed something by itself first).
DISTURB = {
    "fixture with 1000 buttons": relabel,
    "LibreOffice Calc, 200 rows": lambda proc: move_cell_cursor("fruit.ods"),
}
rows, size_rows, warm_rows = [], [], []
for name, cmd, title in apps:
    if ONLY and not any(word in name for word in ONLY):
        continue
    # An app already on the desktop (bench.sh starts the widget factory) is read as it is: a
    # second start would only open a second window of the same process.
    running = title in subprocess.run(["wmctrl", "-l"], capture_output=True, text=True).stdout
    # A session of its own, so that the app and every process it starts end together.
    proc = None if running else subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    app, frame = frame_of(title, name)
    time.sleep(2)
    theirs, their_count = pyatspi_walk(app, frame)
    mine, my_count = ours(title)
    if name in DISTURB and proc is not None:
        cold, _ = ours(title, lambda: DISTURB[name](proc))
        warm_rows.append(f"| {name} | {my_count} | {cold:.1f} | {mine:.1f} | {theirs:.1f} | "
                         f"{theirs / cold:.1f}x | {theirs / mine:.1f}x |")
    rows.append(f"| {name} | {my_count} | {mine:.1f} | {their_count} | {theirs:.1f} | {theirs / mine:.1f}x |")
    for view, nodes, json_bytes, changes_bytes, text_bytes, ms in views(title):
        size_rows.append(f"| {name} | {view} | {nodes} | {json_bytes} | {changes_bytes} | {text_bytes} | {ms:.1f} |")
    if proc is not None:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
        time.sleep(1)

print("#### Full accessibility snapshot: role, name, states and screen bounds of every node\n")
print("shuttle: `shuttle desk snapshot window=TITLE bounds=true view=all`, a whole process each run.")
print("pyatspi: a walk of the same window in one warm Python process, its cache cleared each run.")
print(f"Medians of {RUNS} and {max(3, RUNS // 2)} runs.\n")
print("| app | shuttle nodes | shuttle ms | pyatspi nodes | pyatspi ms | ratio |")
print("|---|---|---|---|---|---|")
print("\n".join(rows))
print("\n#### Snapshot views: nodes, bytes of the JSON nodes and of the outline, and the outline's ms\n")
print("`shown` (the default) leaves out what is not on the screen; `interactive` keeps controls,")
print(f"fields and text. No bounds. The outline's time is a whole `shuttle desk` process, median of {RUNS}.\n")
print("| app | view | nodes | JSON bytes | `changes` JSON bytes, nothing changed | outline bytes | outline ms |")
print("|---|---|---|---|---|---|---|")
print("\n".join(size_rows))
print()
print("#### Cold and warm: a full snapshot after the app changed something, and with nothing changed\n")
print("Cold: before each run the app changes by itself (the fixture renames a label; Calc's cell")
print("cursor moves, by xdotool), so the tree is read fresh. Warm: nothing changed since the run")
print(f"before, so the tree kept is checked and answered. Medians of {RUNS}; pyatspi as above.\n")
print("| app | nodes | cold ms | warm ms | pyatspi ms | pyatspi / cold | pyatspi / warm |")
print("|---|---|---|---|---|---|---|")
print("\n".join(warm_rows))
print()
