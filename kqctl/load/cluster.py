"""Read a live cluster, read-only: every object kqctl's engine needs, as plain dicts.

kqctl only ever calls ``get`` (API discovery) and ``list``; it never asks for Secrets or
ConfigMaps and never writes anything, not even refreshed tokens back into the kubeconfig.
The result is a :class:`ClusterSnapshot` that becomes one ``kind: List`` document, the same
thing ``kqctl snapshot save`` writes and every command can read back offline.

The ``kubernetes`` client is imported inside the functions: ``kqctl --help`` must stay fast.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import yaml

from kqctl.api.kinds import KUEUE_GROUP
from kqctl.errors import EXIT_CLUSTER, KqctlError
from kqctl.load.documents import string_style

if TYPE_CHECKING:
    from kubernetes.client import ApiClient, Configuration

    from kqctl.load.objects import LoadResult

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
# v1beta2 first: it is kqctl's hub version, so the API server does the conversion, not kqctl.
KUEUE_VERSIONS = ("v1beta2", "v1beta1")
DEFAULT_PAGE_SIZE = 500  # kubectl's --chunk-size default
# Bounds for every request loop, so a misbehaving server cannot keep kqctl busy forever.
MAX_PAGES = 100_000
MAX_LIST_ATTEMPTS = 3  # a list restarts from scratch when its continue token expires (410 Gone)
REQUEST_TIMEOUT = (10.0, 120.0)  # seconds: connect, read
IN_CLUSTER = "in-cluster"
ANNOTATION_PREFIX = "kqctl.dev/"
CLUSTERROLE_FILE = "deploy/kqctl-reader-clusterrole.yaml"


class ClusterError(KqctlError):
    """The cluster could not be read: bad kubeconfig, unreachable, forbidden, or Kueue missing."""

    exit_code = EXIT_CLUSTER

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status behind the error, when there was one


class _ContinueExpired(Exception):
    """A continue token was too old (410 Gone): the list must start again."""


@dataclass(frozen=True)
class Resource:
    """One resource kqctl lists, cluster-wide."""

    group: str  # "" for the core group
    plural: str
    kind: str
    version: str | None = None  # None: the Kueue version chosen by discovery
    required: bool = True  # False: older Kueue releases may not serve it; skipped with a note
    label_selector: str | None = None

    @property
    def name(self) -> str:
        """As kubectl and RBAC spell it: ``workloads.kueue.x-k8s.io``, ``pods``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def api_version(self, kueue_version: str) -> str:
        version = self.version or kueue_version
        return f"{self.group}/{version}" if self.group else version


# In the order they are written: what others refer to comes first, which reads well in a file.
RESOURCES: tuple[Resource, ...] = (
    Resource("", "namespaces", "Namespace", "v1"),
    Resource("scheduling.k8s.io", "priorityclasses", "PriorityClass", "v1"),
    Resource("", "limitranges", "LimitRange", "v1"),
    Resource(KUEUE_GROUP, "resourceflavors", "ResourceFlavor"),
    Resource(KUEUE_GROUP, "topologies", "Topology", required=False),
    Resource(KUEUE_GROUP, "admissionchecks", "AdmissionCheck", required=False),
    Resource(KUEUE_GROUP, "workloadpriorityclasses", "WorkloadPriorityClass", required=False),
    Resource(KUEUE_GROUP, "cohorts", "Cohort", required=False),
    Resource(KUEUE_GROUP, "clusterqueues", "ClusterQueue"),
    Resource(KUEUE_GROUP, "localqueues", "LocalQueue"),
    Resource(KUEUE_GROUP, "workloads", "Workload"),
    # Only the Jobs and Pods submitted to Kueue: a label selector, so other workloads never leave the cluster.
    Resource("batch", "jobs", "Job", "v1", label_selector=QUEUE_NAME_LABEL),
    Resource("", "pods", "Pod", "v1", label_selector=QUEUE_NAME_LABEL),
)


