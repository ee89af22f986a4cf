"""Options shared by several commands, so every command spells them the same way."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import typer

from kqctl.render.columns import DEFAULT_ROW_LIMIT

if TYPE_CHECKING:
    from kqctl.findings import Finding
    from kqctl.load.cluster import PlanChoice, ReadPlan
    from kqctl.load.objects import LoadedObject, LoadResult
    from kqctl.load.overrides import Override
    from kqctl.validate.cache import ReadCache
    from kqctl.validate.gate import Checks, Prepare

PathsArgument = typer.Argument(None, metavar="PATH", help="Files or directories to read; '-' reads stdin.",
                               show_default=False)
FilenameOption = typer.Option(None, "-f", "--filename", metavar="PATH", show_default=False,
                              help="A file or directory to read (repeatable); '-' reads stdin.")
RecursiveOption = typer.Option(False, "-R", "--recursive", help="Read directories recursively.")
StrictOption = typer.Option(False, "--strict", help="Treat objects of kinds kqctl does not read as errors.")
ColorOption = typer.Option("auto", "--color", metavar="WHEN",
                           help="Colour: auto (only on a terminal, never with NO_COLOR), always, never.")


NoHeadersOption = typer.Option(False, "--no-headers", help="Print table rows without the header line.")
SortByOption = typer.Option(None, "--sort-by", metavar="COLUMN|PATH",
                            help="Sort rows by a column, e.g. priority (names as in the header), or as kubectl by a "
                                 "JSONPath into the -o json rows, e.g. .priority (json, yaml and templates sort by a "
                                 "JSONPath only: a plain word is a field there, as in kubectl).")
LimitOption = typer.Option(DEFAULT_ROW_LIMIT, "--limit", metavar="N", min=1,
                           help="Show at most N rows per table (json, yaml and name are never limited).")
ShowAllOption = typer.Option(False, "--show-all", help="Show every table row (no --limit).")


def parse_selector(text: str) -> dict[str, Any]:
    """-l as kubectl reads it: a malformed selector (syntax, label keys or values) is a usage error."""
    from kqctl.errors import UsageError
    from kqctl.k8s.names import validate_label_selector
    from kqctl.k8s.selectors import parse_label_selector

    try:
        selector = parse_label_selector(text)
    except ValueError as exc:
        raise UsageError(f"-l {text!r}: {exc}") from None
    problems = validate_label_selector(selector, ())
    if problems:
        raise UsageError(f"-l {text!r}: invalid label selector: {problems[0].body()}")
    return selector


def namespace_option(listed: str) -> Any:
    """-n, worded for what the command lists (``listed``: e.g. "the replay still covers every workload")."""
    return typer.Option(None, "-n", "--namespace", metavar="NAMESPACE",
                        help=f"Only list workloads of this namespace ({listed}).")


AllNamespacesOption = typer.Option(False, "-A", "--all-namespaces",
                                   help="List workloads of every namespace (the default).")


def selector_option(listed: str) -> Any:
    return typer.Option(None, "-l", "--selector", metavar="SELECTOR",
                        help=f"Only list workloads whose labels match, e.g. team=a,tier!=batch ({listed}).")


def check_workload_filter(namespace: str | None, all_namespaces: bool, selector: str | None) -> dict[str, Any] | None:
    """-n, -A and -l checked as simulate checks them, before anything is read: -n with -A, or a malformed -l, is a
    usage error. Returns the parsed selector (None without -l)."""
    if namespace and all_namespaces:
        from kqctl.errors import UsageError

        raise UsageError("-n/--namespace and -A/--all-namespaces cannot be used together")
    return parse_selector(selector) if selector else None


def workload_matcher(namespace: str | None,
                     selector: dict[str, Any] | None) -> Callable[[str, Mapping[str, str]], bool]:
    """-n and -l as kubectl applies them to one workload (its namespace and labels); simulate's filter."""
    from kqctl.k8s.selectors import selector_matches

    def matches(workload_namespace: str, labels: Mapping[str, str]) -> bool:
        if namespace is not None and workload_namespace != namespace:
            return False
        return selector is None or selector_matches(selector, labels)

    return matches


