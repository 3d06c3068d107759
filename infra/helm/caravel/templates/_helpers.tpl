{{/*
Names, labels and computed values shared by every template.
*/}}

{{/* The chart's short name. */}}
{{- define "caravel.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release-qualified name every resource starts with (63 characters at most). */}}
{{- define "caravel.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* One service's resource name. Takes (dict "root" $ "component" <service name>). */}}
{{- define "caravel.componentName" -}}
{{- printf "%s-%s" (include "caravel.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "caravel.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that select one component's pods. Takes (dict "root" $ "component" <name>). */}}
{{- define "caravel.selectorLabels" -}}
app.kubernetes.io/name: {{ include "caravel.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Every label of a resource. Takes (dict "root" $ "component" <name>). */}}
{{- define "caravel.labels" -}}
helm.sh/chart: {{ include "caravel.chart" .root }}
{{ include "caravel.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: caravel
{{- end }}

{{/* <registry>/<repository>/<service>:<tag>. Takes (dict "root" $ "svc" <service entry>). */}}
{{- define "caravel.image" -}}
{{- $image := .root.Values.image }}
{{- $tag := default .root.Chart.AppVersion $image.tag }}
{{- if $image.registry }}
{{- printf "%s/%s/%s:%s" $image.registry $image.repository .svc.name $tag }}
{{- else }}
{{- printf "%s/%s:%s" $image.repository .svc.name $tag }}
{{- end }}
{{- end }}

{{/* The Secret that holds DATABASE_URL: the operator's, or the one this chart creates. */}}
{{- define "caravel.databaseSecretName" -}}
{{- if .Values.database.existingSecret }}
{{- .Values.database.existingSecret }}
{{- else }}
{{- printf "%s-database" (include "caravel.fullname" .) }}
{{- end }}
{{- end }}

{{/* The ConfigMap with the environment every service shares. */}}
{{- define "caravel.commonConfigName" -}}
{{- printf "%s-common" (include "caravel.fullname" .) }}
{{- end }}

{{/*
terminationGracePeriodSeconds: the preStop sleep, then SHUTDOWN_GRACE_MS (rounded up) for
in-flight handlers, then a margin, so the kubelet never SIGKILLs a service that is still draining.
*/}}
{{- define "caravel.terminationGracePeriodSeconds" -}}
{{- $graceSeconds := add1 (div (int .Values.shutdownGraceMs) 1000) }}
{{- add $graceSeconds (int .Values.preStopSleepSeconds) (int .Values.terminationExtraSeconds) }}
{{- end }}

{{/* The broker's sandbox PersistentVolumeClaim: the operator's, or the one this chart creates. */}}
{{- define "caravel.sandboxClaimName" -}}
{{- if .Values.sandboxes.persistence.existingClaim }}
{{- .Values.sandboxes.persistence.existingClaim }}
{{- else }}
{{- printf "%s-sandboxes" (include "caravel.fullname" .) }}
{{- end }}
{{- end }}

{{/* The ServiceAccount every service runs as. */}}
{{- define "caravel.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "caravel.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* NATS_URL: the bundled server's Service, or the external URL. */}}
{{- define "caravel.natsUrl" -}}
{{- if .Values.nats.bundled.enabled }}
{{- printf "nats://%s:4222" (include "caravel.componentName" (dict "root" . "component" "nats")) }}
{{- else }}
{{- required "nats.url is required unless nats.bundled.enabled" .Values.nats.url }}
{{- end }}
{{- end }}

{{/* One probe's settings: the defaults, then the entry's overrides. Takes (dict "root" $ "svc" <entry> "probe" <name>). */}}
{{- define "caravel.probeSettings" -}}
{{- $defaults := index .root.Values.probes .probe }}
{{- $overrides := dict }}
{{- if .svc.probes }}{{- $overrides = index .svc.probes .probe | default dict }}{{- end }}
{{- toYaml (merge (deepCopy $overrides) $defaults) }}
{{- end }}

{{/* Whether an entry runs more than one pod (for its PodDisruptionBudget). Takes the entry. */}}
{{- define "caravel.multiReplica" -}}
{{- if and .autoscaling .autoscaling.enabled }}
{{- if gt (int .autoscaling.minReplicas) 1 }}true{{ end }}
{{- else if gt (int .replicas) 1 }}true
{{- end }}
{{- end }}

{{/* Selects every pod of the release that has `role` (service, nats, postgresql, test). Takes (dict "root" $ "role" <role>). */}}
{{- define "caravel.roleSelector" -}}
app.kubernetes.io/name: {{ include "caravel.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
caravel.dev/role: {{ .role }}
{{- end }}

{{/* The Secret holding the bundled PostgreSQL's password. */}}
{{- define "caravel.postgresqlSecretName" -}}
{{- if .Values.postgresql.bundled.existingSecret }}
{{- .Values.postgresql.bundled.existingSecret }}
{{- else }}
{{- printf "%s-postgresql" (include "caravel.fullname" .) }}
{{- end }}
{{- end }}

{{/* The namespace sandbox pods live in (kubernetes provider). */}}
{{- define "caravel.sandboxNamespace" -}}
{{- default .Release.Namespace .Values.sandboxes.kubernetes.namespace }}
{{- end }}

{{/* The broker's own ServiceAccount (kubernetes provider: the only one bound to a Role). */}}
{{- define "caravel.brokerServiceAccountName" -}}
{{- printf "%s-sandbox-broker" (include "caravel.fullname" .) }}
{{- end }}

{{/* The broker's env for the kubernetes provider (the sandbox-broker entry only). */}}
{{- define "caravel.kubernetesSandboxEnv" -}}
{{- $root := .root }}
{{- $k8s := $root.Values.sandboxes.kubernetes }}
{{- $mount := $root.Values.sandboxes.mountPath }}
- name: SANDBOX_PROVIDER
  value: kubernetes
- name: SANDBOX_K8S_NAMESPACE
  value: {{ include "caravel.sandboxNamespace" $root | quote }}
- name: SANDBOX_K8S_IMAGE
  value: {{ $k8s.image | quote }}
{{- with $k8s.runtimeClassName }}
- name: SANDBOX_K8S_RUNTIME_CLASS
  value: {{ . | quote }}
{{- end }}
- name: SANDBOX_K8S_CLAIM
  value: {{ include "caravel.sandboxClaimName" $root | quote }}
- name: SANDBOX_K8S_CLAIM_SUBPATH
  value: {{ trimPrefix (printf "%s/" $mount) (default (printf "%s/sandboxes" $mount) .svc.env.SANDBOX_ROOT) | quote }}
- name: SANDBOX_K8S_OWNER
  value: {{ $root.Release.Name | quote }}
{{- /* Pods reach their credential proxy through the broker's relay, on its Service. */}}
- name: SANDBOX_K8S_EGRESS_PORT
  value: {{ $k8s.proxyPort | quote }}
- name: SANDBOX_K8S_PROXY_URL
  value: {{ printf "http://%s.%s.svc:%v" (include "caravel.componentName" (dict "root" $root "component" "sandbox-broker")) $root.Release.Namespace $k8s.proxyPort | quote }}
{{- end }}

{{/*
One service's secrets: for each key its config schema reads as a secret (files/secret-keys.yaml,
generated from the schemas by `npm run helm:secret-keys`), that key of `secrets.existingSecret`,
and no other key of it. Optional, as every such key is to its schema (a Slack secret only matters
with Slack): a key the Secret lacks leaves the variable unset. A secret key given in plain values
as well is refused rather than shadowed. Takes (dict "root" $ "svc" <service entry>).
*/}}
{{- define "caravel.secretEnv" -}}
{{- $root := .root }}
{{- $svc := .svc }}
{{- $map := $root.Files.Get "files/secret-keys.yaml" | fromYaml }}
{{- if not (hasKey $map $svc.name) }}
{{- fail (printf "files/secret-keys.yaml names no secret keys for %s (npm run helm:secret-keys)" $svc.name) }}
{{- end }}
{{- range $key := index $map $svc.name }}
{{- if or (hasKey (default (dict) $svc.env) $key) (hasKey $root.Values.commonEnv $key) }}
{{- fail (printf "%s is a secret: keep it in secrets.existingSecret, not in services[%s].env or commonEnv" $key $svc.name) }}
{{- end }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $root.Values.secrets.existingSecret }}
      key: {{ $key }}
      optional: true
{{- end }}
{{- end }}

{{/*
How migrations run: "job" (the migrate Job, a pre-install/pre-upgrade hook, runs `caravel db
migrate`; the services start with DATABASE_MIGRATE=false) or "start" (each service migrates as it
starts). database.migrations.mode auto picks job when it can: with database.existingSecret and an
external PostgreSQL, since a hook runs before the release's own Secret and PostgreSQL exist.
*/}}
{{- define "caravel.migrations" -}}
{{- $mode := .Values.database.migrations.mode }}
{{- $possible := and .Values.database.existingSecret (not .Values.postgresql.bundled.enabled) }}
{{- if eq $mode "start" }}start
{{- else if $possible }}job
{{- else if eq $mode "job" }}
{{- fail "database.migrations.mode job needs database.existingSecret and an external PostgreSQL: the migrate Job runs before the release's own Secret and bundled PostgreSQL exist" }}
{{- else }}start
{{- end }}
{{- end }}

{{/*
Where one service's DATABASE_URL comes from (a secretKeyRef's name and key): its own Secret from
database.services.<name> (a role with only its tables, see docs/db.md "Roles"), else the shared
one. A role cannot migrate, so per-service URLs need the migrate Job. Takes (dict "root" $ "svc"
<service entry>).
*/}}
{{- define "caravel.databaseUrlRef" -}}
{{- $own := index (default (dict) .root.Values.database.services) .svc.name }}
{{- if $own }}
{{- if ne (include "caravel.migrations" .root) "job" }}
{{- fail (printf "database.services.%s: a service on its own database role cannot migrate; per-service URLs need the migrate Job (database.existingSecret, an external PostgreSQL, database.migrations.mode auto or job)" .svc.name) }}
{{- end }}
name: {{ required (printf "database.services.%s.existingSecret is required" .svc.name) $own.existingSecret }}
key: {{ default "DATABASE_URL" $own.secretKey }}
{{- else }}
name: {{ include "caravel.databaseSecretName" .root }}
key: {{ .root.Values.database.secretKey }}
{{- end }}
{{- end }}

{{/* One step of the migrate Job: `caravel <args>` with the owner's URL. Takes (dict "root" $ "args" (list <container name> <arg>…)). */}}
{{- define "caravel.migrateContainer" -}}
{{- $root := .root }}
{{- $m := $root.Values.database.migrations }}
- name: {{ first .args }}
  image: {{ include "caravel.image" (dict "root" $root "svc" (dict "name" $m.image)) | quote }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  command: ["node", "apps/cli/dist/main.js"]
  args: {{ toJson (rest .args) }}
  env:
    - name: DATABASE_URL
      valueFrom:
        secretKeyRef:
          name: {{ include "caravel.databaseSecretName" $root }}
          key: {{ $root.Values.database.secretKey }}
    - name: LOG_LEVEL
      value: {{ $root.Values.logLevel | quote }}
  {{- with $m.resources }}
  resources:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml $root.Values.containerSecurityContext | nindent 4 }}
  volumeMounts:
    - name: tmp
      mountPath: /tmp
{{- end }}