@dataclass
class ClusterSnapshot:
    """What was read, and where and when: the objects carry apiVersion and kind, never managedFields."""

    objects: list[dict[str, Any]]
    context: str | None
    server: str
    taken_at: str  # RFC 3339, UTC
    kueue_version: str
    served_kueue_versions: tuple[str, ...] = ()
    skipped: list[str] = field(default_factory=list)  # resources not read, and why

    def annotations(self) -> dict[str, str]:
        from kqctl import __version__

        notes = {
            "snapshot-time": self.taken_at,
            "context": self.context or "",
            "server": self.server,
            "kueue-version": self.kueue_version,
            "kueue-served-versions": ",".join(self.served_kueue_versions),
            "kqctl-version": __version__,
        }
        if self.skipped:
            notes["skipped"] = "; ".join(self.skipped)
        return {ANNOTATION_PREFIX + key: value for key, value in notes.items()}

    def counts(self) -> dict[str, int]:
        """Objects per kind, in the order they were read."""
        result: dict[str, int] = {}
        for obj in self.objects:
            result[obj["kind"]] = result.get(obj["kind"], 0) + 1
        return result

    @property
    def source_name(self) -> str:
        """The name messages use for objects read straight from the cluster."""
        return f"<cluster {self.context or self.server}>"


@dataclass
class _Connection:
    client: ApiClient
    context: str | None
    server: str


# --- Public API ------------------------------------------------------------------------------------------


def read_cluster(context: str | None = None, kubeconfig: str | None = None, *,
                 page_size: int = DEFAULT_PAGE_SIZE) -> ClusterSnapshot:
    """Everything kqctl reads, from the cluster of ``context`` (default: the kubeconfig's current one)."""
    connection = _connect(context, kubeconfig)
    try:
        return _read(connection, page_size)
    finally:
        connection.client.close()


def cluster_documents(snapshot: ClusterSnapshot) -> list[dict[str, Any]]:
    """One ``kind: List`` document; the loader expands its items and ignores its annotations."""
    return [{
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"annotations": snapshot.annotations()},
        "items": snapshot.objects,
    }]


def snapshot_text(snapshot: ClusterSnapshot, fmt: str = "yaml") -> str:
    """The snapshot as ``kqctl`` reads it back: YAML (``fmt="yaml"``) or JSON (``fmt="json"``)."""
    (document,) = cluster_documents(snapshot)
    if fmt == "json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if fmt == "yaml":
        return yaml.dump(document, Dumper=_SnapshotDumper, sort_keys=False, default_flow_style=False,
                         allow_unicode=True, width=1_000_000)
    raise ValueError(f"unknown snapshot format {fmt!r}: yaml or json")


def cluster_load_result(snapshot: ClusterSnapshot, strict: bool = False) -> LoadResult:
    """The snapshot's objects as if read from a file (``--from-cluster``); lines refer to its JSON text."""
    from kqctl.load.objects import load_text

    return load_text(snapshot_text(snapshot, "json"), snapshot.source_name, strict)


def load_cluster(context: str | None = None, kubeconfig: str | None = None,
                 strict: bool = False) -> tuple[ClusterSnapshot, LoadResult]:
    """``--from-cluster`` in one call: the snapshot (for its metadata and notes) and its loaded objects."""
    snapshot = read_cluster(context, kubeconfig)
    return snapshot, cluster_load_result(snapshot, strict)


# --- Connecting ------------------------------------------------------------------------------------------


def _connect(context: str | None, kubeconfig: str | None) -> _Connection:
    from kubernetes import client

    configuration = client.Configuration()
    try:
        name = _load_configuration(configuration, context, kubeconfig)
    except ClusterError:
        raise
    except Exception as exc:  # the kubeconfig loader raises many types for a broken file: all mean "fix it"
        raise ClusterError(f"cannot use the kubeconfig{_where(kubeconfig)}: {_config_problem(exc)}") from None
    configuration.retries = 1  # urllib3 retries a refused connection; once is enough to rule out a blip
    return _Connection(client.ApiClient(configuration), name, _public_url(configuration.host))


