"""The README never drifts from what kqctl prints: every ```text block that starts with ``$ kqctl ...`` shows exactly
the standard output of that command, piped, run from the repository root; every quoted PR comment is the output of
the ```sh command before it; and every figure stated elsewhere (a ```sh comment, a sentence about a shipped sample)
is what the command prints."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable

import pytest
from support import REPO, Run

BLOCK = re.compile(r"```text\n\$ kqctl (?P<command>[^\n]*)\n(?P<shown>.*?)```", re.S)


def _examples() -> list[tuple[str, str]]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return [(match["command"], match["shown"]) for match in BLOCK.finditer(readme)]


def test_the_readme_has_examples_to_check() -> None:
    commands = [command for command, _ in _examples()]
    assert len(commands) >= 7, commands
    assert not [c for c in commands if _shell_operators(c)], \
        "an example must be one kqctl command, so that its block is exactly what it prints"


def _shell_operators(command: str) -> list[str]:
    """The unquoted pipes, redirections and command separators in a command line ('p95(...) < 30m' is an
    argument, not a redirection)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    return [token for token in lexer if token and set(token) <= set("|&;<>()")]


@pytest.mark.parametrize(("command", "shown"), _examples(), ids=[command for command, _ in _examples()])
def test_every_readme_example_is_the_commands_real_output(kqctl: Callable[..., Run], command: str,
                                                          shown: str) -> None:
    run = kqctl(*shlex.split(command))
    assert run.code in (0, 1), run.err  # an example may show findings (exit 1), never a usage or input error
    assert run.out == shown, f"README block for `kqctl {command}` differs from what it prints"


FENCE = re.compile(r"^```(?P<language>[^\n]*)\n(?P<body>.*?)^```$", re.S | re.M)
# Blocks that show no command's output: the source layout.
NOT_OUTPUT = ("kqctl/load/ ",)


def test_every_readme_block_of_output_is_checked() -> None:
    """Output is shown only in a checked ```text block (``$ kqctl ...`` then what it prints): a plain block after
    a ```sh one (plan's, replay's) drifted unseen. Commands go in ```sh blocks, which show no output."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    unchecked = [match["body"].splitlines()[0] if match["body"] else "" for match in FENCE.finditer(readme)
                 if match["language"] != "sh" and not BLOCK.match(match.group())
                 and not match["body"].startswith(NOT_OUTPUT)]
    assert not unchecked, "README blocks that show output without `$ kqctl COMMAND` as their first line"


@pytest.mark.parametrize("command", [
    "plan samples/replay --trace samples/replay/arrivals.csv --now 2026-09-14T09:00:00Z --for clusterqueue/team-a "
    "--target 'p95(time-to-admission) < 30m' --jobs 2",
    "replay samples/replay --trace samples/replay/arrivals.csv --now 2026-09-14T09:00:00Z",
])
def test_the_plan_and_replay_walkthroughs_are_checked_examples(command: str) -> None:
    assert command in [c for c, _ in _examples()], f"no checked README block for `kqctl {command}`"


# --- results the README states outside its output blocks --------------------------------------------------------
# A figure in a ```sh comment (`# 16 errors, 9 warnings`), in a sentence about a shipped sample or in a quoted PR
# comment is checked here against what the command prints: each test reads the figure from the README, so editing
# the sentence is enough to be checked again.

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10}
SH_RESULT = re.compile(r"^(?P<command>kqctl [^#\n]*?)\s+# (?P<comment>[^\n]*\d[^\n]*)$", re.M)
FINDING_COUNTS = re.compile(r"(?P<errors>\d+) errors?, (?P<warnings>\d+) warnings?")


def _readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def _number(text: str) -> int:
    return NUMBER_WORDS[text] if text in NUMBER_WORDS else int(text)


def _minutes(duration: str) -> int:
    """``3h40m`` as 220 (minutes), as the README writes durations."""
    parts = re.fullmatch(r"(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?", duration)
    assert parts and duration, duration
    return int(parts["h"] or 0) * 60 + int(parts["m"] or 0)


def _stated(passage: str) -> dict[str, str]:
    """The figures of the one README passage that reads ``passage``, where ``{name}`` stands for a figure (a
    number, a number word, a quantity, a duration, a percentage) and a space for any run of spaces or line breaks,
    as prose wraps."""
    pattern = ""
    for literal, name in re.findall(r"([^{]*)(?:\{(\w+)\})?", passage):
        pattern += r"\s+".join(re.escape(word) for word in literal.split(" "))
        pattern += rf"(?P<{name}>[\w.%]+)" if name else ""
    found = [match.groupdict() for match in re.finditer(pattern, _readme())]
    assert len(found) == 1, f"the README should say this once: {passage!r}"
    return found[0]


def _sh_results() -> list[tuple[str, str]]:
    """The kqctl commands of the README's ```sh blocks whose comment states a figure."""
    return [(line["command"], line["comment"]) for block in FENCE.finditer(_readme()) if block["language"] == "sh"
            for line in SH_RESULT.finditer(block["body"])]


