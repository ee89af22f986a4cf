"""A small HTTP server that speaks enough of the Kubernetes API for kqctl's cluster reader.

It serves discovery (``/api``, ``/api/v1``, ``/apis``, ``/apis/<group>``, ``/apis/<group>/<version>``)
and cluster-wide lists with ``labelSelector``, ``limit`` and opaque ``continue`` tokens, checks
the bearer token, and logs every request so tests can assert on what kqctl asked for. Tests
change :class:`FakeCluster` (versions, forbidden or missing resources, page size) to stage
failures; the server reads it on every request.
"""

from __future__ import annotations

import base64
import copy
import json
import ssl
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

KUEUE = "kueue.x-k8s.io"
TOKEN = "fake-token-0123456789abcdef"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"

KUEUE_RESOURCES: dict[str, tuple[str, bool]] = {  # plural -> (kind, namespaced)
    "resourceflavors": ("ResourceFlavor", False),
    "clusterqueues": ("ClusterQueue", False),
    "localqueues": ("LocalQueue", True),
    "cohorts": ("Cohort", False),
    "workloads": ("Workload", True),
    "workloadpriorityclasses": ("WorkloadPriorityClass", False),
    "admissionchecks": ("AdmissionCheck", False),
    "topologies": ("Topology", False),
    "provisioningrequestconfigs": ("ProvisioningRequestConfig", False),  # served, never read by kqctl
}
# Volcano's groups, served only when FakeCluster.volcano_installed: (group, version) -> plural -> (kind, namespaced).
VOLCANO: dict[tuple[str, str], dict[str, tuple[str, bool]]] = {
    ("scheduling.volcano.sh", "v1beta1"): {"queues": ("Queue", False), "podgroups": ("PodGroup", True)},
    ("batch.volcano.sh", "v1alpha1"): {"jobs": ("Job", True)},
}
# (group, version) -> plural -> (kind, namespaced), for the built-in groups the server knows.
BUILTIN: dict[tuple[str, str], dict[str, tuple[str, bool]]] = {
    ("", "v1"): {
        "namespaces": ("Namespace", False),
        "pods": ("Pod", True),
        "limitranges": ("LimitRange", True),
        "secrets": ("Secret", True),
        "configmaps": ("ConfigMap", True),
        "nodes": ("Node", False),
    },
    ("batch", "v1"): {"jobs": ("Job", True)},
    ("scheduling.k8s.io", "v1"): {"priorityclasses": ("PriorityClass", False)},
}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    authorization: str | None


@dataclass
class FakeCluster:
    """What the server serves. ``objects`` maps (group, plural) to items as stored (no apiVersion/kind)."""

    objects: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    token: str = TOKEN
    kueue_installed: bool = True
    kueue_versions: tuple[str, ...] = ("v1beta2", "v1beta1")
    preferred_kueue_version: str | None = None  # default: the first of kueue_versions
    kueue_resources: tuple[str, ...] = tuple(KUEUE_RESOURCES)
    volcano_installed: bool = False
    page_size: int | None = 2  # server-side cap on limit, so pagination always happens
    forbidden: set[str] = field(default_factory=set)  # plurals whose list answers 403
    not_found: set[str] = field(default_factory=set)  # plurals whose list answers 404 though discovered
    expire_continue_once: set[str] = field(default_factory=set)  # plurals whose first continue answers 410
    repeat_continue: set[str] = field(default_factory=set)  # plurals that hand out the same token forever
    echo_credentials: bool = False  # a careless server whose 401 message quotes the Authorization header
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def log(self, request: Request) -> None:
        with self.lock:
            self.requests.append(request)

    def paths(self) -> list[str]:
        with self.lock:
            return [r.path for r in self.requests]

    def list_requests(self, plural: str) -> list[Request]:
        with self.lock:
            return [r for r in self.requests if r.path.rstrip("/").split("/")[-1] == plural]


def status(code: int, reason: str, message: str) -> tuple[int, dict[str, Any]]:
    return code, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
                  "reason": reason, "code": code}


