#!/usr/bin/env bash
# Tests the release archive and the Debian package the way a person installs them:
#
# - builds both, and packs the archive twice from the same build: the bytes must be the same
#   (this checks the packing; the second run reuses the binary, so the build is not rebuilt);
# - install.sh from the archive into a scratch prefix, shuttle doctor on it, --remove;
# - install.sh refuses a damaged archive, a changed file and a Node that is not the pinned one,
#   naming the file, and installs nothing;
# - installs the .deb on this machine, runs shuttle doctor and the demo through /usr/bin/shuttle,
#   has the installed daemon take a screenshot in a Plasma session (a headless KWin, whose
#   grant comes from the desktop file the package installs, with no `shuttle setup kde`),
#   upgrades it and removes it while a daemon runs (the daemon must go each time), purges it
#   and checks that none of its files is left.
#
# Needs root or sudo (dpkg). Run by scripts/test.sh, with SHUTTLE_BINARY naming the binary its
# tests ran (packaging/archive.sh packs that one rather than building the dist profile);
# alone, packaging/test.sh builds the dist profile as a release does.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

step() { echo "== packaging: $*" >&2; }
fail() {
  echo "packaging test FAILED: $*" >&2
  exit 1
}

scratch=$(mktemp -d -t shuttle-packaging-XXXXXX)
started_pids=()
started_groups=()
cleanup() {
  for pid in "${started_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for group in "${started_groups[@]}"; do kill -- "-$group" 2>/dev/null || true; done
  if dpkg-query -W -f='${Status}' shuttle 2>/dev/null | grep -q "install ok"; then
    "${sudo[@]}" dpkg -P shuttle >/dev/null 2>&1 || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# Whether process $1 has ended (a zombie has).
gone() { [ ! -e "/proc/$1" ] || grep -q ') Z ' "/proc/$1/stat" 2>/dev/null; }

# Waits up to $2 seconds for "$1" (a command) to succeed.
wait_until() {
  local deadline=$((SECONDS + $2))
  until eval "$1"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# Starts `shuttle serve` from $1 on a socket of its own, detached (so that init, not this
# script, reaps it); prints its pid once it listens.
start_daemon() {
  local sock="$scratch/sock-$RANDOM"
  mkdir -m 700 "$sock"
  (SHUTTLE_SOCKET="$sock/desk.sock" HOME="$scratch/home" "$1" serve --foreground \
    </dev/null >"$sock/log" 2>&1 &
    echo $! >"$sock/pid")
  local pid
  pid=$(cat "$sock/pid")
  started_pids+=("$pid")
  wait_until "[ -S '$sock/desk.sock' ]" 10 || fail "the daemon from $1 did not listen: $(cat "$sock/log")"
  echo "$pid"
}

step "the archive"
archive=$(packaging/archive.sh)
first=$(cut -d ' ' -f 1 "$archive.sha256")
step "the archive packed again, from the same build"
archive=$(packaging/archive.sh)
second=$(cut -d ' ' -f 1 "$archive.sha256")
[ "$first" = "$second" ] || fail "two packings of one build differ: $first, then $second"
step "the .deb"
deb=$(packaging/deb.sh "$archive")
# The sandbox of the apps agents launch needs bubblewrap, GTK 2 apps on the accessibility bus
# libgail-common and libatk-adaptor; apt installs what a package recommends.
for recommended in bubblewrap libgail-common libatk-adaptor; do
  dpkg-deb -f "$deb" Recommends | grep -qw "$recommended" || fail "the .deb does not recommend $recommended"
done
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)

step "install.sh into a scratch prefix, doctor, --remove"
prefix="$scratch/prefix"
packaging/install.sh --prefix "$prefix" "$archive" >/dev/null
[ "$("$prefix/bin/shuttle" --version)" = "shuttle $version" ] || fail "the installed binary is not $version"
HOME="$scratch/home" "$prefix/bin/shuttle" doctor --json >"$scratch/doctor.json" || true
node_status=$("$prefix/lib/shuttle/node/bin/node" -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(r.checks.find((c) => c.name === "node").status)' "$scratch/doctor.json")
[ "$node_status" = ok ] || fail "doctor does not find the archive's Node beside the binary: $(cat "$scratch/doctor.json")"
packaging/install.sh --prefix "$prefix" --remove >/dev/null
left=$(find "$prefix/lib" "$prefix/bin" -mindepth 1)
[ -z "$left" ] || fail "install.sh --remove left $left"

step "install.sh refuses a damaged archive"
cp "$archive" "$scratch/damaged.tar.gz"
cp "$archive.sha256" "$scratch/damaged.tar.gz.sha256"
printf 'x' | dd of="$scratch/damaged.tar.gz" bs=1 seek=1000000 conv=notrunc 2>/dev/null
if said=$(packaging/install.sh --prefix "$scratch/p2" "$scratch/damaged.tar.gz" 2>&1); then
  fail "a damaged archive was installed"
fi
grep -q "refusing $scratch/damaged.tar.gz: its sha256 is" <<<"$said" || fail "unclear refusal: $said"
[ ! -e "$scratch/p2" ] || fail "a refused archive left $scratch/p2"

step "install.sh refuses a changed file and a Node that is not the pinned one"
mkdir "$scratch/changed" "$scratch/node"
tar -xzf "$archive" -C "$scratch/changed"
tar -xzf "$archive" -C "$scratch/node"
changed=$(echo "$scratch"/changed/shuttle-*)
echo "# changed" >>"$changed/README.md"
if said=$("$changed/install.sh" --prefix "$scratch/p3" 2>&1); then fail "a changed tree was installed"; fi
grep -q "differ from SHA256SUMS: README.md" <<<"$said" || fail "unclear refusal: $said"
other=$(echo "$scratch"/node/shuttle-*)
cp /bin/true "$other/node/bin/node"
(cd "$other" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs sha256sum >SHA256SUMS)
if said=$("$other/install.sh" --prefix "$scratch/p3" 2>&1); then fail "a wrong Node was installed"; fi
grep -q "refusing to install: $other/node/bin/node has sha256" <<<"$said" || fail "unclear refusal: $said"
[ ! -e "$scratch/p3" ] || fail "a refused tree left $scratch/p3"

step "the .deb: install, doctor, demo"
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$PWD/$deb" >/dev/null
[ "$(readlink -f "$(command -v shuttle)")" = /usr/lib/shuttle/shuttle ] || fail "shuttle on PATH is not the package's"
HOME="$scratch/home" shuttle doctor || fail "shuttle doctor found a problem after installing the .deb"
TMPDIR="$scratch" HOME="$scratch/home" /usr/share/shuttle/demo.sh >"$scratch/demo.log" 2>&1 ||
  fail "the demo failed through the installed binary: $(cat "$scratch/demo.log")"
shot="$scratch/shuttle-demo-screenshot.png"
[ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the demo saved no PNG"
[ "$(stat -c %s "$shot")" -gt 10000 ] || fail "the demo's screenshot is nearly empty"

step "the .deb: a Plasma session grants the installed binary its interfaces"
kde="$scratch/kde"
mkdir -p "$kde/home/.config/loomhand/shuttle" "$kde/bin"
mkdir -m 700 "$kde/run" "$kde/sock"
printf '[daemon]\ndisplay = "inherit"\n' >"$kde/home/.config/loomhand/shuttle/config.toml"
# A copy without the file capability a container may refuse (docs/kde.md).
cp /usr/bin/kwin_wayland "$kde/bin/kwin_wayland"
session=(env -u DISPLAY -u WAYLAND_DISPLAY -u DBUS_SESSION_BUS_ADDRESS -u AT_SPI_BUS_ADDRESS
  HOME="$kde/home" XDG_CONFIG_HOME="$kde/home/.config" XDG_DATA_HOME="$kde/home/.local/share"
  XDG_CACHE_HOME="$kde/home/.cache" XDG_RUNTIME_DIR="$kde/run" XDG_CURRENT_DESKTOP=KDE
  XDG_SESSION_TYPE=wayland)
# The login: a session bus, and KWin in it, a process group of their own.
"${session[@]}" setsid dbus-run-session -- sh -c 'echo "$DBUS_SESSION_BUS_ADDRESS" >"$0.new"
  mv "$0.new" "$0"
  exec "$1" --virtual --no-lockscreen --no-kactivities --socket wayland-pkg --width 800 --height 600' \
  "$kde/bus" "$kde/bin/kwin_wayland" </dev/null >"$kde/kwin.log" 2>&1 &
started_groups+=("$!")
wait_until "[ -s '$kde/bus' ] && [ -S '$kde/run/wayland-pkg' ]" 20 ||
  fail "KWin did not start: $(cat "$kde/kwin.log")"
bus=$(cat "$kde/bus")
wait_until "DBUS_SESSION_BUS_ADDRESS='$bus' gdbus call --session -d org.kde.KWin -o /KWin -m org.kde.KWin.supportInformation >/dev/null 2>&1" 20 ||
  fail "KWin did not answer on its bus: $(cat "$kde/kwin.log")"
"${session[@]}" WAYLAND_DISPLAY=wayland-pkg DBUS_SESSION_BUS_ADDRESS="$bus" \
  SHUTTLE_SOCKET="$kde/sock/desk.sock" setsid /usr/bin/shuttle serve --foreground \
  </dev/null >"$kde/daemon.log" 2>&1 &
started_groups+=("$!")
wait_until "[ -S '$kde/sock/desk.sock' ]" 10 || fail "the daemon did not listen: $(cat "$kde/daemon.log")"
"${session[@]}" WAYLAND_DISPLAY=wayland-pkg DBUS_SESSION_BUS_ADDRESS="$bus" \
  /usr/bin/shuttle doctor >"$kde/doctor.log" 2>&1 || true
grep -q "shuttle's desktop file grants it fake input and screenshots; driven natively" "$kde/doctor.log" ||
  fail "doctor does not find the package's desktop file: $(cat "$kde/doctor.log")"
SHUTTLE_SOCKET="$kde/sock/desk.sock" /usr/bin/shuttle desk shot --image "$kde/shot.png" >"$kde/shot.json" 2>&1 ||
  fail "the installed daemon could not take a screenshot in the Plasma session: $(cat "$kde/shot.json") $(cat "$kde/daemon.log")"
[ "$(head -c 8 "$kde/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the Plasma session's shot is no PNG"
# The daemon, then the session; each group once, so no later cleanup meets a reused id.
for group in "${started_groups[@]}"; do kill -- "-$group" 2>/dev/null || true; done
started_groups=()

step "the .deb: an upgrade stops the running daemon"
pid=$(start_daemon /usr/bin/shuttle)
"${sudo[@]}" dpkg -i "$deb" >/dev/null
wait_until "gone $pid" 10 || fail "the daemon (pid $pid) outlived the upgrade"

step "the .deb: removal stops the daemon and leaves none of its files"
pid=$(start_daemon /usr/bin/shuttle)
"${sudo[@]}" dpkg -r shuttle >/dev/null
wait_until "gone $pid" 10 || fail "the daemon (pid $pid) outlived the removal"
# With no conffiles, nothing is left to purge; when something is, purge it.
if dpkg-query -W -f='${db:Status-Abbrev}' shuttle 2>/dev/null | grep -q '^rc'; then
  "${sudo[@]}" dpkg -P shuttle >/dev/null
fi
left=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|' |
  while read -r path; do [ ! -e "$path" ] && [ ! -L "$path" ] || echo "$path"; done)
[ -z "$left" ] || fail "removing the package left $left"
echo "packaging: archive $(du -h "$archive" | cut -f 1), .deb $(du -h "$deb" | cut -f 1); all checks passed" >&2
