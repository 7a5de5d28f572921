#!/usr/bin/python3
"""Model benchmarks for scripts/bench.sh, against tests/fixture/model_server.py on loopback:

- the daemon's overhead on a model call: `model_ask` over the desk wire against the same
  chat-completions POST sent straight to the server (a new connection per call on both paths,
  as the daemon sends each call once on a connection of its own);
- a plan's first run (the Save button found by model_ground) against its replay (the recorded
  point reused): model calls and wall time, on the fixture's saver window.

Usage: bench_models.py SHUTTLE WORKDIR (on the virtual desktop, with SHUTTLE_NODE set). Starts
its own model server, daemon and fixture, and ends them."""
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
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEY_VAR, KEY = "SHUTTLE_BENCH_MODEL_KEY", "bench-key-not-secret"


def p99(times):
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, (len(ordered) * 99) // 100)]


class Wire:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)

    def call(self, tool, args):
        return json.loads(desk_wire.call(self.sock, "bench-models", tool, args)["text"])


def wait_for(what, check, limit=20.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    sys.exit(f"bench_models: gave up waiting for {what}")


def main():
    record, ground = os.path.join(WORK, "requests.jsonl"), os.path.join(WORK, "ground.json")
    with open(ground, "w") as f:
        f.write("{}")
    server = subprocess.Popen(
        ["/usr/bin/python3", os.path.join(ROOT, "tests/fixture/model_server.py"), record, ground],
        stdout=subprocess.PIPE,
    )
    port = int(server.stdout.readline())
    config = os.path.join(WORK, "models-config.toml")
    with open(config, "w") as f:
        f.write(
            f'[models]\nbase_url = "http://127.0.0.1:{port}/v1"\napi_key_env = "{KEY_VAR}"\n'
            'timeout_ms = 10000\ndecide = "decider"\nverify = "verifier"\nground = "grounder"\n'
            'ask = "asker"\n'
        )
    sock_path = os.path.join(WORK, "models.sock")
    env = dict(os.environ, SHUTTLE_SOCKET=sock_path, SHUTTLE_CONFIG=config, SHUTTLE_LOG="warn")
    env[KEY_VAR] = KEY
    daemon = subprocess.Popen([SHUTTLE, "serve", "--foreground", "--display", "inherit"], env=env, stderr=subprocess.DEVNULL)
    fixture = subprocess.Popen(
        ["/usr/bin/python3", os.path.join(ROOT, "tests/fixture/fixture.py"), "--title", "Bench Saver",
         "--log", os.path.join(WORK, "saver.log"), "--saver"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for("the daemon", lambda: os.path.exists(sock_path))
        wire = wait_for("a connection", lambda: try_connect(sock_path))
        overhead(wire, port)
        plans(wire, ground)
    finally:
        for child in (fixture, daemon, server):
            child.terminate()
            child.wait()


def try_connect(path):
    try:
        return Wire(path)
    except OSError:
        return None


def overhead(wire, port):
    prompt = "Say hello."
    body = json.dumps({"model": "asker", "messages": [{"role": "user", "content": prompt}]})

    request = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nAuthorization: Bearer {KEY}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}"
    ).encode()

    def direct():
        # One write and a read to the end, as the daemon's client does: http.client would send
        # the headers and the body in two writes and wait on delayed acknowledgements.
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(request)
            raw = b""
            while chunk := conn.recv(65536):
                raw += chunk
        answer = json.loads(raw.split(b"\r\n\r\n", 1)[1])
        assert answer["choices"][0]["message"]["content"] == f"echo: {prompt}", answer

    def through_daemon():
        answer = wire.call("model_ask", {"prompt": prompt})
        assert answer["text"] == f"echo: {prompt}", answer

    runs = RUNS * 10
    results = {}
    for name, f in (("direct", direct), ("daemon", through_daemon)):
        for _ in range(10):
            f()
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            f()
            times.append((time.perf_counter() - start) * 1000)
        results[name] = times
    d50, d99 = statistics.median(results["direct"]), p99(results["direct"])
    s50, s99 = statistics.median(results["daemon"]), p99(results["daemon"])
    print(f"#### A model call: model_ask through the daemon against the same POST sent directly ({runs} calls each)\n")
    print("| path | p50 ms | p99 ms |")
    print("|---|---|---|")
    print(f"| POST to the loopback server directly | {d50:.2f} | {d99:.2f} |")
    print(f"| `model_ask` over the desk wire | {s50:.2f} | {s99:.2f} |")
    print(f"| the daemon's overhead | {s50 - d50:.2f} | {s99 - d99:.2f} |")
    print()


def plans(wire, ground):
    window = wait_for("the saver window", lambda: find_window(wire))
    found = wire.call("desk_find", {"window": window, "name": "Save", "role": "button"})
    x, y, w, h = found["nodes"][0]["bounds"]
    shot = wire.call("desk_shot", {"window": window})
    left, top = shot["screen_origin"]
    point = [((x + w / 2) // 1 - left) * 1000 / (shot["width"] - 1),
             ((y + h / 2) // 1 - top) * 1000 / (shot["height"] - 1)]
    with open(ground, "w") as f:
        json.dump({"the Save button": point}, f)
    steps = [
        {"do": "click", "target": {"name": "Input", "role": "text"}},
        {"do": "key", "keys": "ctrl+a"},
        {"do": "type", "text": "{{text}}"},
        {"do": "click", "target": {"describe": "the Save button"}},
        {"do": "expect", "name": "Saved: {{text}}"},
    ]
    runs = max(5, RUNS // 3)
    rows = []
    for label, args in (
        ("first run (steps, the button by model_ground)",
         lambda n: {"steps": steps, "params": {"text": f"first {n}"}, "window": "Bench Saver",
                    "save_as": "bench_save"}),
        ("replay (the flow, recorded points)",
         lambda n: {"flow": "bench_save", "params": {"text": f"replay {n}"}}),
    ):
        times, calls = [], []
        for n in range(runs):
            start = time.perf_counter()
            answer = wire.call("gui_plan", args(n))
            times.append((time.perf_counter() - start) * 1000)
            if not answer.get("completed"):
                sys.exit(f"the plan did not complete: {answer}")
            calls.append(answer["model_calls"])
        rows.append((label, statistics.median(times), p99(times), statistics.median(calls)))
    first = rows[0][1]
    print(f"#### A plan on the fixture: type, press Save, expect the label ({runs} runs each)\n")
    print("| run | model calls | median ms | p99 ms | ratio to the first run |")
    print("|---|---|---|---|---|")
    for label, median, worst, calls in rows:
        print(f"| {label} | {calls:g} | {median:.1f} | {worst:.1f} | {median / first:.2f}x |")
    print()


def find_window(wire):
    windows = wire.call("desk_windows", {})
    listed = windows["windows"] if isinstance(windows, dict) else windows
    for w in listed:
        if w.get("title") == "Bench Saver":
            return w["id"]
    return None


if __name__ == "__main__":
    main()
