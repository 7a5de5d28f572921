"""Waiting on the desktop from the benchmark scripts: a condition with a deadline, and whether
a window with a title is listed."""
import os
import subprocess
import sys
import time


def until(what, check, limit):
    """Polls `check` until it is true; after `limit` seconds ends the script, saying what it
    waited for."""
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            sys.exit(f"{os.path.basename(sys.argv[0])}: timed out waiting for {what}")
        time.sleep(0.01)


def listed(title):
    """Whether wmctrl lists a window whose title holds `title`."""
    return title in subprocess.run(["wmctrl", "-l"], capture_output=True, text=True).stdout
