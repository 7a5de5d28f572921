#!/usr/bin/env bash
# Measures a fresh machine to the demo's first screenshot, three ways: from the .deb, from the
# release archive, and from source. The fresh machine is a minimal Debian 12 (debootstrap
# --variant=minbase) in a chroot with nothing else installed; each run starts from a new copy
# of it, runs what the README says, and prints the seconds (from source, the build apart). The
# apt downloads are real, from deb.debian.org; crates come from crates.io.
#
#   scripts/bench_install.sh deb|archive|source [...]
#
# Needs root, debootstrap, and target/dist's archive and .deb (packaging/archive.sh and
# packaging/deb.sh); from source, the machine's rustup toolchain is lent to the chroot.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench_install: needs root (chroot, mount)" >&2; exit 1; }
[ $# -gt 0 ] || { echo "usage: scripts/bench_install.sh deb|archive|source [...]" >&2; exit 2; }

base=target/fresh/bookworm-minbase.tgz
if [ ! -f "$base" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
  echo "== bench_install: making the fresh Debian 12 (once)" >&2
  tmp=$(mktemp -d)
  debootstrap --variant=minbase bookworm "$tmp" http://deb.debian.org/debian >/dev/null
  mkdir -p target/fresh
  tar -C "$tmp" -czf "$base" .
  rm -rf "$tmp"
fi
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
archive="target/dist/shuttle-$version-x86_64-linux.tar.gz"
deb="target/dist/shuttle_${version}_amd64.deb"

root=""
mounts=()
teardown() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
  mounts=()
  [ -z "$root" ] || rm -rf "$root"
  root=""
}
trap teardown EXIT
mount_in() {
  mkdir -p "$root$2"
  mount "${@:3}" "$1" "$root$2"
  mounts+=("$root$2")
}

fresh() {
  root=$(mktemp -d -t shuttle-fresh-XXXXXX)
  tar -C "$root" -xzf "$base"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/host-ca.crt"
  mount_in proc /proc -t proc
  mount_in /dev /dev --bind
  mount_in devpts /dev/pts -t devpts
  mount_in tmpfs /dev/shm -t tmpfs
  mount_in tmpfs /tmp -t tmpfs
  mount_in sysfs /sys -t sysfs
}

# The host's CA bundle is lent for curl and cargo: a network that inspects TLS (as a sandbox's
# may) signs with a CA a fresh machine does not know; apt's downloads are plain HTTP and signed.
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin \
    TERM=dumb CURL_CA_BUNDLE=/etc/host-ca.crt CARGO_HTTP_CAINFO=/etc/host-ca.crt "$@"
}

timed() {
  local what=$1
  shift
  local start=$SECONDS
  "$@" >"$root/tmp/$what.log" 2>&1 || { cat "$root/tmp/$what.log" >&2; echo "bench_install: $what failed" >&2; exit 1; }
  echo "$((SECONDS - start))"
}

for how in "$@"; do
  fresh
  case "$how" in
    deb)
      cp "$deb" "$root/root/"
      s=$(timed deb in_root bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /root/$(basename "$deb") && /usr/share/shuttle/demo.sh")
      echo "from the .deb: ${s} s to the first screenshot (apt update and install included)"
      ;;
    archive)
      cp "$archive" "$archive.sha256" "$root/root/"
      name=$(basename "$archive")
      s=$(timed archive in_root bash -c "cd /root && sha256sum -c $name.sha256 && tar -xzf $name && ${name%.tar.gz}/install.sh && ${name%.tar.gz}/demo.sh")
      echo "from the archive: ${s} s to the first screenshot (the demo's apt install included)"
      ;;
    source)
      mkdir -p "$root/root/shuttle"
      git archive HEAD | tar -x -C "$root/root/shuttle"
      # The toolchain a person would have from rustup; crates come from crates.io afresh.
      mount_in "${RUSTUP_HOME:-$HOME/.rustup}" /root/.rustup --bind -o ro
      mount_in "${CARGO_HOME:-$HOME/.cargo}/bin" /root/.cargo/bin --bind -o ro
      s=$(timed source in_root bash -c "cd /root/shuttle && scripts/demo.sh")
      build=$(sed -n 's/.*Finished `release` profile.* in \(.*\)$/\1/p' "$root/tmp/source.log")
      echo "from source: ${s} s to the first screenshot, of which the build took ${build}"
      ;;
    *)
      echo "bench_install: unknown way $how (deb, archive or source)" >&2
      exit 2
      ;;
  esac
  teardown
done
