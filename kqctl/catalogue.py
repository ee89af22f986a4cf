"""The rule catalogue: every rule ID kqctl can show a user, with what it means and where it comes from.

Findings (``kqctl validate``, ``kqctl audit``) and messages (``explain``, ``convert``, load errors)
cite these IDs; ``kqctl rules ID`` and docs/rules.md (generated from this module by
scripts/generate_rules_doc.py) explain them, so no ID points at a document users do not have.
``CEL-<ID>`` findings are the CRD's CEL rule that enforces rule ``<ID>``.

To add a rule: one ``_rule(...)`` line below, then ``python scripts/generate_rules_doc.py``.
tests/test_rule_catalogue.py fails when an ID in a user-visible string of kqctl has no entry.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

# Where a rule comes from: what would enforce or decide it in a real cluster.
SOURCES = {
    "apiserver": "the Kubernetes API server (object metadata, decoding, structural schema)",
    "schema": "the OpenAPI schema of Kueue's CRD (the API server rejects the object)",
    "cel": "a CEL validation rule of Kueue's CRD (the API server rejects the object)",
    "webhook": "Kueue's validating or mutating admission webhook (the API server rejects the object)",
    "job-webhook": "Kueue's webhook for Jobs and Pods (the Job is rejected, so no Workload exists)",
    "conversion": "Kueue's API version conversion (what the API server stores for another version)",
    "scheduler": "Kueue's scheduler and cache (how admission decisions are made)",
    "kqctl": "kqctl's own check: valid to the API server, but it will not do what was meant",
    "loader": "kqctl reading its input (files, stdin, a cluster)",
    "kueue-manager": "Kueue's controller-manager loading its Configuration file (it refuses to start)",
    "volcano-webhook": "Volcano's validating admission webhooks (the API server rejects the object or deletion)",
    "volcano-vap": "the ValidatingAdmissionPolicy Volcano's Helm chart installs with custom.vap_enable=true",
    "volcano-conf": "Volcano's scheduler loading volcano-scheduler.conf",
    "volcano-scheduler": "Volcano's scheduler (how its session decides)",
    "kube-scheduler": "Kubernetes' scheduling rules every scheduler here runs (kube-scheduler's filter and score "
                      "plugins, the API server's admission defaults for pods)",
    "yunikorn-validator": "YuniKorn's config validator (/ws/v1/validate-conf; its admission webhook rejects the "
                          "ConfigMap)",
    "yunikorn-core": "YuniKorn's scheduler core (queue building, placement, sorting, quota and allocation)",
    "yunikorn-shim": "YuniKorn's Kubernetes shim (ConfigMaps, pods to applications and asks)",
}

FAMILIES = {
    "API": "API versions: how v1beta1 objects map onto v1beta2",
    "AUDIT": "quota audit findings (kqctl audit)",
    "CEL": "CEL rules of the CRDs",
    "CONV": "version conversion (kqctl convert)",
    "DEF": "defaulting: what the API server and Kueue fill in",
    "FA": "flavor assignment: which ResourceFlavor each resource of a pod set gets",
    "LEG": "legacy v1alpha1/v1alpha2 objects and their conversion",
    "LOAD": "reading the input",
    "Q": "the quota model: how Kueue counts a cohort tree's quota, usage and borrowing",
    "REQ": "what a Job or pod set requests",
    "SCHEMA": "OpenAPI schema checks of the CRDs and core kinds",
    "TAINT": "node taints and pod tolerations, as Kubernetes matches them (used by Volcano's predicates)",
    "SIM": "replay in virtual time: what happens between Kueue's scheduling cycles (kqctl replay, diff --replay, "
           "plan, explain's wait estimate)",
    "VAL": "validation rules of the API server and Kueue's webhooks, per kind",
    "XO": "cross-object consistency: objects valid alone that will not work together",
    "VC": "Volcano: queue and workload webhooks, the chart's admission policy, the scheduler configuration, "
          "queue-tree errors, lints, and the scheduling rules explain cites",
    "YK": "Apache YuniKorn: queues.yaml validation (V), priorities (P), quota gating (G), placement, preemption",
}


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # error, warning, info; "-" for rules cited in explanations rather than findings
    source: str  # a key of SOURCES
    title: str  # one line
    detail: str = ""  # what it means and what to do, when the title is not enough

    @property
    def family(self) -> str:
        return self.id.split("-", 1)[0]


_RULES: list[Rule] = []


def _rule(rule_id: str, severity: str, source: str, title: str, detail: str = "") -> None:
    _RULES.append(Rule(rule_id, severity, source, title, detail))


# --- reading the input ----------------------------------------------------------------------------
_rule("LOAD-UNREADABLE", "error", "loader", "The input cannot be read as YAML or JSON text",
      "Missing or unreadable files, binary data, text that is not UTF-8 (UTF-16/32 are named), invalid "
      "YAML or JSON, alias bombs, nesting too deep, inputs above the size limit. Nothing in that file or "
      "document is checked further.")
_rule("LOAD-NOT-OBJECT", "error", "loader", "A document is not a Kubernetes object (a mapping)",
      "A YAML document holding a list or a scalar where an object with apiVersion and kind belongs.")
_rule("LOAD-NO-KIND", "error", "loader", "An object without apiVersion or kind",
      "The API server cannot tell what the object is; kubectl refuses it the same way.")
_rule("LOAD-LIST", "error", "loader", "A kind: List whose items are not a sequence")
_rule("LOAD-VERSION", "error", "apiserver", "No matches for the kind in this API version: the version is not served",
      "The hint lists the versions that are served.")
_rule("LOAD-NO-MATCH", "error", "apiserver", "No matches for the kind: Kueue's API groups serve no such kind, or "
      "it is a miscased or plural spelling of a kind kqctl reads (kind: pod)",
      "Kinds are case-sensitive and singular (ClusterQueue, not clusterqueue or ClusterQueues); the hint "
      "names the closest served kind.")
_rule("LOAD-SKIPPED", "warning", "loader", "An object of a kind kqctl does not read is skipped",
      "Only the kinds that matter to admission are read; --strict turns this into an error.")
_rule("LOAD-DUPLICATE", "error", "loader", "The same object (kind, namespace, name) is defined twice",
      "The API server would keep only one of them; which one depends on the order they are applied in.")

# --- API server and schema --------------------------------------------------------------------------
_rule("SCHEMA-REQUIRED", "error", "schema", "A required field is missing")
_rule("SCHEMA-TYPE", "error", "schema", "A field has the wrong type (string, integer, object, list, ...)")
_rule("SCHEMA-ENUM", "error", "schema", "A field holds a value outside its allowed set")
_rule("SCHEMA-PATTERN", "error", "schema", "A string does not match the pattern its field requires",
      "Typically names (DNS-1123), quantities (the Kubernetes quantity syntax) and label keys.")
_rule("SCHEMA-LENGTH", "error", "schema", "A string is shorter or longer than its field allows")
_rule("SCHEMA-ITEMS", "error", "schema", "A list or map has fewer or more items than its field allows")
_rule("SCHEMA-RANGE", "error", "schema", "A number is below the minimum or above the maximum of its field")
_rule("SCHEMA-FORMAT", "error", "schema", "A string is not in the format its field declares (e.g. a date-time)")
_rule("SCHEMA-DUPLICATE", "error", "schema", "Two items of a list-map or set share the same key")
_rule("SCHEMA-DUPLICATE-FIELD", "error", "apiserver", "The same field is written twice in one mapping",
      "The API server's strict decoding rejects duplicate fields; YAML tools usually keep the last silently.")
_rule("SCHEMA-UNKNOWN-FIELD", "error", "schema", "A field the API does not define (often a typo)",
      "The API server drops or rejects unknown fields (kubectl --validate=strict rejects them); either way "
      "the setting has no effect.")
_rule("DEF-3-DECODE", "error", "webhook", "Kueue's webhook cannot decode the object",
      "The mutating webhook decodes the object into Kueue's Go types before anything else; a value of the "
      "wrong type (for example a list where a name belongs) makes the webhook deny the request.")
_rule("CEL-RULE", "error", "cel", "A CEL validation rule of the CRD failed")
_rule("CEL-EVAL", "error", "cel", "A CEL validation rule could not be evaluated on this object",
      "The rule's expression fails on the given values (for example a field of the wrong type); the API "
      "server rejects the object.")

# --- metadata and priority classes ----------------------------------------------------------------
_rule("VAL-META-1", "error", "apiserver", "metadata.name (or generateName) is missing or not a valid name for its "
      "kind; a Job's name must also fit its pods' job-name label")
_rule("VAL-META-2", "error", "apiserver", "metadata.namespace is not a valid namespace name; on a cluster-scoped kind "
      "it is ignored (a warning)")
_rule("VAL-META-3", "error", "apiserver", "A label key or value is not valid")
_rule("VAL-META-4", "error", "apiserver", "An annotation key is not valid, or the annotations are too large")
_rule("VAL-META-5", "error", "apiserver", "A finalizer is not a valid qualified name")
_rule("VAL-PC-1", "error", "apiserver", "PriorityClass names starting with \"system-\" are reserved for the "
      "system's own classes")
_rule("VAL-PC-2", "error", "apiserver", "A user PriorityClass value must be at most 1000000000")
_rule("VAL-BJOB-1", "error", "apiserver", "A Job's parallelism, completions and backoffLimit must not be "
      "negative")
_rule("VAL-NODE-1", "error", "apiserver", "A Node's status.capacity or status.allocatable quantity is negative, or "
      "pods or an extended resource is not a whole number", "ValidateNodeResources runs on create and on every "
      "update of a Node, the kubelet's status updates included: no stored Node holds such a value, so every "
      "command refuses the input (a --set that writes one is named). Checked for every scheduler's input.")
_rule("VAL-POD-1", "error", "apiserver", "A Pod's (or a Job's or Volcano job task's template's) resource request or "
      "limit is negative, or an extended resource is not a whole number")
_rule("VAL-POD-2", "error", "apiserver", "A Pod's (or a Job's or Volcano job task's template's) resource name is "
      "neither a standard container resource (cpu, memory, ephemeral-storage, hugepages-*) nor an extended resource")
_rule("VAL-POD-3", "error", "apiserver", "A Pod's (or a Job's or Volcano job task's template's) request exceeds its "
      "limit, or an extended resource's request differs from its limit or has no limit")

# --- ClusterQueue -----------------------------------------------------------------------------------
_rule("VAL-CQ-1", "error", "apiserver", "ClusterQueue name must be a DNS-1123 subdomain of at most 253 characters")
_rule("VAL-CQ-11", "error", "cel", "Every flavor of a resource group lists exactly as many resources as "
      "coveredResources")
_rule("VAL-CQ-12", "error", "cel", "borrowingLimit is only allowed when the ClusterQueue has a cohort")
_rule("VAL-CQ-13", "error", "cel", "flavorFungibility.preference needs both whenCanBorrow and whenCanPreempt "
      "set to TryNextFlavor")
_rule("VAL-CQ-15", "error", "cel", "reclaimWithinCohort: Never forbids a borrowWithinCohort policy other than Never")
_rule("VAL-CQ-17", "error", "webhook", "A covered resource name must be a valid qualified name (like a label key)")
_rule("VAL-CQ-18", "error", "webhook", "A resource may be covered by only one resource group of a ClusterQueue")
_rule("VAL-CQ-19", "error", "webhook", "A flavor may appear in only one resource group of a ClusterQueue")
_rule("VAL-CQ-20", "error", "webhook", "A flavor's resources must be listed in the order of coveredResources")
_rule("VAL-CQ-21", "error", "webhook", "nominalQuota, borrowingLimit and lendingLimit must not be negative")
_rule("VAL-CQ-22", "error", "webhook", "borrowingLimit and lendingLimit need a cohort")
_rule("VAL-CQ-23", "error", "webhook", "A ClusterQueue's lendingLimit must not exceed its nominalQuota")
_rule("VAL-CQ-24", "error", "webhook", "At most 256 flavors over all resource groups of a ClusterQueue")
_rule("VAL-CQ-25", "error", "webhook", "At most 256 covered resources over all resource groups of a ClusterQueue")
_rule("VAL-CQ-26", "error", "webhook", "At most 512 flavor-resource combinations in one resource group")
_rule("VAL-CQ-27", "error", "webhook", "namespaceSelector must be a valid label selector")
_rule("VAL-CQ-28", "error", "webhook", "A fair-sharing weight must be zero or greater than 1e-9")
_rule("VAL-CQ-30", "error", "webhook", "An admission check's onFlavors must name flavors of this ClusterQueue")

# --- Cohort ------------------------------------------------------------------------------------------
_rule("VAL-CO-1", "error", "schema", "Cohort name and parentName must be valid names")
_rule("VAL-CO-2", "error", "cel", "A Cohort's resource groups follow the same schema and CEL rules as a "
      "ClusterQueue's")
_rule("VAL-CO-3", "error", "webhook", "A Cohort's resource groups follow the ClusterQueue webhook rules "
      "(names, uniqueness, order, no negative quota)")
_rule("VAL-CO-4", "error", "webhook", "A Cohort's borrowingLimit and lendingLimit need a parentName")
_rule("VAL-CO-6", "error", "webhook", "A Cohort's fair-sharing weight must be zero or greater than 1e-9")

# --- ResourceFlavor ----------------------------------------------------------------------------------
_rule("VAL-RF-1", "error", "webhook", "nodeLabels: at most 8, with valid label keys and values")
_rule("VAL-RF-2", "error", "cel", "nodeTaints: at most 8, each with a key and a valid effect")
_rule("VAL-RF-3", "error", "webhook", "nodeTaints: valid keys and values, unique by key and effect")
_rule("VAL-RF-4", "error", "cel", "A toleration without a key must use operator Exists")
_rule("VAL-RF-5", "error", "cel", "tolerationSeconds is only allowed with effect NoExecute")
_rule("VAL-RF-6", "error", "cel", "A toleration's operator must be Equal or Exists")
_rule("VAL-RF-7", "error", "cel", "A toleration with operator Exists must not have a value")
_rule("VAL-RF-8", "error", "cel", "A toleration's effect must be NoSchedule, PreferNoSchedule or NoExecute")
_rule("VAL-RF-9", "error", "webhook", "A toleration's key must be a valid label key")
_rule("VAL-RF-10", "error", "cel", "A flavor with a topologyName needs at least one node label")
_rule("VAL-RF-11", "error", "cel", "topologyName cannot change once set")

# --- LocalQueue, Workload, Jobs -------------------------------------------------------------------------
_rule("VAL-LQ-2", "error", "cel", "A LocalQueue's clusterQueue cannot change once set")
_rule("VAL-WL-3", "error", "cel", "A pod set's minCount must be positive and at most its count")
_rule("VAL-WL-4", "error", "webhook", "At most one pod set of a Workload may use minCount")
_rule("VAL-WL-5", "error", "webhook", "Requests and limits must not use the resource name \"pods\" "
      "(Kueue reserves it)")
_rule("VAL-WL-6", "error", "webhook", "Requests and limits must not be negative")
_rule("VAL-WL-7", "error", "webhook", "Pod template labels and annotations must be valid")
_rule("VAL-WL-9", "error", "cel", "priorityClassRef must pair kind and group (WorkloadPriorityClass with "
      "kueue.x-k8s.io, PriorityClass with scheduling.k8s.io) and name a class")
_rule("VAL-WL-10", "error", "cel", "A Workload with priorityClassRef must also have priority")
_rule("VAL-WL-11", "error", "cel", "An admission must assign every pod set of the Workload")
_rule("VAL-WL-12", "error", "webhook", "A Workload with reserved quota needs a consistent status.admission")
_rule("VAL-WL-13", "error", "webhook", "reclaimablePods must name pod sets and not exceed their counts")
_rule("VAL-WL-15", "error", "webhook", "kueue.x-k8s.io/admission-gated-by must list distinct, domain-prefixed "
      "gate names (example.com/gate), each at most 63 characters")
_rule("VAL-WL-16", "error", "webhook", "A topology request's podSetSliceSize is required with "
      "podSetSliceRequiredTopology and forbidden without it; slice sizes must be positive")
_rule("VAL-WL-17", "warning", "webhook", "Kueue v0.19 only (--kueue-version v0.19): a negative topology request "
      "subGroupCount is deprecated and will be rejected in a future release",
      "v0.19's Workload webhook (warningsForWorkload) answers with an admission warning; later CRDs reject the value "
      "(minimum 0, SCHEMA-RANGE) and v0.18 accepts it silently.")
_rule("VAL-JOB-1", "error", "job-webhook", "The kueue.x-k8s.io/queue-name label must be a valid name")
_rule("VAL-JOB-2", "error", "job-webhook", "job-min-parallelism must be an integer between 1 and the pod count "
      "minus one")
_rule("VAL-JOB-3", "error", "job-webhook", "job-completions-equal-parallelism needs an Indexed Job whose "
      "completions equal its parallelism")
_rule("VAL-JOB-4", "error", "job-webhook", "max-exec-time-seconds must be a positive integer")
_rule("VAL-JOB-5", "error", "job-webhook", "Partial admission and elastic jobs cannot be used together")

# --- Kueue's Configuration file (the controller-manager's; kqctl.kueue.validate.configuration) ----------------
_rule("VAL-CFG-1", "error", "kueue-manager", "The Configuration has a field its version does not declare (Kueue's "
      "manager decodes the file strictly)", "Often a typo (fairSharin) or a field of the other version: v1beta2 "
      "has no fairSharing.enable, waitForPodsReady.enable, integrations.podOptions or queueVisibility; v1beta1 has "
      "no resources.quotaCheckStrategy or visibilityServer. The message lists the fields known at that level.")
_rule("VAL-CFG-2", "error", "kueue-manager", "A Configuration value has the wrong type, is out of its Go type's range, "
      "or is a duration or quantity that does not parse")
_rule("VAL-CFG-3", "error", "kueue-manager", "waitForPodsReady: timeout must be positive, recoveryTimeout and the "
      "requeuing backoffs not negative, requeuingStrategy.timestamp Creation or Eviction")
_rule("VAL-CFG-4", "error", "kueue-manager", "integrations: every framework is one Kueue registers and appears once; "
      "externalFrameworks are Kind.version.group and unique; the pod framework needs a managedJobsNamespaceSelector")
_rule("VAL-CFG-5", "error", "kueue-manager", "multiKueue: gcInterval and workerLostTimeout not negative, origin a "
      "label value, externalFrameworks Kind.version.group and unique, incrementalDispatcherConfig only with the "
      "incremental dispatcher and a stepSize of at least 1, clusterProfile providers complete (name, execConfig "
      "command, apiVersion, env names, interactiveMode Never, IfAvailable or Always), accessProviders and "
      "credentialsProviders not both")
_rule("VAL-CFG-6", "error", "kueue-manager", "fairSharing.preemptionStrategies must be one of the sequences "
      "[LessThanOrEqualToFinalShare], [LessThanInitialShare], [LessThanOrEqualToFinalShare, LessThanInitialShare]",
      "In v1beta2 the section's presence turns fair sharing on and the list has no default: `fairSharing: {}` is "
      "refused. In v1beta1 the list defaults to the two-step sequence when enable is true.")
_rule("VAL-CFG-7", "error", "kueue-manager", "admissionFairSharing: usageHalfLifeTime and resourceWeights not "
      "negative, usageSamplingInterval positive")
_rule("VAL-CFG-8", "error", "kueue-manager", "internalCertManagement (when enabled): webhookServiceName is an RFC 1035 "
      "label, webhookSecretName an RFC 1123 subdomain")
_rule("VAL-CFG-9", "error", "kueue-manager", "resources.transformations: strategy Retain or Replace, each input "
      "resource transformed once")
_rule("VAL-CFG-10", "error", "kueue-manager", "managedJobsNamespaceSelector must be a valid label selector that does "
      "not match kube-system nor Kueue's own namespace")
_rule("VAL-CFG-11", "error", "kueue-manager", "objectRetentionPolicies.workloads: afterFinished and "
      "afterDeactivatedByKueue must not be negative")
_rule("VAL-CFG-12", "error", "kueue-manager", "visibilityServer: bindAddress an IP address, bindPort 1 to 65535")
_rule("VAL-CFG-13", "error", "kueue-manager", "resources.quotaCheckStrategy is BlockUndeclared or IgnoreUndeclared, "
      "and IgnoreUndeclared does not go with excludeResourcePrefixes (checked while the QuotaCheckStrategy feature "
      "gate is on, its default)")
_rule("VAL-CFG-14", "error", "kueue-manager", "featureGates: every gate is one Kueue defines, a gate locked to its "
      "default (GA) keeps it, and no gate is on while a gate it depends on is off",
      "Gates on by default count: turning TopologyAwareScheduling off alone is refused while its sub-features "
      "(TASFailedNodeReplacement, ...) stay on. The manager stops here, before the other checks.")
_rule("VAL-CFG-15", "error", "kueue-manager", "metrics.customLabels: at most 20, names unique and matching "
      "^[a-zA-Z][a-zA-Z0-9_]*$, sourceLabelKey and sourceAnnotationKey exclusive and valid label keys, trackedValues "
      "unique (1 to 12 for sourceKind Workload, at most 16 otherwise), at most 6 labels per source kind (2 for "
      "Workload)")
_rule("VAL-CFG-16", "error", "kueue-manager", "tls: minVersion is VersionTLS12 or VersionTLS13, and cipherSuites are "
      "not set with VersionTLS13", "Cipher suite names and curve IDs are not checked (they depend on the Go release "
      "Kueue is built with).")
_rule("VAL-CFG-17", "error", "kueue-manager", "resources.deviceClassMappings (DRA): at most 16, valid unique resource "
      "names, 1 to 8 valid unique device class names each, a device class in two mappings only as two counters, "
      "each source exactly one of counter or capacity with a driver and a CEL device selector",
      "Counter sources need the KueueDRAIntegrationPartitionableDevices gate (on by default), capacity sources "
      "KueueDRAIntegrationConsumableCapacity (off by default); one mapping does not mix them. Whether the CEL "
      "expression compiles is not checked.")
_rule("VAL-CFG-18", "error", "kueue-manager", "The ConfigMap holding Kueue's manager Configuration (key "
      "controller_manager_config.yaml) holds no Configuration the manager can read: the value is not YAML, is empty, "
      "is not a mapping, or is not kind Configuration of config.kueue.x-k8s.io/v1beta1 or v1beta2",
      "A ConfigMap is Kueue's when that key's value names the group config.kueue.x-k8s.io, or when it is named "
      "*-manager-config and the value names no group. A readable value gets every other VAL-CFG check, located at "
      "its line inside the ConfigMap's file.")
_rule("VAL-CFG-19", "error", "kueue-manager", "Two Kueue manager Configurations in one input (bare files, or "
      "ConfigMaps holding controller_manager_config.yaml): the manager reads one, and kqctl does not pick one",
      "Keep only the one deployed; every command refuses the input as validate reports it.")

# --- cross-object consistency ---------------------------------------------------------------------------
_rule("XO-5", "warning", "kqctl", "A workload requests a resource no resource group of its ClusterQueue covers",
      "It can never be admitted there; to borrow a resource a ClusterQueue must list it, even with "
      "nominalQuota 0.")
_rule("XO-6", "warning", "kqctl", "A LocalQueue's namespace is not matched by its ClusterQueue's "
      "namespaceSelector: its workloads are Misconfigured")
_rule("XO-8", "error", "job-webhook", "A Job names a WorkloadPriorityClass that does not exist: Kueue creates no "
      "Workload for it")
_rule("XO-CQ-FLAVOR", "warning", "kqctl", "A ClusterQueue names a ResourceFlavor that is not in the inputs",
      "Kueue marks the ClusterQueue inactive and admits nothing to it until the flavor exists. An error with "
      "--closed (the inputs are the whole cluster).")
_rule("XO-CQ-CHECK", "warning", "kqctl", "A ClusterQueue names an AdmissionCheck that is not in the inputs",
      "Kueue marks the ClusterQueue inactive until the check exists and is active.")
_rule("XO-CQ-NO-LENDER", "warning", "kqctl", "A borrowingLimit that can never matter: nobody in the cohort has "
      "that quota to lend")
_rule("XO-CQ-ZERO-QUOTA", "warning", "kqctl", "The whole quota tree holds none of a covered resource: nothing "
      "needing it can be admitted")
_rule("XO-AC-PARAMS", "warning", "kqctl", "An AdmissionCheck's parameters name a ProvisioningRequestConfig or "
      "MultiKueueConfig that is not in the inputs",
      "Its controller marks the check inactive (BadParametersRef, BadConfig), and every ClusterQueue using it "
      "admits nothing. An error with --closed.")
_rule("XO-MK-CLUSTER", "warning", "kqctl", "A MultiKueueConfig names a MultiKueueCluster that is not in the inputs")
_rule("XO-NS-NIL", "warning", "kqctl", "A ClusterQueue without namespaceSelector admits workloads of no namespace",
      "Kueue does not default the selector: absent means \"match nothing\". Use namespaceSelector: {} for all "
      "namespaces.")
_rule("XO-LQ-CQ", "warning", "kqctl", "A LocalQueue points to a ClusterQueue that is not in the inputs")
_rule("XO-LQ-NS", "warning", "kqctl", "A LocalQueue's namespace is not admitted by its ClusterQueue's "
      "namespaceSelector")
_rule("XO-LQ-WEIGHT", "warning", "kqctl", "A LocalQueue fair-sharing weight that is not positive: under admission "
      "fair sharing its workloads always go last")
_rule("XO-CO-CYCLE", "warning", "kqctl", "Cohorts whose parentName links form a cycle",
      "The API server accepts each Cohort (even one that is its own parent); Kueue treats every ClusterQueue under "
      "a cycle as inactive. --fail-on warning makes validate fail on it.")
_rule("XO-CO-IMPLICIT", "info", "kqctl", "A cohort named by a ClusterQueue or Cohort has no Cohort object",
      "Kueue creates it implicitly, as a root cohort with no quota or limits of its own.")
_rule("XO-WL-LQ", "warning", "kqctl", "A Workload's LocalQueue is not in the inputs: it would stay pending")
_rule("XO-WL-PRIORITY", "warning", "kqctl", "A Workload's priorityClassRef names a class not in the inputs")
_rule("XO-WL-UNCOVERED", "warning", "kqctl", "A Workload requests a resource its ClusterQueue does not cover")
_rule("XO-WL-NEVER-FITS", "warning", "kqctl", "A Workload needs more than any flavor of its ClusterQueue can ever "
      "provide")
_rule("XO-JOB-PRIORITY", "error", "job-webhook", "A Job's kueue.x-k8s.io/priority-class names a "
      "WorkloadPriorityClass not in the inputs")
_rule("XO-WPC-DEFAULT", "info", "kqctl", "A WorkloadPriorityClass named default is applied to every Job without a "
      "kueue.x-k8s.io/priority-class label")
_rule("XO-WPC-SAME-VALUE", "warning", "kqctl", "Several WorkloadPriorityClasses share one value: they do not order "
      "workloads among themselves")

# --- audit ------------------------------------------------------------------------------------------------
_rule("AUDIT-UNUSABLE-QUOTA", "warning", "kqctl", "Quota no workload can use: its ClusterQueue is inactive, has "
      "no namespaceSelector, or nobody can borrow it")
_rule("AUDIT-NEVER-FITS", "warning", "kqctl", "A workload can never be admitted in its ClusterQueue")
_rule("AUDIT-NO-BORROWING", "info", "kqctl", "A cohort in which no ClusterQueue can ever use more than its own "
      "nominal quota")
_rule("AUDIT-UNUSED-FLAVOR", "info", "kqctl", "A ResourceFlavor no ClusterQueue uses")
_rule("AUDIT-UNFED-CLUSTERQUEUE", "info", "kqctl", "A ClusterQueue no LocalQueue points to: nothing can be "
      "submitted to it")
_rule("AUDIT-NAMESPACE-NOT-ADMITTED", "warning", "kqctl", "A LocalQueue in a namespace its ClusterQueue does not "
      "admit")

# --- versions and conversion ------------------------------------------------------------------------------
_rule("LEG-VERSION", "error", "apiserver", "A legacy v1alpha1/v1alpha2 object: no supported Kueue serves it",
      "validate reports it as the API server would (no matches for kind) and also checks its v1beta2 "
      "conversion; kqctl convert -f FILE --to v1beta2 migrates the manifest. simulate, explain and audit read "
      "legacy objects through the same conversion.")
_rule("LEG-1", "-", "conversion", "v1alpha1 (Kueue 0.1): Queue is the old LocalQueue; quota per resource and "
      "flavor as min/max; flavor labels at the top level; Workload admission in spec")
_rule("LEG-2", "-", "conversion", "v1alpha2 (Kueue 0.2): v1alpha1's quota shape; a ResourceFlavor's node labels "
      "are its metadata.labels")
_rule("LEG-3", "error", "conversion", "Legacy resources that share flavors must list them in the same order",
      "Otherwise they cannot become one resource group.")
_rule("LEG-4", "-", "conversion", "Legacy ResourceFlavor labels and taints become spec.nodeLabels and "
      "spec.nodeTaints")
_rule("LEG-6", "-", "conversion", "Legacy Workload: pod set specs become templates; an admission in spec becomes "
      "status.admission with reserved quota, its usage recomputed from the pod sets")
_rule("CONV-DROPPED", "warning", "conversion", "A field is lost when converting to the target version")
_rule("API-1", "-", "conversion", "v1beta1 ClusterQueue to v1beta2: cohort becomes cohortName, admissionChecks "
      "replace admissionChecksStrategy, Borrow/Preempt fungibility become MayStopSearch")
_rule("API-2", "-", "conversion", "v1beta1 Workload to v1beta2: priorityClassSource and priorityClassName become "
      "priorityClassRef")
_rule("API-3", "-", "conversion", "v1beta1 LocalQueue to v1beta2: status.flavorUsage is renamed, status.flavors "
      "dropped")
_rule("API-4", "-", "conversion", "v1beta1 AdmissionCheck to v1beta2: retryDelayMinutes is dropped")
_rule("DEF-2", "-", "scheduler", "An absent namespaceSelector matches no namespace (it is not defaulted)")

# --- admission (cited in explain and simulate messages) -------------------------------------------------------
_rule("FA-4", "-", "scheduler", "Flavor scan resumes where the previous attempt stopped",
      "When a workload's last attempt stopped at a flavor, the next attempt starts after it, unless quota "
      "or the workload changed since.")
_rule("FA-10", "-", "scheduler", "When the flavor search stops: a flavor that fits only by borrowing stops it "
      "unless whenCanBorrow is TryNextFlavor; one that needs preemption stops it unless whenCanPreempt is "
      "TryNextFlavor")
_rule("Q-7", "-", "scheduler", "A ClusterQueue borrows what it uses above its nominal quota (a cohort: above its "
      "subtree quota); kqctl charges a ClusterQueue's borrowing to the workloads holding quota in it, the most "
      "recently admitted first",
      "Kueue counts borrowing per ClusterQueue and cohort only (status.flavorsReservation[].resources[].borrowed "
      "is max(0, usage - nominal)), never per workload. What kqctl shows a workload borrowing (simulate's BORROWED, "
      "explain, diff's `borrowing` change) is its own attribution of that amount: charged to the workloads holding "
      "quota in the ClusterQueue, the most recently admitted first, since their admission went above nominal.")
_rule("REQ-1", "-", "job-webhook", "Which Jobs Kueue manages: a queue-name label, a defaulted one (LocalQueue "
      "\"default\"), or manageJobsWithoutQueueName")
_rule("REQ-2", "-", "job-webhook", "The Workload Kueue creates for a Job: one pod set \"main\" of "
      "min(parallelism, completions) pods, minCount from job-min-parallelism")
_rule("REQ-3", "-", "job-webhook", "A Job's priority: its WorkloadPriorityClass label, else the pods' "
      "PriorityClass, else the cluster's default PriorityClass, else 0")

# --- replay in virtual time (kqctl replay, diff --replay, plan, explain's estimate) ------------------------------
_rule("SIM-R1", "-", "scheduler", "A workload joins its ClusterQueue's queue at its creation time",
      "Workloads (and Jobs) dated after the replay's start, trace rows and Kueue's generator configs arrive then; "
      "a workload whose shape an equivalence bulk move remembers goes straight to the inadmissible set. Waits are "
      "measured from the later of its arrival and the replay's start (a workload created before it waits from the "
      "start); one still waiting at the end counts as never admitted.")
_rule("SIM-R2", "-", "scheduler", "An admission holds quota from its cycle; the workload runs once the admission is "
      "written",
      "Kueue's scheduler patches status.admission asynchronously through a client limited to a number of writes per "
      "second (--cycle-latency); its runtime counts from then.")
_rule("SIM-R3", "-", "scheduler", "A finished workload releases its quota at once and asks for a requeue of its "
      "cohort tree")
_rule("SIM-R4", "-", "scheduler", "A preemption victim keeps its quota until its eviction is written, then goes back "
      "to its queue with its creation time and no back-off",
      "It runs its whole runtime again when it is admitted again; each eviction is counted.")
_rule("SIM-R5", "-", "scheduler", "Requeues of inadmissible workloads are batched for one second per root cohort "
      "(or cohort-less ClusterQueue)")
_rule("SIM-R6", "-", "scheduler", "A workload whose status.requeueState.requeueAt is in the future waits in the "
      "inadmissible set until then")
_rule("SIM-R7", "-", "scheduler", "A cycle runs when something changed and the scheduler is free; a cycle without an "
      "admission is followed by Kueue's back-off (1 ms doubling to 10 ms)")

# =============================================================================================================
# Volcano (scheduling.volcano.sh, batch.volcano.sh): every ID is shown as VC-<rule>.
# =============================================================================================================

# --- the Queue webhook (validatequeue.volcano.sh) -------------------------------------------------------------
_rule("VC-Q2", "error", "volcano-webhook", "A queue's capability, deserved or guarantee quantity is negative (or "
      "not a whole number for an integer resource)")
_rule("VC-Q3", "error", "volcano-webhook", "Every resource a queue guarantees needs a deserved value at least as "
      "large", "Setting a guarantee requires setting deserved for the same resources, even when the cluster runs "
      "the proportion plugin (which ignores deserved).")
_rule("VC-Q4", "error", "volcano-webhook", "A queue's deserved must not exceed its capability for the same resource",
      "A resource absent from capability is unlimited.")
_rule("VC-Q5", "error", "volcano-webhook", "A queue's status.state must be Open or Closed when the webhook sees it",
      "The API server drops status when it creates a queue and keeps the stored status on an update, so in a "
      "real cluster this refuses updates of queues the controller marked Closing or Unknown.")
_rule("VC-Q6", "error", "volcano-webhook", "The legacy volcano.sh/hierarchy annotations: same length as the "
      "weights, weights above 0, no queue's path inside another's")
_rule("VC-H1", "error", "volcano-webhook", "A queue cannot be its own parent")
_rule("VC-H2", "error", "volcano-webhook", "A queue deeper than the webhook's max-queue-depth (default 5), or an "
      "ancestor that does not exist")
_rule("VC-H3", "error", "volcano-webhook", "The parent must exist, and a queue that runs pods cannot get its first "
      "child")
_rule("VC-H4", "error", "volcano-webhook", "A queue's capability must not exceed its nearest ancestor's capability "
      "for the same resource")
_rule("VC-H5", "error", "volcano-webhook", "The siblings' guarantee (and deserved) must fit the parent's, a missing "
      "parent resource counting 0", "Under a parent other than root, a child may only guarantee (or deserve) "
      "resources its parent also sets, within what the parent has left.")
_rule("VC-H6", "error", "volcano-webhook", "A queue's capability must be at least its descendants' largest "
      "capability")
_rule("VC-H7", "error", "volcano-webhook", "The children's guarantee (and deserved) must fit the queue's own")
_rule("VC-ROOT", "error", "volcano-webhook", "The root queue's capability, deserved and guarantee cannot be changed "
      "(enable-root-queue-protection, on by default)")
_rule("VC-D1", "error", "volcano-webhook", "The default and root queues cannot be deleted")
_rule("VC-D2", "error", "volcano-webhook", "A queue with allocated pods cannot be deleted "
      "(enable-queue-allocated-pods-check)")
_rule("VC-D3", "error", "volcano-webhook", "A queue with child queues cannot be deleted")
# --- the chart's ValidatingAdmissionPolicy (kqctl validate --vap) -----------------------------------------------
_rule("VC-VAP-STATE", "error", "volcano-vap", "Queue state must be Open or Closed (the chart's policy)")
_rule("VC-VAP-EMPTY", "error", "volcano-vap", "Capability, deserved and guarantee values must not be empty strings")
_rule("VC-VAP-CAPABILITY", "error", "volcano-vap", "Deserved must be <= capability (the chart's policy)")
_rule("VC-VAP-GUARANTEE", "error", "volcano-vap", "Guarantee needs deserved >= guarantee for every resource (the "
      "chart's policy)")
_rule("VC-VAP-QUANTITY-TYPE", "error", "volcano-vap", "An unquoted (integer) quantity that the policy compares: "
      "its CEL fails and the API server refuses the Queue", "The policy compares capability with deserved and "
      "deserved with guarantee through CEL's quantity(), which takes strings only; an integer there (cpu: 10, or "
      "cpu: 1e3, which the API server decodes as 1000) makes the expression fail, and failurePolicy: Fail refuses "
      "the request. Quote the quantity. Only with --vap (the chart's custom.vap_enable).")
_rule("VC-VAP-HIERARCHY", "error", "volcano-vap", "The hierarchy annotations must have matching lengths and weights "
      "above 0 (the chart's policy)")
_rule("VC-VAP-DELETE", "error", "volcano-vap", "The default and root queues cannot be deleted (the chart's policy)")
# --- workloads and their queues ----------------------------------------------------------------------------------
_rule("VC-JOB-TASKS", "error", "volcano-webhook", "A vcjob needs tasks with unique names, task minAvailable <= "
      "replicas, and minAvailable <= the total replicas")
_rule("VC-JOB-TEMPLATE", "error", "volcano-webhook", "Every vcjob task needs a pod template Kubernetes accepts",
      "Volcano's job webhook runs Kubernetes' ValidatePodTemplate on each task's template; kqctl checks that there "
      "is a template with at least one container, and that every container and init container has an image (the "
      "schema's SCHEMA-REQUIRED covers a missing container name).")
_rule("VC-PRIORITYCLASS", "warning", "kqctl", "A vcjob, its task templates or a PodGroup name a PriorityClass the "
      "inputs do not hold", "The API server's Priority admission refuses every pod naming a PriorityClass that does "
      "not exist, so the job's pods are never created. A warning (it may exist in the cluster), an error with "
      "--closed; the system-* classes always exist.")
_rule("VC-POD-NODE", "warning", "kqctl", "A pod is bound (spec.nodeName) to a node the inputs do not hold",
      "The simulation counts its requests on no node. A warning (the node may be in the cluster), an error with "
      "--closed. Succeeded and Failed pods are not checked.")
_rule("VC-JOB-QUEUE", "error", "volcano-webhook", "A vcjob's queue must exist", "A queue not in the inputs is "
      "a warning (it may exist in the cluster), an error with --closed or --against; a close queue name is "
      "offered (did you mean).")
_rule("VC-JOB-QUEUE-STATE", "error", "volcano-webhook", "A vcjob can only be submitted to an Open queue")
_rule("VC-JOB-ROOT", "error", "volcano-webhook", "A vcjob cannot be submitted to the root queue")
_rule("VC-JOB-LEAF", "error", "volcano-webhook", "A vcjob can only be submitted to a leaf queue")
_rule("VC-PG-QUEUE", "error", "volcano-webhook", "A PodGroup's queue must exist", "A queue not in the inputs is "
      "a warning (it may exist in the cluster), an error with --closed or --against. Volcano's scheduler silently "
      "ignores a PodGroup whose queue is missing.")
_rule("VC-POD-PG", "error", "volcano-scheduler", "A pod of the volcano scheduler that names a PodGroup (annotation "
      "scheduling.k8s.io/group-name) needs that PodGroup to exist", "The podgroup controller makes no PodGroup for a "
      "pod that names one, and the scheduler's cache skips a job without its PodGroup: the pod stays Pending. A "
      "PodGroup not in the inputs (nor a vcjob's) is a warning (it may exist in the cluster), an error with --closed.")
_rule("VC-PG-QUEUE-STATE", "error", "volcano-webhook", "A PodGroup can only be submitted to an Open queue")
_rule("VC-TREE-NONLEAF", "warning", "volcano-scheduler", "A PodGroup in a queue with children: the API server "
      "accepts it, but hierarchical capacity then stops scheduling altogether", "The capacity plugin with "
      "enableHierarchy refuses every enqueue and allocation in the session while any job sits in a non-leaf queue "
      "(it only logs why). A warning: the PodGroup webhook does not refuse it (only the vcjob webhook checks leaves).")
# --- the scheduling rules simulate and explain cite --------------------------------------------------------------
_rule("VC-SCORE-1", "-", "volcano-scheduler", "nodeorder's leastrequested.weight (default 1): kube-scheduler's "
      "NodeResourcesFit LeastAllocated on cpu and memory, weighted 50 each, on the non-zero requests",
      "Per resource (allocatable - requested) x 100 / allocatable in integers (0 when over), their weighted mean; "
      "requested is what the node's pods and the pod ask, 100m cpu and 200Mi memory counted for each container "
      "that names none; a resource the node has none of is left out.")
_rule("VC-SCORE-2", "-", "volcano-scheduler", "nodeorder's mostrequested.weight (default 0): NodeResourcesFit "
      "MostAllocated on cpu and memory, weighted 1 each, on the non-zero requests")
_rule("VC-SCORE-3", "-", "volcano-scheduler", "nodeorder's balancedresource.weight (default 1): Kubernetes v1.36's "
      "NodeResourcesBalancedAllocation on the pods' actual requests, weighing the node's balance with the pod "
      "against its balance without it",
      "Balance = (1 - the standard deviation of requested/allocatable over cpu, memory and nvidia.com/gpu when the "
      "pod asks for it) x 100, truncated; the score is 50 + (50 + with - without) / 2: 75 when the pod leaves the "
      "balance as it is (kubernetes PR #135573). A pod that requests none of them is not scored.")
_rule("VC-SCORE-4", "-", "volcano-scheduler", "binpack: binpack.weight x 100 x the weighted mean of (used + "
      "request) / allocatable over the resources the task requests (binpack.cpu, binpack.memory, "
      "binpack.resources), 0 when one would not fit")
_rule("VC-SCORE-5", "-", "volcano-scheduler", "A node's score is the sum of the plugins' scores, in float64; the "
      "highest wins (Volcano picks at random among equal ones, kqctl the first by name)",
      "The scores see kube-scheduler's view of the node: the pods on it when the session opened, with the tasks "
      "allocated or pipelined since added and the evicted ones removed by the predicates plugin (without it the "
      "view stays as the session opened). Nodes the task fits in idle resources go before those it fits only "
      "once releasing pods are gone.")
_rule("VC-NEVER-1", "-", "volcano-scheduler", "A PodGroup can never run as configured (--fail-on inadmissible, "
      "neverFits): its queue is missing or not Open, it has fewer valid tasks than minMember, it sits in a non-leaf "
      "queue or a refused hierarchy, its minResources exceed its queue's real capability, or fewer than minMember "
      "of its pods fit any node that passes their predicates", "The node check takes each node empty (its "
      "allocatable) and the predicates plugin as configured (cordon, nodeSelector and node affinity, NoSchedule "
      "and NoExecute taints); it is made only when the input has nodes.")
_rule("VC-QUEUE-STATE-1", "-", "volcano-scheduler", "Only an Open queue's PodGroups are enqueued and its pods "
      "allocated: a PodGroup in a Closed, Closing or Unknown queue that needs either waits for good",
      "The proportion and capacity plugins turn down enqueue's vote for a PodGroup with minResources (one without "
      "is enqueued unasked) and every allocation or reclaim for a pod with requests; backfill places best-effort "
      "pods without asking the queue, and without proportion or capacity nothing reads the state. Volcano only "
      "logs it (the PodGroup gets gang's Unschedulable condition); simulate gives it as the reason (queue-closed) "
      "and neverFits, audit as VC-NEVER-1, replay as the state QueueClosed.")
_rule("VC-SCORE-6", "-", "volcano-scheduler", "nodeorder's tainttoleration.weight (default 3): kube-scheduler's "
      "TaintToleration score, the node's PreferNoSchedule taints the pod does not tolerate, fewer is better",
      "The counts are normalised in reverse over the nodes scored together (the most tainted gets 0, a node with "
      "none 100, 100 each when none has any), then multiplied by the weight. Scored together: allocate's nodes "
      "that fit the idle resources (else those that fit once releasing pods are gone), preempt's nodes that pass "
      "the predicates.")
_rule("VC-SCORE-7", "-", "volcano-scheduler", "nodeorder's nodeaffinity.weight (default 2): kube-scheduler's "
      "NodeAffinity score, the weights of the pod's preferred node-affinity terms the node matches",
      "The sums are normalised over the nodes scored together (the highest gets 100, the others in proportion, "
      "truncated; 0 each when none matches), then multiplied by the weight.")
_rule("VC-RECLAIM-1", "-", "volcano-scheduler", "reclaim pipelines a task on a node that holds a reclaimable "
      "queue's running pod even when it fits there without evicting anyone",
      "The node's future idle plus the victims (none needed) holds the task, so the task is pipelined: it waits "
      "for the next session, and an allocate later in the same session does not bind it.")
_rule("VC-CAPACITY-ANCESTOR-1", "-", "volcano-scheduler", "Hierarchical capacity's ancestorReclaimLevel N: "
      "reclaim also weighs the queues up to N levels above the reclaimer's and the victim's (root never counts)",
      "A queue that may not reclaim on its own deserved may when an ancestor within N levels still has room under "
      "its deserved for the request. A victim is then taken only if, at each depth within N where its ancestor "
      "differs from the reclaimer's, that ancestor deserves none of what the victim uses or is above its deserved "
      "on one of those dimensions; and a victim whose own queue deserves none of what it uses is spared when the "
      "two queues share a non-root ancestor within N and the reclaimer's queue deserves none of what the "
      "reclaimer asks for. Only a whole number counts (a negative one is 0).")
_rule("VC-NOMINATE-1", "-", "volcano-scheduler", "A pod pipelined where victims were evicted for it gets that "
      "node as status.nominatedNodeName when the session closes, even if the statement was undone",
      "The next session's allocate tries that node first, and the pod does not preempt again while the node "
      "passes the predicates; a pod re-created after its eviction has no nomination.")
_rule("VC-GANG-1", "-", "volcano-scheduler", "gang leaves a PodGroup whose missing pods are only being deleted "
      "(still on their nodes, nothing pending) without its Unschedulable condition: its phase stays, not Unknown")
_rule("VC-VICTIMS-1", "-", "volcano-scheduler", "Victims of reclaim and preempt: within a tier the plugins' "
      "victims intersect, a plugin with none leaves the tier undecided, the first tier that decides wins",
      "As in Go, an empty intersection is no decision (a nil slice): the next plugin of the tier starts afresh.")
_rule("VC-PREEMPT-1", "-", "volcano-scheduler", "preempt, between jobs: a starving job's pending tasks evict "
      "running tasks of other jobs of the same queue; the job's evictions stand only if it is then pipelined")
_rule("VC-PREEMPT-2", "-", "volcano-scheduler", "preempt, within a job: each pending task of a starving job may "
      "evict tasks of its own job, task by task; a task that fits a node as it is is pipelined there on its own",
      "Each task's statement is committed alone, whatever the gang: the first task that finds no node ends the "
      "job's turn.")
_rule("VC-PREEMPT-3", "-", "volcano-scheduler", "priority's preempt victims: tasks of jobs of lower priority, or "
      "of the same job with a lower pod priority")
_rule("VC-PREEMPT-4", "-", "volcano-scheduler", "preempt tries the nodes in score order and evicts victims in "
      "victim order until the queue allows the task, the node's future idle holds it and the predicates pass",
      "Victims: the running or bound, preemptable tasks the plugins' Preemptable vote picks (gang, conformance, "
      "priority, drf); a best-effort task evicts only best-effort ones. preemptionPolicy: Never never preempts, "
      "nor does a pod whose nominated node already passes the predicates.")
_rule("VC-BACKFILL-1", "-", "volcano-scheduler", "backfill places best-effort pods (no requests) in queue, job and "
      "task order on the best-scored node, and binds a job's allocated pods only once the job is ready",
      "Pending best-effort pods count as ready for gang, so a gang of best-effort pods alone is bound at once. "
      "allocate skips them, so without the backfill action nothing places them: a gang that needs them never runs "
      "(VC-NEVER-1), and those of a PodGroup that runs without them stay Pending (simulate's reason backfill).")
_rule("VC-DRF-1", "-", "volcano-scheduler", "drf job order: the job with the smaller dominant share (allocated over "
      "the cluster, pods included) goes first", "allocated as drf keeps it: the job's allocated pods when the "
      "session opens, then what the session allocates or pipelines to it, less what it evicts.")
_rule("VC-DRF-2", "-", "volcano-scheduler", "drf preemptable: a task is a victim while its job's share without it "
      "stays at least the preemptor's share with its task (within 0.000001)")
_rule("VC-HDRF-1", "-", "volcano-scheduler", "Hierarchical DRF's tree: the Queues' volcano.sh/hierarchy path and "
      "volcano.sh/hierarchy-weights; a weight below 1 or not a number is 1", "drf with enableHierarchy: true. "
      "The annotations are read from Queues (not PodGroups); a path not starting with root is stored with root/ "
      "(and weight 1/) in front by the mutating webhook. Jobs of a queue without the annotation hang below root.")
_rule("VC-HDRF-2", "-", "volcano-scheduler", "Hierarchical DRF's shares: children scaled to the smallest dominant "
      "share among the non-saturated ones, saturated children added as they are",
      "A job is saturated when it has all it asked for on some resource, or asks for one the jobs hold entirely; a "
      "level is saturated when all its children are.")
_rule("VC-HDRF-3", "-", "volcano-scheduler", "Hierarchical DRF's queue order: level by level down both paths, a "
      "saturated level last, then the smaller share/weight")
_rule("VC-HDRF-4", "-", "volcano-scheduler", "Hierarchical DRF's reclaim vote: a candidate is a victim when, with the "
      "reclaimer's task placed and the candidate's removed, the reclaimer's queue orders first")
_rule("TAINT-1", "-", "kube-scheduler", "A toleration matches a taint: same effect (or none), same key (or none), and "
      "Exists, or Equal (the default) with the same value", "Lt and Gt match nothing while their alpha feature gate "
      "(TaintTolerationComparisonOperators) is off, its default.")
_rule("TAINT-2", "-", "kube-scheduler", "A node whose NoSchedule or NoExecute taint the pod does not tolerate takes "
      "no new pod: node(s) had untolerated taint(s)", "Volcano's predicates plugin runs kube-scheduler's "
      "TaintToleration filter (argument predicate.TaintTolerationEnable, true by default).")
_rule("TAINT-3", "-", "kube-scheduler", "PreferNoSchedule taints never filter: they only lower a node's score",
      "Volcano's nodeorder scores them with tainttoleration.weight (3 by default): VC-SCORE-6.")
_rule("AFF-1", "-", "kube-scheduler", "A node takes a pod only if it has every nodeSelector label with its value "
      "and, when the pod has required node affinity, matches one of its terms: node(s) didn't match Pod's node "
      "affinity/selector", "Terms are ORed, their requirements ANDed; a term without requirements matches no node; "
      "a requirement Kubernetes cannot parse makes its term match nothing. Volcano's predicates plugin runs "
      "kube-scheduler's NodeAffinity filter (argument predicate.NodeAffinityEnable, true by default).")
_rule("AFF-2", "-", "kube-scheduler", "A node's preferred node-affinity score is the sum of the weights of the "
      "pod's preferred terms it matches", "Volcano's nodeorder adds it normalised, times nodeaffinity.weight "
      "(VC-SCORE-7).")
_rule("AFF-3", "-", "kube-scheduler", "A node selector term's matchFields select by metadata.name only, with In or "
      "NotIn and exactly one value")
_rule("TAINT-4", "-", "kube-scheduler", "Every pod the API server creates tolerates node.kubernetes.io/not-ready and "
      "unreachable (NoExecute, 300 s) unless it already does", "The DefaultTolerationSeconds admission plugin; kqctl "
      "adds them to pods read from files as the API server would.")
_rule("TAINT-5", "-", "kube-scheduler", "A cordoned node (spec.unschedulable) takes only pods that tolerate "
      "node.kubernetes.io/unschedulable:NoSchedule: node(s) were unschedulable")

# --- the scheduler configuration ------------------------------------------------------------------------------------
_rule("VC-CONF-INVALID", "error", "volcano-conf", "volcano-scheduler.conf cannot be read (YAML, or a value of the "
      "wrong type): the scheduler keeps its previous configuration")
_rule("VC-CONF-ACTION", "error", "volcano-conf", "An action Volcano does not know: the configuration is refused")
_rule("VC-CONF-CONFLICT", "error", "volcano-conf", "proportion and drf with enableHierarchy in one tier: the "
      "configuration is refused")
_rule("VC-CONF-PLUGIN", "warning", "volcano-conf", "A plugin Volcano does not know: it is skipped")
_rule("VC-CONF-KEY", "warning", "volcano-conf", "A key Volcano does not read (often a misspelt enable* flag): it "
      "is ignored and the default applies", "The flags are spelt unevenly: enableJobEnqueued, enabledAllocatable, "
      "enabledOverused, enablePreemptive.")
# --- lints ---------------------------------------------------------------------------------------------------
_rule("VC-LINT-GUARANTEE-TOTAL", "warning", "kqctl", "The queues' guarantees reach 90% or more of the cluster on "
      "some resource", "Every queue's real capability is the cluster minus all other queues' guarantees: queues "
      "without a guarantee are starved (\"queue resource quota insufficient\" on an idle cluster).")
_rule("VC-LINT-DESERVED-IGNORED", "warning", "kqctl", "deserved is set but only proportion runs, which computes "
      "deserved from weight")
_rule("VC-LINT-WEIGHT-IGNORED", "warning", "kqctl", "weight is set but only capacity runs, which ignores weight")
_rule("VC-LINT-FIFO", "warning", "kqctl", "dequeueStrategy: fifo has no effect: no action of the scheduler reads it")
_rule("VC-LINT-ZERO-CAPABILITY", "warning", "kqctl", "capability cpu or memory 0 reads as unlimited (or the "
      "parent's value under hierarchical capacity), not as closed")
_rule("VC-LINT-UNRECLAIMABLE", "warning", "kqctl", "A queue that is not reclaimable while reclaim is on: what it "
      "runs above its deserved share is never taken back")
_rule("VC-LINT-CAPABILITY-RESOURCE", "warning", "kqctl", "capability names a resource no node has")
_rule("VC-LINT-UNLIMITED-SCALAR", "warning", "kqctl", "A PodGroup requests a scalar resource its queue's "
      "capability does not list: no limit applies to it")

# --- convert --to kueue ---------------------------------------------------------------------------------------------
_rule("VC-CONV-WEIGHT", "warning", "kqctl", "A queue's weight: Kueue has no weight-based water-filling; kept as "
      "fairSharing.weight, which acts only with fair sharing on")
_rule("VC-CONV-RECLAIMABLE", "warning", "kqctl", "reclaimable: false has no Kueue equivalent")
_rule("VC-CONV-PRIORITY", "warning", "kqctl", "A queue's priority: Kueue does not order ClusterQueues by priority")
_rule("VC-CONV-PREEMPT", "warning", "kqctl", "The preempt action (with the priority plugin) becomes "
      "withinClusterQueue: LowerPriority; its pod-level victim choice does not carry over", "Volcano's preempt lets a "
      "starving job evict pods of lower-priority jobs in its own queue, as the plugins vote (gang keeps each job at "
      "minAvailable, conformance spares critical pods), and pods of its own job by task priority; Kueue evicts whole "
      "lower-priority workloads of the ClusterQueue and has no preemption inside a workload. Without the priority "
      "plugin no job outranks another and withinClusterQueue stays Never.")
_rule("VC-CONV-DEQUEUE", "warning", "kqctl", "dequeueStrategy has no Kueue equivalent: dropped")
_rule("VC-CONV-AFFINITY", "warning", "kqctl", "A queue's node-group affinity has no Kueue equivalent: dropped")
_rule("VC-CONV-CLUSTERS", "warning", "kqctl", "extendClusters has no Kueue equivalent: dropped")
_rule("VC-CONV-TYPE", "warning", "kqctl", "A queue's type has no Kueue equivalent: dropped")
_rule("VC-CONV-NO-DESERVED", "warning", "kqctl", "A queue with a capability but neither deserved nor guarantee gets "
      "nominalQuota 0 in Kueue")
_rule("VC-CONV-TREE", "error", "kqctl", "The Volcano queues form no tree (a queue its own parent, parents in a "
      "cycle): convert --to kueue refuses them", "Their Cohorts would form the same cycle, which Kueue makes "
      "inactive (XO-CO-CYCLE); fix the parents first (kqctl validate shows Volcano's own refusal).")
_rule("VC-CONV-PARENT-QUOTA", "warning", "kqctl", "A parent queue's quota becomes its Cohort's quota, which Kueue "
      "adds to what the children can borrow instead of capping them")
_rule("VC-CONV-CAPACITY", "warning", "kqctl", "The cluster's capacity, which Volcano's root queue holds, becomes "
      "the root Cohort's quota beyond the ClusterQueues' nominal quotas; without Nodes in the input it gets none",
      "Volcano shares the nodes' allocatable among the queues by weight (proportion) or deserved (capacity): a queue "
      "with a weight only has no quota of its own. Kueue has quota only where it is written, so the conversion puts "
      "what the nodes have beyond the ClusterQueues' nominal quotas on the root Cohort, the pool every ClusterQueue "
      "may borrow from (up to its borrowingLimit). Without Nodes in the input there is no such figure: the root "
      "Cohort gets no quota and a ClusterQueue without deserved or guarantee admits nothing until it is given one.")

# --- audit (kqctl audit on Volcano input) ----------------------------------------------------------------------
_rule("VC-AUDIT-IDLE-GUARANTEE", "warning", "kqctl", "A queue guarantees more than it uses: the rest is held back "
      "from every other queue's real capability")
_rule("VC-AUDIT-CAPABILITY-RESOURCE", "warning", "kqctl", "A queue's capability names a resource no node has")
_rule("VC-AUDIT-ZERO-CAPABILITY", "warning", "kqctl", "A queue's cpu or memory capability of 0 is read as unlimited")
_rule("VC-AUDIT-DESERVED-IGNORED", "info", "kqctl", "deserved is set while proportion computes the deserved share "
      "from weight")
_rule("VC-AUDIT-STARVED", "warning", "kqctl", "A queue with pending work whose real capability is 0: the other "
      "queues' guarantees take the whole cluster")
_rule("VC-AUDIT-NEVER-FITS", "warning", "kqctl", "A PodGroup whose minResources exceed the whole cluster can never "
      "be enqueued")

# --- replay in virtual time (kqctl replay, diff --replay and plan on Volcano input) ----------------------------
_rule("VC-R1", "-", "volcano-scheduler", "A session opens every schedule period (vc-scheduler --schedule-period, 1s "
      "by default) and runs the configured actions as simulate runs them",
      "kqctl skips a session that could decide nothing new (nothing arrived, finished or changed since the last).")
_rule("VC-R2", "-", "volcano-scheduler", "A PodGroup (a vcjob's, a pod's, a trace row's) created after the replay's "
      "start joins the cluster with its pods at its creation time")
_rule("VC-R3", "-", "volcano-scheduler", "A PodGroup runs from the session that schedules its minMember pods; when "
      "its runtime ends every pod of it finishes and leaves its node",
      "The runtime is the annotation kqctl.dev/runtime of the PodGroup or vcjob (else the longest of its pods'), or "
      "--runtime.")
_rule("VC-R4", "-", "volcano-scheduler", "An evicted pod is deleted; the vcjob controller acts on PodEvicted as its "
      "policies say, another controller makes its pod again, a bare pod is gone",
      "SyncJob (the default) and RestartPod make the pod again; RestartTask and RestartJob kill and make again the "
      "task's or the job's pods, failing the job at maxRetry (3); AbortJob, TerminateJob and CompleteJob end it. A "
      "running PodGroup left below minMember has stopped: its runtime starts over when it runs again.")
_rule("VC-R5", "-", "volcano-scheduler", "Sessions that come back to a state seen since the last arrival or "
      "completion (a livelock) stop until something arrives or finishes")

# --- Apache YuniKorn (shared/design/yunikorn-semantics.md; IDs shown with the YK- prefix) -------------------
_rule("YK-PARSE", "error", "yunikorn-validator", "queues.yaml is not YAML (go-yaml cannot read it)")
_rule("YK-DECODE", "error", "yunikorn-validator", "queues.yaml does not decode strictly: an unknown or repeated "
      "key, or a value of the wrong type",
      "YuniKorn decodes with KnownFields: keys are the Go field names lower-cased without separators "
      "(maxapplications, placementrules, childtemplate). Every such problem is collected into one message.")
_rule("YK-V1", "error", "yunikorn-validator", "Partition names must be unique (case-insensitive; \"\" is default)")
_rule("YK-V2", "error", "yunikorn-validator", "A partition must have queues")
_rule("YK-V3", "error", "yunikorn-validator", "The top queue is root (any case); several top queues get a root "
      "inserted above them")
_rule("YK-V4", "error", "yunikorn-validator", "The root queue must not set resources (its max is the cluster)")
_rule("YK-V5", "error", "yunikorn-validator", "Partition limits and root limits must be equal when both are set")
_rule("YK-V6", "error", "yunikorn-validator", "An ACL has at most two blank-separated fields: users, groups")
_rule("YK-V7", "error", "yunikorn-validator", "Queue names: 1-64 of letters, digits and -_#@/: (no dots)")
_rule("YK-V8", "error", "yunikorn-validator", "Child queue names must be unique per parent (case-insensitive)")
_rule("YK-V9", "error", "yunikorn-validator", "Quantities: a plain integer with an optional SI suffix (vcore also "
      "takes m)", "vcore is in cores (2 = 2000 millicores, 500m = 500); memory and others in their base unit. No "
      "decimals, signs or exponents; K alone is not a suffix (k or Ki).")
_rule("YK-V10", "error", "yunikorn-validator", "A queue's guaranteed must not exceed its max")
_rule("YK-V11", "error", "yunikorn-validator", "A queue's max must not exceed its ancestors' effective max")
_rule("YK-V12", "error", "yunikorn-validator", "The children's guaranteed must fit in the parent's guaranteed")
_rule("YK-V13", "error", "yunikorn-validator", "The children's guaranteed must fit in the parent's effective max")
_rule("YK-V14", "error", "yunikorn-validator", "A placement rule name must be an identifier")
_rule("YK-V15", "error", "yunikorn-validator", "A placement filter: type allow, deny or \"\"; a single entry is a "
      "name or a real regular expression")
_rule("YK-V16", "error", "yunikorn-validator", "The fixed part of a placement rule chain must fit the queue tree",
      "A fixed path followed by a dynamic rule must end in a parent; one without must end in a leaf; missing queues "
      "need create: true and cannot hang below a leaf.")
_rule("YK-V17", "error", "yunikorn-validator", "Node sort policy: fair, binpacking or \"\"; no negative weights")
_rule("YK-V18", "error", "yunikorn-validator", "A parent's maxapplications binds every child to a non-zero value "
      "no larger")
_rule("YK-V19", "error", "yunikorn-validator", "User and group limits: names, duplicates, wildcard order, values, "
      "and no more than the same name's (or the wildcard's) limit above")
_rule("YK-V20", "warning", "yunikorn-core", "YuniKorn accepts it, but the queues cannot be built",
      "YuniKorn's validator and admission webhook allow it; a reload with it then fails and the old configuration "
      "stays, and at start-up the partition cannot be created. A child template with a bad quantity; an ACL with "
      "doubled or leading spaces (the validator splits on runs of blanks, the queue on single spaces); a top queue "
      "spelled Root or ROOT (the partition wants root).")
_rule("YK-V21", "warning", "yunikorn-core", "YuniKorn accepts it, but the placement rules cannot be built",
      "Rule names are matched in any case (PrimaryGroup is primarygroup, a rule yunikorn-core does not have). An "
      "unknown rule name, recovery, tag or fixed without a value, a qualified fixed rule with a parent: at start-up "
      "the placement manager has no rules and rejects every application; a reload with it fails and the old "
      "configuration stays. YuniKorn's validator and admission webhook allow it.")
_rule("YK-V22", "warning", "yunikorn-core", "A queue property value that does not parse is replaced by its "
      "default, silently")
_rule("YK-V23", "warning", "yunikorn-core", "A queue property YuniKorn does not know is ignored")
_rule("YK-V24", "warning", "yunikorn-core", "A resource named as kubectl names it (cpu, requests.cpu) or nearly "
      "vcore or memory (Memory) limits nothing", "Pods reach YuniKorn as vcore (cpu in millicores), memory, pods "
      "and their other resources by name, case-sensitive. YuniKorn accepts any name in a queue's resources, so a "
      "cpu: or Memory: limit is kept (the configuration is valid), but never matched by anything a pod asks for: "
      "a max does not limit, a guaranteed guarantees nothing, a user limit does not limit.")
_rule("YK-V25", "warning", "yunikorn-core", "A guaranteed or max with only zero values is ignored (the queue is "
      "unlimited, not closed)")
_rule("YK-V26", "warning", "yunikorn-core", "A child template's guaranteed above its max is not checked")
_rule("YK-V27", "info", "yunikorn-shim", "An empty queues.yaml: YuniKorn uses its built-in default")
_rule("YK-V27B", "warning", "yunikorn-core", "No partition at all: YuniKorn accepts it, and nothing is scheduled")
_rule("YK-V27C", "warning", "yunikorn-shim", "No partition named default: YuniKorn accepts it, but the shim submits "
      "every application to default")
_rule("YK-V28", "-", "yunikorn-core", "A gang application (task groups) is rejected by a queue that does not sort "
      "its applications fifo, or whose max below root cannot hold its placeholders",
      "The Kubernetes shim reads the yunikorn.apache.org/task-groups annotation (per group minMember pods, each with "
      "minResource); yunikorn-core's AddApplication refuses the application in a leaf whose application.sort.policy "
      "is not fifo, and when the placeholders do not fit the smallest max on the queue's path below root. simulate "
      "shows such pods Rejected with YuniKorn's message; explain names the rule. An application accepted goes on "
      "to its placeholders (YK-GANG-1).")
_rule("YK-P1", "-", "yunikorn-shim", "A pod's priority is its spec.priority (set from its PriorityClass), 0 when "
      "unset")
_rule("YK-P2", "-", "yunikorn-core", "An application's priority is the highest priority of its pods not yet "
      "allocated; none pending is the minimum int32")
_rule("YK-P3", "-", "yunikorn-core", "A queue's raw priority: its applications' highest pending ask (leaf) or its "
      "children's highest reported priority (parent)", "An application's priority is the highest priority of its "
      "pods not yet allocated (spec.priority, from the PriorityClass); none pending is the minimum int32.")
_rule("YK-P4", "-", "yunikorn-core", "The priority a queue reports to its siblings: raw + priority.offset (clamped "
      "to int32); a fenced queue (priority.policy: fence) reports its offset alone; nothing pending stays minimum",
      "Offsets add up along unfenced paths; a fence hides everything below it, however high.")
_rule("YK-S1", "-", "yunikorn-core", "Child queues are tried highest reported priority first, then lowest fair "
      "share (allocated/guaranteed, else allocated/max), then larger pending",
      "With application.sort.priority: disabled on the parent, fair share comes before priority. Remaining ties "
      "are in random order in YuniKorn (a Go map); kqctl orders them by name and says so.")
_rule("YK-S2", "-", "yunikorn-core", "Applications of a leaf: fifo (earliest submitted) or fair (smallest usage "
      "of the leaf's guaranteed), priority first unless application.sort.priority is disabled")
_rule("YK-PL", "-", "yunikorn-core", "Placement: the rules in order, then root.default; a queue must be a leaf the "
      "user may submit to (submitacl or adminacl up the tree), or creatable below one",
      "No rules configured means one provided rule without create: a pod must name an existing queue.")
_rule("YK-G1", "-", "yunikorn-core", "maxapplications: an application starts only while every queue on its path "
      "runs fewer than its maxapplications")
_rule("YK-G2", "-", "yunikorn-core", "User and group limits: a pod must fit its user's (and group's) remaining "
      "maxresources at every queue on the path (Not enough user quota)")
_rule("YK-G3", "-", "yunikorn-core", "Queue headroom: a pod must fit max - allocated of its leaf and every ancestor "
      "(the root's max is the cluster) (Not enough queue quota)", "Guaranteed resources never gate an allocation; "
      "they only order queues and decide preemption.")
_rule("YK-G4", "-", "yunikorn-core", "On allocation the leaf and every ancestor are checked again (max >= "
      "allocated + ask); at root a resource no node has counts as 0, so a pod asking for it never fits")
_rule("YK-G5", "-", "yunikorn-core", "Guaranteed resources never gate an allocation: they only order queues (YK-S1) "
      "and decide preemption")
_rule("YK-G6", "warning", "yunikorn-shim", "Namespace annotations yunikorn.apache.org/namespace.quota, "
      "namespace.guaranteed and namespace.maxApps set max, guaranteed and maxapplications on the namespace's "
      "dynamic leaf (never on a configured queue)", "The quota annotation is JSON of Kubernetes quantities, e.g. "
      "{\"cpu\": \"4\", \"memory\": \"8Gi\"}; the shim logs and ignores one that does not parse (validate "
      "warns), and a broken namespace.quota still hides the deprecated namespace.max.cpu/memory.")
_rule("YK-POD-ANNOTATION", "warning", "yunikorn-shim", "A YuniKorn pod annotation the shim cannot read: it logs "
      "the problem and carries on with a default (task-groups: no gang; user.info: user nobody with no groups; "
      "schedulingPolicyParameters: the pair skipped, a 15-minute placeholder timeout or the Soft style; "
      "yunikorn.apache.org/placeholder, YuniKorn's placeholder flag before 1.6: an ordinary pod)",
      "task-groups is read unless service.disableGangScheduling is set; the admission controller refuses a pod "
      "whose user.info does not parse unless its accessControl.bypassAuth is set. kqctl's simulation does as the "
      "shim does.")
_rule("YK-POD-TASK-GROUP", "warning", "yunikorn-core", "A pod's yunikorn.apache.org/task-group-name names a task "
      "group its application does not declare in yunikorn.apache.org/task-groups: the pod is scheduled as an "
      "ordinary pod and replaces none of the application's placeholders",
      "The shim passes the name on unchecked; the core finds no placeholder of that group and allocates the pod on "
      "its own, outside the gang. The application's task groups are read from one of its pods (the first created "
      "whose annotation the shim reads); not checked when service.disableGangScheduling is set. kqctl's simulation "
      "does as the core does.")
_rule("YK-G7", "-", "yunikorn-core", "A gang application's placeholders must fit the smallest max on its queue's "
      "path below root, else it is rejected (see YK-V28)")
_rule("YK-GANG-1", "-", "yunikorn-shim", "Reserve or not: an application with task groups and no real pod bound is "
      "Reserving, and the shim makes minMember placeholder pods per task group (the group's minResource, node "
      "selector, tolerations and affinity; the originator's priority class); with a real pod bound it makes none",
      "Placeholder pods already in the cluster (annotation internal.yunikorn.apache.org/placeholder) are taken as they "
      "are and only the missing ones made; kqctl names them tg-<application>-<group>-<n> where YuniKorn ends the name "
      "with ten random characters. When the application's placeholderTimeoutInSeconds (> 0) has passed since its first "
      "pod was created and no placeholder exists (a scheduler restart), the shim makes none: "
      "gangSchedulingStyle=Hard fails the application (its pods Failed), Soft runs it as an ordinary one. An "
      "application the core rejects (YK-V28) gets no placeholders.")
_rule("YK-GANG-2", "-", "yunikorn-shim", "While an application is Reserving the shim sends the core only its "
      "placeholders; its real pods are sent once every task group has minMember placeholders allocated, or as soon "
      "as a placeholder is released", "k8shim's Application.Schedule sends only placeholders in the Reserving state; "
      "onReservationStateChange moves the application to Running when every group's placeholders are bound, and "
      "a placeholder's release moves it there too. simulate shows the real pods Pending with the task groups' "
      "progress; explain explains the placeholder the gang waits for.")
_rule("YK-GANG-3", "-", "yunikorn-core", "A real pod of a task group that still has placeholders to replace "
      "(placeholders made > replaced + timed out) is never allocated as an ordinary ask: it waits for a "
      "replacement (YK-GANG-4)", "yunikorn-core's canReplace. A pod naming a task group its application does not "
      "declare is an ordinary ask (YK-POD-TASK-GROUP).")
_rule("YK-GANG-4", "-", "yunikorn-core", "Placeholder replacement, tried after reserved asks and before the regular "
      "walk: a real pod takes the node of a placeholder of its group that is at least its size in every resource; "
      "a placeholder smaller in some resource is released (resource incompatible)",
      "yunikorn-core's tryPlaceholderAllocate: queues and applications in the walk's order (only applications with "
      "placeholders allocated), the application's pending real pods in order. A placeholder whose node fails the "
      "real pod's predicates is passed over; when none takes it the real pod goes to the first node it fits and "
      "the first placeholder that could have been replaced is released. Go walks the placeholders in map order "
      "(random): kqctl in allocation order. A released placeholder counts as timed out. simulate shows the "
      "placeholder Replaced (or Released) and the real pod Allocated with the placeholder it replaced.")
_rule("YK-GANG-5", "-", "yunikorn-core", "The placeholder timeout runs from the application's first placeholder "
      "allocation (placeholderTimeoutInSeconds, 15 minutes by default): placeholders not replaced by then are "
      "released; an application whose placeholders were not all allocated is then failed (gangSchedulingStyle=Hard) "
      "or runs as an ordinary application (Soft, the default)",
      "yunikorn-core's timeoutPlaceholderProcessing. simulate's clock does not move: explain says when the timer "
      "ends and what it will do; kqctl replay follows it in virtual time. A Hard failure fails the pods not yet "
      "allocated (Scheduling has timed out due to insufficient resources).")
_rule("YK-E1", "-", "yunikorn-core", "Preemption precondition: the pod may preempt others (preemptionPolicy is not "
      "Never)")
_rule("YK-E2", "-", "yunikorn-core", "Preemption precondition: the ask has not triggered preemption before",
      "An ask preempts once. YuniKorn takes victims only while their total stays below the ask in every resource "
      "type (each pod counts pods: 1), so that one preemption may free too little (two 0.5-core pods for a "
      "2-core ask) and the ask then waits.")
_rule("YK-E3", "-", "yunikorn-core", "Preemption precondition: the ask is older than its leaf's preemption.delay "
      "(default 30s)", "kqctl's clock is --now (default: the current time); pods created less than the delay "
      "before it cannot preempt yet.")
_rule("YK-E4", "-", "yunikorn-core", "Preemption precondition: preemption was not tried for the ask in the last 15 "
      "seconds")
_rule("YK-PREEMPT", "-", "yunikorn-core", "Preemption only gives a queue its guaranteed resources: the pod's queue "
      "must be below guaranteed, victims come from queues above theirs below the fence",
      "Preconditions: the pod may preempt (preemptionPolicy not Never), it has not preempted before, it is older "
      "than the leaf's preemption.delay (30s), and it was not tried in the last 15 s.")
_rule("YK-PREEMPT-NODE", "-", "yunikorn-core", "Preemption evicts on the node with the lowest solution score: "
      "evicting an application's first pod or a pod that opted out is avoided, then the fewest victims",
      "Every node where evicting victims makes room is checked; a victim up to the one that makes room that is its "
      "application's originator costs a large penalty, one with allow-preemption: false a larger one, then each "
      "victim counts. Equal scores: YuniKorn keeps the check that answered first (goroutine order); kqctl the first "
      "by node name.")
_rule("YK-RESERVE", "-", "yunikorn-core", "A pod no node takes, older than 2 s and without a reservation, "
      "reserves the unreserved node it fits best by size, full or not; no other pod is placed there until it runs or "
      "gives the node up", "yunikorn-core Application.tryNodes. Every pending pod is tried again on every cycle: when "
      "a reservation ends, a pod that found every node reserved may reserve that node.")
_rule("YK-PL-QUEUE", "warning", "yunikorn-core", "Placement does not put the pod's application in the queue the "
      "pod names: the queue does not exist and no placement rule creates it, it is a parent queue, the user may not "
      "submit to it (submitacl/adminacl up the tree), or no rule takes a pod's queue; the application is rejected or "
      "placed elsewhere", "validate asks the engine's own placement (the rules in order, each rule's queue checked "
      "for a leaf and for submit access) and names the reason of the rule that named the queue. Queue paths are "
      "case-insensitive and start at root; a name without root. is looked up under root. kqctl names the existing "
      "queues a missing name is close to. An ACL left out is nobody: with no submitacl anywhere nobody may submit.")
_rule("YK-PL-REJECTED", "warning", "yunikorn-core", "YuniKorn rejects the pod's application for another reason than "
      "its queue label: no placement rule places it, its queue cannot be created, or the queue refuses it (a gang "
      "application, YK-V28)")
_rule("YK-AUDIT-GUARANTEED-OVER-MAX", "warning", "kqctl", "The children's guaranteed resources add up to more "
      "than their parent's max", "Dynamic queues (child templates, namespace annotations) are never validated: "
      "their guarantees cannot all be met at once.")
_rule("YK-AUDIT-GUARANTEED-OVER-CLUSTER", "warning", "kqctl", "The top queues' guaranteed resources add up to more "
      "than the cluster has")
_rule("YK-AUDIT-OVER-MAX", "warning", "kqctl", "A queue holds more than its max: nothing more is allocated in it "
      "until pods finish", "A max lowered under running pods, or pods bound before YuniKorn saw them, leave a queue "
      "above its max; its headroom is negative. Quota preemption brings it back only with the partition's "
      "preemption.quotapreemptionenabled and the queue's quota.preemption.delay.")
_rule("YK-AUDIT-NEVER-FITS", "warning", "kqctl", "A pending pod can never get in as configured: it asks more than a "
      "max up its queue's path (the root's is the cluster), a user or group limit, or any node can hold",
      "The same answer simulate gives (inadmissible, --fail-on inadmissible): what only configuration and nodes "
      "decide, never what finishing pods would free.")
_rule("YK-AUDIT-FENCED-BEHIND", "info", "kqctl", "A fenced queue is always behind a fenced sibling with a higher "
      "offset while that sibling has anything pending")
_rule("YK-AUDIT-NO-GUARANTEE", "info", "kqctl", "Preemption is enabled but no queue is guaranteed anything: "
      "YuniKorn never preempts")
_rule("YK-AUDIT-REJECTED", "warning", "yunikorn-core", "Pods YuniKorn rejects: no placement rule takes their "
      "application, or its queue refuses it (YK-V28)")
_rule("YK-CONFIGMAP-SETTING", "warning", "yunikorn-shim", "A typed setting of the ConfigMaps "
      "(service.schedulingInterval, service.disableGangScheduling, kubernetes.qps, ...) does not parse: the shim "
      "refuses the whole configuration",
      "The shim parses durations (time.ParseDuration), integers and booleans (strconv.ParseBool) without trimming; "
      "one failure fails the whole ConfigMap load: at start-up the shim exits, on a change it ignores every key of "
      "the change, the queue configuration included. The webhook validates only the queue configuration, so the "
      "ConfigMap is stored. kqctl uses the setting's default.")
_rule("YK-CONFIGMAP", "warning", "yunikorn-shim", "How the two ConfigMaps combine: yunikorn-configs over "
      "yunikorn-defaults key by key, binaryData .gz keys gunzipped, service.policyGroup choosing the key")

# --- replay in virtual time (kqctl replay, diff --replay and plan on YuniKorn input) ----------------------------
_rule("YK-R1", "-", "yunikorn-core", "The core schedules right after every change, cycle after cycle until one does "
      "nothing; time alone lets an ask reserve a node (2s old), preempt (preemption.delay) or retry preemption (15s)",
      "Noticed at the core's next 100 ms poll, as its scheduling loop does when idle.")
_rule("YK-R2", "-", "yunikorn-shim", "The shim sends a new pod to the core at its next scheduling run "
      "(service.schedulingInterval, 1s by default); a new application's pods wait two more runs",
      "k8shim's Application.Schedule moves an application one state per run: New (submitted), Accepted (run), "
      "Running (tasks scheduled). A gang's placeholders are made at the second run (Accepted -> Reserving, where "
      "the shim also checks the placeholder timeout) and sent at the third; the core ages their asks from the "
      "second.")
_rule("YK-R3", "-", "yunikorn-shim", "A pod runs from its allocation for its runtime, then its allocation is "
      "released; an application with nothing allocated or pending is Completing",
      "The runtime is the pod's annotation kqctl.dev/runtime, or --runtime. A Completing application no longer "
      "counts against maxapplications.")
_rule("YK-R4", "-", "yunikorn-shim", "A preempted pod with a controller is made again by it (a new pending pod of the "
      "same application); a bare pod is not made again")

CATALOGUE: dict[str, Rule] = {rule.id: rule for rule in _RULES}
if len(CATALOGUE) != len(_RULES):  # pragma: no cover - a duplicate line above
    raise RuntimeError("duplicate rule ID in the catalogue")

CEL_PREFIX = "CEL-"


def lookup(rule_id: str) -> Rule | None:
    """The entry for ``rule_id`` (case-insensitive); ``CEL-<ID>`` is the CEL rule enforcing ``<ID>``."""
    wanted = rule_id.strip().upper()
    if wanted in CATALOGUE:
        return CATALOGUE[wanted]
    if wanted.startswith(CEL_PREFIX) and wanted[len(CEL_PREFIX):] in CATALOGUE:
        base = CATALOGUE[wanted[len(CEL_PREFIX):]]
        return Rule(wanted, base.severity, "cel", base.title,
                    f"Reported by the CRD's CEL rule that enforces {base.id}. {base.detail}".strip())
    return None


def family(prefix: str) -> list[Rule]:
    """Every rule whose ID starts with ``prefix`` followed by '-' (``XO``, ``VAL-CQ``), in catalogue order."""
    wanted = prefix.strip().upper().rstrip("-") + "-"
    return [rule for rule in _RULES if rule.id.startswith(wanted)]


def all_rules() -> list[Rule]:
    return list(_RULES)


def suggestions(rule_id: str, limit: int = 3) -> list[str]:
    """Known IDs closest to a mistyped one, for "did you mean"."""
    return difflib.get_close_matches(rule_id.strip().upper(), list(CATALOGUE), n=limit, cutoff=0.6)
