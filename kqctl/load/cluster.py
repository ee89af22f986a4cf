"""Read a live cluster, read-only: every object a scheduler's engine needs, as plain dicts.

What to list comes from the scheduler (a :class:`ReadPlan`: its API group, the versions kqctl reads, the
resources); this module only knows how to talk to an API server.

kqctl only ever calls ``get`` (API discovery) and ``list``; it never asks for Secrets, asks for a
ConfigMap only by name (a scheduler's own configuration, when its plan says so) and never writes
anything, not even refreshed tokens back into the kubeconfig.
The result is a :class:`ClusterSnapshot` that becomes one ``kind: List`` document, the same
thing ``kqctl snapshot save`` writes and every command can read back offline.

The ``kubernetes`` client is imported inside the functions: ``kqctl --help`` must stay fast.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import yaml

from kqctl import diagnostics
from kqctl.errors import EXIT_CLUSTER, KqctlError
from kqctl.load.documents import string_style

if TYPE_CHECKING:
    from kubernetes.client import ApiClient, Configuration

    from kqctl.k8s.kinds import KindRegistry
    from kqctl.load.objects import LoadResult

DEFAULT_PAGE_SIZE = 500  # kubectl's --chunk-size default
# Bounds for every request loop, so a misbehaving server cannot keep kqctl busy forever.
MAX_PAGES = 100_000
MAX_LIST_ATTEMPTS = 3  # a list restarts from scratch when its continue token expires (410 Gone)
REQUEST_TIMEOUT = (10.0, 120.0)  # seconds: connect, read
IN_CLUSTER = "in-cluster"
ANNOTATION_PREFIX = "kqctl.dev/"


class ClusterError(KqctlError):
    """The cluster could not be read: bad kubeconfig, unreachable, forbidden, or the scheduler missing."""

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
    version: str | None = None  # None: the scheduler group's version chosen by discovery
    required: bool = True  # False: older releases of the scheduler may not serve it; skipped with a note
    label_selector: str | None = None
    field_selector: str | None = None  # e.g. metadata.name=<one ConfigMap>: nothing else of the kind is read
    # Read only these objects by name (get, not list) in ``namespace``; one that does not exist is skipped with a
    # note. Used for objects a scheduler keeps its configuration in (Kueue's manager ConfigMap, YuniKorn's two).
    names: tuple[str, ...] = ()
    namespace: str | None = None
    # Set for a by-name read kqctl can do without (Kueue's manager Configuration): a 403 on it is skipped with this
    # note instead of failing the read, so a role granted before kqctl read it keeps working. Empty: a 403 fails.
    forbidden_note: str = ""

    @property
    def name(self) -> str:
        """As kubectl and RBAC spell it: ``workloads.kueue.x-k8s.io``, ``pods``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def api_version(self, group_version: str) -> str:
        version = self.version or group_version
        return f"{self.group}/{version}" if self.group else version


@dataclass(frozen=True)
class ReadPlan:
    """What to read for one scheduler: its API group, the versions kqctl reads of it, and the resources.

    Resources in the order they are written: what others refer to comes first, which reads well in a file.
    """

    scheduler: str  # "kueue": also the annotation prefix of the snapshot's version fields
    product: str  # "Kueue", as messages name it
    group: str
    versions: tuple[str, ...]  # the group versions kqctl reads, preferred first
    resources: tuple[Resource, ...]
    oldest_release: str = ""  # the oldest release serving one of ``versions`` ("Kueue 0.3"), for messages

    @property
    def anchor(self) -> Resource:
        """The first required resource of the group, named when the group itself is missing."""
        return next(r for r in self.resources if r.group == self.group and r.required)

    def in_namespace(self, namespace: str) -> ReadPlan:
        """The plan with its by-name reads in ``namespace`` (e.g. where YuniKorn is installed)."""
        resources = tuple(replace(r, namespace=namespace) if r.names else r for r in self.resources)
        return replace(self, resources=resources)


# What a snapshot never stores: values people put in pod specs and kubectl's copy of whole manifests.
REDACTED_VALUE = "<redacted by kqctl>"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