def test_the_readme_states_results_in_sh_comments() -> None:
    assert _sh_results(), "no ```sh comment with a figure found: has SH_RESULT stopped matching the README?"


@pytest.mark.parametrize(("command", "comment"), _sh_results(), ids=[command for command, _ in _sh_results()])
def test_every_figure_in_an_sh_comment_is_what_the_command_prints(kqctl: Callable[..., Run], command: str,
                                                                   comment: str) -> None:
    stated = FINDING_COUNTS.match(comment)
    assert stated and command.startswith("kqctl validate "), \
        f"`{command}  # {comment}`: a figure this test cannot check yet (teach it, or leave the figure out)"
    run = kqctl(*shlex.split(command)[1:])
    printed = FINDING_COUNTS.findall(run.out)
    assert len(printed) == 1, run.out  # the summary line
    assert printed[0] == (stated["errors"], stated["warnings"]), f"`{command}` prints {printed[0]}, not {comment}"
    assert run.code == (1 if int(stated["errors"]) else 0), run.err


def test_the_replay_samples_shape_is_the_readmes(kqctl: Callable[..., Run]) -> None:
    stated = _stated("`samples/replay` is two teams sharing cohort `ml` ({cpu} CPUs and {memory} each, borrowing up "
                     "to {borrow_cpu} CPUs and {borrow_memory} more, `reclaimWithinCohort: Any`): at 09:00 a "
                     "{pods}-pod pretraining job of team-a runs borrowing from team-b, team-b runs a batch inference; "
                     "{jobs} Jobs are dated later that morning and `arrivals.csv` submits {trace} more over {hours} "
                     "hours.")
    audit = json.loads(kqctl("audit", "samples/replay", "-o", "json").out)
    queues = {node["name"]: node for node in audit["nodes"] if node["kind"] == "ClusterQueue"}
    assert sorted(queues) == ["team-a", "team-b"] and {node["parent"] for node in queues.values()} == {"ml"}
    for queue in queues.values():
        quota = {row["resource"]: (row["nominalQuota"], row["borrowingLimit"]) for row in queue["resources"]}
        assert quota == {"cpu": (stated["cpu"], stated["borrow_cpu"]),
                         "memory": (stated["memory"], stated["borrow_memory"])}, queue["name"]
    now = "--now", "2026-09-14T09:00:00Z"
    simulated = json.loads(kqctl("simulate", "samples/replay", *now, "-o", "json").out)["workloads"]
    borrowing = [workload for workload in simulated.values() if workload["clusterQueue"] == "team-a"  # at 09:00:
                 and workload["admittedInCycle"] is None and workload["borrowed"].get("default/cpu", "0") != "0"]
    assert [assignment["count"] for workload in borrowing
            for assignment in workload["admission"]["podSetAssignments"]] == [int(stated["pods"])]
    replayed = json.loads(kqctl("replay", "samples/replay", "--trace", "samples/replay/arrivals.csv", *now,
                                "-o", "json").out)["workloads"]
    later = [name for name, workload in replayed.items() if workload["arrivalMs"] > 0]
    from_jobs = [name for name in later if name.split("/")[1].startswith("job-")]  # a Job's Workload: job-NAME-HASH
    assert len(from_jobs) == _number(stated["jobs"]), from_jobs
    assert len(later) - len(from_jobs) == int(stated["trace"]), later
    assert max(replayed[name]["arrivalMs"] for name in later) == float(stated["hours"]) * 3_600_000


