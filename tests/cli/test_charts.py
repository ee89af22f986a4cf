"""Every chart kqctl writes, through the real commands (issue 20): one library for the three schedulers' audits and
the replay, SVG and PNG from the same code, axes with units, a legend entry for every colour drawn (and none for a
colour that is not), distinguishable series, a note when nothing is drawn, a line on stderr saying what was
written, and byte-identical SVG from run to run. Structure is compared (tests/chart_support.py), never pixels."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from chart_support import read_chart
from support import REPO, Run

from tests.volcano.builders import conf, group, node, pod, queue

Kq = Callable[..., Run]
SAMPLES = REPO / "samples"
KUEUE_AUDIT_LEGEND = {"most it can use (nominal + can borrow)", "used within nominal", "borrowed", "nominal quota"}


def audit_chart(kqctl: Kq, tmp_path: Path, sample: str, name: str = "quota.svg") -> tuple[Run, Path]:
    target = tmp_path / name
    run = kqctl("audit", str(SAMPLES / sample), "-o", "json", "--plot", str(target))
    assert run.code == 0, run.err
    return run, target


# --- Kueue audit ------------------------------------------------------------------------------------------------


def test_kueue_audit_chart_has_a_panel_per_resource_with_units_and_a_bar_per_clusterqueue(
        kqctl: Kq, tmp_path: Path) -> None:
    run, target = audit_chart(kqctl, tmp_path, "hierarchical-cohorts")
    chart = read_chart(target)
    assert chart.panels == 2 and chart.x_labels == ["cpu (cores)", "memory (Gi)"]
    assert chart.y_labels == ["ClusterQueue", "ClusterQueue"]
    assert set(chart.legend) == KUEUE_AUDIT_LEGEND  # data-training borrows: every colour is drawn
    assert chart.series["nominal"] == 8 and chart.series["borrowed"] == 2  # 4 ClusterQueues x 2 resources
    assert {"data-notebooks", "data-training", "eng-builds", "eng-ci", "32 + 4", "128Gi + 16Gi"} <= set(chart.texts)
    assert run.err == f"kqctl: wrote {target}: cpu, memory per ClusterQueue (4 bar(s) per panel)\n"


def test_kueue_audit_chart_has_no_legend_entry_for_a_colour_it_does_not_draw(kqctl: Kq, tmp_path: Path) -> None:
    _, target = audit_chart(kqctl, tmp_path, "spot-gpu")  # nobody borrows
    chart = read_chart(target)
    assert "borrowed" not in chart.legend and chart.series["borrowed"] == 0
    assert chart.x_labels == ["cpu (cores)", "memory (Gi)", "nvidia.com/gpu"]
    assert "ml-training · a100" in chart.texts and chart.y_labels[0] == "ClusterQueue · flavor"


def test_audit_chart_is_byte_identical_from_run_to_run(kqctl: Kq, tmp_path: Path) -> None:
    for sample in ("hierarchical-cohorts", "volcano-hierarchy", "yunikorn-multi-tenant"):
        _, first = audit_chart(kqctl, tmp_path, sample, "a.svg")
        _, second = audit_chart(kqctl, tmp_path, sample, "b.svg")
        assert first.read_bytes() == second.read_bytes(), sample
        assert b"<dc:date>" not in first.read_bytes()


def test_audit_chart_is_the_same_bytes_before_and_after_other_charts_in_the_process(kqctl: Kq, tmp_path: Path) -> None:
    # matplotlib's clip-path ids hash the clip boxes' full floats, which moved by 1e-14 once other charts had been drawn
    # in the process (numpy's arithmetic on differently placed arrays): render/charts.py numbers the ids instead
    _, first = audit_chart(kqctl, tmp_path, "volcano-hierarchy", "first.svg")
    audit_chart(kqctl, tmp_path, "hierarchical-cohorts", "other.svg")
    audit_chart(kqctl, tmp_path, "yunikorn-multi-tenant", "another.svg")
    _, again = audit_chart(kqctl, tmp_path, "volcano-hierarchy", "again.svg")
    assert first.read_bytes() == again.read_bytes()


@pytest.mark.parametrize("sample", ["hierarchical-cohorts", "volcano-two-teams", "yunikorn-priority"])
def test_every_scheduler_writes_png_from_the_same_chart(kqctl: Kq, tmp_path: Path, sample: str) -> None:
    run, target = audit_chart(kqctl, tmp_path, sample, "quota.png")
    assert target.read_bytes().startswith(b"\x89PNG") and run.err.startswith(f"kqctl: wrote {target}: ")


def test_an_audit_with_nothing_to_draw_says_so_in_the_chart_and_on_stderr(
        kqctl: Kq, tmp_path: Path, write: Callable[..., str]) -> None:
    path = write("flavor.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n")
    target = tmp_path / "empty.svg"
    run = kqctl("audit", path, "--plot", str(target))
    assert run.code == 0, run.err
    chart = read_chart(target)
    assert chart.empty == "Nothing to draw: no ClusterQueue has quota." and chart.panels == 0 and not chart.legend
    assert run.err == f"kqctl: wrote {target}: nothing drawn: no ClusterQueue has quota\n"


def test_a_chart_name_that_is_not_svg_or_png_is_refused_before_reading(kqctl: Kq, tmp_path: Path) -> None:
    run = kqctl("audit", str(tmp_path / "missing"), "--plot", str(tmp_path / "quota.pdf"))
    assert run.code == 2 and ".svg or .png" in run.err and "missing" not in run.err


# --- Volcano audit ----------------------------------------------------------------------------------------------


def test_volcano_audit_chart_draws_every_resource_with_axes_and_a_legend(kqctl: Kq, tmp_path: Path) -> None:
    _, target = audit_chart(kqctl, tmp_path, "volcano-hierarchy")
    chart = read_chart(target)
    assert chart.x_labels == ["cpu (cores)", "memory (Gi)"]  # not cpu alone
    assert chart.legend == ["real capability (the most it can get)", "pending demand", "deserved", "guarantee"]
    assert "eng/eng-ml" in chart.texts and "no limit" in chart.texts  # default's real capability is unlimited
    assert "nothing runs in any queue" in chart.note  # the sample's pods are all pending: said, not hidden


def test_volcano_audit_chart_draws_what_running_pods_hold(kqctl: Kq, tmp_path: Path) -> None:
    objects = [conf("enqueue, allocate", ["priority", "gang"], ["proportion"]), node("n1", cpu="8", memory="32Gi"),
               queue("team"), group("run", "team", phase="Running"), pod("p", "run", cpu="2", memory="4Gi",
                                                                          node_name="n1")]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    target = tmp_path / "quota.svg"
    assert kqctl("audit", str(path), "--plot", str(target)).code == 0
    chart = read_chart(target)
    assert "allocated" in chart.legend and chart.series["allocated"] == 2  # team: cpu and memory
    assert {"2", "4Gi"} <= set(chart.texts)


# --- YuniKorn audit ---------------------------------------------------------------------------------------------


def test_yunikorn_audit_chart_shows_a_queue_above_its_max(kqctl: Kq, tmp_path: Path) -> None:
    _, target = audit_chart(kqctl, tmp_path, "yunikorn-multi-tenant")
    chart = read_chart(target)
    assert chart.x_labels == ["vcore (cores)", "memory (Gi)"]
    assert chart.legend == ["effective max (the most it can hold)", "allocated", "pending demand", "guaranteed"]
    assert chart.series["max"] == 14 and chart.series["guaranteed"] == 6  # 7 queues; 3 with guarantees
    assert "root.ml.training" in chart.texts and "10 + 4" in chart.texts  # root.batch: 10 of max 8, 4 pending


# --- replay -----------------------------------------------------------------------------------------------------


def test_replay_charts_are_small_multiples_with_a_reference_line_and_say_what_was_written(
        kqctl: Kq, tmp_path: Path) -> None:
    folder = tmp_path / "charts"
    run = kqctl("replay", str(SAMPLES / "replay"), "--now", "2026-01-01T00:00:00Z", "-o", "yaml",
                "--plot", str(folder))
    assert run.code == 0, run.err
    assert sorted(p.name for p in folder.iterdir()) == [
        "time-to-admission.png", "time-to-admission.svg", "usage-clusterqueues.png", "usage-clusterqueues.svg",
        "usage-cohorts.png", "usage-cohorts.svg"]
    queues = read_chart(folder / "usage-clusterqueues.svg")
    assert queues.panels == 4 and queues.series["curve"] == 4  # one curve per panel: none hides another
    assert queues.title == "Quota held per ClusterQueue over the replay (2 ClusterQueues)"
    assert read_chart(folder / "usage-cohorts.svg").title == "Quota held per Cohort over the replay (1 Cohort)"
    assert queues.legend == ["quota held, % of nominal", "nominal quota (100%)"]
    assert queues.x_labels == ["virtual time"] and queues.y_labels == ["% of nominal quota"]
    assert {"team-a · default/cpu", "team-b · default/memory"} <= set(queues.texts)
    assert not any(t.endswith("m40s") for t in queues.texts)  # ticks at round durations, not every 1000 s
    admission = read_chart(folder / "time-to-admission.svg")
    assert admission.panels == 1 and len(admission.legend) == admission.series["curve"] >= 1
    assert all(label.startswith("priority ") for label in admission.legend)
    assert run.err.startswith(f"kqctl: wrote 6 chart file(s) to {folder} (.svg, .png): usage-clusterqueues ")


# --- the dependency ---------------------------------------------------------------------------------------------


def test_matplotlib_is_a_dependency_of_the_plain_install() -> None:
    text = (REPO / "pyproject.toml").read_text()  # (tomllib is Python 3.11+; kqctl supports 3.10)
    dependencies = text.split("\ndependencies = [", 1)[1].split("\n]", 1)[0]
    assert '"matplotlib>=' in dependencies  # `pip install -e .` draws SVG and PNG: no extra to remember


def test_commands_without_a_chart_never_import_matplotlib() -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom kqctl.cli.app import main\nsys.argv = ['kqctl', 'audit', 'samples/cohort-borrowing']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\nprint('matplotlib' in sys.modules, file=sys.stderr)\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.stderr.strip().endswith("False"), run.stderr


def test_volcano_replay_usage_draws_queues_without_deserved_against_their_capability_or_the_cluster(
        kqctl: Kq, tmp_path: Path) -> None:
    # volcano-two-teams' queues have weights only (proportion works their deserved out each session): without a
    # nominal amount each queue is drawn against what it can at most get, the cluster, and the chart says so.
    folder = tmp_path / "charts"
    run = kqctl("replay", str(SAMPLES / "volcano-two-teams"), "--trace",
                str(SAMPLES / "volcano-two-teams" / "arrivals.csv"), "--runtime", "30m", "--now",
                "2026-01-01T12:00:00Z", "-o", "yaml", "--plot", str(folder))
    assert run.code == 0, run.err
    assert "usage-queues (4 panel(s))" in run.err
    usage = read_chart(folder / "usage-queues.svg")
    assert usage.panels == 4 and usage.series["curve"] == 4
    assert usage.y_labels == ["% of capability or cluster"]
    assert usage.legend == ["allocated, % of capability or cluster", "capability or cluster (100%)"]
    assert {"team-a · cpu", "team-b · memory"} <= set(usage.texts)
    assert any("A Queue without deserved is drawn against its capability or cluster." in text for text in usage.texts)


def test_volcano_replay_usage_table_gives_queues_without_deserved_their_share_of_the_cluster(kqctl: Kq) -> None:
    # The table says what the chart draws: a share of the capability or cluster, marked and explained, not "-".
    args = ("replay", str(SAMPLES / "volcano-two-teams"), "--runtime", "30m", "--now", "2026-01-01T12:00:00Z")
    table = kqctl(*args)
    assert table.code == 0, table.err
    row = next(line for line in table.out.splitlines() if line.startswith("team-a   cpu"))
    assert row.split()[2] == "-" and row.endswith("37.5%*"), row  # 12 of the cluster's 32 cpu on average
    assert "* the Queue sets no deserved: % of its capability or cluster" in table.out
    data = json.loads(kqctl(*args, "-o", "json").out)
    cpu = data["usage"]["queues"]["team-a"]["cpu"]
    assert cpu["meanPercentOfNominal"] is None and cpu["ceiling"] == "32" and cpu["meanPercentOfCeiling"] == 37.5


def test_a_replay_whose_queues_all_have_a_nominal_amount_has_no_usage_footnote(kqctl: Kq) -> None:
    run = kqctl("replay", str(SAMPLES / "yunikorn-priority"), "--runtime", "30m", "--now", "2026-01-01T12:00:00Z")
    assert run.code == 0, run.err
    assert "Usage over time" in run.out and "*" not in run.out
