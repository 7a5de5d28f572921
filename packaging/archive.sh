#!/usr/bin/env bash
# Builds the release archive, target/dist/shuttle-VERSION-x86_64-linux.tar.gz, and its .sha256:
# the stripped binary, the pinned Node beside it (node/bin/node, its sha256 checked), the
# runtime's sources (the binary carries its own copy; these are for reading and editors),
# install.sh, the demo, the README, the docs and every licence (shuttle's, Node's and each
# crate's the binary is built from). SHA256SUMS inside lists every file, for install.sh.
#
# Packed repeatably: the same build and commit give the same bytes (packaging/test.sh packs twice
# and compares): every file's time is the commit's (SOURCE_DATE_EPOCH), tar sorts its entries and
# gives them one owner, and gzip leaves out the name and time. The build remaps paths out of the
# binary so that a rebuild can give the same bytes too, but no script here rebuilds to check it. What it needs: the Rust toolchain of
# rust-toolchain or the machine, curl (for Node, via scripts/node.sh), python3 (the licence
# list), git (the commit's time; SOURCE_DATE_EPOCH may be set instead).
#
#   packaging/archive.sh           build and print the archive's path
#   packaging/archive.sh --stage   also leave the staged tree in target/dist/stage (deb.sh uses it)
#
# SHUTTLE_BINARY=PATH packs that binary, stripped, instead of building the dist profile, into
# target/dist-test (not target/dist, where archives to hand out go): the test suite
# (scripts/test.sh) passes the one its tests ran, so that CI compiles every crate twice
# (clippy, the tests) and not three times.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=node.pin
source packaging/node.pin

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
name="shuttle-$version-x86_64-linux"
dist=target/dist
[ -z "${SHUTTLE_BINARY:-}" ] || dist=target/dist-test
stage="$dist/stage/$name"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}"

step() { echo "== archive: $*" >&2; }

if [ -n "${SHUTTLE_BINARY:-}" ]; then
  binary=$SHUTTLE_BINARY
  [ -x "$binary" ] || { echo "archive: SHUTTLE_BINARY=$binary is not an executable file" >&2; exit 1; }
  step "packing $binary (SHUTTLE_BINARY), not a build of the dist profile"
else
  step "building the binary (profile dist)"
  cargo_home="${CARGO_HOME:-$HOME/.cargo}"
  rustup_home="${RUSTUP_HOME:-$HOME/.rustup}"
  # The remapping keeps the build machine's paths (and so its user name) out of panic messages.
  RUSTFLAGS="--remap-path-prefix=$root=/shuttle --remap-path-prefix=$cargo_home=/cargo --remap-path-prefix=$rustup_home=/rustup" \
    cargo build --locked --profile dist -p shuttle --target-dir target/dist-build
  binary=target/dist-build/dist/shuttle
fi

step "Node $NODE_VERSION"
node=$(scripts/node.sh)
if [ "$(sha256sum "$node" | cut -d ' ' -f 1)" != "$NODE_BINARY_SHA256" ]; then
  echo "archive: refusing $node: its sha256 is not the pinned $NODE_BINARY_SHA256" >&2
  exit 1
fi

step "staging $stage"
rm -rf "$dist/stage"
mkdir -p "$stage/node/bin" "$stage/runtime" "$stage/docs"
if [ -n "${SHUTTLE_BINARY:-}" ]; then
  # A binary handed in may carry symbols and line tables; the dist profile strips its own.
  strip --strip-all -o "$stage/shuttle" "$binary"
  chmod 0755 "$stage/shuttle"
else
  install -m 0755 "$binary" "$stage/shuttle"
fi
install -m 0755 "$node" "$stage/node/bin/node"
install -m 0644 "$(dirname "$node")/../LICENSE" "$stage/node/LICENSE"
install -m 0644 runtime/lib/*.mts "$stage/runtime/"
install -m 0644 docs/*.md "$stage/docs/"
install -m 0644 README.md LICENSE-MIT LICENSE-APACHE "$stage/"
install -m 0644 packaging/node.pin "$stage/node/PIN"
# install.sh carries the pin itself, so a damaged archive cannot vouch for its own Node.
sed "s/@NODE_BINARY_SHA256@/$NODE_BINARY_SHA256/" packaging/install.sh >"$stage/install.sh"
chmod 0755 "$stage/install.sh"
install -m 0755 scripts/demo.sh "$stage/demo.sh"
install -m 0644 scripts/demo.mjs "$stage/demo.mjs"
python3 packaging/licenses.py >"$stage/THIRD-PARTY-LICENSES.md"
(cd "$stage" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' |
  xargs sha256sum >SHA256SUMS)

step "packing"
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
archive="$dist/$name.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
  --format=gnu -C "$dist/stage" -cf - "$name" | gzip -n -9 >"$archive"
(cd "$dist" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
[ "${1:-}" = --stage ] || rm -rf "$dist/stage"
step "$(du -h "$archive" | cut -f 1) $(cat "$archive.sha256")"
echo "$archive"