@dataclass
class Redactions:
    """Replaces, in place, every container ``env[].value`` and every last-applied-configuration annotation.

    ``env[].value`` is where people put passwords and API keys, and the engine never needs it. The
    last-applied annotation is a full copy of an earlier manifest, env values included. ``valueFrom``
    and ``envFrom`` are kept: they only name a Secret, ConfigMap or field, never hold its content,
    and they show what a pod depends on.
    """

    env_values: int = 0
    annotations: int = 0

    def apply(self, obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj.get("metadata")
        notes = meta.get("annotations") if isinstance(meta, dict) else None
        if isinstance(notes, dict) and LAST_APPLIED in notes:
            notes[LAST_APPLIED] = REDACTED_VALUE
            self.annotations += 1
        for pod_spec in _pod_specs(obj):
            for container in _container_entries(pod_spec):
                for variable in _dicts(container.get("env")):
                    if "value" in variable:
                        variable["value"] = REDACTED_VALUE
                        self.env_values += 1
        return obj

    def note(self) -> str:
        return (f"container env values and {LAST_APPLIED} annotations are replaced by {REDACTED_VALUE!r} "
                f"({self.env_values} env values, {self.annotations} annotations); valueFrom and envFrom are "
                "kept (references only)")


def _pod_specs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The pod specs of the kinds kqctl reads: a Pod's, a Job's template, each Workload pod set's template."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return []
    kind = obj.get("kind")
    if kind == "Pod":
        return [spec]
    if kind == "Job" and isinstance(spec.get("tasks"), list):  # a Volcano batch Job: one template per task
        return _template_specs(_dicts(spec.get("tasks")))
    if kind == "Job":
        return _template_specs([spec])
    if kind == "Workload":
        return _template_specs(_dicts(spec.get("podSets")))
    return []


def _template_specs(holders: list[dict[str, Any]]) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = []
    for holder in holders:
        template = holder.get("template")
        spec = template.get("spec") if isinstance(template, dict) else None
        if isinstance(spec, dict):
            specs.append(spec)
    return specs


def _container_entries(pod_spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for key in _CONTAINER_LISTS for c in _dicts(pod_spec.get(key))]


@dataclass
class ClusterSnapshot:
    """What was read, and where and when: the objects carry apiVersion and kind, never managedFields."""

    objects: list[dict[str, Any]]
    context: str | None
    server: str
    taken_at: str  # RFC 3339, UTC
    scheduler: str  # whose objects were read ("kueue")
    group_version: str  # the version of the scheduler's API group that was read
    served_versions: tuple[str, ...] = ()  # every version the cluster serves of that group
    skipped: list[str] = field(default_factory=list)  # resources not read, and why
    redacted: Redactions = field(default_factory=Redactions)  # what was replaced by REDACTED_VALUE
    apis: tuple[str, ...] = ()  # every API group/version read, in reading order ("v1", "kueue.x-k8s.io/v1beta2")
    by_discovery: bool = False  # the scheduler was chosen by the API groups the cluster serves, not --scheduler

    def annotations(self) -> dict[str, str]:
        from kqctl import __version__

        notes = {
            "scheduler": self.scheduler,  # SAVED_FOR_ANNOTATION: every command reads the file for this scheduler
            "snapshot-time": self.taken_at,
            "context": self.context or "",
            "server": self.server,
            f"{self.scheduler}-version": self.group_version,
            f"{self.scheduler}-served-versions": ",".join(self.served_versions),
            "kqctl-version": __version__,
        }
        if self.skipped:
            notes["skipped"] = "; ".join(self.skipped)
        notes["redacted"] = self.redacted.note()
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
    secrets: frozenset[str] = frozenset()  # credential values no message may show


# --- Public API ------------------------------------------------------------------------------------------


# A plan, or how to choose one from the API groups the cluster serves (``--from-cluster`` without --scheduler).
PlanChoice = ReadPlan | Callable[[frozenset[str]], ReadPlan]


def read_cluster(plan: PlanChoice, context: str | None = None, kubeconfig: str | None = None, *,
                 page_size: int = DEFAULT_PAGE_SIZE) -> ClusterSnapshot:
    """Everything ``plan`` names, from the cluster of ``context`` (default: the kubeconfig's current one)."""
    from urllib3.exceptions import InsecureRequestWarning

    with warnings.catch_warnings():
        # insecure-skip-tls-verify: kqctl says so once (in _connect), not urllib3 once per request.
        warnings.simplefilter("ignore", InsecureRequestWarning)
        connection = _connect(context, kubeconfig)
        try:
            return _read(connection, plan, page_size)
        except ClusterError as exc:
            raise ClusterError(_redact(str(exc), connection.secrets), exc.status) from None
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


def cluster_load_result(kinds: KindRegistry, snapshot: ClusterSnapshot, strict: bool = False) -> LoadResult:
    """The snapshot's objects as if read from a file (``--from-cluster``); lines refer to its JSON text."""
    from kqctl.load.objects import load_text

    result = load_text(kinds, snapshot_text(snapshot, "json"), snapshot.source_name, strict)
    for obj in result.objects:
        obj.stored = True  # the API server's own objects: defaulted and admitted already
    return result


def load_cluster(plan: PlanChoice, kinds: KindRegistry, context: str | None = None, kubeconfig: str | None = None,
                 strict: bool = False) -> tuple[ClusterSnapshot, LoadResult]:
    """``--from-cluster`` in one call: the snapshot (for its metadata and notes) and its loaded objects."""
    snapshot = read_cluster(plan, context, kubeconfig)
    return snapshot, cluster_load_result(kinds, snapshot, strict)


# --- Connecting ------------------------------------------------------------------------------------------


def _connect(context: str | None, kubeconfig: str | None) -> _Connection:
    from kubernetes import client

    configuration = client.Configuration()
    secrets: frozenset[str] = frozenset()
    try:
        name, secrets = _load_configuration(configuration, context, kubeconfig)
    except ClusterError as exc:
        raise ClusterError(_redact(str(exc), secrets), exc.status) from None
    except Exception as exc:  # the kubeconfig loader raises many types for a broken file: all mean "fix it"
        message = f"cannot use the kubeconfig{_where(kubeconfig)}: {_config_problem(exc)}"
        raise ClusterError(_redact(message, secrets)) from None
    configuration.retries = 1  # urllib3 retries a refused connection; once is enough to rule out a blip
    if not configuration.verify_ssl and str(configuration.host).lower().startswith("https://"):
        # (a plain http:// server has no certificate to verify: the setting changes nothing there)
        # One line per run, here; urllib3's own warning (one per request) is silenced in read_cluster.
        sys.stderr.write(f"kqctl: warning: TLS certificate of {_public_url(configuration.host)} is not verified "
                         "(insecure-skip-tls-verify in the kubeconfig)\n")
    return _Connection(client.ApiClient(configuration), name, _public_url(configuration.host), secrets)


def _load_configuration(configuration: Configuration, context: str | None,
                        kubeconfig: str | None) -> tuple[str | None, frozenset[str]]:
    """Fill ``configuration`` as kubectl would choose it; returns the context's name and the secrets seen."""
    from kubernetes import config

    if _use_in_cluster(context, kubeconfig):
        config.load_incluster_config(client_configuration=configuration)
        return IN_CLUSTER, frozenset()
    if kubeconfig is not None and not os.path.isfile(kubeconfig):
        raise ClusterError(f"cannot use the kubeconfig {kubeconfig}: no such file")
    if kubeconfig is None and not any(os.path.isfile(p) for p in _default_kubeconfigs()):
        raise ClusterError(f"no kubeconfig found (looked at {os.pathsep.join(_default_kubeconfigs())}): "
                           "pass --kubeconfig, or set KUBECONFIG")
    # kubectl skips the files of $KUBECONFIG that do not exist; --kubeconfig names exactly one file.
    paths = [kubeconfig] if kubeconfig is not None else [p for p in _default_kubeconfigs() if os.path.isfile(p)]
    merged = merge_kubeconfigs(paths)
    secrets = _secrets(merged)
    try:
        name = _context_name(context, merged, kubeconfig)
        user_name, user = _context_user(merged, name)
        if user is not None:
            token = _inline_token_file(user_name, user)
            secrets = secrets | {token} if token else secrets
            _check_token(user_name, user)
            _check_exec_plugin(user_name, user)
        # persist_config=False: kqctl is read-only, even towards the kubeconfig (no token written back).
        config.load_kube_config_from_dict(merged, context=name, client_configuration=configuration,
                                          persist_config=False)
    except ClusterError as exc:
        raise ClusterError(_redact(str(exc), secrets), exc.status) from None
    except Exception as exc:
        message = f"cannot use the kubeconfig{_where(kubeconfig)}: {_config_problem(exc)}"
        raise ClusterError(_redact(message, secrets)) from None
    return name, secrets


def _use_in_cluster(context: str | None, kubeconfig: str | None) -> bool:
    """Inside a pod with no kubeconfig at all, use the pod's service account, as kubectl does."""
    if context or kubeconfig or any(os.path.isfile(p) for p in _default_kubeconfigs()):
        return False
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


def _context_name(context: str | None, merged: dict[str, Any], kubeconfig: str | None) -> str | None:
    """The context to use, checked here so an unknown name gets a message listing the known ones."""
    names = [c["name"] for c in merged["contexts"]]
    if context is None:
        name = merged.get("current-context")
        if not name:
            raise ClusterError(f"cannot use the kubeconfig{_where(kubeconfig)}: it has no current context; "
                               "pass --context")
        if name not in names:
            known = ", ".join(names) or "none"
            raise ClusterError(f"cannot use the kubeconfig{_where(kubeconfig)}: its current context {name!r} is not "
                               f"defined in it (contexts: {known}); pass --context")
        return str(name)
    if context not in names:
        known = ", ".join(names) or "none"
        raise ClusterError(f"context {context!r} not found in the kubeconfig{_where(kubeconfig)} (contexts: {known})")
    return context


# --- Kubeconfig files: merged as kubectl merges them -----------------------------------------------------

_NAMED_LISTS = {"clusters": "cluster", "contexts": "context", "users": "user"}
# Fields holding a file name, resolved against the directory of the file that sets them (as kubectl does).
_PATH_FIELDS = {"clusters": ("certificate-authority",), "users": ("client-certificate", "client-key", "tokenFile")}
# Fields whose values must never be shown: tokens, passwords, private keys.
_SECRET_FIELDS = ("token", "password", "client-key-data", "id-token", "refresh-token", "access-token", "secret",
                  "client-secret")
REDACTED = "<redacted>"


def merge_kubeconfigs(paths: list[str]) -> dict[str, Any]:
    """Several kubeconfig files as one, by kubectl's rules.

    The first file to define a cluster, context or user by name wins; ``current-context`` comes from
    the first file that sets one; relative file names are resolved against their own file's directory.
    """
    merged: dict[str, Any] = {"apiVersion": "v1", "kind": "Config", "clusters": [], "contexts": [], "users": []}
    for path in paths:
        document = _read_kubeconfig(path)
        base = os.path.dirname(os.path.abspath(path))
        for key, inner in _NAMED_LISTS.items():
            known = {entry["name"] for entry in merged[key]}
            for entry in _named_entries(document, key, inner, path):
                if entry["name"] not in known:
                    known.add(entry["name"])
                    merged[key].append(_resolve_paths(entry, key, inner, base))
        current = document.get("current-context")
        if current and not merged.get("current-context"):
            if not isinstance(current, str):
                raise ClusterError(f"cannot use the kubeconfig {path}: current-context must be a string")
            merged["current-context"] = current
    return merged


def _read_kubeconfig(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
    except OSError as exc:
        raise ClusterError(f"cannot read the kubeconfig {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ClusterError(f"cannot use the kubeconfig {path}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        # Never the YAML library's own message: it quotes the offending line, which may hold a token.
        raise ClusterError(f"cannot use the kubeconfig {path}: not valid YAML{_yaml_location(exc)}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ClusterError(f"cannot use the kubeconfig {path}: expected a mapping (kind: Config), "
                           f"found a {type(document).__name__}")
    return document


def _yaml_location(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{where}" + (f" ({problem})" if isinstance(problem, str) else "")


def _named_entries(document: dict[str, Any], key: str, inner: str, path: str) -> list[dict[str, Any]]:
    """``clusters``/``contexts``/``users``, checked: a list of ``{name: str, <inner>: mapping}``."""
    entries = document.get(key)
    if entries is None:
        return []
    where = f"cannot use the kubeconfig {path}: {key}"
    if not isinstance(entries, list):
        raise ClusterError(f"{where} must be a list of {{name, {inner}}}, found a {type(entries).__name__}")
    checked: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
            raise ClusterError(f"{where}[{index}] must be a mapping with a non-empty string name")
        body = entry.get(inner)
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise ClusterError(f"{where}[{index}].{inner} (name {entry['name']!r}) must be a mapping, "
                               f"found a {type(body).__name__}")
        checked.append({**entry, inner: body})
    return checked


def _resolve_paths(entry: dict[str, Any], key: str, inner: str, base: str) -> dict[str, Any]:
    body = dict(entry[inner])
    for name in _PATH_FIELDS.get(key, ()):
        value = body.get(name)
        if isinstance(value, str) and value and not os.path.isabs(value):
            body[name] = os.path.join(base, os.path.expanduser(value))
    exec_spec = body.get("exec") if key == "users" else None
    command = exec_spec.get("command") if isinstance(exec_spec, dict) else None
    # As kubectl: a command with a directory part is a file next to the kubeconfig; a bare name is on PATH.
    if isinstance(command, str) and os.sep in command and not os.path.isabs(command):
        body["exec"] = {**exec_spec, "command": os.path.join(base, command)}  # type: ignore[dict-item]
    return {**entry, inner: body}


def _context_user(merged: dict[str, Any], context: str | None) -> tuple[str, dict[str, Any] | None]:
    """The user entry of ``context`` (None when the context names no user, or one not defined)."""
    entry = next((c for c in merged["contexts"] if c["name"] == context), None)
    user_name = entry["context"].get("user") if entry else None
    user = next((u["user"] for u in merged["users"] if u["name"] == user_name), None)
    return str(user_name), user


def _inline_token_file(user_name: str, user: dict[str, Any]) -> str | None:
    """Read ``tokenFile`` into ``token``, trimmed as kubectl trims it (a trailing newline is the norm)."""
    path = user.get("tokenFile")
    if user.get("token") or not path:
        return None
    if not isinstance(path, str):
        raise ClusterError(f"the tokenFile of user {user_name!r} must be a file name")
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except OSError as exc:
        raise ClusterError(f"cannot read the tokenFile {path} of user {user_name!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ClusterError(f"the tokenFile {path} of user {user_name!r} is not text") from None
    if not token:
        raise ClusterError(f"the tokenFile {path} of user {user_name!r} is empty")
    user["token"] = token
    del user["tokenFile"]
    return token


def _check_token(user_name: str, user: dict[str, Any]) -> None:
    """A token that cannot go into an HTTP header is refused here, before the client quotes it in an error."""
    token = user.get("token")
    if token is None:
        return
    if not isinstance(token, str):
        raise ClusterError(f"the token of user {user_name!r} must be a string")
    if any(ch.isspace() or not ch.isprintable() for ch in token):
        raise ClusterError(f"the token of user {user_name!r} contains spaces, line breaks or control characters")


def _check_exec_plugin(user_name: str, user: dict[str, Any]) -> None:
    """A missing credential plugin is named; the client would only log it and then be refused (401)."""
    exec_spec = user.get("exec")
    if exec_spec is None:
        return
    command = exec_spec.get("command") if isinstance(exec_spec, dict) else None
    if not isinstance(command, str) or not command:
        raise ClusterError(f"the exec plugin of user {user_name!r} has no command")
    if os.sep in command:
        if not (os.path.isfile(command) and os.access(command, os.X_OK)):
            raise ClusterError(f"exec plugin {command!r} not found (no executable file there), "
                               f"needed by user {user_name!r}")
    elif shutil.which(command) is None:
        raise ClusterError(f"exec plugin {command!r} not found on PATH, needed by user {user_name!r}")


def _secrets(merged: dict[str, Any]) -> frozenset[str]:
    """Every credential value in the kubeconfig, to be cut out of any message that might quote one."""
    found: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in _SECRET_FIELDS and isinstance(item, (str, int)) and len(str(item)) >= 4:
                    found.add(str(item))
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    visit(merged["users"])
    return frozenset(found)


def _redact(text: str, secrets: frozenset[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
        stripped = secret.strip()
        if stripped and stripped != secret and len(stripped) >= 4:
            text = text.replace(stripped, REDACTED)
    return text


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


def _read(connection: _Connection, choice: PlanChoice, page_size: int) -> ClusterSnapshot:
    taken_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    groups = _api_groups(connection)
    plan = choice if isinstance(choice, ReadPlan) else choice(frozenset(groups))
    # A scheduler without an API group of its own (YuniKorn) has nothing to discover.
    served = _served_versions(groups, plan) if plan.group else ()
    version = choose_version(plan, served) if plan.group else ""
    available = _served_resources(connection, plan, version) if plan.group else set()
    try:
        objects, skipped, redactions = _read_resources(connection, plan, version, available, page_size)
    except ClusterError as exc:
        raise _with_role(exc, plan) from None
    apis = tuple(dict.fromkeys(r.api_version(version) for r in plan.resources
                               if not (plan.group and r.group == plan.group and r.plural not in available)))
    return ClusterSnapshot(objects, connection.context, connection.server, taken_at, plan.scheduler, version, served,
                           skipped, redactions, apis, not isinstance(choice, ReadPlan))


def _with_role(exc: ClusterError, plan: ReadPlan) -> ClusterError:
    """A 403 names the command that prints the roles of this scheduler, and their names."""
    if exc.status != 403:
        return exc
    names = role_names([plan.scheduler])
    roles = f"the ClusterRole {names.cluster_role}"
    if any(resource.names for resource in plan.resources):
        roles += f" and the Role {names.config_role}"
    text = str(exc).replace("(`kqctl rbac` prints the role it needs)",
                            f"(`kqctl rbac --scheduler {plan.scheduler}` prints {roles})")
    return ClusterError(text, status=exc.status)


@dataclass(frozen=True)
class RoleNames:
    """What ``kqctl rbac`` calls its objects: one ClusterRole, and a Role for the objects read by name."""

    cluster_role: str
    config_role: str


def role_names(schedulers: list[str]) -> RoleNames:
    """``kqctl-reader`` for every scheduler together; ``kqctl-<name>-reader`` for one (YuniKorn's Role:
    ``kqctl-yunikorn-config``, the name the shipped manifests always used)."""
    if len(schedulers) == 1:
        return RoleNames(f"kqctl-{schedulers[0]}-reader", f"kqctl-{schedulers[0]}-config")
    return RoleNames("kqctl-reader", "kqctl-config")


def _read_resources(connection: _Connection, plan: ReadPlan, version: str, available: set[str],
                    page_size: int) -> tuple[list[dict[str, Any]], list[str], Redactions]:
    objects: list[dict[str, Any]] = []
    skipped: list[str] = []
    redactions = Redactions()
    for resource in plan.resources:
        if plan.group and resource.group == plan.group and resource.plural not in available:
            skipped.append(_not_served(plan, resource, version))
            continue
        api_version = resource.api_version(version)
        if resource.names:
            items = _get_named(connection, resource, skipped)
        else:
            items = _list(connection, plan, resource, version, page_size)
        objects.extend(redactions.apply(_normalize(item, api_version, resource.kind)) for item in items)
    return objects, skipped, redactions


def choose_version(plan: ReadPlan, served: tuple[str, ...]) -> str:
    """The first of the plan's versions the cluster serves (for Kueue: v1beta2, else v1beta1)."""
    for version in plan.versions:
        if version in served:
            return version
    since = f" ({plan.oldest_release} or later)" if plan.oldest_release else ""
    raise ClusterError(f"cannot list {plan.anchor.name}: the cluster serves {plan.group} only as "
                       f"{', '.join(served) or 'no version'}; kqctl reads {' or '.join(plan.versions)}{since}")


def _api_groups(connection: _Connection) -> dict[str, tuple[str, ...]]:
    """Every API group the cluster serves, with its versions (API discovery: ``GET /apis``)."""
    from kubernetes import client

    api = client.ApisApi(connection.client)
    body = _call(connection, functools.partial(api.get_api_versions, **_RAW), "get", "the API groups (/apis)")
    return {str(group.get("name")): tuple(str(v.get("version")) for v in _dicts(group.get("versions"))
                                          if v.get("version"))
            for group in _dicts(body.get("groups")) if group.get("name")}


def _served_versions(groups: dict[str, tuple[str, ...]], plan: ReadPlan) -> tuple[str, ...]:
    """The scheduler group's versions, as discovery listed them."""
    if plan.group in groups:
        return groups[plan.group]
    raise ClusterError(f"cannot list {plan.anchor.name} (or any {plan.product} resource): the cluster does not "
                       f"serve the API group {plan.group}; is {plan.product} installed?", status=404)


def _served_resources(connection: _Connection, plan: ReadPlan, version: str) -> set[str]:
    """The scheduler's resources served at ``version`` (e.g. ``GET /apis/kueue.x-k8s.io/<version>``)."""
    from kubernetes import client

    api = client.CustomObjectsApi(connection.client)
    request = functools.partial(api.get_api_resources, plan.group, version, **_RAW)
    body = _call(connection, request, "get", f"the resources of {plan.group}/{version}",
                 f" (is {plan.product} installed?)")
    names = (str(r.get("name")) for r in _dicts(body.get("resources")))
    return {name for name in names if "/" not in name}  # "workloads/status" is a subresource


def _not_served(plan: ReadPlan, resource: Resource, version: str) -> str:
    """A resource discovery does not list: fatal for the core ones, a note for the newer ones."""
    if resource.required:
        raise ClusterError(f"cannot list {resource.name}: the cluster does not serve it at {plan.group}/{version}"
                           f" (is {plan.product} installed with all its CRDs?)", status=404)
    return f"{resource.name} not served at {version}: none read"


def _get_named(connection: _Connection, resource: Resource, skipped: list[str]) -> list[dict[str, Any]]:
    """The named objects of ``resource`` in its namespace (get by name: no list of that kind at all)."""
    from kubernetes import client

    if resource.plural != "configmaps" or resource.namespace is None:
        raise ValueError(f"kqctl reads {resource.name} by name only as namespaced ConfigMaps")
    core = client.CoreV1Api(connection.client)
    found = []
    for name in resource.names:
        request = functools.partial(core.read_namespaced_config_map, name, resource.namespace, **_RAW)
        try:
            found.append(_call(connection, request, "get", f"configmap {resource.namespace}/{name}"))
        except ClusterError as exc:
            if exc.status == 403 and resource.forbidden_note:
                skipped.append(f"configmap {resource.namespace}/{name} could not be read (forbidden (403)): "
                               f"{resource.forbidden_note}")
                continue
            if exc.status != 404:
                raise
            skipped.append(f"configmap {resource.namespace}/{name} does not exist")
    return found


def _list(connection: _Connection, plan: ReadPlan, resource: Resource, version: str,
          page_size: int) -> list[dict[str, Any]]:
    """Every object of ``resource``, all pages merged; restarted if a continue token expires."""
    for _ in range(MAX_LIST_ATTEMPTS):
        try:
            return _list_pages(connection, plan, resource, version, page_size)
        except _ContinueExpired:
            continue  # as client-go's pager: the list changed too much meanwhile, read it again
    raise ClusterError(f"cannot list {resource.name}: the list changed faster than kqctl could page through it "
                       f"(410 Gone {MAX_LIST_ATTEMPTS} times); try again", status=410)


def _list_pages(connection: _Connection, plan: ReadPlan, resource: Resource, version: str,
                page_size: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = _list_page(connection, plan, resource, version, page_size, token)
        items.extend(_page_items(page, resource))
        token = _continue_token(page)
        if token is None:
            return items
        if token in seen:
            raise ClusterError(f"cannot list {resource.name}: the API server sent the same continue token twice")
        seen.add(token)
    raise ClusterError(f"cannot list {resource.name}: more than {MAX_PAGES} pages")


def _list_page(connection: _Connection, plan: ReadPlan, resource: Resource, version: str, page_size: int,
               token: str | None) -> dict[str, Any]:
    lister = _lister(connection, resource, version)
    labels = f", labels {resource.label_selector}" if resource.label_selector else ""
    diagnostics.log(6, f"GET {resource.group or 'core'}/{version} {resource.name} (limit {page_size}"
                       f"{', continue' if token else ''}{labels})")
    request = functools.partial(lister, limit=page_size, _continue=token, label_selector=resource.label_selector,
                                field_selector=resource.field_selector, **_RAW)
    hint = f" (is {plan.product} installed?)" if resource.group == plan.group else ""
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
            "nodes": core.list_node,
            "configmaps": core.list_config_map_for_all_namespaces,
        }
        return core_listers[resource.plural]
    if resource.group == "batch":
        return client.BatchV1Api(api).list_job_for_all_namespaces
    if resource.group == "scheduling.k8s.io":
        return client.SchedulingV1Api(api).list_priority_class
    custom = client.CustomObjectsApi(api)
    # A resource of another group than the plan's (Volcano's batch Jobs) names its own version.
    return functools.partial(custom.list_cluster_custom_object, resource.group, resource.version or version,
                             resource.plural)


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
        text = f"forbidden (403): {detail}; kqctl needs {verb} on it (`kqctl rbac` prints the role it needs)"
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