def _load_configuration(configuration: Configuration, context: str | None, kubeconfig: str | None) -> str | None:
    """Fill ``configuration`` as kubectl would choose it; returns the context's name."""
    from kubernetes import config

    if _use_in_cluster(context, kubeconfig):
        config.load_incluster_config(client_configuration=configuration)
        return IN_CLUSTER
    if kubeconfig is not None and not os.path.isfile(kubeconfig):
        raise ClusterError(f"cannot use the kubeconfig {kubeconfig}: no such file")
    if kubeconfig is None and not any(os.path.isfile(p) for p in _default_kubeconfigs()):
        raise ClusterError(f"no kubeconfig found (looked at {os.pathsep.join(_default_kubeconfigs())}): "
                           "pass --kubeconfig, or set KUBECONFIG")
    # Named explicitly: the client reads $KUBECONFIG once, when first imported.
    config_file = kubeconfig or os.pathsep.join(_default_kubeconfigs())
    name = _context_name(context, config_file, kubeconfig)
    # persist_config=False: kqctl is read-only, even towards the kubeconfig (no token written back).
    config.load_kube_config(config_file=config_file, context=name, client_configuration=configuration,
                            persist_config=False)
    return name


def _use_in_cluster(context: str | None, kubeconfig: str | None) -> bool:
    """Inside a pod with no kubeconfig at all, use the pod's service account, as kubectl does."""
    if context or kubeconfig or any(os.path.isfile(p) for p in _default_kubeconfigs()):
        return False
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


def _context_name(context: str | None, config_file: str, kubeconfig: str | None) -> str | None:
    """The context to use, checked here so an unknown name gets a message listing the known ones."""
    from kubernetes import config

    contexts, current = config.list_kube_config_contexts(config_file)
    names = [c.get("name") for c in contexts or [] if isinstance(c, dict)]
    if context is None:
        name = current.get("name") if isinstance(current, dict) else None
        if not name:
            raise ClusterError(f"the kubeconfig{_where(kubeconfig)} has no current context: pass --context")
        return str(name)
    if context not in names:
        known = ", ".join(str(n) for n in names) or "none"
        raise ClusterError(f"context {context!r} not found in the kubeconfig{_where(kubeconfig)} (contexts: {known})")
    return context


def _default_kubeconfigs() -> list[str]:
    """Where kubectl looks without --kubeconfig: $KUBECONFIG (a path list), else ~/.kube/config."""
    paths = [p for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]
    return [os.path.expanduser(p) for p in paths or ["~/.kube/config"]]


def _config_problem(exc: Exception) -> str:
    """The loader's own message for the problems it names; a plain verdict for its internal errors."""
    from kubernetes.config import ConfigException

    if isinstance(exc, (ConfigException, yaml.YAMLError, OSError)):
        return _one_line(exc)
    return f"not a valid kubeconfig ({type(exc).__name__}: {_one_line(exc)})"


def _where(kubeconfig: str | None) -> str:
    return f" {kubeconfig}" if kubeconfig else ""


def _public_url(url: str) -> str:
    """The server URL without user info, query or fragment: nothing secret goes into a snapshot."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # IPv6
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


# --- Reading ---------------------------------------------------------------------------------------------


def _read(connection: _Connection, page_size: int) -> ClusterSnapshot:
    taken_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    served = _served_kueue_versions(connection)
    version = choose_kueue_version(served)
    available = _served_kueue_resources(connection, version)
    objects: list[dict[str, Any]] = []
    skipped: list[str] = []
    for resource in RESOURCES:
        if resource.group == KUEUE_GROUP and resource.plural not in available:
            skipped.append(_not_served(resource, version))
            continue
        api_version = resource.api_version(version)
        items = _list(connection, resource, version, page_size)
        objects.extend(_normalize(item, api_version, resource.kind) for item in items)
    return ClusterSnapshot(objects, connection.context, connection.server, taken_at, version, served, skipped)


def choose_kueue_version(served: tuple[str, ...]) -> str:
    """v1beta2 when served, else v1beta1: the versions kqctl reads from a cluster."""
    for version in KUEUE_VERSIONS:
        if version in served:
            return version
    raise ClusterError(f"cannot list resourceflavors.{KUEUE_GROUP}: the cluster serves {KUEUE_GROUP} only as "
                       f"{', '.join(served) or 'no version'}; kqctl reads {' or '.join(KUEUE_VERSIONS)} "
                       "(Kueue 0.3 or later)")


def _served_kueue_versions(connection: _Connection) -> tuple[str, ...]:
    """The Kueue group's versions from API discovery (``GET /apis``)."""
    from kubernetes import client

    api = client.ApisApi(connection.client)
    body = _call(connection, functools.partial(api.get_api_versions, **_RAW), "get", "the API groups (/apis)")
    for group in _dicts(body.get("groups")):
        if group.get("name") == KUEUE_GROUP:
            return tuple(str(v.get("version")) for v in _dicts(group.get("versions")) if v.get("version"))
    raise ClusterError(f"cannot list resourceflavors.{KUEUE_GROUP} (or any Kueue resource): the cluster does not "
                       f"serve the API group {KUEUE_GROUP}; is Kueue installed?", status=404)


