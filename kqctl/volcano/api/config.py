"""The scheduler configuration (``volcano-scheduler.conf``): actions, plugin tiers and their options.

Volcano reads it with a non-strict YAML decoder (``pkg/scheduler/util.go``, ``UnmarshalSchedulerConf``):
unknown keys are ignored, every ``enable*`` flag left unset defaults to true (``plugins/defaults.go``), an
unknown action stops the scheduler from loading the configuration, an unknown plugin is skipped with an
error in its log. kqctl reads it the same way and keeps what Volcano would ignore as problems to report.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kqctl.k8s.core import ModelError, json_kind
from kqctl.origin import FieldPath

# Every action the scheduler registers (actions/factory.go) and the ones kqctl simulates.
KNOWN_ACTIONS = ("enqueue", "allocate", "backfill", "reclaim", "preempt", "gangpreempt", "gangreclaim", "shuffle")
SIMULATED_ACTIONS = frozenset({"enqueue", "allocate", "backfill", "reclaim", "preempt"})
# Every plugin the scheduler registers (plugins/factory.go); SIMULATED_PLUGINS are modelled by kqctl.
KNOWN_PLUGINS = ("binpack", "capacity", "cdp", "conformance", "deviceshare", "drf", "extender", "gang",
                 "network-topology-aware", "nodegroup", "nodeorder", "numa-aware", "overcommit", "pdb",
                 "predicates", "priority", "proportion", "rescheduling", "resource-strategy-fit",
                 "resourcequota", "sla", "task-topology", "tdm", "usage")
SIMULATED_PLUGINS = frozenset({"binpack", "capacity", "conformance", "drf", "gang", "nodeorder", "overcommit",
                               "predicates", "priority", "proportion"})

# The YAML keys of conf.PluginOption's flags, spelled as Volcano reads them (the spellings are not uniform).
FLAG_KEYS = ("enableJobOrder", "enableJobReady", "enableJobPipelined", "enableTaskOrder", "enablePreemptable",
             "enableReclaimable", "enablePreemptive", "enableQueueOrder", "enabledClusterOrder", "enablePredicate",
             "enableBestNode", "enableNodeOrder", "enableTargetJob", "enableReservedNodes", "enableJobEnqueued",
             "enabledVictim", "enableJobStarving", "enabledOverused", "enabledAllocatable", "enabledHyperNodeOrder",
             "enabledSubJobReady", "enabledSubJobPipelined", "enabledSubJobOrder", "enabledHyperNodeGradient")
HIERARCHY_KEY = "enableHierarchy"
_PLUGIN_KEYS = frozenset({"name", "arguments", HIERARCHY_KEY, *FLAG_KEYS})
_TOP_KEYS = frozenset({"actions", "tiers", "configurations", "metrics"})

# The configuration the Helm chart ships (installer/helm/chart/volcano/config/volcano-scheduler.conf):
# what a cluster installed with the chart runs. Volcano's built-in DefaultSchedulerConf differs from it
# (no binpack, gang and drf without enablePreemptable: false); the chart's always wins on such clusters.
CHART_DEFAULT = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""
CHART_DEFAULT_SOURCE = "the Helm chart's volcano-scheduler.conf (no scheduler configuration in the input)"


@dataclass(frozen=True)
class ConfProblem:
    """Something in the configuration Volcano ignores (warning) or refuses to load (error)."""

    severity: str  # "error" or "warning"
    path: FieldPath
    message: str
    hint: str | None = None
    rule_id: str = ""  # kqctl's rule (VC-CONF-ACTION, -CONFLICT, -PLUGIN, -KEY): the same in every command


@dataclass(frozen=True)
class PluginOption:
    name: str
    flags: Mapping[str, bool] = field(default_factory=dict, hash=False)  # the enable* keys that were set
    arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)
    hierarchy: bool = False  # enableHierarchy

    def enabled(self, flag: str) -> bool:
        """An ``enable*`` flag: true unless set to false (plugins/defaults.go)."""
        return self.flags.get(flag, True)

    def argument(self, key: str) -> Any:
        return self.arguments.get(key)


@dataclass(frozen=True)
class SchedulerConf:
    actions: tuple[str, ...]
    tiers: tuple[tuple[PluginOption, ...], ...]
    source: str
    configurations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False)
    problems: tuple[ConfProblem, ...] = ()

    def plugin(self, name: str) -> PluginOption | None:
        """The first configured plugin of that name."""
        return next((p for tier in self.tiers for p in tier if p.name == name), None)

    def has_plugin(self, name: str) -> bool:
        return self.plugin(name) is not None

    def plugins(self) -> list[PluginOption]:
        return [p for tier in self.tiers for p in tier]

    @property
    def capacity_hierarchy(self) -> bool:
        capacity = self.plugin("capacity")
        return capacity is not None and capacity.hierarchy

    @property
    def errors(self) -> list[ConfProblem]:
        return [p for p in self.problems if p.severity == "error"]


def parse_conf(data: Any, source: str, path: FieldPath = ()) -> SchedulerConf:
    """A parsed ``volcano-scheduler.conf`` document; type errors raise :class:`ModelError` (Volcano's decoder
    rejects the whole configuration), everything Volcano would ignore or refuse is kept in ``problems``."""
    top = _mapping(data, path)
    problems: list[ConfProblem] = []
    problems.extend(_unknown_keys(top, _TOP_KEYS, path))
    actions = _actions(top.get("actions"), (*path, "actions"), problems)
    tiers = tuple(_tier(tier, (*path, "tiers", i), problems) for i, tier in enumerate(_list(top.get("tiers"),
                                                                                              (*path, "tiers"))))
    _check_conflicts(tiers, path, problems)
    configurations = _configurations(top.get("configurations"), (*path, "configurations"))
    return SchedulerConf(actions, tiers, source, configurations, tuple(problems))


def _actions(raw: Any, path: FieldPath, problems: list[ConfProblem]) -> tuple[str, ...]:
    if raw is None:
        raw = ""
    if not isinstance(raw, str):
        raise ModelError(path, f"expected a string of comma-separated action names, got {json_kind(raw)}")
    names = tuple(part.strip() for part in raw.split(","))
    for name in dict.fromkeys(names):  # each unknown name once, however often it is listed
        if name not in KNOWN_ACTIONS:
            close = difflib.get_close_matches(name, KNOWN_ACTIONS, n=1)
            known = f"actions Volcano knows: {', '.join(KNOWN_ACTIONS)}"
            if not name:
                problems.append(ConfProblem("error", path, 'failed to find Action "": an empty name (two commas in '
                                            "a row, or one at the end)", f"remove the extra comma; {known}",
                                            rule_id="VC-CONF-ACTION"))
                continue
            problems.append(ConfProblem("error", path, f"failed to find Action {name}",
                                        f"did you mean {close[0]}?" if close else known, rule_id="VC-CONF-ACTION"))
    return tuple(name for name in names if name in KNOWN_ACTIONS)


def _tier(raw: Any, path: FieldPath, problems: list[ConfProblem]) -> tuple[PluginOption, ...]:
    tier = _mapping(raw, path)
    problems.extend(_unknown_keys(tier, frozenset({"plugins"}), path))
    plugins = _list(tier.get("plugins"), (*path, "plugins"))
    return tuple(_plugin(item, (*path, "plugins", i), problems) for i, item in enumerate(plugins))


def _plugin(raw: Any, path: FieldPath, problems: list[ConfProblem]) -> PluginOption:
    option = _mapping(raw, path)
    name = option.get("name")
    if not isinstance(name, str):
        raise ModelError((*path, "name"), f"expected a plugin name, got {json_kind(name)}")
    problems.extend(_unknown_keys(option, _PLUGIN_KEYS, path, FLAG_KEYS))
    if name not in KNOWN_PLUGINS:
        close = difflib.get_close_matches(name, KNOWN_PLUGINS, n=1)
        problems.append(ConfProblem("warning", (*path, "name"),
                                    f"Failed to get plugin {name}: Volcano skips it",
                                    f"did you mean {close[0]}?" if close else None, rule_id="VC-CONF-PLUGIN"))
    flags = {key: _boolean(option[key], (*path, key)) for key in FLAG_KEYS if option.get(key) is not None}
    hierarchy = option.get(HIERARCHY_KEY)
    arguments = option.get("arguments")
    if arguments is not None and not isinstance(arguments, Mapping):
        raise ModelError((*path, "arguments"), f"expected a mapping, got {json_kind(arguments)}")
    return PluginOption(name, flags, {str(k): _exact(v) for k, v in (arguments or {}).items()},
                        hierarchy is not None and _boolean(hierarchy, (*path, HIERARCHY_KEY)))


def _check_conflicts(tiers: tuple[tuple[PluginOption, ...], ...], path: FieldPath,
                     problems: list[ConfProblem]) -> None:
    for i, tier in enumerate(tiers):
        names = {p.name for p in tier}
        if "proportion" in names and any(p.name == "drf" and p.hierarchy for p in tier):
            problems.append(ConfProblem("error", (*path, "tiers", i), "proportion and drf with hierarchy enabled "
                                        "conflicts", "use one of them: proportion, or drf with enableHierarchy",
                                        rule_id="VC-CONF-CONFLICT"))


def _configurations(raw: Any, path: FieldPath) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(_list(raw, path)):
        entry = _mapping(item, (*path, i))
        arguments = entry.get("arguments") or {}
        if not isinstance(arguments, Mapping):
            raise ModelError((*path, i, "arguments"), f"expected a mapping, got {json_kind(arguments)}")
        result[str(entry.get("name", ""))] = {str(k): _exact(v) for k, v in arguments.items()}
    return result


def _unknown_keys(mapping: Mapping[str, Any], known: frozenset[str], path: FieldPath,
                  suggestions: tuple[str, ...] = ()) -> list[ConfProblem]:
    found = []
    for key in mapping:
        if str(key) in known:
            continue
        close = difflib.get_close_matches(str(key), [*suggestions, *sorted(known)], n=1, cutoff=0.75)
        hint = f"did you mean {close[0]}?" if close else None
        found.append(ConfProblem("warning", (*path, str(key)), f"unknown key {key!r}: Volcano ignores it", hint,
                                 rule_id="VC-CONF-KEY"))
    return found


def _mapping(raw: Any, path: FieldPath) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ModelError(path, f"expected a mapping, got {json_kind(raw)}")
    return raw


def _list(raw: Any, path: FieldPath) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ModelError(path, f"expected a list, got {json_kind(raw)}")
    return raw


def _boolean(raw: Any, path: FieldPath) -> bool:
    if isinstance(raw, bool):
        return raw
    raise ModelError(path, f"expected true or false, got {json_kind(raw)}")


def _exact(value: Any) -> Any:
    """Plugin arguments keep their YAML types; a float becomes the exact decimal it was written as."""
    if isinstance(value, float) and not isinstance(value, bool):
        text = getattr(value, "text", None) or repr(value)
        try:
            return Fraction(text)
        except ValueError:
            return value
    return value


def argument_text(value: Any) -> str:
    """A plugin argument as YAML writes it, for people: a decimal read into an exact ``Fraction`` (``_exact``) as
    the decimal it was written as (``1.5``, never ``3/2``), a boolean ``true``/``false``, a list or a mapping in
    YAML's flow style."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Fraction):
        return _decimal(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key}: {argument_text(item)}" for key, item in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(argument_text(item) for item in value) + "]"
    return str(value)


def _decimal(value: Fraction) -> str:
    """``value`` in decimal notation: exact when its denominator divides a power of ten (every decimal read from
    text does), else Python's shortest float."""
    denominator, places = value.denominator, 0
    while 10 ** places % denominator:
        places += 1
        if places > 64:
            return repr(float(value))
    if places == 0:
        return str(value.numerator)
    scaled = abs(value.numerator) * 10 ** places // denominator
    whole, fraction = divmod(scaled, 10 ** places)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}.{str(fraction).rjust(places, '0').rstrip('0')}"
