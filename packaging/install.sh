#!/usr/bin/env bash
# Installs shuttle from its release archive, or removes it again.
#
#   ./install.sh                        install the unpacked archive this script is in
#   ./install.sh shuttle-V-x86_64-linux.tar.gz
#                                       check the archive against the .sha256 beside it (or
#                                       --sha256 HEX), unpack it and install it
#   ./install.sh --prefix DIR ...       install into DIR/lib/shuttle and link DIR/bin/shuttle
#                                       (default: /usr/local as root, else ~/.local)
#   ./install.sh --remove [--prefix DIR]
#                                       stop its daemons and remove it; your settings, logs and
#                                       journal (~/.config, ~/.cache, ~/.local/state under
#                                       loomhand/shuttle) stay
#
# Nothing is installed unless every file matches the archive's SHA256SUMS and Node matches the
# pin this script carries. An upgrade replaces the old tree in one rename and stops the daemons
# it ran (an agent's next call starts the new one).
set -euo pipefail

NODE_BINARY_SHA256=@NODE_BINARY_SHA256@
here="$(cd "$(dirname "$0")" && pwd)"
# Run from a source tree (packaging/install.sh), the pin is the tree's.
case "$NODE_BINARY_SHA256" in
  @*)
    # shellcheck source=node.pin
    source "$here/node.pin"
    ;;
esac

die() {
  echo "install.sh: $*" >&2
  exit 1
}

prefix=""
archive=""
sha256=""
remove=false
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --sha256) sha256="${2:?--sha256 needs a sha256 in hex}"; shift 2 ;;
    --remove) remove=true; shift ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$archive" ] || die "one archive at a time"; archive="$1"; shift ;;
  esac
done
if [ -z "$prefix" ]; then
  if [ "$(id -u)" -eq 0 ]; then prefix=/usr/local; else prefix="$HOME/.local"; fi
fi
lib="$prefix/lib/shuttle"
bin="$prefix/bin/shuttle"

# Ends every daemon this user runs from $lib (or from the file an upgrade replaced there).
stop_daemons() {
  local exe="$lib/shuttle" pids="" proc link alive i
  for proc in /proc/[0-9]*; do
    link=$(readlink "$proc/exe" 2>/dev/null) || continue
    case "$link" in "$exe" | "$exe (deleted)") ;; *) continue ;; esac
    tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -q ' serve' || continue
    pids="$pids ${proc#/proc/}"
  done
  [ -n "$pids" ] || return 0
  echo "install.sh: stopping shuttle daemon(s)$pids" >&2
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  for i in $(seq 50); do
    alive=""
    # A zombie has ended; its parent has not reaped it yet.
    for p in $pids; do
      kill -0 "$p" 2>/dev/null && ! grep -q ') Z ' "/proc/$p/stat" 2>/dev/null && alive="$alive $p"
    done
    [ -n "$alive" ] || return 0
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL $alive 2>/dev/null || true
}

if $remove; then
  [ -z "$archive" ] || die "--remove takes no archive"
  [ -e "$lib" ] || [ -L "$bin" ] || die "shuttle is not installed under $prefix"
  stop_daemons
  if [ -L "$bin" ] && [ "$(readlink "$bin")" = "$lib/shuttle" ]; then rm -f "$bin"; fi
  rm -rf "$lib"
  echo "removed shuttle from $prefix (your settings and logs under ~/.config, ~/.cache and ~/.local/state stay; MCP client entries stay too: remove those first with shuttle setup --remove CLIENT)"
  exit 0
fi

work=""
trap '[ -z "$work" ] || rm -rf "$work"' EXIT
if [ -n "$archive" ]; then
  [ -f "$archive" ] || die "no such archive: $archive"
  if [ -z "$sha256" ]; then
    [ -f "$archive.sha256" ] || die "refusing $archive: there is no $archive.sha256 beside it to check it against; download that too, or pass --sha256 HEX"
    sha256=$(cut -d ' ' -f 1 <"$archive.sha256")
  fi
  actual=$(sha256sum "$archive" | cut -d ' ' -f 1)
  [ "$actual" = "$sha256" ] || die "refusing $archive: its sha256 is $actual, but $sha256 was expected; download it again"
  work=$(mktemp -d)
  tar -xzf "$archive" -C "$work" 2>"$work/.tar-error" ||
    die "refusing $archive: it does not unpack ($(head -n 1 "$work/.tar-error"))"
  rm -f "$work/.tar-error"
  set -- "$work"/shuttle-*/
  [ $# -eq 1 ] && [ -d "$1" ] || die "refusing $archive: it does not hold one shuttle-VERSION directory"
  src="${1%/}"
else
  src="$here"
  [ -f "$src/shuttle" ] || die "$src holds no shuttle binary: run install.sh from an unpacked release archive, or give it the archive"
fi

[ -f "$src/SHA256SUMS" ] || die "refusing $src: it has no SHA256SUMS"
bad=$(cd "$src" && sha256sum -c SHA256SUMS 2>/dev/null | sed -n 's/: FAILED.*$//p') || true
[ -z "$bad" ] || die "refusing to install: these files differ from SHA256SUMS: $bad"
missing=$(cd "$src" && sha256sum -c SHA256SUMS 2>&1 >/dev/null | sed -n 's/^sha256sum: \(.*\): No such file.*$/\1/p') || true
[ -z "$missing" ] || die "refusing to install: these files are missing: $missing"
node_sum=$(sha256sum "$src/node/bin/node" | cut -d ' ' -f 1)
[ "$node_sum" = "$NODE_BINARY_SHA256" ] ||
  die "refusing to install: $src/node/bin/node has sha256 $node_sum, but the pinned Node's is $NODE_BINARY_SHA256"
version=$("$src/shuttle" --version) || die "$src/shuttle does not run on this machine"

mkdir -p "$prefix/lib" "$prefix/bin"
staged="$prefix/lib/.shuttle-new.$$"
rm -rf "$staged"
cp -a "$src" "$staged"
stop_daemons
old=""
if [ -e "$lib" ]; then
  old="$prefix/lib/.shuttle-old.$$"
  mv "$lib" "$old"
fi
mv "$staged" "$lib"
[ -z "$old" ] || rm -rf "$old"
ln -sfn "$lib/shuttle" "$bin"

echo "installed $version into $lib; $bin runs it"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "note: $prefix/bin is not on your PATH; add it (for bash: echo 'export PATH=\"$prefix/bin:\$PATH\"' >> ~/.bashrc)" ;;
esac
echo "next: shuttle setup CLIENT (claude-code, codex, cursor, vscode, gemini, claude-desktop), then shuttle doctor"