def _served_kueue_resources(connection: _Connection, version: str) -> set[str]:
    """The Kueue resources served at ``version`` (``GET /apis/kueue.x-k8s.io/<version>``)."""
    from kubernetes import client

    api = client.CustomObjectsApi(connection.client)
    request = functools.partial(api.get_api_resources, KUEUE_GROUP, version, **_RAW)
    body = _call(connection, request, "get", f"the resources of {KUEUE_GROUP}/{version}",
                 " (is Kueue installed?)")
    names = (str(r.get("name")) for r in _dicts(body.get("resources")))
    return {name for name in names if "/" not in name}  # "workloads/status" is a subresource


def _not_served(resource: Resource, version: str) -> str:
    """A Kueue resource discovery does not list: fatal for the core ones, a note for the newer ones."""
    if resource.required:
        raise ClusterError(f"cannot list {resource.name}: the cluster does not serve it at {KUEUE_GROUP}/{version}"
                           " (is Kueue installed with all its CRDs?)", status=404)
    return f"{resource.name} not served at {version}: none read"


def _list(connection: _Connection, resource: Resource, version: str, page_size: int) -> list[dict[str, Any]]:
    """Every object of ``resource``, all pages merged; restarted if a continue token expires."""
    for _ in range(MAX_LIST_ATTEMPTS):
        try:
            return _list_pages(connection, resource, version, page_size)
        except _ContinueExpired:
            continue  # as client-go's pager: the list changed too much meanwhile, read it again
    raise ClusterError(f"cannot list {resource.name}: the list changed faster than kqctl could page through it "
                       f"(410 Gone {MAX_LIST_ATTEMPTS} times); try again", status=410)


