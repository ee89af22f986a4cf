"""``kqctl convert``: rewrite Kueue manifests in another API version, reporting anything that cannot move."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer

from kqctl.cli import options
from kqctl.errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, UsageError

if TYPE_CHECKING:
    from kqctl.load.objects import LoadResult

HELP = """Convert Kueue manifests (v1alpha1, v1alpha2, v1beta1, v1beta2) to v1beta2 or v1beta1, or Volcano
Queues or a YuniKorn queue configuration to Kueue (--to kueue: ResourceFlavor, Cohorts, ClusterQueues,
LocalQueues).

Converted objects go to stdout; fields that cannot be carried over are reported on stderr.
Other objects are printed unchanged (--to kueue: left out, with a note)."""

TARGETS = ("v1beta2", "v1beta1", "kueue")


EXAMPLES = options.examples(
    "kqctl convert samples/legacy-v1alpha1/kueue-v0.1-v1alpha1.yaml",
    "kqctl convert samples/legacy-v1alpha1 --to v1beta1 -o json",
    "kqctl convert - < samples/legacy-v1alpha1/kueue-v0.1-v1alpha1.yaml",
    "kqctl convert samples/legacy-v1alpha1 --set clusterqueue/legacy-batch.spec.stopPolicy=Hold  # and change a field",
    "kqctl convert -f samples/volcano-hierarchy --to kueue > kueue-queues.yaml",
    "kqctl convert -f samples/yunikorn-priority/yunikorn-configs.yaml --to kueue  # YuniKorn queues as Kueue's",
)

def convert_command(
    paths: list[str] | None = options.PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    to: str = typer.Option("v1beta2", "--to", metavar="VERSION", help="Target: v1beta2 or v1beta1 (Kueue "
                           "versions), or kueue (Volcano Queues, or a YuniKorn queues.yaml or its ConfigMap, to "
                           "Kueue)."),
    output: str = typer.Option("yaml", "-o", "--output", metavar="FORMAT",
                               help="yaml, json, jsonpath=TEMPLATE or custom-columns=SPEC (over the List of objects)."),
    sets: list[str] | None = options.SetOption,
) -> None:
    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.load.objects import load_paths

    if to not in TARGETS:
        import difflib

        close = difflib.get_close_matches(to.lower(), TARGETS, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise UsageError(f"cannot convert to {to!r}; {hint}supported targets: {', '.join(TARGETS)}")
    from kqctl.render.output import check_output

    check_output(output, ("yaml", "json"))
    from kqctl.load.overrides import parse_override

    parsed = [parse_override(text) for text in sets or []]  # syntax errors before anything is read
    given = options.all_paths(paths, filenames)
    result = load_paths(ALL_KINDS, given, recursive=recursive)
    options.write_notes(result.notes)
    for problem in result.unreadable:
        sys.stderr.write(f"kqctl: error: {problem}\n")
    if result.unreadable:
        raise typer.Exit(EXIT_INPUT)
    if parsed and to == "kueue":
        raise UsageError("--set applies to Kueue manifests (--to v1beta2 or v1beta1), not to --to kueue")
    if not result.objects:
        from kqctl.load.sources import no_objects_error

        raise no_objects_error(given, recursive)
    result = options.edited(result, parsed, False)
    _admit(result)
    if to == "kueue":
        from kqctl.cli.schedulers import present

        if not any(s.name == "volcano" for s in present(result.objects)):
            from kqctl.cli.yunikorn import convert_to_kueue as yunikorn_to_kueue

            yunikorn_to_kueue(options.all_paths(paths, filenames), recursive, output)
        from kqctl.cli.volcano import convert_to_kueue

        raise typer.Exit(convert_to_kueue(result, output))
    converted, failed = _convert_all(result.objects, to)
    _note_nothing_to_convert(result, to)
    write_manifests(converted, output)
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _admit(result: LoadResult) -> None:
    """The gate every command admits objects through (kqctl.validate.gate): what validate rejects is refused (exit
    3, located) rather than converted, except the version nobody serves any more, which converting cures; a legacy
    object is checked as the v1beta2 object it converts to. The objects are written as written, never defaulted."""
    from kqctl.cli.schedulers import validation_profiles
    from kqctl.validate.gate import admit

    admit(result, validation_profiles(None), converting=True)


def _note_nothing_to_convert(result: LoadResult, to: str) -> None:
    """Volcano or YuniKorn input with a Kueue version as the target (the default) is printed unchanged: say so, and
    that ``--to kueue`` is what converts it, rather than leave the user with an untouched copy and no word."""
    from kqctl.cli.schedulers import present
    from kqctl.kueue.kinds import CONFIG_GROUP, GROUP

    if any(obj.info is not None and obj.info.group in (GROUP, CONFIG_GROUP) for obj in result.objects):
        return
    others = [s.product for s in present(result.objects) if s.name != "kueue"]
    if others:
        options.write_notes([f"the input holds {' and '.join(others)} objects and no Kueue object: nothing to "
                             f"convert to {to}, so every object is printed unchanged; --to kueue converts "
                             "the queues to Kueue's"])


def _convert_all(objects: list[Any], to: str) -> tuple[list[Any], bool]:
    from kqctl.kueue.api.versions import convert
    from kqctl.kueue.kinds import GROUP as KUEUE_GROUP

    converted: list[Any] = []
    failed = False
    for obj in objects:
        if obj.info is None or obj.info.group != KUEUE_GROUP:
            converted.append(obj.body)
            continue
        result = convert(obj.body, to)
        for issue in result.issues:
            line = obj.line_of(issue.path)
            where = f"{obj.origin.file}:{line}"
            sys.stderr.write(f"{where}: {issue.severity}: {obj.kind} {obj.name}: {issue.rule_id}: {issue.message}\n")
            failed = failed or issue.severity == "error"
        converted.append(result.body)
    return converted, failed


def write_manifests(documents: list[Any], output: str) -> None:
    from kqctl.render.output import write_manifests as write

    write(sys.stdout, documents, output)
