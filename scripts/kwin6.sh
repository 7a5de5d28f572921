#!/usr/bin/env bash
# Puts Plasma 6's KWin (Debian 13's kwin-wayland) beside this Debian 12 machine for the tests
# of the KDE desk on KWin 6 (scripts/trixie.sh says how): target/kwin6/bin/kwin_wayland runs
# the tree's KWin under bubblewrap. Prints the bin directory.
#
# Reuses the tree once made of the same packages; SHUTTLE_TRIXIE_FRESH=1 makes it again. Run by
# scripts/test.sh; alone: scripts/kwin6.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/trixie.sh
# The packages: KWin; its Breeze decorations, which a Plasma desktop has (without a decoration
# of KWin's, Qt apps draw their own title bar and count their positions from below it); and the
# PipeWire library shuttle links, for the input method KWin starts.
if trixie_reuse kwin6 kwin-wayland kwin-style-breeze libpipewire-0.3-0t64; then
  echo "$bin"
  exit 0
fi
trixie_unpack
trixie_wrap kwin_wayland
said=$("$bin/kwin_wayland" --version 2>&1 || true)
case "$said" in
  *"kwin 6."*) echo "== kwin6: $(grep -o 'kwin 6[^ ]*' <<<"$said") in $tree" >&2 ;;
  *)
    echo "kwin6: the tree's KWin does not run under bubblewrap: $said" >&2
    echo "kwin6: bubblewrap needs user namespaces (or root, and in a container CAP_SYS_ADMIN)" >&2
    exit 1
    ;;
esac
# Written last: a tree whose KWin did not run is made again next time.
trixie_keep
echo "$bin"