def test_the_replays_evictions_are_the_readmes(kqctl: Callable[..., Run]) -> None:
    stated = _stated("Team-a's pretraining job borrowed {borrowed} CPUs of team-b's quota; each time team-b needs "
                     "them back, Kueue evicts it (`{reason}`, {times} times in this replay) and it restarts its "
                     "{runtime} hours from zero: it gets in for the last time {wait} after the replay starts (WAIT "
                     "counts to the last admission, from the start for a workload that is already there) and is done "
                     "{done} after the start (FINISHED AFTER).")
    audit = json.loads(kqctl("audit", "samples/replay", "-o", "json").out)
    team_a = next(node for node in audit["nodes"] if node["name"] == "team-a")
    assert next(row["borrowed"] for row in team_a["resources"] if row["resource"] == "cpu") == stated["borrowed"]
    replay = json.loads(kqctl("replay", "samples/replay", "--trace", "samples/replay/arrivals.csv",
                              "--now", "2026-09-14T09:00:00Z", "-o", "json").out)
    evictions = replay["evictions"]
    assert len(evictions) == _number(stated["times"]), evictions
    assert {eviction["reason"] for eviction in evictions} == {stated["reason"]}
    assert {eviction["preemptor"].split("/")[0] for eviction in evictions} == {"team-b"}
    (name,) = {eviction["workload"] for eviction in evictions}
    evicted = replay["workloads"][name]
    assert evicted["clusterQueue"] == "team-a" and evicted["evictions"] == len(evictions)
    assert evicted["runtimeMs"] == _number(stated["runtime"]) * 3_600_000
    assert round(evicted["admittedMs"] / 60_000) == _minutes(stated["wait"])
    assert round(evicted["finishedMs"] / 60_000) == _minutes(stated["done"])


def test_the_hierarchical_cohorts_audit_figures_are_the_readmes(kqctl: Callable[..., Run]) -> None:
    stated = _stated("in `samples/hierarchical-cohorts`, `company/` shows `NOMINAL {nominal}`, `SUBTREE QUOTA "
                     "{subtree}`, `USED {used}`, `UTIL {util}`")
    run = kqctl("audit", "samples/hierarchical-cohorts", "-o", "wide")
    header, *rows = run.out.splitlines()
    columns = re.split(r"\s{2,}", header.strip())
    company = next(row for row in rows if row.startswith("company/"))
    cells = dict(zip(columns, re.split(r"\s{2,}", company.strip()), strict=True))
    assert (cells["NOMINAL"], cells["SUBTREE QUOTA"], cells["USED"], cells["UTIL"]) == \
        (stated["nominal"], stated["subtree"], stated["used"], stated["util"])


def test_the_volcano_two_teams_sample_is_the_readmes(kqctl: Callable[..., Run]) -> None:
    stated = _stated("A real run on `samples/volcano-two-teams` ({cores} cores, queues of weight {light} and "
                     "{heavy}, {groups} PodGroups per team of {pods} × {pod_cores} cores each;")
    audit = json.loads(kqctl("audit", "samples/volcano-two-teams", "-o", "json").out)
    assert audit["cluster"]["cpu"] == stated["cores"]
    teams = {name: queue for name, queue in audit["queues"].items() if name.startswith("team-")}
    assert sorted(queue["weight"] for queue in teams.values()) == [int(stated["light"]), int(stated["heavy"])]
    groups = json.loads(kqctl("simulate", "samples/volcano-two-teams", "-o", "json").out)["podGroups"]
    for team, queue in teams.items():
        mine = [group for group in groups.values() if group["queue"] == team]
        assert len(mine) == _number(stated["groups"]), team
        assert {group["minMember"] for group in mine} == {int(stated["pods"])}
        pods = sum(len(group["pods"]) for group in mine)
        assert int(queue["request"]["cpu"]) == pods * int(stated["pod_cores"]), team


def test_the_volcano_plans_draws_are_the_readmes() -> None:
    stated = _stated("(here: met when {met} of {draws} draws meet it)")
    readme = _readme()
    command, shown = next(example for example in _examples() if readme.index(f"kqctl {example[0]}\n") >
                          readme.index("(here: met when "))
    assert f"--seeds {stated['draws']} " in command
    # the block is what the command prints (test_every_readme_example_is_the_commands_real_output)
    assert f"of {stated['draws']} draws ({stated['met']} needed;" in shown


BLOCKQUOTE = re.compile(r"```sh\n(?P<command>kqctl [^`]*?)\n```\n(?:(?!```)[^\n]*\n)*?(?P<quote>(?:>[^\n]*\n)+)")


def test_every_quoted_output_is_the_commands_real_output(kqctl: Callable[..., Run]) -> None:
    """A > quote shows a command's markdown as a PR renders it: it is what the ```sh block before it prints."""
    readme = _readme()
    quotes = list(BLOCKQUOTE.finditer(readme))
    assert len(quotes) == len(re.findall(r"(?:^>[^\n]*\n)+", readme, re.M)) >= 1, "a quote without its command"
    for quote in quotes:
        command = quote["command"].replace("\\\n", " ")
        assert not _shell_operators(command)
        run = kqctl(*shlex.split(command)[1:])
        assert run.code in (0, 1), run.err
        shown = "".join(line[2:] if line.startswith("> ") else line[1:] for line in quote["quote"].splitlines(True))
        assert run.out == shown, f"the quote after `{command}` differs from what it prints"
