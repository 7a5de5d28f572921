"""The desk wire for the benchmark scripts: one call, a u32 length and a JSON packet each way."""
import json
import struct
import sys


def _read(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            sys.exit("the daemon closed the connection")
        data += chunk
    return data


def call(sock, agent, tool, args, check=True):
    """Sends `tool` with `args` as `agent` and answers the reply (`text`, `is_error`, ...); an
    error reply ends the script, saying which tool failed, unless `check` is false."""
    payload = json.dumps({"agent_id": agent, "tool": tool, "args": args}).encode()
    sock.sendall(struct.pack(">I", len(payload)) + payload)
    (length,) = struct.unpack(">I", _read(sock, 4))
    reply = json.loads(_read(sock, length))
    if check and reply["is_error"]:
        sys.exit(f"{tool} failed: {reply['text']}")
    return reply
