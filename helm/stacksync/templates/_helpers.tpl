{{/*
Templates of this chart stay within a small Go-template subset (fields, if/else if/else, range,
with, define/include, variables, and the functions default, required, fail, quote, toYaml,
nindent, indent, printf, trunc, trimSuffix, contains, eq, ne, and, or, not, empty, sha256sum),
because test/helm/render.ts renders them in `npm test` where no helm binary is installed.
Adding another construct means teaching that renderer too.
*/}}

{{- define "stacksync.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "stacksync.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "stacksync.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "stacksync.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "stacksync.selectorLabels" -}}
app.kubernetes.io/name: {{ include "stacksync.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "stacksync.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | trunc 63 | trimSuffix "-" }}
{{ include "stacksync.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "stacksync.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "stacksync.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The name of the kubernetes state backend's Secrets and Lease. The backend takes a DNS label of at
most 40 characters (its part Secrets add `-<id>-<n>` below the API's 63), so the fullname is cut
to 34 before `-state`, as the chart's other names are cut to 63.
*/}}
{{- define "stacksync.stateName" -}}
{{- default (printf "%s-state" (include "stacksync.fullname" . | trunc 34 | trimSuffix "-")) .Values.state.kubernetes.name -}}
{{- end -}}

{{- define "stacksync.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The Secret the API credentials come from; empty when there is none. */}}
{{- define "stacksync.credentialsSecret" -}}
{{- if .Values.credentials.existingSecret -}}
{{- .Values.credentials.existingSecret -}}
{{- else if .Values.credentials.env -}}
{{- printf "%s-credentials" (include "stacksync.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The manifests inside git-sync's checkout: /git/<link>/<path>. */}}
{{- define "stacksync.manifestsDir" -}}
{{- if .Values.manifests.path -}}
{{- printf "/git/%s/%s" .Values.gitSync.link (trimSuffix "/" .Values.manifests.path) -}}
{{- else -}}
{{- printf "/git/%s" .Values.gitSync.link -}}
{{- end -}}
{{- end -}}

{{/* git-sync flags shared by the sidecar and the one-time init container. */}}
{{- define "stacksync.gitSyncArgs" -}}
- --repo={{ required "gitSync.repo is required: the Git repository holding the manifests" .Values.gitSync.repo }}
- --ref={{ .Values.gitSync.ref }}
- --depth={{ .Values.gitSync.depth }}
- --root=/git
- --link={{ .Values.gitSync.link }}
{{- if eq .Values.gitSync.auth.type "ssh" }}
- --ssh-key-file=/etc/git-secret/ssh
- --ssh-known-hosts=true
- --ssh-known-hosts-file=/etc/git-secret/known_hosts
{{- end }}
{{- with .Values.gitSync.extraArgs }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* git-sync's mounts, and for https auth its credentials as env from the Secret (never in args). */}}
{{- define "stacksync.gitSyncMountsAndEnv" -}}
volumeMounts:
  - name: git
    mountPath: /git
  - name: git-tmp
    mountPath: /tmp
{{- if eq .Values.gitSync.auth.type "ssh" }}
  - name: git-secret
    mountPath: /etc/git-secret
    readOnly: true
{{- end }}
{{- if eq .Values.gitSync.auth.type "https" }}
env:
  - name: GITSYNC_USERNAME
    valueFrom:
      secretKeyRef:
        name: {{ required "gitSync.auth.existingSecret is required for https auth" .Values.gitSync.auth.existingSecret }}
        key: username
  - name: GITSYNC_PASSWORD
    valueFrom:
      secretKeyRef:
        name: {{ .Values.gitSync.auth.existingSecret }}
        key: password
{{- end }}
{{- end -}}

{{/* The git-sync init container: one clone before stacksync starts. */}}
{{- define "stacksync.gitSyncInit" -}}
- name: git-sync-init
  image: "{{ .Values.gitSync.image.repository }}:{{ .Values.gitSync.image.tag }}"
  imagePullPolicy: {{ .Values.gitSync.image.pullPolicy }}
  args:
    {{- include "stacksync.gitSyncArgs" . | nindent 4 }}
    - --one-time
  {{- include "stacksync.gitSyncMountsAndEnv" . | nindent 2 }}
  securityContext:
    {{- toYaml .Values.gitSyncSecurityContext | nindent 4 }}
  resources:
    {{- toYaml .Values.gitSync.resources | nindent 4 }}
{{- end -}}

{{/* The stacksync container's mounts, environment and security context (Deployment and Job). */}}
{{- define "stacksync.containerCommon" -}}
{{- $secret := include "stacksync.credentialsSecret" . -}}
volumeMounts:
  - name: config
    mountPath: /etc/stacksync
    readOnly: true
  - name: git
    mountPath: /git
    readOnly: true
{{- if eq .Values.state.backend "file" }}
  - name: state
    mountPath: /var/lib/stacksync
{{- end }}
  - name: tmp
    mountPath: /tmp
{{- if $secret }}
envFrom:
  - secretRef:
      name: {{ $secret }}
{{- end }}
{{- with .Values.extraEnv }}
env:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.securityContext | nindent 2 }}
resources:
  {{- toYaml .Values.resources | nindent 2 }}
{{- end -}}

{{/* Pod-level settings and volumes shared by the Deployment and the Job. */}}
{{- define "stacksync.podCommon" -}}
serviceAccountName: {{ include "stacksync.serviceAccountName" . }}
{{- if eq .Values.state.backend "kubernetes" }}
# The kubernetes state backend keeps the state in Secrets and locks it with a Lease, through the API.
automountServiceAccountToken: true
{{- else }}
automountServiceAccountToken: false
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  - name: config
    configMap:
      name: {{ include "stacksync.fullname" . }}
  - name: git
    emptyDir: {}
  - name: git-tmp
    emptyDir: {}
  - name: tmp
    emptyDir: {}
{{- if eq .Values.state.backend "file" }}
  - name: state
{{- if .Values.state.persistence.enabled }}
    persistentVolumeClaim:
      claimName: {{ default (printf "%s-state" (include "stacksync.fullname" .)) .Values.state.persistence.existingClaim }}
{{- else }}
    emptyDir: {}
{{- end }}
{{- end }}
{{- if eq .Values.gitSync.auth.type "ssh" }}
  - name: git-secret
    secret:
      secretName: {{ required "gitSync.auth.existingSecret is required for ssh auth" .Values.gitSync.auth.existingSecret }}
      defaultMode: 288  # 0440: owner and group (fsGroup) read
{{- end }}
{{- end -}}

{{/* Pod labels and annotations; a config change rolls the pod (run does not reload its config). */}}
{{- define "stacksync.podMetadata" -}}
labels:
  {{- include "stacksync.selectorLabels" . | nindent 2 }}
  {{- with .Values.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
annotations:
  checksum/config: {{ toYaml .Values.config | sha256sum }}
  {{- with .Values.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}
