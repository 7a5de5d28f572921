#!/usr/bin/env bash
# Puts GNOME Shell 48 (Debian 13's gnome-shell) and its PipeWire beside this Debian 12 machine
# for the tests of the GNOME desk on a Shell that loads extensions as ES modules (45 and
# later), as Ubuntu, Fedora and Debian 13 ship (scripts/trixie.sh says how):
# target/gnome48/bin/gnome-shell and bin/pipewire run the tree's under bubblewrap. Mutter 48
# speaks PipeWire 1.x, so the seat's PipeWire is the tree's too. Prints the bin directory.
#
# Reuses the tree once made of the same packages; SHUTTLE_TRIXIE_FRESH=1 makes it again. Run by
# scripts/test.sh; alone: scripts/gnome48.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/trixie.sh
if trixie_reuse gnome48 gnome-shell pipewire-bin; then
  echo "$bin"
  exit 0
fi
trixie_unpack
trixie_wrap gnome-shell
trixie_wrap pipewire
trixie_wrap glib-compile-schemas
# What dpkg's triggers would have done: the Shell reads its settings' schemas compiled.
"$bin/glib-compile-schemas" /usr/share/glib-2.0/schemas
said=$("$bin/gnome-shell" --version 2>&1 || true)
case "$said" in
  *"GNOME Shell 48"*) echo "== gnome48: $(grep -o 'GNOME Shell 48[^ ]*' <<<"$said") in $tree" >&2 ;;
  *)
    echo "gnome48: the tree's GNOME Shell does not run under bubblewrap: $said" >&2
    echo "gnome48: bubblewrap needs user namespaces (or root, and in a container CAP_SYS_ADMIN)" >&2
    exit 1
    ;;
esac
trixie_keep
echo "$bin"
