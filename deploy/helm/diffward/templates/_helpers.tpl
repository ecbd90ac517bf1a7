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