NAMESPACES_NAMED = 10  # namespaces listed in the message for a -n that names none of them


def namespace_note(namespace: str | None, present: Iterable[str], what: str = "workload") -> str | None:
    """A note for -n naming a namespace in which no workload exists (most likely a typo): a did-you-mean over the
    namespaces that hold workloads, instead of an empty table that looks like an answer. Not an error, as
    kubectl's "No resources found in NAMESPACE namespace." is not: a CI job filtering on a team that has nothing
    queued today must not fail. None when the namespace holds workloads (or no -n was given)."""
    if namespace is None:
        return None
    namespaces = sorted(set(present))
    if namespace in namespaces:
        return None
    import difflib

    close = difflib.get_close_matches(namespace, namespaces, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    if not namespaces:
        where = f"the inputs hold no {what}s"
    else:
        named = ", ".join(namespaces[:NAMESPACES_NAMED])
        more = f" and {len(namespaces) - NAMESPACES_NAMED:,} more" if len(namespaces) > NAMESPACES_NAMED else ""
        where = f"{what}s are in: {named}{more}"
    return f"no {what} in namespace {namespace!r}{hint} ({where})"


def note_namespace(namespace: str | None, present: Iterable[str], what: str = "workload") -> bool:
    """Writes namespace_note's note, if any, to stderr: never into the output a pipe may parse. True if it did."""
    note = namespace_note(namespace, present, what)
    if note is not None:
        sys.stderr.write(f"kqctl: note: -n {namespace}: {note}\n")
    return note is not None


def note_selector(selector: str | None, namespace: str | None, shown: Iterable[bool], what: str = "workload") -> None:
    """-l matching none of the objects (``shown``: whether -n and -l keep each): a note on stderr, as kubectl says "No
    resources found", instead of empty tables that look like an answer; nothing when there are none to match."""
    from kqctl.render.columns import printable

    if selector is None:
        return  # (``shown`` is not even read: 50,000 pods need no filter when nothing filters them)
    kept = list(shown)
    if not kept or any(kept):
        return
    where = f" in namespace {printable(namespace)}" if namespace is not None else ""
    sys.stderr.write(f"kqctl: note: -l {printable(selector)}: no {what}{where} matches\n")


def row_limit(limit: int, show_all: bool) -> int | None:
    """The number of table rows to show, None for all."""
    return None if show_all else limit


def examples(*lines: str) -> str:
    """A help epilog listing example command lines, kept one per line (click rewraps other text)."""
    return "Examples:\n\n\b\n" + "\n".join(f"  {line}" for line in lines)


def all_paths(paths: list[str] | None, filenames: list[str] | None) -> list[str]:
    """Positional paths and -f paths together; at least one is required."""
    combined = [*(filenames or []), *(paths or [])]
    if not combined:
        from kqctl.errors import UsageError

        raise UsageError("no input: pass files or directories (or '-' for stdin) as arguments or with -f")
    return combined


SchedulerOption = typer.Option(None, "--scheduler", metavar="NAME",
                               help="The scheduler whose rules apply: kueue, volcano or yunikorn (default: the one "
                                    "whose objects the input holds; kueue for core kinds only).")
YunikornNamespaceOption = typer.Option(None, "--yunikorn-namespace", metavar="NAMESPACE",
                                       help="With --from-cluster: the namespace of YuniKorn's ConfigMaps "
                                            "yunikorn-configs and yunikorn-defaults (default: yunikorn).")
FromClusterOption = typer.Option(False, "--from-cluster", help="Also read the live cluster (read-only; see --context).")
ContextOption = typer.Option(None, "--context", metavar="NAME",
                             help="The kubeconfig context to use (default: the current one).")
KubeconfigOption = typer.Option(None, "--kubeconfig", metavar="FILE",
                                help="The kubeconfig file (default: $KUBECONFIG, else "
                                "~/.kube/config, else the pod's service account).")


def check_cluster_options(from_cluster: bool, context: str | None, kubeconfig: str | None,
                          yunikorn_namespace: str | None = None) -> None:
    """--context, --kubeconfig and --yunikorn-namespace only choose what to read from a cluster: alone they would be
    silently ignored."""
    if from_cluster:
        return
    named = [flag for flag, value in (("--context", context), ("--kubeconfig", kubeconfig),
                                      ("--yunikorn-namespace", yunikorn_namespace)) if value]
    if named:
        from kqctl.errors import UsageError

        verb = "applies" if len(named) == 1 else "apply"
        raise UsageError(f"{' and '.join(named)} only {verb} with --from-cluster (kqctl reads a cluster only "
                         "when asked to)")


SetOption = typer.Option(None, "--set", metavar="KIND/NAME.PATH=VALUE", show_default=False,
                         help="What-if: change a field of a loaded object before anything reads it (repeatable), e.g. "
                              "clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota=40 or "
                              "workload/team-a/job-1.spec.priority=1000.")
OverrideOption = typer.Option(False, "--override",
                              help="When an object is defined twice (in two files, or in a file and the cluster), "
                                   "the one read last wins instead of a LOAD-DUPLICATE error.")


AsGivenOption = typer.Option(False, "--as-given",
                             help="Kueue: read the objects exactly as written, without the defaults and checks of the "
                                  "API server (as Kueue's own unit tests build them); only what Kueue cannot decode is "
                                  "refused. Default: as the API server would store them once applied.")


ReadCacheOption = typer.Option(None, "--cache", metavar="DIR",
                               help="Keep each file as read and checked in DIR, and take it from there while the "
                                    "file, its name, kqctl and the flags are unchanged: a second run on a large "
                                    "snapshot skips reading and checking it. The objects are admitted as without "
                                    "it (the cross-object checks run every time). Files only (stdin is read "
                                    "every time); not with --from-cluster or --as-given.")


def load_inputs(paths: list[str] | None, filenames: list[str] | None, recursive: bool, strict: bool,
                from_cluster: bool, context: str | None, kubeconfig: str | None,
                sets: list[str] | None = None, override: bool = False, scheduler: str | None = None,
                allow_empty: bool = False, yunikorn_namespace: str | None = None,
                refuse: bool = True, as_given: bool = False, cache: str | None = None,
                prepare: Prepare | None = None) -> LoadResult:
    """Files, directories and stdin, and with --from-cluster the live cluster, as one load result;
    then --override and --set applied. ``allow_empty``: inputs without objects are fine (a prune).
    ``refuse``: the inputs go through the gate (every command but validate, which reports instead): what
    validate rejects ends the command, and the objects come back as the API server would store them
    (``as_given``: exactly as written). ``cache``: --cache DIR (:func:`read_cache`). ``prepare``: called on each
    object's stored body while the files are still read, where they are read on every core
    (kqctl.validate.parallel.read_checked)."""
    from kqctl.load.overrides import parse_override

    parsed = [parse_override(text) for text in sets or []]  # syntax errors before anything is read
    # Where the gate will check the objects, the processes reading the files check them as they go.
    checking = refuse and not as_given
    kept = read_cache(cache, scheduler, strict, from_cluster, as_given)
    result, checks = _load(paths, filenames, recursive, strict, from_cluster, context, kubeconfig, scheduler,
                           allow_empty, yunikorn_namespace, checking, kept, prepare)
    result = edited(result, parsed, override, refuse)
    return admitted(result, scheduler, as_given, checks, prepare) if refuse else result


def read_cache(directory: str | None, scheduler: str | None, strict: bool, from_cluster: bool,
               as_given: bool) -> ReadCache | None:
    """--cache DIR: the files as read and checked, kept in DIR under a setting of every flag that changes what a
    file's objects are (--scheduler: the kinds read and the checks made; --strict)."""
    if directory is None:
        return None
    from pathlib import Path

    from kqctl.errors import UsageError
    from kqctl.validate.cache import open_read_cache

    if from_cluster or as_given:
        raise UsageError(f"--cache keeps files as read and checked for the gate: not with "
                         f"{'--from-cluster' if from_cluster else '--as-given'}")
    return open_read_cache(Path(directory).expanduser(), [f"scheduler={(scheduler or '').lower()}",
                                                          f"strict={strict}"])


def admitted(result: LoadResult, scheduler: str | None, as_given: bool = False,
             checks: Checks | None = None, prepare: Prepare | None = None) -> LoadResult:
    """The inputs through the one gate (kqctl.validate.gate) with every scheduler's checks, as validate runs
    them (``checks``: those already made as the files were read; ``prepare``: called on each object the gate checks
    itself, as on those checked as read); its notes go to stderr."""
    from kqctl.cli.schedulers import choose, validation_profiles
    from kqctl.validate.gate import admit

    choose(scheduler, result.objects)  # a usage error (two schedulers' objects) comes before any verdict on them
    profiles = checks.profiles if checks is not None else validation_profiles(scheduler)
    gate = admit(result, profiles, as_given=as_given, checks=checks, prepare=prepare)
    write_notes(gate.notes)
    return gate.result


def edited(result: LoadResult, overrides: list[Override], override: bool, refuse: bool = True) -> LoadResult:
    from kqctl.load.objects import LoadResult
    from kqctl.load.overrides import apply_overrides, keep_last_definitions

    objects = keep_last_definitions(result.objects) if override else result.objects
    if overrides:
        from kqctl.validate.schema import defines_object, unknown_field

        # Per changed object: its states, the original first, then after each --set that changed it.
        states: dict[int, list[tuple[str, LoadedObject]]] = {}
        from kqctl.yunikorn.overrides import apply_queue_override, is_queue_override

        for one in overrides:
            # YuniKorn's queues are no objects: queue/root.PATH.FIELD edits its queues.yaml.
            changed = apply_queue_override(objects, one) if is_queue_override(one, objects) else \
                apply_overrides(objects, [one], unknown_field, defines_object)
            for index, (old, new) in enumerate(zip(objects, changed, strict=True)):
                if old is not new:
                    states.setdefault(index, [("", old)]).append((one.text, new))
            objects = changed
        for history in states.values() if refuse else ():
            refuse_rejected(history)
    return LoadResult(objects, result.unreadable, result.files)


def refuse_rejected(history: list[tuple[str, LoadedObject]]) -> None:
    """A --set that makes an object one the API server would reject (schema, CEL, webhook) is refused, as the same
    value in a file is: the what-if cannot happen. Only errors the --set brings count (not the file's own);
    ``history`` is the object before any --set, then after each --set that changed it (the one named)."""
    from kqctl.cli.schedulers import validation_profiles
    from kqctl.errors import InputError
    from kqctl.findings import Severity
    from kqctl.origin import format_path
    from kqctl.validate.runner import has_error, validate_object

    after = history[-1][1]
    if not after.known or has_error(after.findings):
        return
    profiles = validation_profiles(None)  # every scheduler's, as validate checks each object by its own

    def errors(obj: LoadedObject) -> list[Finding]:
        return [f for f in validate_object(obj, profiles) if f.severity is Severity.ERROR]

    already = {(f.rule_id, f.path) for f in errors(history[0][1])}
    new = [f for f in errors(after) if (f.rule_id, f.path) not in already]
    if not new:
        return
    finding = new[0]
    # The --set to blame: the first after which this error appears.
    culprit = next((text for text, state in history[1:]
                    if any((f.rule_id, f.path) == (finding.rule_id, finding.path) for f in errors(state))),
                   history[-1][0])
    name = f"{after.namespace}/{after.name}" if after.namespace else after.name
    raise InputError(after.origin.file, f"--set {culprit!r}: the API server would reject {after.kind} {name}: "
                     f"{format_path(finding.path)}: {finding.message} ({finding.rule_id}; kqctl validate shows every "
                     "problem)", line=after.line_of(finding.path), index=after.origin.index)


def write_notes(notes: Iterable[str]) -> None:
    """What the loading left out (a FIFO in a directory...), on stderr: never in the output a pipe may parse."""
    for note in notes:
        sys.stderr.write(f"kqctl: note: {note}\n")


def read_plan(scheduler: str | None, yunikorn_namespace: str | None) -> PlanChoice:
    """What --from-cluster and snapshot save read: the named scheduler's plan, or without --scheduler the one
    whose API group the cluster serves (chosen once discovery has listed the groups)."""
    from kqctl.cli.schedulers import SCHEDULERS, named
    from kqctl.errors import UsageError

    chosen = named(scheduler)
    if yunikorn_namespace is not None:
        if chosen is None or chosen.name != "yunikorn":
            raise UsageError("--yunikorn-namespace applies with --scheduler yunikorn")
        return SCHEDULERS["yunikorn"].read_plan().in_namespace(yunikorn_namespace)
    if chosen is not None:
        return chosen.read_plan()
    return plan_for_cluster


def plan_for_cluster(served_groups: frozenset[str]) -> ReadPlan:
    """The scheduler installed in a cluster, by the API groups it serves: a usage error when there are two
    (--scheduler says which), a cluster error (exit 4) when there is none."""
    from kqctl.cli.schedulers import SCHEDULERS
    from kqctl.errors import UsageError
    from kqctl.load.cluster import ClusterError

    plans = {s.name: s.read_plan() for s in SCHEDULERS.values()}
    installed = [s for s in SCHEDULERS.values() if plans[s.name].group in served_groups]
    if len(installed) == 1:
        return plans[installed[0].name]
    if installed:
        raise UsageError(f"the cluster serves the API groups of {' and '.join(s.product for s in installed)}: pass "
                         f"--scheduler {' or --scheduler '.join(s.name for s in installed)}")
    looked_for = ", ".join(f"{s.product} ({plans[s.name].group})" for s in SCHEDULERS.values()
                           if plans[s.name].group)
    without_group = "".join(f"; for {s.product}, which has no API group, pass --scheduler {s.name}"
                            for s in SCHEDULERS.values() if not plans[s.name].group)
    raise ClusterError(f"the cluster serves the API group of none of {looked_for}: is one installed?"
                       f"{without_group}", status=404)


def _load(paths: list[str] | None, filenames: list[str] | None, recursive: bool, strict: bool,
          from_cluster: bool, context: str | None, kubeconfig: str | None, scheduler: str | None,
          allow_empty: bool = False, yunikorn_namespace: str | None = None,
          checking: bool = False, cache: ReadCache | None = None,
          prepare: Prepare | None = None) -> tuple[LoadResult, Checks | None]:
    """The inputs as read; with ``checking``, files are read on every core and each object's per-object check is
    made as its file is read (the gate's, made once: kqctl.validate.parallel.read_checked), or taken from
    ``cache``."""
    from kqctl.cli.schedulers import kinds_for
    from kqctl.load.objects import LoadResult, load_paths, mark_duplicates

    kinds = kinds_for(scheduler)
    given = [*(filenames or []), *(paths or [])]
    if not from_cluster:
        check_cluster_options(from_cluster, context, kubeconfig, yunikorn_namespace)
        checks = None
        if checking:
            from kqctl.cli.schedulers import validation_profiles
            from kqctl.load.sources import expand_paths
            from kqctl.validate.gate import Checks
            from kqctl.validate.parallel import read_checked

            checks = Checks(validation_profiles(scheduler))
            notes: list[str] = []
            names = expand_paths(all_paths(paths, filenames), recursive, notes)
            result = read_checked(kinds, names, strict, checks, notes, cache=cache, prepare=prepare)
        else:
            result = load_paths(kinds, all_paths(paths, filenames), recursive=recursive, strict=strict)
        write_notes(result.notes)
        if not result.objects and not result.unreadable and not allow_empty:
            from kqctl.load.sources import no_objects_error

            raise no_objects_error(given, recursive)
        return result, checks
    from kqctl.load.cluster import load_cluster

    plan = read_plan(scheduler, yunikorn_namespace)
    cluster, result = load_cluster(plan, kinds, context, kubeconfig, strict)
    for note in cluster.skipped:
        sys.stderr.write(f"kqctl: warning: {note}\n")
    if given:
        files = load_paths(kinds, given, recursive=recursive, strict=strict)
        write_notes(files.notes)
        result = LoadResult([*result.objects, *files.objects], files.unreadable, [*result.files, *files.files])
        for obj in result.objects:
            obj.findings = [f for f in obj.findings if f.rule_id != "LOAD-DUPLICATE"]
        mark_duplicates(result.objects)
    return result, None
