#!/usr/bin/python3
"""Accessibility benchmarks for scripts/bench.sh: a full snapshot by shuttle against a pyatspi walk
reading the same fields (role, name, states, screen bounds), and, per view (all, shown,
interactive), the nodes, bytes and time of the JSON nodes and of the outline.
Usage: bench_a11y.py SHUTTLE FIXTURE WORKDIR"""
import json
import os
import statistics
import subprocess
import sys
import time

import pyatspi

SHUTTLE, FIXTURE, WORK = sys.argv[1:4]
RUNS = int(os.environ.get("RUNS", "10"))


def app_of(pid, name):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for app in pyatspi.Registry.getDesktop(0):
            try:
                if app is not None and app.get_process_id() == pid:
                    return app
            except Exception:
                # An app that left the bus meanwhile.
                continue
        time.sleep(0.1)
    sys.exit(f"{name} did not appear on the accessibility bus")


def walk(node, out):
    component = "Component" in node.get_interfaces()
    extents = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS) if component else None
    out.append((node.name, node.getRole(), node.getState().getStates(), extents))
    for i in range(node.childCount):
        child = node.getChildAtIndex(i)
        if child is not None:
            walk(child, out)
    return out


def pyatspi_walk(app):
    times = []
    for _ in range(max(3, RUNS // 2)):
        app.clear_cache()
        start = time.perf_counter()
        # The window's subtree, as shuttle reads it.
        frame = app.getChildAtIndex(0)
        count = len(walk(frame, []))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), count


def ours(pid):
    times, count = [], 0
    for _ in range(RUNS):
        start = time.perf_counter()
        out = subprocess.run([SHUTTLE, "desk", "snapshot", f"pid={pid}", "bounds=true", "view=all"],
                             capture_output=True, text=True, check=True).stdout
        times.append((time.perf_counter() - start) * 1000)
        count = len(json.loads(out)["nodes"])
    return statistics.median(times), count


def views(pid):
    """Per view: nodes, JSON bytes, outline bytes, and the outline's median ms."""
    out = []
    for view in ("all", "shown", "interactive"):
        as_json = subprocess.run([SHUTTLE, "desk", "snapshot", f"pid={pid}", f"view={view}"],
                                 capture_output=True, check=True).stdout
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            as_text = subprocess.run([SHUTTLE, "desk", "snapshot", f"pid={pid}", f"view={view}", "text=true"],
                                     capture_output=True, check=True).stdout
            times.append((time.perf_counter() - start) * 1000)
        nodes = len(json.loads(as_json)["nodes"])
        out.append((view, nodes, len(as_json), len(as_text), statistics.median(times)))
    return out


def start(cmd, name):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, app_of(proc.pid, name)


apps = [
    ("gtk3-widget-factory", ["gtk3-widget-factory"]),
    ("gnome-calculator (GTK 4)", ["gnome-calculator"]),
    ("fixture with 1000 buttons", ["/usr/bin/python3", FIXTURE, "--title", "bench tree", "--many", "1000",
                                   "--size", "1200x900", "--log", os.path.join(WORK, "tree.log")]),
]
rows, size_rows = [], []
for name, cmd in apps:
    proc, app = start(cmd, name)
    time.sleep(1)
    theirs, their_count = pyatspi_walk(app)
    mine, my_count = ours(proc.pid)
    rows.append(f"| {name} | {my_count} | {mine:.1f} | {their_count} | {theirs:.1f} | {theirs / mine:.1f}x |")
    for view, nodes, json_bytes, text_bytes, ms in views(proc.pid):
        size_rows.append(f"| {name} | {view} | {nodes} | {json_bytes} | {text_bytes} | {ms:.1f} |")
    proc.terminate()
    proc.wait()

print("#### Full accessibility snapshot: role, name, states and screen bounds of every node\n")
print("shuttle: `shuttle desk snapshot pid=N bounds=true`, a whole process each run. pyatspi: a walk of")
print(f"the same window in one warm Python process, its cache cleared each run. Medians of {RUNS} and")
print(f"{max(3, RUNS // 2)} runs.\n")
print("| app | shuttle nodes | shuttle ms | pyatspi nodes | pyatspi ms | ratio |")
print("|---|---|---|---|---|---|")
print("\n".join(rows))
print("\n#### Snapshot views: nodes, bytes of the JSON nodes and of the outline, and the outline's ms\n")
print("`shown` (the default) leaves out what is not on the screen; `interactive` keeps controls,")
print(f"fields and text. No bounds. The outline's time is a whole `shuttle desk` process, median of {RUNS}.\n")
print("| app | view | nodes | JSON bytes | outline bytes | outline ms |")
print("|---|---|---|---|---|---|")
print("\n".join(size_rows))
print()
