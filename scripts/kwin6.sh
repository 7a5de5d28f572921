#!/usr/bin/env bash
# Puts Plasma 6's KWin (Debian 13's kwin-wayland) beside this Debian 12 machine for the tests
# of the KDE desk on KWin 6, without installing anything: apt downloads the packages into
# target/kwin6 (a package list and cache of its own, signed by Debian's keys), they are unpacked
# into a tree there, and target/kwin6/bin/kwin_wayland runs that tree's KWin under bubblewrap,
# with the tree as its root and the machine's /tmp, homes, runtime directories and this checkout
# bound in. A private seat finds it first on PATH. Prints the bin directory.
#
# Reuses the tree once made of the same packages; SHUTTLE_KWIN6_FRESH=1 makes it again. Needs apt-get, dpkg-deb and
# bwrap (scripts/deps.sh installs bubblewrap). Run by scripts/test.sh; alone: scripts/kwin6.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir="$root/target/kwin6"
tree="$dir/tree"
bin="$dir/bin"
# The packages: KWin; its Breeze decorations, which a Plasma desktop has (without a decoration
# of KWin's, Qt apps draw their own title bar and count their positions from below it); and the
# PipeWire library shuttle links, for the input method KWin starts.
packages=(kwin-wayland kwin-style-breeze libpipewire-0.3-0t64)

if [ -x "$tree/usr/bin/kwin_wayland" ] && [ -z "${SHUTTLE_KWIN6_FRESH:-}" ] &&
  [ "$(cat "$dir/packages" 2>/dev/null)" = "${packages[*]}" ]; then
  echo "$bin"
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$bin"
echo "deb http://deb.debian.org/debian trixie main" >"$dir/apt/sources.list"
: >"$dir/apt/status"
# An empty dpkg status: apt fetches every package KWin needs, the C library too.
apt=(apt-get -qq -o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt" -o "Dir::Cache::Archives=$dir/apt/archives"
  -o "Dir::State::status=$dir/apt/status" -o Debug::NoLocking=1 -o Acquire::Languages=none
  -o APT::Install-Recommends=false)
echo "== kwin6: Debian 13's package lists" >&2
"${apt[@]}" update
echo "== kwin6: downloading ${packages[*]} and what they need" >&2
"${apt[@]}" install --download-only -y "${packages[@]}" >/dev/null
mkdir -p "$tree/usr/bin" "$tree/usr/sbin" "$tree/usr/lib" "$tree/usr/lib64"
for link in bin sbin lib lib64; do ln -s "usr/$link" "$tree/$link"; done
echo "== kwin6: unpacking $(find "$dir/apt/archives" -name '*.deb' | wc -l) packages into $tree" >&2
for deb in "$dir"/apt/archives/*.deb; do dpkg-deb -x "$deb" "$tree"; done
rm -rf "$dir/apt/archives"

# The host's /proc is bound, not mounted anew: a user namespace without root may not mount one.
# The seat's and the tests' directories are bound where they are (/tmp, the homes, the runtime
# directories, this checkout), onto mount points made here: bubblewrap without root cannot make
# them in a tree root owns.
binds=(/tmp /root /home /run/user /var/tmp "$root")
for d in "${binds[@]}"; do mkdir -p "$tree$d"; done
{
  echo '#!/usr/bin/env bash'
  echo "# KWin 6 from $tree, run as if installed (made by scripts/kwin6.sh)."
  printf 'tree=%q\n' "$tree"
  printf 'binds=(%s)\n' "$(printf '%q ' "${binds[@]}")"
  cat <<'EOF'
args=(--bind "$tree" / --dev-bind /dev /dev --ro-bind /proc /proc --ro-bind /sys /sys
  --ro-bind /etc/passwd /etc/passwd --ro-bind /etc/group /etc/group)
[ -e /etc/machine-id ] && args+=(--ro-bind /etc/machine-id /etc/machine-id)
for d in "${binds[@]}"; do
  [ -d "$d" ] && args+=(--bind "$d" "$d")
done
exec bwrap "${args[@]}" /usr/bin/kwin_wayland "$@"
EOF
} >"$bin/kwin_wayland"
chmod +x "$bin/kwin_wayland"
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
echo "${packages[*]}" >"$dir/packages"
echo "$bin"
