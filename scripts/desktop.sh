#!/usr/bin/env bash
# A private headless desktop for shuttle's tests and demo: Xvfb, a session D-Bus, the AT-SPI
# accessibility bus and the openbox window manager, all under one state directory; and, where
# sway is installed, a headless sway beside it for the Wayland tests.
#
#   scripts/desktop.sh start        start it; prints the file to `source` for its environment
#   scripts/desktop.sh stop         stop what `start` started, and nothing else
#   scripts/desktop.sh run CMD...   start, run CMD inside it, stop; exits with CMD's status
#   scripts/desktop.sh status       list the recorded processes and whether they are alive
#
# Settings (environment):
#   SHUTTLE_RIG           state directory (default: ${TMPDIR:-/tmp}/shuttle-rig-$UID)
#   SHUTTLE_RIG_DISPLAY   X display, or "auto" for the first free one from :90 (default: auto)
#   SHUTTLE_RIG_SCREEN    Xvfb screen geometry (default: 1920x1080x24)
#
# Packages: xvfb openbox dbus-x11 at-spi2-core x11-utils, and sway (scripts/deps.sh installs
# them). The Wayland session is not the desktop's: its socket is in SHUTTLE_RIG_WAYLAND (a
# path), never in WAYLAND_DISPLAY, so the apps of the X11 tests stay on X11.
set -euo pipefail

RIG=${SHUTTLE_RIG:-${TMPDIR:-/tmp}/shuttle-rig-$(id -u)}
PIDS=$RIG/pids
ENV_FILE=$RIG/env
LOGS=$RIG/logs

say() { echo "desktop: $*" >&2; }

# until_ok SECONDS CMD...: retry CMD every 50 ms until it succeeds or the time is up.
until_ok() {
  local limit=$1; shift
  local deadline=$(( $(date +%s%N) + limit * 1000000000 ))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s%N)" -ge "$deadline" ]; then return 1; fi
    sleep 0.05
  done
}

# spawn NAME CMD...: start CMD in the background with its output in the log, and record its pid.
spawn() {
  local name=$1; shift
  "$@" >"$LOGS/$name.log" 2>&1 &
  echo "$! $name" >>"$PIDS"
}

# record_bus_owner BUS-ARG NAME LABEL: record the pid of a D-Bus-activated service, which is not
# our child but is ours to stop.
record_bus_owner() {
  local pid
  pid=$(dbus-send "$1" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetConnectionUnixProcessID "string:$2" 2>/dev/null | awk '/uint32/ {print $2}')
  if [ -n "$pid" ]; then echo "$pid $3" >>"$PIDS"; fi
}

free_display() {
  local n=90
  while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
  echo ":$n"
}

start() {
  if [ -s "$PIDS" ]; then
    say "already started (see $PIDS); run '$0 stop' first"
    exit 1
  fi
  for tool in Xvfb openbox dbus-daemon xdpyinfo xprop; do
    command -v "$tool" >/dev/null || { say "$tool is missing: run scripts/deps.sh"; exit 1; }
  done
  [ -x /usr/libexec/at-spi-bus-launcher ] || { say "at-spi2-core is missing: run scripts/deps.sh"; exit 1; }
  mkdir -p "$LOGS" "$RIG/run" "$RIG/home/.config" "$RIG/home/.cache" "$RIG/home/.local/share" "$RIG/home/.local/state"
  chmod 700 "$RIG" "$RIG/run"
  : >"$PIDS"

  local display=${SHUTTLE_RIG_DISPLAY:-auto}
  [ "$display" = auto ] && display=$(free_display)
  # Everything the desktop's programs write stays under the state directory.
  export DISPLAY=$display
  export XDG_RUNTIME_DIR=$RIG/run
  export XDG_CONFIG_HOME=$RIG/home/.config
  export XDG_CACHE_HOME=$RIG/home/.cache
  export XDG_DATA_HOME=$RIG/home/.local/share
  export XDG_STATE_HOME=$RIG/home/.local/state
  export XDG_SESSION_TYPE=x11
  export GDK_BACKEND=x11
  unset NO_AT_BRIDGE GTK_MODULES WAYLAND_DISPLAY

  spawn xvfb Xvfb "$DISPLAY" -screen 0 "${SHUTTLE_RIG_SCREEN:-1920x1080x24}" -nolisten tcp -noreset
  until_ok 10 xdpyinfo -display "$DISPLAY" || { say "Xvfb did not start (see $LOGS/xvfb.log)"; stop; exit 1; }

  # A session bus of our own, so we know its pid and nothing leaks into the user's session.
  export DBUS_SESSION_BUS_ADDRESS=unix:path=$XDG_RUNTIME_DIR/bus
  spawn dbus dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS"
  until_ok 10 dbus-send --session --dest=org.freedesktop.DBus --print-reply / org.freedesktop.DBus.GetId \
    || { say "the session bus did not start (see $LOGS/dbus.log)"; stop; exit 1; }

  # The accessibility bus must be up before any app starts, or the app never registers on it.
  # Wait for our launcher to own the name: asking earlier would D-Bus-activate a second one.
  spawn at-spi /usr/libexec/at-spi-bus-launcher --launch-immediately
  until_ok 10 sh -c 'dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.NameHasOwner string:org.a11y.Bus | grep -q "boolean true"' \
    || { say "the AT-SPI bus did not start (see $LOGS/at-spi.log)"; stop; exit 1; }
  AT_SPI_BUS_ADDRESS=$(dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus \
    org.a11y.Bus.GetAddress | awk -F'"' '/string/ {print $2}')
  export AT_SPI_BUS_ADDRESS
  dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.freedesktop.DBus.Properties.Set \
    string:org.a11y.Status string:IsEnabled variant:boolean:true >/dev/null
  # Starting the registry now gives the accessibility tree its root before the first app.
  until_ok 10 dbus-send --bus="$AT_SPI_BUS_ADDRESS" --dest=org.a11y.atspi.Registry --print-reply \
    /org/a11y/atspi/accessible/root org.freedesktop.DBus.Properties.Get \
    string:org.a11y.atspi.Accessible string:ChildCount \
    || { say "the AT-SPI registry did not start"; stop; exit 1; }
  record_bus_owner --bus="$AT_SPI_BUS_ADDRESS" org.a11y.atspi.Registry at-spi-registryd

  # openbox reads rc.xml from the (private) XDG config directory.
  mkdir -p "$XDG_CONFIG_HOME/openbox"
  cp "$(dirname "$0")/../crates/private-display/openbox.xml" "$XDG_CONFIG_HOME/openbox/rc.xml"
  spawn openbox openbox --sm-disable
  until_ok 10 sh -c 'xprop -root _NET_SUPPORTING_WM_CHECK | grep -q "window id"' \
    || { say "openbox did not start (see $LOGS/openbox.log)"; stop; exit 1; }

  local wayland="" swaysock=""
  if command -v sway >/dev/null; then
    start_sway
    wayland=$WAYLAND_SOCKET
    swaysock=$SWAY_SOCKET
  fi

  cat >"$ENV_FILE" <<ENV
export DISPLAY=$DISPLAY
export XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR
export XDG_CONFIG_HOME=$XDG_CONFIG_HOME
export XDG_CACHE_HOME=$XDG_CACHE_HOME
export XDG_DATA_HOME=$XDG_DATA_HOME
export XDG_STATE_HOME=$XDG_STATE_HOME
export XDG_SESSION_TYPE=x11
export GDK_BACKEND=x11
export DBUS_SESSION_BUS_ADDRESS='$DBUS_SESSION_BUS_ADDRESS'
export AT_SPI_BUS_ADDRESS='$AT_SPI_BUS_ADDRESS'
unset NO_AT_BRIDGE GTK_MODULES WAYLAND_DISPLAY
export SHUTTLE_RIG_WAYLAND='$wayland'
export SHUTTLE_RIG_SWAYSOCK='$swaysock'
ENV
  say "up on $DISPLAY${wayland:+ and headless sway at $wayland}; its environment: source $ENV_FILE"
}

