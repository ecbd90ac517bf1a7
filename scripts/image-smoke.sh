#!/usr/bin/env bash
# Builds the repository's Dockerfile (target runtime) and runs the image as a platform team would, all on
# 127.0.0.1: a web and a worker container with `--network host` against a local Redis, the sandbox and the
# GitHub stand-in (checks: scripts/image-smoke.ts). Run by .ci/run; runnable alone (as root, or with sudo).
#
#   - installs Debian's docker.io and mmdebstrap when missing;
#   - starts dockerd with --bridge=none --iptables=false --ip6tables=false (no bridge network, no firewall
#     changes) when none answers, and stops it at the end;
#   - no registry is needed: the Dockerfile's base image is a local stand-in (scripts/image-base.sh), built
#     once and kept between runs on one machine, and the build's own layers are cached by the engine too;
#   - builds with the legacy builder (DOCKER_BUILDKIT=0: Debian's docker.io has no buildx) and --network host;
#   - REDIS_URL: used when it answers, else a redis-server on a free port for the run.
# Prints the build time, the image size and each check; exits non-zero when any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${DIFFWARD_SMOKE_IMAGE:-diffward:smoke}"
sudo_=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo_="sudo"
work=$(mktemp -d)
dockerd_pid=""
redis_port=""
t0=$(date +%s)

cleanup() {
  if [ -n "$redis_port" ]; then redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true; fi
  if [ -n "$dockerd_pid" ]; then
    echo "image-smoke: stopping the dockerd it started (pid $dockerd_pid)"
    $sudo_ kill -TERM "$dockerd_pid" 2>/dev/null || true
    for _ in $(seq 1 150); do $sudo_ kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.2; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1 || ! command -v mmdebstrap >/dev/null 2>&1; then
  echo "image-smoke: installing Debian's docker.io and mmdebstrap"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq docker.io mmdebstrap >/dev/null
fi
docker_() { $sudo_ docker "$@"; }

if ! docker_ info >/dev/null 2>&1; then
  echo "image-smoke: starting dockerd (no bridge, no iptables)"
  $sudo_ dockerd --bridge=none --iptables=false --ip6tables=false >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 150); do docker_ info >/dev/null 2>&1 && break; sleep 0.2; done
  docker_ info >/dev/null 2>&1 || { echo "image-smoke: dockerd did not start"; tail -20 "$work/dockerd.log"; exit 1; }
fi

t=$(date +%s)
$sudo_ scripts/image-base.sh Dockerfile >/dev/null
base_s=$(( $(date +%s) - t ))

t=$(date +%s)
echo "image-smoke: docker build --target runtime -t $tag"
if ! DOCKER_BUILDKIT=0 docker_ build --network host --target runtime --tag "$tag" . >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log"
  exit 1
fi
build_s=$(( $(date +%s) - t ))
size_mb=$(( $(docker_ image inspect --format '{{.Size}}' "$tag") / 1000000 ))
echo "image-smoke: built $tag in ${build_s} s, ${size_mb} MB"

# Redis on 127.0.0.1 for the containers (host network): REDIS_URL when it answers, else one of our own.
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
if ! redis-cli -u "$REDIS_URL" ping >/dev/null 2>&1; then
  redis_port=$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  redis-server --daemonize yes --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --dir /tmp >/dev/null
  export REDIS_URL="redis://127.0.0.1:$redis_port"
  for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

t=$(date +%s)
if [ -n "$sudo_" ]; then
  # the checks call docker themselves
  sudo --preserve-env=REDIS_URL,PATH npx tsx scripts/image-smoke.ts "$tag"
else
  npx tsx scripts/image-smoke.ts "$tag"
fi
checks_s=$(( $(date +%s) - t ))

# Layers no tag uses any more and not touched for a week: the cache stays, the disk does not fill up.
docker_ image prune --force --filter until=168h >/dev/null || true
echo "image-smoke: base image ${base_s} s, build ${build_s} s, image ${size_mb} MB, checks ${checks_s} s, total $(( $(date +%s) - t0 )) s"