def _list_pages(connection: _Connection, resource: Resource, version: str, page_size: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = _list_page(connection, resource, version, page_size, token)
        items.extend(_page_items(page, resource))
        token = _continue_token(page)
        if token is None:
            return items
        if token in seen:
            raise ClusterError(f"cannot list {resource.name}: the API server sent the same continue token twice")
        seen.add(token)
    raise ClusterError(f"cannot list {resource.name}: more than {MAX_PAGES} pages")


def _list_page(connection: _Connection, resource: Resource, version: str, page_size: int,
               token: str | None) -> dict[str, Any]:
    lister = _lister(connection, resource, version)
    request = functools.partial(lister, limit=page_size, _continue=token, label_selector=resource.label_selector,
                                **_RAW)
    hint = " (is Kueue installed?)" if resource.group == KUEUE_GROUP else ""
    try:
        return _call(connection, request, "list", resource.name, hint)
    except ClusterError as exc:
        if exc.status == 410 and token is not None:
            raise _ContinueExpired() from None
        raise


def _lister(connection: _Connection, resource: Resource, version: str) -> Callable[..., Any]:
    """The client's list call for ``resource`` (cluster-wide: all namespaces)."""
    from kubernetes import client

    api = connection.client
    if resource.group == "":
        core = client.CoreV1Api(api)
        core_listers: dict[str, Callable[..., Any]] = {
            "namespaces": core.list_namespace,
            "limitranges": core.list_limit_range_for_all_namespaces,
            "pods": core.list_pod_for_all_namespaces,
        }
        return core_listers[resource.plural]
    if resource.group == "batch":
        return client.BatchV1Api(api).list_job_for_all_namespaces
    if resource.group == "scheduling.k8s.io":
        return client.SchedulingV1Api(api).list_priority_class
    custom = client.CustomObjectsApi(api)
    return functools.partial(custom.list_cluster_custom_object, resource.group, version, resource.plural)


# Raw JSON responses: plain dicts as the server sent them (unknown fields kept, quantities as strings),
# and no model objects to build for 50,000 Workloads.
_RAW: dict[str, Any] = {"_preload_content": False, "_request_timeout": REQUEST_TIMEOUT}


def _page_items(page: dict[str, Any], resource: Resource) -> list[dict[str, Any]]:
    items = page.get("items")
    if items is None:
        return []
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise ClusterError(f"cannot list {resource.name}: the API server sent a list whose items are not objects")
    return items


def _continue_token(page: dict[str, Any]) -> str | None:
    meta = page.get("metadata")
    token = meta.get("continue") if isinstance(meta, dict) else None
    return token if isinstance(token, str) and token else None


def _normalize(item: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """apiVersion and kind first (list items of built-in kinds lack them); managedFields dropped as noise."""
    rest = {k: v for k, v in item.items() if k not in ("apiVersion", "kind")}
    meta = rest.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        rest["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    return {"apiVersion": api_version, "kind": kind, **rest}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


# --- Requests and their errors ---------------------------------------------------------------------------


def _call(connection: _Connection, request: Callable[[], Any], verb: str, what: str,
          not_found_hint: str = "") -> dict[str, Any]:
    """One GET; every failure becomes a :class:`ClusterError` naming the verb and the resource."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    try:
        data = request().data
    except ApiException as exc:
        raise _api_error(exc, verb, what, not_found_hint) from None
    except (HTTPError, OSError) as exc:
        raise ClusterError(f"cannot {verb} {what}: cannot reach the API server at {connection.server}: "
                           f"{_connection_reason(exc)}") from None
    return _json_object(data, verb, what)


def _api_error(exc: Any, verb: str, what: str, not_found_hint: str) -> ClusterError:
    status = exc.status if isinstance(exc.status, int) else None
    detail = _status_message(exc.body) or str(exc.reason or "")
    if status == 401:
        text = ("the API server rejected the credentials (401 Unauthorized); log in again or check the user of "
                "the kubeconfig context")
    elif status == 403:
        text = f"forbidden (403): {detail}; kqctl needs get and list on it, see {CLUSTERROLE_FILE}"
    elif status == 404:
        text = f"not found (404): the cluster does not serve it{not_found_hint}"
    else:
        text = f"HTTP {status} {exc.reason or ''}".rstrip() + (f": {detail}" if detail else "")
    return ClusterError(f"cannot {verb} {what}: {text}", status=status)


def _status_message(body: Any) -> str:
    """The ``message`` of a Kubernetes Status body, else the body's first line (kept short)."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if not isinstance(body, str) or not body.strip():
        return ""
    try:
        parsed = json.loads(body)
    except ValueError:
        return _one_line(body)
    message = parsed.get("message") if isinstance(parsed, dict) else None
    return _one_line(message) if isinstance(message, str) else _one_line(body)


def _connection_reason(exc: BaseException) -> str:
    """urllib3 wraps the cause (MaxRetryError -> NewConnectionError): show the cause without object reprs."""
    reason = getattr(exc, "reason", None)
    text = str(reason if isinstance(reason, BaseException) else exc)
    return _one_line(re.sub(r"<[^>]*>:\s*", "", text))


def _json_object(data: Any, verb: str, what: str) -> dict[str, Any]:
    try:
        parsed = json.loads(data)
    except (TypeError, ValueError):
        parsed = None
    if not isinstance(parsed, dict):
        raise ClusterError(f"cannot {verb} {what}: the API server's answer is not a JSON object")
    return parsed


def _one_line(value: Any, limit: int = 300) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- YAML that reads back as written ---------------------------------------------------------------------


class _SnapshotDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Block-style YAML (libyaml when available: snapshots can hold 50,000 objects)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=string_style(value))


_SnapshotDumper.add_representer(str, _represent_str)