# start_sway: headless sway with its own runtime directory; sets WAYLAND_SOCKET and SWAY_SOCKET.
# sway will not run as root, so under root it runs as nobody; root's clients still connect.
start_sway() {
  local dir=$RIG/wayland as=()
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    chown 65534:65534 "$dir"
    # nobody passes through the state directory to its own, and reads nothing else there.
    chmod 711 "$RIG"
    as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
  chmod 700 "$dir"
  # What an earlier sway left would read as this one being ready.
  rm -f "$dir/ready" "$dir"/wayland-* "$dir"/sway-ipc.*
  cp "$(dirname "$0")/sway.conf" "$RIG/sway.conf"
  chmod 644 "$RIG/sway.conf"
  spawn sway "${as[@]}" env -i PATH="$PATH" HOME="$dir" XDG_RUNTIME_DIR="$dir" \
    WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 sway -c "$RIG/sway.conf"
  until_ok 10 test -e "$dir/ready" || { say "sway did not start (see $LOGS/sway.log)"; stop; exit 1; }
  WAYLAND_SOCKET=$(find "$dir" -maxdepth 1 -type s -name 'wayland-[0-9]*' | head -1)
  SWAY_SOCKET=$(find "$dir" -maxdepth 1 -type s -name 'sway-ipc.*.sock' | head -1)
  if [ -z "$WAYLAND_SOCKET" ] || [ -z "$SWAY_SOCKET" ]; then
    say "sway started without its sockets (see $LOGS/sway.log)"; stop; exit 1
  fi
}

# descendants PID: PID's children, grandchildren, ... (deepest first).
descendants() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do
    descendants "$child"
    echo "$child"
  done
}

stop() {
  [ -f "$PIDS" ] || return 0
  local targets=() pid name
  while read -r pid name; do
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
    targets+=($(descendants "$pid") "$pid")
  done < <(tac "$PIDS")
  if [ ${#targets[@]} -gt 0 ]; then
    kill -TERM "${targets[@]}" 2>/dev/null || true
    local deadline=$(( $(date +%s) + 5 ))
    for pid in "${targets[@]}"; do
      while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.05; done
      kill -KILL "$pid" 2>/dev/null || true
    done
  fi
  rm -f "$PIDS" "$ENV_FILE"
  say "stopped"
}

status() {
  [ -f "$PIDS" ] || { echo "not running"; return 1; }
  while read -r pid name; do
    if kill -0 "$pid" 2>/dev/null; then echo "up    $pid $name"; else echo "gone  $pid $name"; fi
  done <"$PIDS"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  run)
    shift
    [ $# -gt 0 ] || { say "usage: $0 run CMD..."; exit 2; }
    start
    trap stop EXIT
    # shellcheck disable=SC1090
    source "$ENV_FILE"
    set +e
    "$@"
    exit $?
    ;;
  *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
