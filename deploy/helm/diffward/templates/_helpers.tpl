{{/* The chart's name, or nameOverride. */}}
{{- define "diffward.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's full name (63 characters at most: a DNS label). */}}
{{- define "diffward.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "diffward.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "diffward.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object (Kubernetes' recommended labels). */}}
{{- define "diffward.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "diffward.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component (web or worker): pass (list $ "web"). */}}
{{- define "diffward.selectorLabels" -}}
app.kubernetes.io/name: {{ include "diffward.name" (index . 0) }}
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/*
The image of one component: pass (list $ "web"). Its own imageTag (web.imageTag, worker.imageTag) wins, for an
upgrade or a rollback one Deployment at a time; else the digest, else image.tag, else the chart's appVersion.
*/}}
{{- define "diffward.image" -}}
{{- $ := index . 0 -}}
{{- $own := (index $.Values (index . 1)).imageTag -}}
{{- if $own -}}
{{ $.Values.image.repository }}:{{ $own }}
{{- else if $.Values.image.digest -}}
{{ $.Values.image.repository }}@{{ $.Values.image.digest }}
{{- else -}}
{{ $.Values.image.repository }}:{{ default $.Chart.AppVersion $.Values.image.tag }}
{{- end -}}
{{- end -}}

{{- define "diffward.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{ .Values.secrets.existingSecret }}
{{- else if .Values.secrets.create -}}
{{ include "diffward.fullname" . }}
{{- else -}}
{{- fail "set secrets.existingSecret (a Secret with private-key.pem and webhook-secret) or secrets.create=true" -}}
{{- end -}}
{{- end -}}

{{- define "diffward.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ default (include "diffward.fullname" .) .Values.serviceAccount.name }}
{{- else -}}
{{ default "default" .Values.serviceAccount.name }}
{{- end -}}
{{- end -}}

{{/* Where the Secret's files are mounted. */}}
{{- define "diffward.secretsDir" -}}/var/run/secrets/diffward{{- end -}}

{{/*
The environment shared by web and worker pods: settings from the values, credentials from the Secret (the
optional keys marked optional, so one Secret may leave them out; the private key as a file).
*/}}
{{- define "diffward.env" -}}
- { name: NODE_ENV, value: production }
- { name: APP_ID, value: {{ required "github.appId is required" .Values.github.appId | quote }} }
- name: PRIVATE_KEY_PATH
  value: {{ include "diffward.secretsDir" . }}/private-key.pem
- name: WEBHOOK_SECRET
  valueFrom:
    secretKeyRef: { name: {{ include "diffward.secretName" . }}, key: webhook-secret }
{{- with .Values.github.enterpriseHost }}
- { name: GHE_HOST, value: {{ . | quote }} }
- { name: GHE_PROTOCOL, value: {{ $.Values.github.enterpriseProtocol | quote }} }
{{- end }}
- { name: SCANNER_API_URL, value: {{ required "scanner.apiUrl is required" .Values.scanner.apiUrl | quote }} }
- name: SCANNER_TOKEN
  valueFrom:
    secretKeyRef: { name: {{ include "diffward.secretName" . }}, key: scanner-token, optional: true }
{{- if .Values.scanner.tokensFile }}
- name: SCANNER_TOKENS_FILE
  value: {{ include "diffward.secretsDir" . }}/scanner-tokens.yaml
{{- end }}
{{- with .Values.scanner.diffPreset }}
- { name: SCANNER_DIFF_PRESET, value: {{ . | quote }} }
{{- end }}
{{- with .Values.scanner.guidanceFile }}
- { name: SCANNER_GUIDANCE_FILE, value: {{ . | quote }} }
{{- end }}
{{- with .Values.scanner.publicUrl }}
- { name: SCANNER_PUBLIC_URL, value: {{ . | quote }} }
{{- end }}
{{- with .Values.scanner.labelPrefix }}
- { name: SCANNER_LABEL_PREFIX, value: {{ . | quote }} }
{{- end }}
{{- if .Values.redis.urlFromSecret }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef: { name: {{ include "diffward.secretName" . }}, key: redis-url }
{{- else }}
- { name: REDIS_URL, value: {{ .Values.redis.url | quote }} }
{{- end }}
{{- with .Values.redis.clusterNodes }}
- { name: REDIS_CLUSTER_NODES, value: {{ . | quote }} }
{{- end }}
- { name: METRICS_PORT, value: {{ .Values.metrics.port | quote }} }
- name: METRICS_TOKEN
  valueFrom:
    secretKeyRef: { name: {{ include "diffward.secretName" . }}, key: metrics-token, optional: true }
- { name: LOG_LEVEL, value: {{ .Values.logLevel | quote }} }
{{- if .Values.extraCA.configMapName }}
- name: NODE_EXTRA_CA_CERTS
  value: /etc/diffward/ca/{{ .Values.extraCA.key }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Volumes of both pods: the Secret's files, the private CA, and /tmp on a read-only root filesystem. */}}
{{- define "diffward.volumes" -}}
- name: secrets
  secret:
    secretName: {{ include "diffward.secretName" . }}
    defaultMode: 0440
    items:
      - { key: private-key.pem, path: private-key.pem }
      {{- if .Values.scanner.tokensFile }}
      - { key: scanner-tokens.yaml, path: scanner-tokens.yaml }
      {{- end }}
{{- if .Values.extraCA.configMapName }}
- name: ca
  configMap:
    name: {{ .Values.extraCA.configMapName }}
    items:
      - { key: {{ .Values.extraCA.key }}, path: {{ .Values.extraCA.key }} }
{{- end }}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end -}}

{{- define "diffward.volumeMounts" -}}
- { name: secrets, mountPath: {{ include "diffward.secretsDir" . }}, readOnly: true }
{{- if .Values.extraCA.configMapName }}
- { name: ca, mountPath: /etc/diffward/ca, readOnly: true }
{{- end }}
- { name: tmp, mountPath: /tmp }
{{- end -}}

{{/*
diffward's BullMQ queues (src/runtime/names.ts, QUEUE_NAMES) and their key prefix (src/runtime/connection.ts,
DEFAULT_QUEUE_PREFIX: a Redis Cluster hash tag, so every key of every queue is in one slot). A queue's jobs
ready to run wait in the list `<prefix>:<queue>:wait` or, when added with a priority (diffward's fair adds per
installation, src/runtime/fairness.ts), in the sorted set `<prefix>:<queue>:prioritized` (BullMQ 6, QueueKeys).
test/deploy/autoscaling.test.ts checks these against the source.
*/}}
{{- define "diffward.queues" -}}diffward-events diffward-launch diffward-scans diffward-reports{{- end -}}
{{- define "diffward.queuePrefix" -}}{diffward}{{- end -}}

{{/*
Where KEDA reads Redis: autoscaling.keda.redis.address, else the cluster's seed nodes (host:port, from
redis.clusterNodes, a URL reduced to its host and port), else redis.url's host and port (6379 when it has none).
*/}}
{{- define "diffward.kedaRedisAddress" -}}
{{- $address := .Values.autoscaling.keda.redis.address -}}
{{- if $address -}}
{{ $address }}
{{- else if .Values.redis.clusterNodes -}}
{{- $nodes := list -}}
{{- range splitList "," .Values.redis.clusterNodes -}}
{{- $n := trim . -}}
{{- if contains "://" $n }}{{ $n = (urlParse $n).host }}{{ end -}}
{{- if not (regexMatch ":[0-9]+$" $n) }}{{ $n = printf "%s:6379" $n }}{{ end -}}
{{- $nodes = append $nodes $n -}}
{{- end -}}
{{ join "," $nodes }}
{{- else if .Values.redis.urlFromSecret -}}
{{- fail "autoscaling.keda.redis.address (host:port) is required with redis.urlFromSecret: the Redis URL is in the Secret, where the chart cannot read it" -}}
{{- else -}}
{{- $host := (urlParse .Values.redis.url).host -}}
{{ $host }}{{ if not (regexMatch ":[0-9]+$" $host) }}:6379{{ end }}
{{- end -}}
{{- end -}}

{{/* "true" when KEDA must speak TLS to Redis: asked for, or a rediss:// URL in the values. */}}
{{- define "diffward.kedaRedisTLS" -}}
{{- $tls := .Values.autoscaling.keda.redis.enableTLS -}}
{{- if .Values.redis.clusterNodes -}}
{{- $tls = or $tls (contains "rediss://" .Values.redis.clusterNodes) -}}
{{- else if not .Values.redis.urlFromSecret -}}
{{- $tls = or $tls (hasPrefix "rediss://" .Values.redis.url) -}}
{{- end -}}
{{ $tls }}
{{- end -}}

{{/*
OpenTelemetry's variables when tracing.endpoint is set (docs/operations.md, "Tracing"), for one role's pods:
  include "diffward.tracingEnv" (dict "root" . "role" "web")
Nothing when it is empty: diffward then starts no SDK.
*/}}
{{- define "diffward.tracingEnv" -}}
{{- $t := .root.Values.tracing -}}
{{- if $t.endpoint }}
- { name: OTEL_EXPORTER_OTLP_ENDPOINT, value: {{ $t.endpoint | quote }} }
- { name: OTEL_EXPORTER_OTLP_PROTOCOL, value: {{ $t.protocol | quote }} }
- { name: OTEL_SERVICE_NAME, value: {{ $t.serviceName | quote }} }
- { name: OTEL_RESOURCE_ATTRIBUTES, value: {{ printf "diffward.role=%s" .role | quote }} }
- { name: OTEL_TRACES_SAMPLER, value: {{ $t.sampler | quote }} }
{{- with $t.samplerArg }}
- { name: OTEL_TRACES_SAMPLER_ARG, value: {{ . | quote }} }
{{- end }}
{{- end }}
{{- end -}}
