#!/usr/bin/env python3
"""shuttle mcp through the MCP Python SDK, as a client program would use it: the tools and
their annotations, progress from a launch, a cut reply's whole read as a resource, a
long call cancelled, and results the SDK checks against their tools' output schemas. Prints one JSON object of what it saw; the Rust e2e test judges it.

Usage: python_sdk.py SHUTTLE WINDOW LAUNCH (a window with a tree over 8 KB, already on the
display; a shell command that starts an app slowly, launched through /bin/sh -c)
Environment: SHUTTLE_SOCKET, the daemon's socket."""
import json
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SHUTTLE, WINDOW, LAUNCH = sys.argv[1], sys.argv[2], sys.argv[3]


async def main():
    seen = {}
    server = StdioServerParameters(command=SHUTTLE, args=["mcp"], env=dict(os.environ))
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            seen["tools"] = {
                t.name: t.annotations.model_dump(by_alias=True, exclude_none=True) if t.annotations else None
                for t in tools
            }
            seen["output_schemas"] = [t.name for t in tools if t.output_schema]
            progress = []

            async def on_progress(value, total, message):
                progress.append([value, message])

            listed = (await session.call_tool("look", {"verb": "windows"})).content
            since = json.loads(_data(listed))
            launched = await session.call_tool(
                "desk",
                {"verb": "launch", "app": "/bin/sh", "args": ["-c", LAUNCH]},
                progress_callback=on_progress,
            )
            seen["progress"] = progress
            seen["launched_pid"] = launched.structured_content["pid"]
            tree = await session.call_tool("look", {"verb": "snapshot", "window": WINDOW, "view": "all"})
            cut = tree.structured_content["cut"]
            links = [c.uri for c in tree.content if c.type == "resource_link"]
            whole = await session.read_resource(str(links[0]))
            seen["cut"] = {
                "shown": cut["shown"],
                "of": cut["of"],
                "link": str(links[0]),
                "whole_nodes": len(json.loads(whole.contents[0].text)["nodes"]),
            }
            # A long wait cancelled by the client: the next call is answered at once.
            started = time.monotonic()
            with anyio.move_on_after(0.5):
                await session.call_tool(
                    "look", {"verb": "wait", "since": since, "timeout_ms": 5000}
                )
            status = await session.call_tool("status", {})
            seen["after_cancel_s"] = round(time.monotonic() - started, 2)
            seen["status_ok"] = not status.is_error
            # Tools with an output schema: the SDK checks each result against it, and raises
            # if it fails.
            shot = await session.call_tool("screenshot", {})
            run = await session.call_tool(
                "script_run", {"code": "export async function main() { return { ok: 1 }; }"}
            )
            # A report over the budget, cut: still what its schema says.
            long = await session.call_tool(
                "script_run",
                {"code": "export async function main() { console.log('x'.repeat(30000)); return 2; }"},
            )
            seen["checked"] = {
                "screenshot_width": shot.structured_content["width"],
                "script_result": run.structured_content["result"],
                "cut_result": long.structured_content["result"],
                "cut": "cut" in long.structured_content,
            }
    print(json.dumps(seen))


def _data(content):
    """The JSON between a reply's data fence."""
    text = next(c.text for c in content if c.type == "text" and "\u27e6data " in c.text)
    body = text.split("\u27e6data ", 1)[1].split("\n", 1)[1]
    return body.rsplit("\n\u27e6/data ", 1)[0]


anyio.run(main)
