#!/usr/bin/python3
"""What the sandbox costs a launch: `shuttle desk launch` of gtk3-widget-factory and of
LibreOffice Writer on an agent's private display, with [apps] sandbox = "home" and "none",
in turns (home, none, home, none, ...) on one daemon, RUNS times each (default 5). Each run
ends the app before the next; each LibreOffice run starts on a fresh profile, in both modes.

Prints a markdown table (median ms per app and mode, and the ratio), headed by the commit, the
date and the machine, as docs/benchmarks.md shows it.

Usage: bench_sandbox.py SHUTTLE (a built shuttle binary; needs xvfb, openbox, dbus,
at-spi2-core, bubblewrap, gtk-3-examples and libreoffice-writer)."""
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SHUTTLE = os.path.abspath(sys.argv[1])
RUNS = int(os.environ.get("RUNS", "5"))
HERE = os.path.dirname(os.path.abspath(__file__))


def run(*args, env, check=True):
    return subprocess.run(args, capture_output=True, text=True, env=env, check=check)


def main():
    work = tempfile.mkdtemp(prefix="shuttle-bench-sandbox-")
    os.chmod(work, 0o700)
    home = os.path.join(work, "home")
    os.makedirs(os.path.join(home, "lo"))
    config = os.path.join(work, "config.toml")
    env = dict(os.environ)
    env.update(
        HOME=home,
        SHUTTLE_SOCKET=os.path.join(work, "desk.sock"),
        SHUTTLE_CONFIG=config,
        XDG_STATE_HOME=os.path.join(work, "state"),
    )
    env.pop("DISPLAY", None)

    def configure(mode):
        with open(config, "w") as f:
            f.write(f'[daemon]\ndisplay = "per-agent"\n[apps]\nsandbox = "{mode}"\nshare = ["~/lo"]\n')

    configure("home")
    daemon = subprocess.Popen(
        [SHUTTLE, "serve", "--foreground"], env=env,
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "serve.log"), "w"),
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.socket(socket.AF_UNIX).connect(env["SHUTTLE_SOCKET"])
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit("the daemon did not listen")
                time.sleep(0.05)
        # The agent's display starts on its first call: not part of any launch's time.
        run(SHUTTLE, "desk", "windows", env=env)
        apps = {
            "gtk3-widget-factory": lambda mode, n: ("gtk3-widget-factory", []),
            "LibreOffice Writer": lambda mode, n: (
                "libreoffice",
                ["--writer", "--norestore",
                 f"-env:UserInstallation=file://{home}/lo/profile-{mode}-{n}"],
            ),
        }
        times = {(app, mode): [] for app in apps for mode in ("home", "none")}
        for n in range(RUNS):
            for app, command in apps.items():
                for mode in ("home", "none"):
                    configure(mode)
                    program, args = command(mode, n)
                    start = time.monotonic()
                    out = run(SHUTTLE, "desk", "launch", f"app={program}",
                              f"args={json.dumps(args)}", env=env)
                    took = (time.monotonic() - start) * 1000
                    launched = json.loads(out.stdout)
                    if launched.get("window") is None:
                        sys.exit(f"{app} ({mode}) showed no window: {out.stdout}")
                    if (launched.get("sandboxed") is True) != (mode == "home"):
                        sys.exit(f"{app} ({mode}) ran with the wrong sandbox: {out.stdout}")
                    times[(app, mode)].append(took)
                    end(launched["pid"], program, env)
        commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        build = "release" if "/release/" in SHUTTLE else "debug" if "/debug/" in SHUTTLE else SHUTTLE
        print(f"Printed by `scripts/bench_sandbox.py` at commit {commit} on "
              f"{time.strftime('%Y-%m-%d')}, {platform.machine()} with {os.cpu_count()} cores, "
              f"the {build} build, {RUNS} runs of each, in turns.\n")
        print("| app | launch, sandbox home (median ms) | launch, no sandbox (median ms) | home / none |")
        print("|---|---|---|---|")
        for app in apps:
            home_ms = statistics.median(times[(app, "home")])
            none_ms = statistics.median(times[(app, "none")])
            print(f"| {app} | {home_ms:.0f} | {none_ms:.0f} | {home_ms / none_ms:.2f}x |")
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)


def end(pid, program, env):
    """Ends the app a launch started (its whole process group: launch starts it in a session
    of its own), and waits until its windows are gone."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        windows = json.loads(run(SHUTTLE, "desk", "windows", env=env).stdout)
        if not windows:
            return
        time.sleep(0.1)
    for w in json.loads(run(SHUTTLE, "desk", "windows", env=env).stdout):
        if w.get("pid"):
            try:
                os.kill(w["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    main()
