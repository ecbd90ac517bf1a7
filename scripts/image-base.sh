#!/usr/bin/env bash
# Builds a local stand-in for the Dockerfile's base image (e.g. node:24-bookworm-slim) when no registry can
# be reached: a Debian rootfs from Debian's mirror (mmdebstrap, variant minbase) with Node from the npm
# registry (the node-linux-<arch> package, the official Node.js build) and npm, laid out like the official
# image (/usr/local/bin/node, /usr/local/lib/node_modules/npm, user and group `node` with id 1000), tagged
# with the Dockerfile's base name so `docker build` uses it as is.
#
# The machine's own CA certificates (/usr/local/share/ca-certificates/*.crt, e.g. an intercepting proxy's)
# are trusted in the stand-in (update-ca-certificates, NODE_EXTRA_CA_CERTS), so `npm ci` in the build works
# where the machine's traffic goes through such a proxy. The official image has none of this.
#
# Cached: the image carries a label with the recipe (this script, suite, Node version, npm major, CAs); an
# image with the same label is kept, so later runs on one machine cost one `npm view`.
#
# Usage: scripts/image-base.sh [Dockerfile]      (needs root, docker, mmdebstrap, npm)
# Prints the tag it made or kept.
set -euo pipefail
cd "$(dirname "$0")/.."
dockerfile="${1:-Dockerfile}"

# The base name: the first FROM that is not an earlier stage's name.
base=$(awk 'toupper($1) == "FROM" { print $2; exit }' "$dockerfile")
if [[ ! "$base" =~ ^node:([0-9]+)-([a-z]+)-slim$ ]]; then
  echo "image-base: expected a base like node:24-bookworm-slim in $dockerfile, found '$base'" >&2
  exit 1
fi
node_major="${BASH_REMATCH[1]}"
suite="${BASH_REMATCH[2]}"
npm_major=11
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "image-base: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# The newest Node $node_major release on the npm registry (one request).
node_version=$(npm view "node-linux-$arch@$node_major" version --json | node -e '
  const v = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
  const all = Array.isArray(v) ? v : [v];
  all.sort((a, b) => { const x = a.split(".").map(Number), y = b.split(".").map(Number);
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
  console.log(all.at(-1));')
cas=(/usr/local/share/ca-certificates/*.crt)
[ -e "${cas[0]}" ] || cas=()
recipe=$( { cat "$0"; echo "$suite $node_version npm@$npm_major $arch $mirror"; cat "${cas[@]}" /dev/null; } | sha256sum | cut -c1-16)

if [ "$(docker image inspect -f '{{index .Config.Labels "org.diffward.base-recipe"}}' "$base" 2>/dev/null)" = "$recipe" ]; then
  echo "image-base: $base is current (Debian $suite, Node $node_version, recipe $recipe)" >&2
  echo "$base"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "image-base: building $base: Debian $suite ($mirror) + Node $node_version + npm@$npm_major" >&2
npm install -g --prefix "$work/node" --no-audit --no-fund --loglevel=error \
  "node-linux-$arch@$node_version" "npm@$npm_major" >&2
mkdir -p "$work/usr-local/bin" "$work/usr-local/lib/node_modules" "$work/ca"
cp "$work/node/lib/node_modules/node-linux-$arch/bin/node" "$work/usr-local/bin/node"
cp -a "$work/node/lib/node_modules/npm" "$work/usr-local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/usr-local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/usr-local/bin/npx"
[ ${#cas[@]} -eq 0 ] || cp "${cas[@]}" "$work/ca/"

# apt and dpkg set up as in Debian's slim images: no package caches or translations kept after an install,
# no manual pages or documentation besides copyright files. So an `apt-get install` in a Dockerfile adds
# what it installs, not apt's 80 MB of caches.
cat > "$work/docker-clean" <<'APT'
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
APT

# minbase + ca-certificates; the hooks add Node, the node user and the machine's CAs, and drop apt's lists
# and caches.
mmdebstrap --quiet --variant=minbase --include=ca-certificates \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="cp '$work/docker-clean' \"\$1/etc/apt/apt.conf.d/docker-clean\"" \
  --customize-hook="cp -a '$work/usr-local/.' \"\$1/usr/local/\"" \
  --customize-hook="cp -a '$work/ca/.' \"\$1/usr/local/share/ca-certificates/\"" \
  --customize-hook='chroot "$1" update-ca-certificates >/dev/null' \
  --customize-hook='chroot "$1" groupadd --gid 1000 node' \
  --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  "$suite" "$work/rootfs.tar" "$mirror" >&2

docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change "LABEL org.diffward.base-recipe=$recipe" \
  --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$base" >&2
echo "image-base: built $base (recipe $recipe)" >&2
echo "$base"
