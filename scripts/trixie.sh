# Sourced by scripts/kwin6.sh and scripts/gnome48.sh: puts a newer desktop (Debian 13's
# packages) beside this Debian 12 machine for the tests, without installing anything. apt
# downloads the packages into target/NAME (a package list and cache of its own, signed by
# Debian's keys), they are unpacked into target/NAME/tree, and target/NAME/bin holds wrappers
# that run a program of the tree under bubblewrap, with the tree as its root and the machine's
# /tmp, homes, runtime directories and this checkout bound in. A private seat finds them first
# on PATH.
#
# trixie_reuse NAME PACKAGE...  sets $dir, $tree and $bin; true when a tree of those packages
#                               was made before (SHUTTLE_TRIXIE_FRESH=1 makes it again)
# trixie_unpack                 downloads and unpacks the packages
# trixie_wrap PROGRAM           writes $bin/PROGRAM, which runs the tree's /usr/bin/PROGRAM
# trixie_keep                   marks the tree made; call it once the tree's programs ran
# Needs apt-get, dpkg-deb and bwrap (scripts/deps.sh installs bubblewrap).

trixie_reuse() {
  trixie_name=$1
  shift
  trixie_packages=("$@")
  dir="$PWD/target/$trixie_name"
  tree="$dir/tree"
  bin="$dir/bin"
  [ -z "${SHUTTLE_TRIXIE_FRESH:-}" ] && [ -d "$tree/usr/bin" ] &&
    [ "$(cat "$dir/packages" 2>/dev/null)" = "${trixie_packages[*]}" ]
}

trixie_unpack() {
  rm -rf "$dir"
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$bin"
  echo "deb http://deb.debian.org/debian trixie main" >"$dir/apt/sources.list"
  : >"$dir/apt/status"
  # An empty dpkg status: apt fetches every package needed, the C library too.
  local apt=(apt-get -qq -o "Dir::Etc::SourceList=$dir/apt/sources.list"
    -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$dir/apt/lists"
    -o "Dir::Cache=$dir/apt" -o "Dir::Cache::Archives=$dir/apt/archives"
    -o "Dir::State::status=$dir/apt/status" -o Debug::NoLocking=1 -o Acquire::Languages=none
    -o APT::Install-Recommends=false)
  echo "== $trixie_name: Debian 13's package lists" >&2
  "${apt[@]}" update
  echo "== $trixie_name: downloading ${trixie_packages[*]} and what they need" >&2
  "${apt[@]}" install --download-only -y "${trixie_packages[@]}" >/dev/null
  mkdir -p "$tree/usr/bin" "$tree/usr/sbin" "$tree/usr/lib" "$tree/usr/lib64"
  local link deb d
  for link in bin sbin lib lib64; do ln -s "usr/$link" "$tree/$link"; done
  echo "== $trixie_name: unpacking $(find "$dir/apt/archives" -name '*.deb' | wc -l) packages into $tree" >&2
  for deb in "$dir"/apt/archives/*.deb; do dpkg-deb -x "$deb" "$tree"; done
  rm -rf "$dir/apt/archives"
  # The host's /proc is bound, not mounted anew: a user namespace without root may not mount
  # one. The seat's and the tests' directories are bound where they are, onto mount points
  # made here: bubblewrap without root cannot make them in a tree root owns.
  trixie_binds=(/tmp /root /home /run/user /var/tmp "$PWD")
  for d in "${trixie_binds[@]}"; do mkdir -p "$tree$d"; done
}

trixie_wrap() {
  {
    echo '#!/usr/bin/env bash'
    echo "# $1 from $tree, run as if installed (made by scripts/trixie.sh for $trixie_name)."
    printf 'tree=%q\n' "$tree"
    printf 'binds=(%s)\n' "$(printf '%q ' "${trixie_binds[@]}")"
    cat <<'WRAP'
args=(--bind "$tree" / --dev-bind /dev /dev --ro-bind /proc /proc --ro-bind /sys /sys
  --ro-bind /etc/passwd /etc/passwd --ro-bind /etc/group /etc/group)
[ -e /etc/machine-id ] && args+=(--ro-bind /etc/machine-id /etc/machine-id)
for d in "${binds[@]}"; do
  [ -d "$d" ] && args+=(--bind "$d" "$d")
done
WRAP
    printf 'exec bwrap "${args[@]}" /usr/bin/%q "$@"\n' "$1"
  } >"$bin/$1"
  chmod +x "$bin/$1"
}

trixie_keep() {
  echo "${trixie_packages[*]}" >"$dir/packages"
}
