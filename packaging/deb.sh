#!/usr/bin/env bash
# Builds the Debian package from the release archive, beside it: target/dist/shuttle_VERSION_amd64.deb.
#
#   packaging/deb.sh target/dist/shuttle-VERSION-x86_64-linux.tar.gz
#
# It installs /usr/lib/shuttle/shuttle with the pinned Node beside it (node/bin/node), links
# /usr/bin/shuttle, puts the demo in /usr/share/shuttle and the docs and licences in
# /usr/share/doc/shuttle, and installs the desktop file that has KWin grant the installed
# binary fake input and screenshots (/usr/share/applications, read at login). It depends on what private displays and accessibility need (Xvfb,
# openbox, D-Bus, the AT-SPI bus, xdg-utils), and on no browser or office app. Before an upgrade
# or a removal it stops every daemon running its binary. Packed repeatably as the archive
# is: every time is the archive's, and dpkg-deb orders the entries itself.
set -euo pipefail
cd "$(dirname "$0")/.."
archive="${1:?usage: packaging/deb.sh ARCHIVE.tar.gz}"
[ -f "$archive" ] || { echo "deb.sh: no such archive: $archive" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
src=$(echo "$work"/shuttle-*)
version=$("$src/shuttle" --version | cut -d ' ' -f 2)
# The archive's entries all carry the commit's time.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(stat -c %Y "$src/shuttle")}"

pkg="$work/pkg"
doc="$pkg/usr/share/doc/shuttle"
mkdir -p "$pkg/DEBIAN" "$pkg/usr/lib/shuttle/node/bin" "$pkg/usr/bin" "$pkg/usr/share/shuttle" "$doc"
install -m 0755 "$src/shuttle" "$pkg/usr/lib/shuttle/shuttle"
install -m 0755 "$src/node/bin/node" "$pkg/usr/lib/shuttle/node/bin/node"
install -m 0644 "$src/node/LICENSE" "$pkg/usr/lib/shuttle/node/LICENSE"
ln -s ../lib/shuttle/shuttle "$pkg/usr/bin/shuttle"
install -m 0755 "$src/demo.sh" "$pkg/usr/share/shuttle/demo.sh"
install -m 0644 "$src/demo.mjs" "$pkg/usr/share/shuttle/demo.mjs"
cp -r "$src/runtime" "$pkg/usr/share/shuttle/runtime"
# What `shuttle setup kde` writes for a binary elsewhere, made by the binary itself and naming
# where the package installs it.
mkdir -p "$pkg/usr/share/applications"
desktop="$pkg/usr/share/applications/dev.shuttle.desk.desktop"
"$src/shuttle" setup kde --print | sed -e '1{/^#/d}' -e 's|^Exec=.*|Exec=/usr/lib/shuttle/shuttle|' >"$desktop"
chmod 0644 "$desktop"
grep -qx 'Exec=/usr/lib/shuttle/shuttle' "$desktop" || { echo "deb.sh: the desktop file names no Exec: $desktop" >&2; exit 1; }
for f in "$src/README.md" "$src/THIRD-PARTY-LICENSES.md" "$src"/docs/*.md; do
  gzip -n -9 -c "$f" >"$doc/$(basename "$f").gz"
done
cat >"$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: shuttle

Files: *
Copyright: 2026 The shuttle developers
License: MIT or Apache-2.0
 The texts are in /usr/share/doc/shuttle/LICENSE-MIT and LICENSE-APACHE.

Files: usr/lib/shuttle/node/*
Copyright: Node.js contributors and others
License: MIT and others
 The text is in /usr/lib/shuttle/node/LICENSE.

Files: usr/lib/shuttle/shuttle
Comment: The binary also holds the Rust crates listed, with their licences, in
 /usr/share/doc/shuttle/THIRD-PARTY-LICENSES.md.gz.
EOF
install -m 0644 "$src/LICENSE-MIT" "$src/LICENSE-APACHE" "$doc/"

size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f 1)
cat >"$pkg/DEBIAN/control" <<EOF
Package: shuttle
Version: $version
Architecture: amd64
Maintainer: The shuttle developers <shuttle@users.noreply.invalid>
Installed-Size: $size
Depends: libc6 (>= 2.28), libgcc-s1, libstdc++6, libpipewire-0.3-0, libxkbcommon0, xvfb, openbox, dbus, at-spi2-core, xdg-utils
Recommends: bubblewrap, libgail-common, libatk-adaptor
Section: utils
Priority: optional
Description: computer use for AI agents
 shuttle lets an AI agent (Claude Code, Codex, Cursor or any MCP client) read
 and drive a Linux desktop: windows, accessibility trees, screenshots, exact
 typing, clicks, scrolling, launching apps and scripts on a pinned Node.js.
 By default each agent gets a private virtual desktop of its own.
 .
 Run "shuttle setup CLIENT" to add it to an MCP client, then "shuttle doctor".
EOF
cat >"$pkg/DEBIAN/prerm" <<'EOF'
#!/bin/sh
# Stops every shuttle daemon running this package's binary, so none is left running a program
# that is about to be replaced or removed; an agent's next call starts the new one.
set -e
case "$1" in
  remove | upgrade | deconfigure | failed-upgrade) ;;
  *) exit 0 ;;
esac
exe=/usr/lib/shuttle/shuttle
pids=""
for proc in /proc/[0-9]*; do
  link=$(readlink "$proc/exe" 2>/dev/null) || continue
  case "$link" in "$exe" | "$exe (deleted)") ;; *) continue ;; esac
  tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -q ' serve' || continue
  pids="$pids ${proc#/proc/}"
done
[ -n "$pids" ] || exit 0
kill -TERM $pids 2>/dev/null || true
i=0
while [ $i -lt 50 ]; do
  alive=""
  # A zombie has ended; its parent has not reaped it yet.
  for p in $pids; do
    kill -0 "$p" 2>/dev/null && ! grep -q ') Z ' "/proc/$p/stat" 2>/dev/null && alive="$alive $p"
  done
  [ -n "$alive" ] || exit 0
  sleep 0.1
  i=$((i + 1))
done
kill -KILL $alive 2>/dev/null || true
exit 0
EOF
chmod 0755 "$pkg/DEBIAN/prerm"
(cd "$pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
  xargs md5sum >DEBIAN/md5sums)
chmod 0644 "$pkg/DEBIAN/md5sums" "$pkg/DEBIAN/control"
find "$pkg" -type d -exec chmod 0755 {} +
find "$pkg" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

# Beside the archive it is made from (target/dist, or target/dist-test for a test's).
out="$(dirname "$archive")/shuttle_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out" >/dev/null
(cd "$(dirname "$out")" && sha256sum "$(basename "$out")" >"$(basename "$out").sha256")
echo "== deb: $(du -h "$out" | cut -f 1) $(cat "$out.sha256")" >&2
echo "$out"