class Router:
    """Answers one request from the state of a :class:`FakeCluster`."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster

    def answer(self, path: str, query: dict[str, str], authorization: str | None) -> tuple[int, dict[str, Any]]:
        if authorization != f"Bearer {self.cluster.token}":
            message = f"Unauthorized: {authorization}" if self.cluster.echo_credentials else "Unauthorized"
            return status(401, "Unauthorized", message)
        parts = [p for p in path.split("/") if p]
        if parts == ["api"]:
            return 200, {"kind": "APIVersions", "versions": ["v1"]}
        if parts[:2] == ["api", "v1"]:
            return self.group_version("", "v1", parts[2:], query)
        if parts == ["apis"]:
            return 200, self.group_list()
        if len(parts) == 2 and parts[0] == "apis":
            return self.group(parts[1])
        if len(parts) >= 3 and parts[0] == "apis":
            return self.group_version(parts[1], parts[2], parts[3:], query)
        return status(404, "NotFound", "the server could not find the requested resource")

    # --- discovery ---

    def groups(self) -> dict[str, tuple[str, ...]]:
        served: dict[str, tuple[str, ...]] = {"batch": ("v1",), "scheduling.k8s.io": ("v1",)}
        if self.cluster.kueue_installed:
            served[KUEUE] = self.cluster.kueue_versions
        if self.cluster.volcano_installed:
            served.update({group: (version,) for group, version in VOLCANO})
        return served

    def group_body(self, name: str, versions: tuple[str, ...]) -> dict[str, Any]:
        preferred = versions[0]
        if name == KUEUE and self.cluster.preferred_kueue_version:
            preferred = self.cluster.preferred_kueue_version
        return {
            "name": name,
            "versions": [{"groupVersion": f"{name}/{v}", "version": v} for v in versions],
            "preferredVersion": {"groupVersion": f"{name}/{preferred}", "version": preferred},
        }

    def group_list(self) -> dict[str, Any]:
        return {"kind": "APIGroupList", "apiVersion": "v1",
                "groups": [self.group_body(name, versions) for name, versions in self.groups().items()]}

    def group(self, name: str) -> tuple[int, dict[str, Any]]:
        versions = self.groups().get(name)
        if versions is None:
            return status(404, "NotFound", "the server could not find the requested resource")
        return 200, {"kind": "APIGroup", "apiVersion": "v1", **self.group_body(name, versions)}

    def resources(self, group: str, version: str) -> dict[str, tuple[str, bool]] | None:
        if group == KUEUE:
            if not self.cluster.kueue_installed or version not in self.cluster.kueue_versions:
                return None
            return {p: KUEUE_RESOURCES[p] for p in self.cluster.kueue_resources}
        if (group, version) in VOLCANO:
            return VOLCANO[(group, version)] if self.cluster.volcano_installed else None
        return BUILTIN.get((group, version))

    def resource_list(self, group: str, version: str, resources: dict[str, tuple[str, bool]]) -> dict[str, Any]:
        entries: list[dict[str, Any]] = []
        for plural, (kind, namespaced) in resources.items():
            verbs = ["create", "delete", "get", "list", "patch", "update", "watch"]
            entries.append({"name": plural, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
                            "verbs": verbs})
            if group == KUEUE:
                entries.append({"name": f"{plural}/status", "singularName": "", "namespaced": namespaced,
                                "kind": kind, "verbs": ["get", "patch", "update"]})
        group_version = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": entries}

    # --- lists ---

    def group_version(self, group: str, version: str, rest: list[str],
                      query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        resources = self.resources(group, version)
        if resources is None:
            return status(404, "NotFound", "the server could not find the requested resource")
        if not rest:
            return 200, self.resource_list(group, version, resources)
        if len(rest) == 4 and rest[0] == "namespaces" and rest[2] in resources:
            return self.get(group, rest[2], rest[1], rest[3])
        if len(rest) != 1 or rest[0] not in resources:
            return status(404, "NotFound", "the server could not find the requested resource")
        return self.list(group, version, rest[0], resources[rest[0]][0], query)

    def list(self, group: str, version: str, plural: str, kind: str,
             query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        name = f"{plural}.{group}" if group else plural
        if plural in self.cluster.forbidden:
            return status(403, "Forbidden", f'{name} is forbidden: User "system:serviceaccount:ops:kqctl" cannot '
                                            f'list resource "{plural}" in API group "{group}" at the cluster scope')
        if plural in self.cluster.not_found:
            return status(404, "NotFound", "the server could not find the requested resource")
        token = query.get("continue")
        if token and plural in self.cluster.expire_continue_once:
            self.cluster.expire_continue_once.discard(plural)
            return status(410, "Expired", "The provided continue parameter is too old to display a consistent list "
                                          "result. You can start a new list without the continue parameter.")
        items = [i for i in self.cluster.objects.get((group, plural), []) if matches(i, query.get("labelSelector"))
                 and name_matches(i, query.get("fieldSelector"))]
        start = decode_token(token) if token and token != "same" else 0
        size = self.page_size(query)
        page, more = items[start:start + size], start + size < len(items)
        api_version = f"{group}/{version}" if group else version
        meta: dict[str, Any] = {"resourceVersion": "4242"}
        if more or (plural in self.cluster.repeat_continue):
            meta["continue"] = "same" if plural in self.cluster.repeat_continue else encode_token(start + size)
            meta["remainingItemCount"] = max(len(items) - start - size, 0)
        return 200, {"kind": f"{kind}List", "apiVersion": api_version, "metadata": meta,
                     "items": [as_listed(item, group, api_version, kind) for item in page]}

    def get(self, group: str, plural: str, namespace: str, name: str) -> tuple[int, dict[str, Any]]:
        """One namespaced object by name (``GET .../namespaces/<ns>/<plural>/<name>``)."""
        if plural in self.cluster.forbidden:
            return status(403, "Forbidden", f'{plural} "{name}" is forbidden')
        for item in self.cluster.objects.get((group, plural), []):
            meta = item.get("metadata") or {}
            if meta.get("name") == name and meta.get("namespace") == namespace:
                return 200, copy.deepcopy(item)
        return status(404, "NotFound", f'{plural} "{name}" not found')

    def page_size(self, query: dict[str, str]) -> int:
        size = int(query["limit"]) if query.get("limit", "").isdigit() else 1_000_000
        cap = self.cluster.page_size
        return max(1, min(size, cap) if cap else size)


def as_listed(item: dict[str, Any], group: str, api_version: str, kind: str) -> dict[str, Any]:
    """As a real server lists: custom resources carry apiVersion/kind per item, built-in kinds do not."""
    body = {k: copy.deepcopy(v) for k, v in item.items() if k not in ("apiVersion", "kind")}
    custom = group == KUEUE or any(group == g for g, _ in VOLCANO)
    return {"apiVersion": api_version, "kind": kind, **body} if custom else body


def name_matches(item: dict[str, Any], selector: str | None) -> bool:
    """The field selectors kqctl sends: ``metadata.name=<name>`` (Volcano's ConfigMap) and
    ``status.phase!=Succeeded,status.phase!=Failed`` (YuniKorn's pods), comma-separated terms."""
    if not selector:
        return True
    fields = {"metadata.name": (item.get("metadata") or {}).get("name"),
              "status.phase": (item.get("status") or {}).get("phase")}
    for term in selector.split(","):
        negated = "!=" in term
        field_name, _, value = term.partition("!=" if negated else "=")
        assert field_name in fields, selector
        if (fields[field_name] == value) == negated:
            return False
    return True


def matches(item: dict[str, Any], selector: str | None) -> bool:
    """Just enough label selector: ``key`` (exists) and ``key=value``, comma-separated."""
    if not selector:
        return True
    labels = (item.get("metadata") or {}).get("labels") or {}
    for term in selector.split(","):
        key, _, value = term.partition("=")
        if key not in labels or (value and labels[key] != value):
            return False
    return True


def encode_token(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"start": offset, "rv": "4242"}).encode()).decode()


