"""Cross-object checks (XO): one test per rule, each with a case that passes."""

from __future__ import annotations

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.findings import Severity
from kqctl.kueue.validate.crossobject import cross_object_findings
from kqctl.load.objects import load_text

RF = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {{name: {name}}}\n"
CQ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  {extra}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: {flavor}
      resources:
      - {{name: cpu, nominalQuota: "{quota}"{limit}}}
"""
LQ = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {{name: {name}, namespace: {ns}}}\n" \
     "spec: {{clusterQueue: {cq}}}\n"
NS = "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {name}, labels: {{team: {team}}}}}\n"
COHORT = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {{name: {name}}}\n"
          "spec: {{parentName: {parent}}}\n")
WL = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: {ns}}}
spec:
  queueName: {queue}
  {extra}
  podSets:
  - name: main
    count: {count}
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {requests}}}
"""


def cq(name: str = "a", flavor: str = "f", quota: str = "10", extra: str = "namespaceSelector: {}",
       limit: str = "") -> str:
    return CQ.format(name=name, flavor=flavor, quota=quota, extra=extra, limit=limit)


def wl(name: str = "w", ns: str = "ns", queue: str = "q", count: int = 1, requests: str = "{cpu: '1'}",
       extra: str = "") -> str:
    return WL.format(name=name, ns=ns, queue=queue, count=count, requests=requests, extra=extra)


def findings(*docs: str, closed: bool = False) -> list[tuple[str, str, Severity]]:
    objects = load_text(ALL_KINDS, "---\n".join(docs)).known_objects
    return sorted((f.rule_id, obj.name or "", f.severity) for obj, f in cross_object_findings(objects, closed))


def rules(*docs: str, closed: bool = False) -> set[str]:
    return {rule for rule, _, _ in findings(*docs, closed=closed)}


BASE = (RF.format(name="f"), cq(), LQ.format(name="q", ns="ns", cq="a"))


def test_consistent_objects_have_no_findings() -> None:
    assert findings(*BASE, wl()) == []


def test_xo1_missing_flavor_is_a_warning_and_an_error_when_closed() -> None:
    assert findings(cq()) == [("XO-CQ-FLAVOR", "a", Severity.WARNING)]
    assert findings(cq(), closed=True) == [("XO-CQ-FLAVOR", "a", Severity.ERROR)]


def test_xo1_missing_admission_check() -> None:
    extra = "namespaceSelector: {}\n  admissionChecksStrategy: {admissionChecks: [{name: prov}]}"
    assert "XO-CQ-CHECK" in rules(RF.format(name="f"), cq(extra=extra))


def test_def2_cluster_queue_without_namespace_selector_matches_nothing() -> None:
    assert "XO-NS-NIL" in rules(RF.format(name="f"), cq(extra="queueingStrategy: BestEffortFIFO"))


def test_xo4_local_queue_to_missing_cluster_queue() -> None:
    assert rules(LQ.format(name="q", ns="ns", cq="gone")) == {"XO-LQ-CQ"}


def test_xo6_namespace_not_selected_by_the_cluster_queue() -> None:
    selector = "namespaceSelector: {matchLabels: {team: ml}}"
    docs = (RF.format(name="f"), cq(extra=selector), LQ.format(name="q", ns="ns", cq="a"))
    assert "XO-LQ-NS" in rules(*docs, NS.format(name="ns", team="web"))
    assert "XO-LQ-NS" not in rules(*docs, NS.format(name="ns", team="ml"))


def test_xo6_namespace_name_label_is_always_present() -> None:
    selector = "namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ns}}"
    assert "XO-LQ-NS" not in rules(RF.format(name="f"), cq(extra=selector), LQ.format(name="q", ns="ns", cq="a"))


def test_xo3_cohort_cycle_is_a_warning_on_every_member_as_the_api_server_accepts_it() -> None:
    # (names "x"/"y" would not do: kubectl reads a bare y as the boolean true)
    found = findings(COHORT.format(name="ca", parent="cb"), COHORT.format(name="cb", parent="ca"))
    assert found == [("XO-CO-CYCLE", "ca", Severity.WARNING), ("XO-CO-CYCLE", "cb", Severity.WARNING)]


def test_xo2_cohort_named_but_not_defined_is_implicit() -> None:
    extra = "namespaceSelector: {}\n  cohortName: org"
    assert ("XO-CO-IMPLICIT", "a", Severity.INFO) in findings(RF.format(name="f"), cq(extra=extra))


def test_xo4_workload_to_missing_local_queue() -> None:
    assert rules(*BASE, wl(queue="other")) == {"XO-WL-LQ"}


def test_xo8_workload_priority_class_missing() -> None:
    extra = "priority: 10\n  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}"
    assert rules(*BASE, wl(extra=extra)) == {"XO-WL-PRIORITY"}


def test_xo8_job_labelled_with_missing_workload_priority_class() -> None:
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: ns\n  labels:\n"
           "    kueue.x-k8s.io/priority-class: high\nspec: {template: {spec: {containers: []}}}\n")
    assert rules(job) == {"XO-JOB-PRIORITY"}


