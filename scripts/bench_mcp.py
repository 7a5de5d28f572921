#!/usr/bin/python3
"""The MCP surface's sizes and progress, for scripts/bench.sh: what an agent's client receives
from `shuttle mcp`, spoken to as raw JSON-RPC over its stdio (no SDK between).

- tools/list: the bytes of its answer as it comes on the wire.
- replies: the five largest results of a small matrix (trees of a 300-button fixture and of the
  GTK 3 widget factory, as JSON and as an outline, and computer_state), each as the daemon
  answers it whole (what an MCP result carried before the budget) and as the text of the MCP
  result under the default budget.
- progress: for a 3 s wait sent with a progress token, how late each notification arrives after
  the moment it reports (arrival since the request, less the seconds it carries), in ms; and
  for a script that calls desk.progress with its clock, how late the notification carrying each
  line arrives after that call, in ms.

Usage: bench_mcp.py SHUTTLE FIXTURE WORKDIR (the daemon at SHUTTLE_SOCKET already runs, and the
widget factory shows)."""
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time

import desk_wire
from waiting import listed, until

SHUTTLE, FIXTURE, WORK = sys.argv[1:4]


class Mcp:
    """`shuttle mcp` as a child, one JSON-RPC line each way."""

    def __init__(self):
        self.child = subprocess.Popen(
            [SHUTTLE, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.child.stdin.write((json.dumps(message) + "\n").encode())
        self.child.stdin.flush()

    def request(self, method, params, on_message=None):
        """The answer's raw line; each message before it goes to `on_message`."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.child.stdout.readline()
            if not line:
                sys.exit(f"shuttle mcp ended before answering {method}")
            message = json.loads(line)
            if message.get("id") == self.next_id and "method" not in message:
                return line
            if on_message:
                on_message(message)

    def close(self):
        self.child.stdin.close()
        self.child.wait(timeout=10)


def text_bytes(line):
    result = json.loads(line)["result"]
    return sum(len(c["text"].encode()) for c in result["content"] if c["type"] == "text")


def main():
    app = subprocess.Popen(
        ["/usr/bin/python3", FIXTURE, "--title", "bench many", "--log", os.path.join(WORK, "many.log"),
         "--many", "300"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(os.environ["SHUTTLE_SOCKET"])
    mcp = Mcp()
    try:
        until("the 300-button fixture", lambda: listed("bench many"), 20)
        factory = "gtk3-widget-factory"
        matrix = [
            ("snapshot of 300 buttons, view all", "look", "desk_snapshot",
             {"verb": "snapshot", "window": "bench many", "view": "all"}),
            ("snapshot of the widget factory, view all", "look", "desk_snapshot",
             {"verb": "snapshot", "window": factory, "view": "all"}),
            ("outline of 300 buttons, view all", "look", "desk_snapshot",
             {"verb": "snapshot", "window": "bench many", "view": "all", "text": True}),
            ("outline of the widget factory, view all", "look", "desk_snapshot",
             {"verb": "snapshot", "window": factory, "view": "all", "text": True}),
            ("computer_state", "computer", "desk_computer_state", {"verb": "computer_state"}),
        ]
        listed_line = mcp.request("tools/list", {})
        print(f"tools/list on the wire: {len(listed_line)} bytes, "
              f"{len(json.loads(listed_line)['result']['tools'])} tools.")
        print()
        print("| result | whole reply, bytes (before the budget) | MCP text now, bytes | cut |")
        print("|---|---|---|---|")
        for name, tool, wire, args in matrix:
            wire_args = {k: v for k, v in args.items() if k != "verb"}
            whole = desk_wire.call(sock, "bench-mcp", wire, wire_args)
            line = mcp.request("tools/call", {"name": tool, "arguments": args})
            cut = (json.loads(line)["result"].get("structuredContent") or {}).get("cut")
            said = f"{cut['shown']} of {cut['of']} {cut['units']}" if cut else "none"
            if not cut:
                for block in json.loads(line)["result"]["content"]:
                    if block["type"] == "text" and block["text"].startswith('{"cut"'):
                        cut = json.loads(block["text"])["cut"]
                        said = f"{cut['shown']} of {cut['of']} {cut['units']}"
            print(f"| {name} | {len(whole['text'].encode())} | {text_bytes(line)} | {said} |")
        print()
        since = json.loads(desk_wire.call(sock, "bench-mcp", "desk_windows", {})["text"])
        late = []
        started = time.monotonic()

        def heard(message):
            if message.get("method") == "notifications/progress":
                arrived = time.monotonic() - started
                late.append((arrived - message["params"]["progress"]) * 1000)

        mcp.request("tools/call", {"name": "look", "arguments": {"verb": "wait", "since": since,
                                                                 "timeout_ms": 3000},
                                   "_meta": {"progressToken": "bench"}}, heard)
        print(f"Progress of a 3 s wait: {len(late)} notifications, each "
              f"{min(late):.1f} to {max(late):.1f} ms (median {statistics.median(late):.1f}) after "
              "the moment it reports.")
        # News: a script passes its clock to desk.progress once a second; each line's first
        # notification is timed against it (one machine, one clock).
        news = {}

        def told(message):
            if message.get("method") == "notifications/progress":
                said = re.match(r'script_run: \u27ea"at (\d+)"\u27eb', message["params"].get("message", ""))
                if said and said[1] not in news:
                    news[said[1]] = time.time() * 1000 - float(said[1])

        code = ("export async function main() { for (let i = 0; i < 5; i++) { "
                "await new Promise((r) => setTimeout(r, 1000)); desk.progress(`at ${Date.now()}`); } }")
        mcp.request("tools/call", {"name": "script_run", "arguments": {"code": code},
                                   "_meta": {"progressToken": "bench-news"}}, told)
        delays = list(news.values())
        print(f"News from a script's desk.progress, once a second for 5 s: {len(delays)} of 5 told, "
              f"each {min(delays):.1f} to {max(delays):.1f} ms (median {statistics.median(delays):.1f}) "
              "after the script's call.")
    finally:
        mcp.close()
        app.terminate()
        app.wait()


main()