def decode_token(token: str) -> int:
    return int(json.loads(base64.urlsafe_b64decode(token.encode()))["start"])


def make_handler(cluster: FakeCluster) -> type[BaseHTTPRequestHandler]:
    router = Router(cluster)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the name http.server dispatches to
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            authorization = self.headers.get("Authorization")
            cluster.log(Request("GET", parts.path, query, authorization))
            code, body = router.answer(parts.path, query, authorization)
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # kqctl never writes: log it and refuse
            cluster.log(Request("POST", urlsplit(self.path).path, {}, self.headers.get("Authorization")))
            self.send_error(405)

        do_PUT = do_PATCH = do_DELETE = do_POST

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

    return Handler


class FakeApiServer:
    """The server on 127.0.0.1 and a free port, in a background thread; a context manager."""

    def __init__(self, cluster: FakeCluster, tls: tuple[str, str] | None = None) -> None:
        """``tls``: (certificate file, key file) to serve HTTPS instead of HTTP."""
        self.cluster = cluster
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(cluster))
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.httpd.server_port}"

    def __enter__(self) -> FakeApiServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def write_kubeconfig(self, path: Path, token: str | None = None, user: dict[str, Any] | None = None,
                         cluster: dict[str, Any] | None = None) -> str:
        """A kubeconfig with context ``fake`` (current) and ``other``, both for this server.

        ``user`` replaces the user's credentials (default: the token); ``cluster`` adds cluster fields.
        """
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake-cluster", "cluster": {"server": self.url, **(cluster or {})}}],
            "users": [{"name": "fake-user",
                       "user": user if user is not None else {"token": token or self.cluster.token}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake-cluster", "user": "fake-user"}},
                         {"name": "other", "context": {"cluster": "fake-cluster", "user": "fake-user"}}],
            "current-context": "fake",
        }
        path.write_text(yaml.safe_dump(config))
        return str(path)