def test_workload_priority_classes_named_default_or_sharing_a_value() -> None:
    wpc = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {{name: {name}}}\nvalue: {v}\n"
    assert rules(wpc.format(name="default", v=1), wpc.format(name="other", v=1)) == {"XO-WPC-DEFAULT",
                                                                                      "XO-WPC-SAME-VALUE"}


def test_local_queue_with_non_positive_weight() -> None:
    lq = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q, namespace: ns}\n"
          "spec: {clusterQueue: a, fairSharing: {weight: '0'}}\n")
    assert "XO-LQ-WEIGHT" in rules(RF.format(name="f"), cq(), lq)


def test_xo9_borrowing_limit_with_nobody_to_lend() -> None:
    lonely = cq(extra="namespaceSelector: {}\n  cohortName: org", limit=', borrowingLimit: "5"')
    assert "XO-CQ-NO-LENDER" in rules(RF.format(name="f"), lonely)
    lender = cq(name="b", extra="namespaceSelector: {}\n  cohortName: org")
    assert "XO-CQ-NO-LENDER" not in rules(RF.format(name="f"), lonely, lender)


def test_xo9_quota_that_sums_to_zero_in_the_tree() -> None:
    assert "XO-CQ-ZERO-QUOTA" in rules(RF.format(name="f"), cq(quota="0"))


def test_xo5_workload_requesting_an_uncovered_resource() -> None:
    assert rules(*BASE, wl(requests="{cpu: '1', nvidia.com/gpu: '1'}")) == {"XO-WL-UNCOVERED"}


def test_xo9_workload_bigger_than_any_flavor_can_ever_provide() -> None:
    assert rules(*BASE, wl(count=4, requests="{cpu: '3'}")) == {"XO-WL-NEVER-FITS"}
    assert rules(*BASE, wl(count=3, requests="{cpu: '3'}")) == set()


def test_xo9_borrowing_from_the_cohort_counts_as_possible_capacity() -> None:
    a = cq(extra="namespaceSelector: {}\n  cohortName: org")
    b = cq(name="b", extra="namespaceSelector: {}\n  cohortName: org")
    assert rules(RF.format(name="f"), a, b, LQ.format(name="q", ns="ns", cq="a"),
                 wl(count=4, requests="{cpu: '3'}")) == {"XO-CO-IMPLICIT"}


def test_xo9_a_pod_set_that_can_shrink_only_has_to_fit_at_min_count() -> None:
    shrinkable = wl(count=4, requests="{cpu: '3'}").replace("count: 4", "count: 4\n    minCount: 1")
    assert rules(*BASE, shrinkable) == set()


def hints(*docs: str) -> dict[str, str | None]:
    objects = load_text(ALL_KINDS, "---\n".join(docs)).known_objects
    return {f.rule_id: f.hint for _, f in cross_object_findings(objects)}


def test_xo_missing_references_hint_the_close_names_of_their_kind() -> None:
    # Most missing references are typos: the hint names the close existing names first.
    assert hints(RF.format(name="on-demand"), cq(flavor="on-demnd"))["XO-CQ-FLAVOR"] == \
        "did you mean 'on-demand'? create ResourceFlavor 'on-demnd' or remove it from the ClusterQueue"
    assert hints(cq(name="team-a"), LQ.format(name="q", ns="ns", cq="team-aa"))["XO-LQ-CQ"] == \
        "did you mean 'team-a'?"
    # A Workload's LocalQueue is looked for in its own namespace only.
    lqs = LQ.format(name="training", ns="ns", cq="a") + "---\n" + LQ.format(name="trainer", ns="other", cq="a")
    assert hints(cq(), lqs, wl(queue="trainng"))["XO-WL-LQ"] == "did you mean 'training'?"
    # Nothing close: no guess, and a hint that had none stays empty.
    assert hints(RF.format(name="on-demand"), cq(flavor="gpu"))["XO-CQ-FLAVOR"] == \
        "create ResourceFlavor 'gpu' or remove it from the ClusterQueue"
    assert hints(cq(name="team-a"), LQ.format(name="q", ns="ns", cq="payments"))["XO-LQ-CQ"] is None


def test_the_hub_shortcut_names_the_same_version_and_kinds_as_the_conversion_module() -> None:
    """crossobject skips importing the conversion module for v1beta2 objects: its copy of the hub's apiVersion
    must stay the conversion module's, and both read the kinds served in v1beta2 from kqctl.kueue.kinds."""
    from kqctl.kueue.api.versions import KUEUE_KINDS, V1BETA2
    from kqctl.kueue.kinds import GROUP
    from kqctl.kueue.validate import crossobject

    assert crossobject._HUB_API_VERSION == f"{GROUP}/{V1BETA2}"
    assert crossobject.KUEUE_KINDS is KUEUE_KINDS
    assert KUEUE_KINDS == {"ClusterQueue", "Cohort", "ResourceFlavor", "LocalQueue", "Workload",
                           "WorkloadPriorityClass", "AdmissionCheck", "Topology", "ProvisioningRequestConfig",
                           "MultiKueueCluster", "MultiKueueConfig"}
