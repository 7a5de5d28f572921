#!/usr/bin/env bash
# Installs what shuttle's build, tests and benchmarks need on Debian 12, skipping what is
# already there. Needs root (or sudo). The Rust toolchain itself comes from rustup. The demo
# needs far less and installs its own (scripts/demo.sh).
set -euo pipefail

PACKAGES=(
  # the virtual desktop
  xvfb xfonts-base openbox dbus dbus-x11 at-spi2-core x11-utils x11-xserver-utils
  # the GTK fixture app and the demo's sample app
  python3 python3-gi python3-gi-cairo gir1.2-gtk-3.0 gtk-3-examples xterm
  # real apps the accessibility tests read: GTK 4 (widget factory, calculator, text editor),
  # GTK 3, two browsers, LibreOffice Calc, Writer and Impress (its GTK 3 front end is the one on
  # the accessibility bus) and Qt 5 (a form of ours, FeatherPad)
  gtk-4-examples gnome-calculator gnome-text-editor mousepad firefox-esr chromium libreoffice-calc libreoffice-writer
  libreoffice-gtk3 libreoffice-impress python3-pyqt5 featherpad evince thunar galculator
  # a Swing form of ours, and the ATK wrapper that puts Java apps on the accessibility bus
  openjdk-17-jre-headless libatk-wrapper-java-jni
  # a VTE terminal, whose text snapshots show
  xfce4-terminal
  # a KDE Frameworks app (KCalc) and a GTK 3 spreadsheet (Gnumeric, with ssconvert to read
  # what it saved)
  kcalc gnumeric
  # a GTK 2 app (GIMP 2.10), and GTK 2's modules that put it on the accessibility bus
  gimp libgail-common libatk-adaptor
  # the Wayland tests: headless sway, a native terminal, grim to compare captures with, and
  # wtype to press keys as the person
  sway foot grim wtype
  # the GNOME tests: headless GNOME Shell, PipeWire (Mutter's screen casts, which its
  # RemoteDesktop input needs), Qt's Wayland platform, and gdbus and gsettings
  gnome-shell pipewire qtwayland5 libglib2.0-bin
  # the KDE tests: headless KWin, and Konsole on it
  kwin-wayland konsole
  # the sandbox of the apps agents launch
  bubblewrap
  # `open`: the XDG MIME associations
  xdg-utils
  # independent readings in tests, and the peer tools in the benchmarks
  xdotool wmctrl imagemagick hyperfine python3-pyatspi xclip xinput
  # build (a C compiler for the TLS crate; PipeWire's headers and libclang, which its Rust
  # bindings are generated with; xkbcommon, which reads KWin's keymap), the pinned Node's
  # download, the licence list
  gcc libc6-dev libpipewire-0.3-dev libclang-dev libxkbcommon-dev curl ca-certificates python3
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "deps: installing ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
if ! command -v cargo >/dev/null; then
  echo "deps: cargo is missing: install Rust with rustup (https://rustup.rs)" >&2
  exit 1
fi