# --- Sample cluster content ------------------------------------------------------------------------------

MANAGED_FIELDS = [{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "v1",
                   "time": "2026-09-14T09:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {}}}]


def meta(name: str, namespace: str | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"name": name, "uid": f"uid-{namespace or ''}-{name}", "resourceVersion": "100",
                              "creationTimestamp": "2026-09-14T09:00:00Z", "managedFields": MANAGED_FIELDS}
    if namespace:
        result["namespace"] = namespace
    if labels:
        result["labels"] = labels
    return result


def cluster_queue(name: str, cohort: str, version: str) -> dict[str, Any]:
    cohort_field = "cohortName" if version == "v1beta2" else "cohort"  # renamed in v1beta2
    return {"metadata": meta(name), "spec": {
        cohort_field: cohort,
        "namespaceSelector": {},
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
            {"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": "4"},
                                                     {"name": "memory", "nominalQuota": "16Gi"}]}]}],
    }}


def workload(name: str, namespace: str, queue: str, cpu: str, admitted_in: str | None = None,
             job_name: str | None = None) -> dict[str, Any]:
    """A Workload; with ``job_name``, the one Kueue made for that Job (owned by it, as in a real cluster)."""
    metadata = meta(name, namespace)
    if job_name:
        job_uid = meta(job_name, namespace)["uid"]
        metadata["labels"] = {"kueue.x-k8s.io/job-uid": job_uid}
        metadata["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": job_name, "uid": job_uid,
                                        "controller": True, "blockOwnerDeletion": True}]
    body: dict[str, Any] = {"metadata": metadata, "spec": {
        "queueName": queue,
        "podSets": [{"name": "main", "count": 1, "template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}}}],
    }}
    if admitted_in:
        condition = {"status": "True", "lastTransitionTime": "2026-09-14T09:00:01Z", "message": "admitted"}
        body["status"] = {
            "admission": {"clusterQueue": admitted_in, "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": {"cpu": "default-flavor", "memory": "default-flavor"},
                 "resourceUsage": {"cpu": cpu, "memory": "1Gi"}}]},
            "conditions": [{"type": "QuotaReserved", "reason": "QuotaReserved", **condition},
                           {"type": "Admitted", "reason": "Admitted", **condition}],
        }
    return body


