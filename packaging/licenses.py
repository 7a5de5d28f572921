#!/usr/bin/env python3
"""Prints THIRD-PARTY-LICENSES.md for the release archive: every crate the shuttle binary is
built from (normal dependencies on x86_64 Linux, as Cargo.lock pins them), its licence, and the
text of each licence file the crate ships. Node's own licence travels as node/LICENSE."""

import json
import pathlib
import subprocess

TARGET = "x86_64-unknown-linux-gnu"
PREFIXES = ("LICENSE", "LICENCE", "COPYING", "NOTICE", "UNLICENSE")


def cargo(*args):
    return subprocess.run(["cargo", *args], check=True, capture_output=True, text=True).stdout


def main():
    tree = cargo("tree", "--locked", "-p", "shuttle", "-e", "normal", "--target", TARGET,
                 "--prefix", "none", "--format", "{p}")
    wanted = set()
    for line in tree.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].startswith("v"):
            wanted.add((parts[0], parts[1][1:]))
    meta = json.loads(cargo("metadata", "--locked", "--format-version", "1"))
    members = set(meta["workspace_members"])
    crates = sorted(
        (p for p in meta["packages"]
         if (p["name"], p["version"]) in wanted and p["id"] not in members),
        key=lambda p: (p["name"], p["version"]),
    )
    print("# Third-party licences\n")
    print(f"The shuttle binary is built from these {len(crates)} crates. Each section names a "
          "crate, its licence as the crate declares it, and the licence files it ships.\n")
    for p in crates:
        print(f"## {p['name']} {p['version']}\n")
        print(f"Licence: {p.get('license') or 'see its licence file'}\n")
        folder = pathlib.Path(p["manifest_path"]).parent
        files = sorted(f for f in folder.iterdir()
                       if f.is_file() and f.name.upper().startswith(PREFIXES))
        for f in files:
            text = f.read_text(errors="replace").strip("\n")
            print(f"### {f.name}\n\n```text\n{text}\n```\n")


if __name__ == "__main__":
    main()
