#!/usr/bin/env bash
# Lines of Rust per crate and the five longest files, at a commit (default: the work tree).
#
#   scripts/loc.sh            the work tree
#   scripts/loc.sh 225eaf6    any commit, read from git without checking it out
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-}

files() {
  if [ -n "$rev" ]; then git ls-tree -r --name-only "$rev" -- crates; else git ls-files crates; fi |
    grep '\.rs$'
}
lines() {
  if [ -n "$rev" ]; then git show "$rev:$1" | wc -l; else wc -l <"$1"; fi
}

table=$(files | while read -r f; do echo "$(lines "$f") $f"; done)
echo "lines of Rust at ${rev:-the work tree} ($(git rev-parse --short "${rev:-HEAD}")), per crate:"
printf '  %-16s %6s %6s\n' crate src tests
echo "$table" | awk '{split($2, p, "/"); kind = ($3 ~ /^src\// || p[3] == "src") ? "src" : "tests";
    n[p[2], kind] += $1; crates[p[2]] = 1; all[kind] += $1}
  END {for (c in crates) printf "  %-16s %6d %6d\n", c, n[c, "src"], n[c, "tests"];
       printf "  %-16s %6d %6d\n", "all", all["src"], all["tests"]}' | sort -k2 -nr
echo "longest files:"
echo "$table" | sort -nr | head -5 | awk '{printf "  %6d  %s\n", $1, $2}'
echo "longest files under src/:"
echo "$table" | grep ' crates/[^/]*/src/' | sort -nr | head -5 | awk '{printf "  %6d  %s\n", $1, $2}'