def job(name: str, namespace: str, queue: str | None) -> dict[str, Any]:
    labels = {QUEUE_LABEL: queue} if queue else {"app": name}
    return {"metadata": meta(name, namespace, labels), "spec": {
        "suspend": True, "parallelism": 1, "completions": 1,
        "template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}},
        "status": {}}


def pod(name: str, namespace: str, queue: str | None) -> dict[str, Any]:
    labels = {QUEUE_LABEL: queue} if queue else {"app": name}
    return {"metadata": meta(name, namespace, labels), "spec": {"containers": [
        {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "500m"}}}]},
        "status": {"phase": "Pending"}}


def sample_objects(version: str = "v1beta2") -> dict[tuple[str, str], list[dict[str, Any]]]:
    """A small Kueue installation: every kind kqctl reads, some noise it must not read."""
    # Label values a YAML 1.1 reader would take for a boolean or a number: they must stay strings.
    tricky = {"kubernetes.io/metadata.name": "team-a", "gpu": "y", "tier": "1e3", "legacy": "no"}
    return {
        ("", "namespaces"): [
            {"metadata": meta("default", labels={"kubernetes.io/metadata.name": "default"}), "spec": {}},
            {"metadata": meta("team-a", labels=tricky), "spec": {}},
            {"metadata": meta("kube-system", labels={"kubernetes.io/metadata.name": "kube-system"}), "spec": {}},
        ],
        ("scheduling.k8s.io", "priorityclasses"): [
            {"metadata": meta("high"), "value": 1000, "globalDefault": False, "description": "high"},
        ],
        ("", "limitranges"): [
            {"metadata": meta("limits", "team-a"), "spec": {"limits": [
                {"type": "Container", "default": {"cpu": "500m"}, "defaultRequest": {"cpu": "250m"}}]}},
        ],
        (KUEUE, "resourceflavors"): [
            {"metadata": meta("default-flavor"), "spec": {}},
            {"metadata": meta("spot"), "spec": {"nodeLabels": {"instance-type": "spot"}}},
        ],
        (KUEUE, "topologies"): [
            {"metadata": meta("default"), "spec": {"levels": [{"nodeLabel": "kubernetes.io/hostname"}]}},
        ],
        (KUEUE, "admissionchecks"): [
            {"metadata": meta("prov"), "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request"},
             "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Active", "message": "",
                                        "lastTransitionTime": "2026-09-14T09:00:00Z"}]}},
        ],
        (KUEUE, "workloadpriorityclasses"): [
            {"metadata": meta("batch-low"), "value": 10, "description": "low"},
        ],
        (KUEUE, "cohorts"): [{"metadata": meta("org"), "spec": {}}],
        (KUEUE, "clusterqueues"): [cluster_queue("cq-a", "org", version), cluster_queue("cq-b", "org", version)],
        (KUEUE, "localqueues"): [
            {"metadata": meta("lq", "team-a"), "spec": {"clusterQueue": "cq-a"}},
            {"metadata": meta("lq", "default"), "spec": {"clusterQueue": "cq-b"}},
        ],
        (KUEUE, "workloads"): [
            workload("wl-1", "team-a", "lq", "1", admitted_in="cq-a", job_name="train"),
            workload("wl-2", "team-a", "lq", "2"),
            workload("wl-3", "team-a", "lq", "3"),
            workload("wl-4", "default", "lq", "500m", admitted_in="cq-b", job_name="etl"),
            workload("wl-5", "default", "lq", "1"),
        ],
        ("batch", "jobs"): [job("train", "team-a", "lq"), job("etl", "default", "lq"), job("cron", "default", None)],
        ("", "pods"): [pod("plain-pod", "team-a", "lq"), pod("web-0", "default", None)],
        ("", "secrets"): [{"metadata": meta("db-password", "team-a"), "data": {"password": "aHVudGVyMg=="}}],
        # Not Kueue's Configuration (kueue-manager-config, got by name when a test adds it): never read.
        ("", "configmaps"): [{"metadata": meta("kube-root-ca.crt", "kueue-system"), "data": {"x": "y"}}],
    }
