#!/usr/bin/python3
"""launch, for scripts/bench.sh: how long until the answer, and whether it holds the dialog
that blocks the app's window, against starting the app and waiting for its window with
`xdotool search --sync`.

For each app (LibreOffice Calc on a fresh profile, which opens "Tip of the Day" after its
window, when soffice is installed; gtk3-widget-factory), RUNS times (default 5): shuttle's
`desk launch`, then the peer. Each run ends the app by pid before the next.

Usage: bench_launch.py SHUTTLE WORKDIR (the daemon at SHUTTLE_SOCKET already runs)."""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

SHUTTLE, WORK = sys.argv[1:3]
RUNS = int(os.environ.get("RUNS", "5"))


def titles():
    out = subprocess.run(["wmctrl", "-l"], capture_output=True, text=True).stdout
    return [line.split(None, 3)[3] if len(line.split(None, 3)) == 4 else "" for line in out.splitlines()]


def gone(pattern, limit=10.0):
    deadline = time.monotonic() + limit
    while any(pattern in t for t in titles()):
        if time.monotonic() > deadline:
            sys.exit(f"windows matching {pattern!r} did not go")
        time.sleep(0.05)


def end(pid, name):
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    # soffice's wrapper hands over to soffice.bin, which is the one to end.
    subprocess.run(["pkill", "-TERM", "-f", name], check=False)


def profile(run):
    path = os.path.join(WORK, f"lo-profile-{run}")
    shutil.rmtree(path, ignore_errors=True)
    return f"-env:UserInstallation=file://{path}"


def bench(label, program, args_for, main_pattern, dialog_pattern, process):
    ours_ms, ours_dialog, peer_ms, peer_dialog = [], 0, [], 0
    for run in range(RUNS):
        args = args_for(f"s{run}")
        start = time.monotonic()
        out = subprocess.run(
            [SHUTTLE, "desk", "launch", f"app={program}", f"args={json.dumps(args)}"],
            capture_output=True, text=True, check=True,
        ).stdout
        ours_ms.append((time.monotonic() - start) * 1000)
        reply = json.loads(out)
        dialogs = [d["title"] for d in reply.get("dialogs", [])]
        ours_dialog += bool(dialog_pattern) and any(dialog_pattern in d for d in dialogs)
        end(reply["pid"], process)
        gone(main_pattern)

        args = args_for(f"p{run}")
        start = time.monotonic()
        app = subprocess.Popen([program, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # xdotool's search fails when a window it is reading goes meanwhile (LibreOffice's
        # splash): it is asked again at once, as a script using it would.
        while subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--name",
                              main_pattern], capture_output=True).returncode != 0:
            if time.monotonic() - start > 60:
                sys.exit(f"xdotool found no window matching {main_pattern!r} within 60 s")
        peer_ms.append((time.monotonic() - start) * 1000)
        peer_dialog += bool(dialog_pattern) and any(dialog_pattern in t for t in titles())
        end(app.pid, process)
        app.wait()
        gone(main_pattern)
    dialog = f" ({dialog_pattern!r})" if dialog_pattern else ""
    print(f"| {label}: `shuttle desk launch` | {statistics.median(ours_ms):.0f} | "
          f"{min(ours_ms):.0f} | {max(ours_ms):.0f} | "
          f"{f'{ours_dialog}/{RUNS}' if dialog_pattern else 'none opens'} |")
    print(f"| {label}: start it, `xdotool search --sync` for its window | "
          f"{statistics.median(peer_ms):.0f} | {min(peer_ms):.0f} | {max(peer_ms):.0f} | "
          f"{f'{peer_dialog}/{RUNS}' if dialog_pattern else 'none opens'}{dialog} |")


def main():
    print(f"#### launch: time to the answer, and the blocking dialog in it ({RUNS} runs each)\n")
    print("| what | median ms | min ms | max ms | blocking dialog known when it answered |")
    print("|---|---|---|---|---|")
    if shutil.which("soffice"):
        bench("LibreOffice Calc, fresh profile", "soffice", lambda run: ["--calc", profile(run)],
              "LibreOffice Calc", "Tip of the Day", "soffice.bin")
    bench("gtk3-widget-factory", "gtk3-widget-factory", lambda run: [],
          "widget-factory", None, "gtk3-widget-factory")
    print()


if __name__ == "__main__":
    main()
