#!/usr/bin/python3
"""Script benchmarks for scripts/bench.sh, over the desk wire:

- script_run of an empty `main`, request to report, beside `node -e 0` (Node's own start, the
  floor for any way of running a script on Node);
- 100 desk.windows() calls inside one script, beside 100 `shuttle desk windows` processes.

Usage: bench_scripts.py SHUTTLE WORKDIR (the daemon at SHUTTLE_SOCKET already runs, with
SHUTTLE_NODE set)."""
import json
import os
import socket
import statistics
import subprocess
import sys
import time

import desk_wire

SHUTTLE, WORK = sys.argv[1:3]
RUNS = int(os.environ.get("RUNS", "30"))
NODE = os.environ["SHUTTLE_NODE"]


def call(sock, tool, args):
    return desk_wire.call(sock, "bench-scripts", tool, args)


def timed(f, runs=RUNS):
    times, last = [], None
    for _ in range(runs):
        start = time.perf_counter()
        last = f()
        times.append((time.perf_counter() - start) * 1000)
    return times, last


def p99(times):
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, (len(ordered) * 99) // 100)]


def main():
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(os.environ["SHUTTLE_SOCKET"])

    empty = {"code": "export function main() {}"}
    call(sock, "script_run", empty)  # the first run writes the runtime out once
    run_times, _ = timed(lambda: call(sock, "script_run", empty))
    node_times, _ = timed(lambda: subprocess.run([NODE, "-e", "0"], check=True))
    run_ms, node_ms = statistics.median(run_times), statistics.median(node_times)

    print("#### script_run of an empty main, request to report\n")
    print("| what | median ms | p99 ms | ratio to script_run |")
    print("|---|---|---|---|")
    print(f"| script_run `export function main() {{}}` | {run_ms:.1f} | {p99(run_times):.1f} | 1.00x |")
    print(f"| `node -e 0` (Node's start alone) | {node_ms:.1f} | {p99(node_times):.1f} | {node_ms / run_ms:.2f}x |")
    print()

    loop = {
        "code": "export async function main() {\n"
        "  const start = performance.now();\n"
        "  for (let i = 0; i < 100; i++) await desk.windows();\n"
        "  return performance.now() - start;\n"
        "}"
    }
    runs = max(5, RUNS // 3)
    script_times, inside = [], []
    for _ in range(runs):
        start = time.perf_counter()
        report = json.loads(call(sock, "script_run", loop)["text"])
        script_times.append((time.perf_counter() - start) * 1000)
        inside.append(report["result"])

    def processes():
        for _ in range(100):
            subprocess.run([SHUTTLE, "desk", "windows"], check=True, stdout=subprocess.DEVNULL)

    cli_times, _ = timed(processes, runs=runs)
    script_ms, cli_ms = statistics.median(script_times), statistics.median(cli_times)
    print("#### 100 windows lists: inside one script against 100 processes\n")
    print("| what | median ms | ms per list | ratio to the script |")
    print("|---|---|---|---|")
    print(f"| one script_run, 100 `await desk.windows()` (whole call) | {script_ms:.1f} | {script_ms / 100:.2f} | 1.00x |")
    print(f"| the same 100 calls, timed inside the script | {statistics.median(inside):.1f} | {statistics.median(inside) / 100:.2f} | {statistics.median(inside) / script_ms:.2f}x |")
    print(f"| 100 `shuttle desk windows` processes | {cli_ms:.1f} | {cli_ms / 100:.2f} | {cli_ms / script_ms:.2f}x |")
    print()


if __name__ == "__main__":
    main()
