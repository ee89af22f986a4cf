"""VAL-CFG-*: Kueue's Configuration file checked as its manager checks it (kqctl.kueue.validate.configuration).

The validation cases are Kueue's own (pkg/config/validation_test.go, TestValidate at ff69552e), named after the Go
case they port; the configurations are written as the YAML a user would write, so they go through decoding,
conversion and defaults first.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kqctl.kueue.validate.config_fields import FRAMEWORKS, VERSIONS
from kqctl.kueue.validate.configuration import check_configuration, defaulted_v1beta2

REPO = Path(__file__).resolve().parents[3]
MIRROR = Path("/work/.mirror/kubernetes-sigs+kueue/repo")


def config(version: str = "v1beta2", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": f"config.kueue.x-k8s.io/{version}", "kind": "Configuration", **fields}


def found(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(rule ID, path) of every finding."""
    return [(f.rule_id, ".".join(map(str, f.path))) for f in check_configuration(body)]


# --- VAL-CFG-1, VAL-CFG-2: strict decoding ---------------------------------------------------------------------

@pytest.mark.parametrize(("body", "expected"), [
    (config("v1beta1", fairSharin={"enable": True}), [("VAL-CFG-1", "fairSharin")]),
    # v1beta1 has no quotaCheckStrategy (it came with v1beta2)
    (config("v1beta1", resources={"quotaCheckStrategy": "BlockUndeclared"}),
     [("VAL-CFG-1", "resources.quotaCheckStrategy")]),
    # FS-1: v1beta2 removed fairSharing.enable (the section's presence enables it) and waitForPodsReady.enable
    (config(fairSharing={"enable": True}), [("VAL-CFG-1", "fairSharing.enable")]),
    (config(waitForPodsReady={"enable": True, "timeout": "5m"}), [("VAL-CFG-1", "waitForPodsReady.enable")]),
    (config(integrations={"podOptions": {}}), [("VAL-CFG-1", "integrations.podOptions")]),
    (config(queueVisibility={}), [("VAL-CFG-1", "queueVisibility")]),
    (config("v1beta1", visibilityServer={}), [("VAL-CFG-1", "visibilityServer")]),
    (config(metadata={"name": "x"}), [("VAL-CFG-1", "metadata")]),  # TypeMeta only, no ObjectMeta
    # inline embedded structs (ControllerManager) and types from outside Kueue
    (config(leaderElection={"leaderElect": True, "leaseDurationn": "15s"}),
     [("VAL-CFG-1", "leaderElection.leaseDurationn")]),
    (config(managedJobsNamespaceSelector={"matchExpression": []}),
     [("VAL-CFG-1", "managedJobsNamespaceSelector.matchExpression")]),
    (config(webhook={"port": 9443, "hots": "x"}), [("VAL-CFG-1", "webhook.hots")]),
])
def test_val_cfg_1_an_unknown_field_is_refused_with_its_path(body: dict[str, Any],
                                                             expected: list[tuple[str, str]]) -> None:
    assert found(body) == expected


def test_val_cfg_1_names_the_known_fields_and_suggests_the_closest() -> None:
    (finding,) = check_configuration(config("v1beta1", fairSharin={"enable": True}))
    assert finding.hint == "did you mean fairSharing?"
    assert "fairSharing, featureGates" in finding.message and "strictly" in finding.message
    (nested,) = check_configuration(config(resources={"quotaCheckStrateg": "BlockUndeclared"}))
    assert "the fields of resources are deviceClassMappings, excludeResourcePrefixes, quotaCheckStrategy, " \
           "transformations" in nested.message
    assert nested.hint == "did you mean quotaCheckStrategy?"


@pytest.mark.parametrize(("body", "path", "expected"), [
    (config(manageJobsWithoutQueueName="yes"), "manageJobsWithoutQueueName", "a boolean"),
    (config(clientConnection={"burst": 1.5}), "clientConnection.burst", "an integer (int32)"),
    (config(clientConnection={"burst": 2**31}), "clientConnection.burst", "does not fit int32"),
    (config(clientConnection={"qps": "fast"}), "clientConnection.qps", "a number"),
    (config(waitForPodsReady={"timeout": "5 minutes"}), "waitForPodsReady.timeout", "not a duration"),
    (config(waitForPodsReady={"timeout": 300}), "waitForPodsReady.timeout", "not a duration"),
    (config(integrations={"frameworks": "batch/job"}), "integrations.frameworks", "a list"),
    (config(featureGates={"TopologyAwareScheduling": "true"}), "featureGates.TopologyAwareScheduling", "a boolean"),
    (config(fairSharing=["LessThanInitialShare"]), "fairSharing", "an object"),
    (config(resources={"transformations": [{"input": "nvidia.com/mig", "outputs": {"cpu": "lots"}}]}),
     "resources.transformations.0.outputs.cpu", "not a quantity"),
    (config(controller={"cacheSyncTimeout": "2m"}), "controller.cacheSyncTimeout", "nanoseconds"),
])
def test_val_cfg_2_a_wrong_type_names_the_expected_one(body: dict[str, Any], path: str, expected: str) -> None:
    (finding,) = check_configuration(body)
    assert (finding.rule_id, ".".join(map(str, finding.path))) == ("VAL-CFG-2", path)
    assert expected in finding.message


def test_val_cfg_2_null_leaves_a_field_unset_and_right_types_pass() -> None:
    assert found(config(fairSharing=None, clientConnection={"qps": 50, "burst": 100},
                        waitForPodsReady={"timeout": "1h30m", "recoveryTimeout": "90s"},
                        controller={"cacheSyncTimeout": 120000000000, "groupKindConcurrency": {"Job.batch": 5}},
                        resources={"transformations": [{"input": "nvidia.com/mig", "outputs": {"cpu": 2}}]})) == []


def test_val_cfg_1_decoding_comes_first_validation_only_on_a_decoded_file() -> None:
    # Kueue's manager stops at the decoding error; the bad strategy is never validated
    assert found(config(fairSharin={}, fairSharing={"preemptionStrategies": ["Bogus"]})) == [
        ("VAL-CFG-1", "fairSharin")]


# --- the validation (pkg/config/validation.go), Kueue's TestValidate cases -----------------------------------

def _provider(name: str = "test-provider", **exec_config: Any) -> dict[str, Any]:
    return {"name": name, "execConfig": {"command": "test-command", "apiVersion": "client.authentication.k8s.io/v1",
                                         "interactiveMode": "Never", **exec_config}}


_POD_SELECTOR = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn",
                                       "values": ["kube-system", "kueue-system"]}]}


@pytest.mark.parametrize(("case", "body", "expected"), [
    ("empty", config(), []),
    ("unregistered integrations.frameworks", config(integrations={"frameworks": ["unregistered/jobframework"]}),
     [("VAL-CFG-4", "integrations.frameworks.0")]),
    ("duplicate integrations.frameworks", config(integrations={"frameworks": ["batch/job", "batch/job"]}),
     [("VAL-CFG-4", "integrations.frameworks.1")]),
    ("invalid format integrations.externalFrameworks",
     config(integrations={"frameworks": ["batch/job"], "externalFrameworks": ["invalid"]}),
     [("VAL-CFG-4", "integrations.externalFrameworks.0")]),
    ("duplicate integrations.externalFrameworks",
     config(integrations={"frameworks": ["batch/job"], "externalFrameworks": ["Foo.v1.example.com"] * 2}),
     [("VAL-CFG-4", "integrations.externalFrameworks.1")]),
    ("valid managedJobsNamespaceSelector ",
     config(integrations={"frameworks": ["pod"]}, managedJobsNamespaceSelector=_POD_SELECTOR), []),
    ("prohibited namespace in MatchLabels managedJobsNamespaceSelector",
     config(integrations={"frameworks": ["pod"]},
            managedJobsNamespaceSelector={"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}),
     [("VAL-CFG-4", "managedJobsNamespaceSelector"), ("VAL-CFG-10", "managedJobsNamespaceSelector")]),
    ("prohibited namespace in MatchExpressions with operator In managedJobsNamespaceSelector",
     config(integrations={"frameworks": ["pod"]}, managedJobsNamespaceSelector={"matchExpressions": [
         {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["kube-system"]}]}),
     [("VAL-CFG-4", "managedJobsNamespaceSelector"), ("VAL-CFG-10", "managedJobsNamespaceSelector")]),
    ("prohibited namespace in MatchExpressions with operator NotIn managedJobsNamespaceSelector",
     config(integrations={"frameworks": ["pod"]}, managedJobsNamespaceSelector={"matchExpressions": [
         {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]}]}),
     [("VAL-CFG-4", "managedJobsNamespaceSelector"), ("VAL-CFG-10", "managedJobsNamespaceSelector")]),
    ("no supported waitForPodsReady.requeuingStrategy.timestamp",
     config(waitForPodsReady={"timeout": "5m", "requeuingStrategy": {"timestamp": "NoSupported"}}),
     [("VAL-CFG-3", "waitForPodsReady.requeuingStrategy.timestamp")]),
    # Kueue's Go case validates an undefaulted struct; the manager defaults recoveryTimeout to the timeout first
    ("negative waitForPodsReady.timeout", config(waitForPodsReady={"timeout": "-1s"}),
     [("VAL-CFG-3", "waitForPodsReady.timeout"), ("VAL-CFG-3", "waitForPodsReady.recoveryTimeout")]),
    ("negative waitForPodsReady.recoveryTimeout", config(waitForPodsReady={"timeout": "5m", "recoveryTimeout": "-1s"}),
     [("VAL-CFG-3", "waitForPodsReady.recoveryTimeout")]),
    ("valid waitForPodsReady", config(waitForPodsReady={"timeout": "5m", "blockAdmission": True, "requeuingStrategy": {
        "timestamp": "Creation", "backoffLimitCount": 10, "backoffBaseSeconds": 30, "backoffMaxSeconds": 1800}}), []),
    ("negative waitForPodsReady.requeuingStrategy.backoffLimitCount",
     config(waitForPodsReady={"timeout": "5m", "requeuingStrategy": {"backoffLimitCount": -1}}),
     [("VAL-CFG-3", "waitForPodsReady.requeuingStrategy.backoffLimitCount")]),
    ("negative waitForPodsReady.requeuingStrategy.backoffBaseSeconds",
     config(waitForPodsReady={"timeout": "5m", "requeuingStrategy": {"backoffBaseSeconds": -1}}),
     [("VAL-CFG-3", "waitForPodsReady.requeuingStrategy.backoffBaseSeconds")]),
    ("negative waitForPodsReady.requeuingStrategy.backoffMaxSeconds",
     config(waitForPodsReady={"timeout": "5m", "requeuingStrategy": {"backoffMaxSeconds": -1}}),
     [("VAL-CFG-3", "waitForPodsReady.requeuingStrategy.backoffMaxSeconds")]),
    ("negative multiKueue.gcInterval", config(multiKueue={"gcInterval": "-1m"}),
     [("VAL-CFG-5", "multiKueue.gcInterval")]),
    ("negative multiKueue.workerLostTimeout", config(multiKueue={"gcInterval": "1m", "workerLostTimeout": "-1m"}),
     [("VAL-CFG-5", "multiKueue.workerLostTimeout")]),
    ("invalid .multiKueue.origin label value", config(multiKueue={"gcInterval": "1m", "origin": "=]"}),
     [("VAL-CFG-5", "multiKueue.origin")]),
    ("valid .multiKueue configuration", config(multiKueue={"gcInterval": "2m", "origin": "multikueue-manager1"}), []),
    ("valid multiKueue.incrementalDispatcherConfig with incremental dispatcher",
     config(multiKueue={"gcInterval": "1m", "dispatcherName": "kueue.x-k8s.io/multikueue-dispatcher-incremental",
                        "incrementalDispatcherConfig": {"stepSize": 5}}), []),
    ("multiKueue.incrementalDispatcherConfig without incremental dispatcher",
     config(multiKueue={"gcInterval": "1m", "dispatcherName": "kueue.x-k8s.io/multikueue-dispatcher-all-at-once",
                        "incrementalDispatcherConfig": {"stepSize": 5}}),
     [("VAL-CFG-5", "multiKueue.incrementalDispatcherConfig")]),
    ("multiKueue.incrementalDispatcherConfig.stepSize below minimum",
     config(multiKueue={"gcInterval": "1m", "dispatcherName": "kueue.x-k8s.io/multikueue-dispatcher-incremental",
                        "incrementalDispatcherConfig": {"stepSize": 0}}),
     [("VAL-CFG-5", "multiKueue.incrementalDispatcherConfig.stepSize")]),
    ("empty multiKueue.clusterProfile.accessProviders.name",
     config(multiKueue={"clusterProfile": {"accessProviders": [_provider(name="")]}}),
     [("VAL-CFG-5", "multiKueue.clusterProfile.accessProviders.0.name")]),
    ("empty multiKueue.clusterProfile.accessProviders.execConfig.command",
     config(multiKueue={"clusterProfile": {"accessProviders": [_provider(command="")]}}),
     [("VAL-CFG-5", "multiKueue.clusterProfile.accessProviders.0.execConfig.command")]),
    ("empty multiKueue.clusterProfile.accessProviders.execConfig.apiVersion",
     config(multiKueue={"clusterProfile": {"accessProviders": [_provider(apiVersion="")]}}),
     [("VAL-CFG-5", "multiKueue.clusterProfile.accessProviders.0.execConfig.apiVersion")]),
    ("empty multiKueue.clusterProfile.accessProviders.execConfig.env.name",
     config(multiKueue={"clusterProfile": {"accessProviders": [_provider(env=[{"name": "", "value": "v"}])]}}),
     [("VAL-CFG-5", "multiKueue.clusterProfile.accessProviders.0.execConfig.env.0.name")]),
    ("empty multiKueue.clusterProfile.accessProviders.execConfig.interactiveMode",
     config(multiKueue={"clusterProfile": {"accessProviders": [_provider(interactiveMode="")]}}),
     [("VAL-CFG-5", "multiKueue.clusterProfile.accessProviders.0.execConfig.interactiveMode")]),
    ("invalid multiKueue.clusterProfile.accessProviders.execConfig.interactiveMode",
     config(multiKueue={"clusterProfile": {"accessProviders": [_provider(interactiveMode="Invalid")]}}),
     [("VAL-CFG-5", "multiKueue.clusterProfile.accessProviders.0.execConfig.interactiveMode")]),
    ("valid multiKueue.clusterProfile configuration",
     config(multiKueue={"clusterProfile": {"accessProviders": [_provider(env=[{"name": "TEST_VAR", "value": "v"}])]}}),
     []),
    ("valid multiKueue.clusterProfile credentialsProviders configuration",
     config(multiKueue={"clusterProfile": {"credentialsProviders": [_provider(name="legacy-provider")]}}), []),
    ("multiKueue.clusterProfile accessProviders and credentialsProviders are mutually exclusive",
     config(multiKueue={"clusterProfile": {"accessProviders": [_provider()],
                                           "credentialsProviders": [_provider(command="deprecated-command")]}}),
     [("VAL-CFG-5", "multiKueue.clusterProfile.credentialsProviders")]),
    ("invalid multiKueue.clusterProfile.credentialsProviders configuration",
     config(multiKueue={"clusterProfile": {"credentialsProviders": [_provider(command="")]}}),
     [("VAL-CFG-5", "multiKueue.clusterProfile.credentialsProviders.0.execConfig.command")]),
    ("invalid an empty preemption strategy", config(fairSharing={}),
     [("VAL-CFG-6", "fairSharing.preemptionStrategies")]),
    ("unsupported preemption strategy", config(fairSharing={"preemptionStrategies": ["LessThanOrEqualToFinalShare",
                                                                                     "UnknownStrategy"]}),
     [("VAL-CFG-6", "fairSharing.preemptionStrategies")]),
    ("valid preemption strategy", config(fairSharing={"preemptionStrategies": ["LessThanOrEqualToFinalShare",
                                                                               "LessThanInitialShare"]}), []),
    ("valid admissionFairSharing configuration",
     config(admissionFairSharing={"usageHalfLifeTime": "1s", "usageSamplingInterval": "1s",
                                  "resourceWeights": {"cpu": 1.0}}), []),
    ("invalid admissionFairSharing.usageHalfLifeTime configuration",
     config(admissionFairSharing={"usageHalfLifeTime": "-1s", "usageSamplingInterval": "1s"}),
     [("VAL-CFG-7", "admissionFairSharing.usageHalfLifeTime")]),
    ("invalid admissionFairSharing.usageSamplingInterval configuration",
     config(admissionFairSharing={"usageHalfLifeTime": "1s", "usageSamplingInterval": "-1s"}),
     [("VAL-CFG-7", "admissionFairSharing.usageSamplingInterval")]),
    ("invalid admissionFairSharing.resourceWeights configuration",
     config(admissionFairSharing={"usageHalfLifeTime": "1s", "usageSamplingInterval": "1s",
                                  "resourceWeights": {"cpu": -1.0}}),
     [("VAL-CFG-7", "admissionFairSharing.resourceWeights.cpu")]),
    ("invalid .internalCertManagement.webhookSecretName",
     config(internalCertManagement={"enable": True, "webhookSecretName": ":)"}),
     [("VAL-CFG-8", "internalCertManagement.webhookSecretName")]),
    ("invalid .internalCertManagement.webhookServiceName",
     config(internalCertManagement={"enable": True, "webhookServiceName": "0-invalid"}),
     [("VAL-CFG-8", "internalCertManagement.webhookServiceName")]),
    ("disabled .internalCertManagement with invalid .internalCertManagement.webhookServiceName",
     config(internalCertManagement={"enable": False, "webhookServiceName": "0-invalid"}), []),
    ("valid .internalCertManagement",
     config(internalCertManagement={"enable": True, "webhookServiceName": "webhook-svc",
                                    "webhookSecretName": "webhook-sec"}), []),
    ("invalid .resources.transformations.strategy",
     config(resources={"transformations": [{"input": "nvidia.com/mig-1g.5gb", "strategy": "invalid",
                                            "outputs": {"example.com/gpu-memory": "5Gi"}}]}),
     [("VAL-CFG-9", "resources.transformations.0.strategy")]),
    ("invalid .resources.transformations.inputs",
     config(resources={"transformations": [{"input": "nvidia.com/mig-1g.5gb", "strategy": "Replace"},
                                           {"input": "nvidia.com/mig-1g.5gb", "strategy": "Retain"}]}),
     [("VAL-CFG-9", "resources.transformations.1.input")]),
    ("valid .resources.transformations",
     config(resources={"transformations": [{"input": "nvidia.com/mig-1g.5gb"},
                                           {"input": "nvidia.com/mig-2g.10gb", "strategy": "Replace"}]}), []),
    ("negative afterFinished in .objectRetentionPolicies.workloads",
     config(objectRetentionPolicies={"workloads": {"afterFinished": "-1s"}}),
     [("VAL-CFG-11", "objectRetentionPolicies.workloads.afterFinished")]),
    ("zero afterFinished in .objectRetentionPolicies.workloads",
     config(objectRetentionPolicies={"workloads": {"afterFinished": "0s"}}), []),
    ("negative afterDeactivatedByKueue in .objectRetentionPolicies.workloads",
     config(objectRetentionPolicies={"workloads": {"afterDeactivatedByKueue": "-1s"}}),
     [("VAL-CFG-11", "objectRetentionPolicies.workloads.afterDeactivatedByKueue")]),
    ("positive afterDeactivatedByKueue in .objectRetentionPolicies.workloads",
     config(objectRetentionPolicies={"workloads": {"afterDeactivatedByKueue": "1s"}}), []),
    ("invalid .visibilityServer.bindAddress", config(visibilityServer={"bindAddress": "256.256.256.256"}),
     [("VAL-CFG-12", "visibilityServer.bindAddress")]),
    ("valid .visibilityServer.bindAddress", config(visibilityServer={"bindAddress": "127.0.0.1"}), []),
    ("invalid .visibilityServer.bindPort", config(visibilityServer={"bindPort": 70000}),
     [("VAL-CFG-12", "visibilityServer.bindPort")]),
    ("valid .visibilityServer.bindPort", config(visibilityServer={"bindPort": 8082}), []),
    ("valid TLS with TLS 1.2 and cipher suites",
     config(tls={"minVersion": "VersionTLS12", "cipherSuites": ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"]}), []),
    ("valid TLS with TLS 1.3 and no cipher suites", config(tls={"minVersion": "VersionTLS13"}), []),
    ("invalid TLS with TLS 1.3 and cipher suites",
     config(tls={"minVersion": "VersionTLS13", "cipherSuites": ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"]}),
     [("VAL-CFG-16", "tls.cipherSuites")]),
    ("invalid TLS and valid cipher suites",
     config(tls={"minVersion": "DUMMY", "cipherSuites": ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"]}),
     [("VAL-CFG-16", "tls")]),
    ("valid TLS with curve preferences", config(tls={"minVersion": "VersionTLS12", "curvePreferences": [23, 29]}), []),
    ("quotaCheckStrategy with value ignoreUndeclared not allowed with excludeResourcePrefixes",
     config(resources={"quotaCheckStrategy": "IgnoreUndeclared", "excludeResourcePrefixes": ["example.com/"]}),
     [("VAL-CFG-13", "resources.quotaCheckStrategy")]),
    ("quotaCheckStrategy with value ignoreundeclared allowed without excludeResourcePrefixes",
     config(resources={"quotaCheckStrategy": "IgnoreUndeclared"}), []),
    ("quotaCheckStrategy with value blockundeclared allowed with excludeResourcePrefixes",
     config(resources={"quotaCheckStrategy": "BlockUndeclared", "excludeResourcePrefixes": ["example.com/"]}), []),
    ("quotaCheckStrategy with unsupported value", config(resources={"quotaCheckStrategy": "Invalid"}),
     [("VAL-CFG-13", "resources.quotaCheckStrategy")]),
    ("quotaCheckStrategy validation skipped when feature gate disabled",
     config(resources={"quotaCheckStrategy": "Invalid"}, featureGates={"QuotaCheckStrategy": False}), []),
])
def test_kueue_testvalidate_cases(case: str, body: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert found(body) == expected, case


def test_val_cfg_6_v1beta1_fair_sharing_is_validated_only_when_enabled_and_defaults_its_strategies() -> None:
    assert found(config("v1beta1", fairSharing={"enable": False, "preemptionStrategies": ["Bogus"]})) == []
    assert found(config("v1beta1", fairSharing={"enable": True})) == []  # the two-step default
    assert found(config("v1beta1", fairSharing={"enable": True, "preemptionStrategies": ["Bogus"]})) == [
        ("VAL-CFG-6", "fairSharing.preemptionStrategies")]


def test_val_cfg_6_the_message_lists_the_allowed_sequences() -> None:
    (finding,) = check_configuration(config(fairSharing={"preemptionStrategies": ["LessThanInitialShare",
                                                                                 "LessThanOrEqualToFinalShare"]}))
    assert finding.message == ('Unsupported value: "LessThanInitialShare,LessThanOrEqualToFinalShare": supported '
                               'values: "LessThanOrEqualToFinalShare", "LessThanInitialShare", '
                               '"LessThanOrEqualToFinalShare,LessThanInitialShare"')


def test_val_cfg_3_v1beta1_wait_for_pods_ready_is_validated_only_when_enabled() -> None:
    assert found(config("v1beta1", waitForPodsReady={"enable": False, "timeout": "-1s"})) == []
    assert ("VAL-CFG-3", "waitForPodsReady.timeout") in found(
        config("v1beta1", waitForPodsReady={"enable": True, "timeout": "-1s"}))


def test_val_cfg_3_disable_wait_for_pods_ready_gate_skips_it() -> None:
    assert found(config(waitForPodsReady={"timeout": "-1s"}, featureGates={"DisableWaitForPodsReady": True})) == []


def test_val_cfg_10_selector_must_spare_the_configured_namespace() -> None:
    selector = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn",
                                      "values": ["kube-system", "kueue-system"]}]}
    assert found(config(namespace="kueue-system", managedJobsNamespaceSelector=selector)) == []
    assert found(config(namespace="batch-system", managedJobsNamespaceSelector=selector)) == [
        ("VAL-CFG-10", "managedJobsNamespaceSelector")]
    assert found(config(namespace="batch-system")) == []  # the default selector spares the namespace set


def test_val_cfg_10_an_invalid_selector_is_refused() -> None:
    bad = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": []}]}
    assert found(config(managedJobsNamespaceSelector=bad)) == [
        ("VAL-CFG-10", "managedJobsNamespaceSelector.matchExpressions.0.values")]


def test_defaults_fill_what_validate_reads() -> None:
    defaulted = defaulted_v1beta2(config())
    assert defaulted["namespace"] == "kueue-system"
    assert defaulted["integrations"]["frameworks"] == ["batch/job"]
    assert defaulted["waitForPodsReady"]["timeout"] == "30m"
    assert "waitForPodsReady" not in defaulted_v1beta2(config("v1beta1"))


# --- the generated field tree ------------------------------------------------------------------------------------

def test_the_field_tree_has_both_versions_and_kueues_frameworks() -> None:
    assert set(VERSIONS) == {"v1beta1", "v1beta2"}
    assert "enable" in VERSIONS["v1beta1"]["structs"]["FairSharing"]  # type: ignore[operator]
    assert "enable" not in VERSIONS["v1beta2"]["structs"]["FairSharing"]  # type: ignore[operator]
    assert {"batch/job", "pod", "jobset.x-k8s.io/jobset"} <= set(FRAMEWORKS)


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no Kueue mirror to generate from")
def test_the_committed_field_tree_is_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("generate_config_fields",
                                                  REPO / "scripts" / "generate_config_fields.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        rendered = module.render(MIRROR, module.REFERENCE_COMMIT)
    except subprocess.CalledProcessError:
        pytest.skip("the mirror does not hold the reference commit")
    assert rendered == (REPO / "kqctl" / "kueue" / "validate" / "config_fields.py").read_text(encoding="utf-8")


# --- VAL-CFG-14: feature gates (Kueue's TestLoadAndValidateFeatureGates cases) -----------------------------------

_TAS_SUBFEATURES_OFF = {gate: False for gate in (
    "TASHandleOverlappingFlavors", "TASFailedNodeReplacement", "TASFailedNodeReplacementFailFast",
    "TASReplaceNodeOnPodTermination", "TASReplaceNodeOnNodeTaints", "TASMultiLayerTopology",
    "TASRecomputeAssignmentWithinSchedulingCycle", "TASBalancedPlacement", "TASRespectNodeAffinityPreferred",
    "TASReplaceNodeDueToNotReadyOverFixedTime", "ElasticJobsViaWorkloadSlicesWithTAS", "TASProfileMixed")}


@pytest.mark.parametrize(("case", "gates", "expected"), [
    ("no feature gates is null", {}, []),
    ("cannot set TAS profile with TAS disabled",
     {**_TAS_SUBFEATURES_OFF, "TASProfileMixed": True, "TopologyAwareScheduling": False},
     [("VAL-CFG-14", "featureGates.TASProfileMixed")]),
    ("TASReplaceNodeDueToNotReadyOverFixedTime requires TASFailedNodeReplacement",
     {"TASReplaceNodeDueToNotReadyOverFixedTime": True, "TopologyAwareScheduling": True,
      "TASFailedNodeReplacement": False, "TASFailedNodeReplacementFailFast": False,
      "TASReplaceNodeOnPodTermination": False, "TASProfileMixed": False},
     [("VAL-CFG-14", "featureGates.TASReplaceNodeDueToNotReadyOverFixedTime")]),
    ("ElasticJobsViaWorkloadSlicesWithTAS requires ElasticJobsViaWorkloadSlices",
     {"ElasticJobsViaWorkloadSlicesWithTAS": True, "TopologyAwareScheduling": True,
      "ElasticJobsViaWorkloadSlices": False, "TASProfileMixed": False},
     [("VAL-CFG-14", "featureGates.ElasticJobsViaWorkloadSlicesWithTAS")]),
    ("all TAS sub-features valid when TopologyAwareScheduling and TASFailedNodeReplacement enabled",
     {"TopologyAwareScheduling": True, "TASFailedNodeReplacement": True, "TASFailedNodeReplacementFailFast": True,
      "TASReplaceNodeOnPodTermination": True}, []),
    ("KueueDRAIntegrationConsumableCapacity requires KueueDRAIntegration",
     {"KueueDRAIntegrationConsumableCapacity": True, "KueueDRAIntegration": False},
     # the two gates on by default that need KueueDRAIntegration are refused too, in one finding (Kueue aggregates
     # all of them in one error)
     [("VAL-CFG-14", "featureGates.KueueDRAIntegrationConsumableCapacity"), ("VAL-CFG-14", "featureGates")]),
])
def test_kueue_testloadandvalidatefeaturegates_cases(case: str, gates: dict[str, bool],
                                                     expected: list[tuple[str, str]]) -> None:
    assert found(config(featureGates=gates)) == expected, case


def test_val_cfg_14_a_gate_on_by_default_says_to_turn_it_off_too() -> None:
    (finding,) = check_configuration(config(featureGates={"TopologyAwareScheduling": False}))
    assert finding.path == ("featureGates",)
    assert finding.message.startswith("Invalid value: TopologyAwareScheduling=false: TASFailedNodeReplacement, "
                                      "TASFailedNodeReplacementFailFast, TASHandleOverlappingFlavors, ")
    assert finding.message.endswith("are enabled by default, but depend on features that are disabled: "
                                    "[TopologyAwareScheduling]; set them to false too")


def test_val_cfg_14_unknown_and_locked_gates() -> None:
    assert found(config(featureGates={"TopologyAwareSchedulin": True})) == [
        ("VAL-CFG-14", "featureGates.TopologyAwareSchedulin")]
    assert "did you mean TopologyAwareScheduling?" in check_configuration(
        config(featureGates={"TopologyAwareSchedulin": True}))[0].message
    assert found(config(featureGates={"ManagedJobsNamespaceSelectorAlwaysRespected": False})) == [
        ("VAL-CFG-14", "featureGates.ManagedJobsNamespaceSelectorAlwaysRespected")]
    assert found(config(featureGates={"TopologyAwareScheduling": True})) == []


def test_val_cfg_14_the_manager_stops_at_its_gates_before_validating() -> None:
    assert found(config(featureGates={"Bogus": True}, fairSharing={})) == [("VAL-CFG-14", "featureGates.Bogus")]


def test_every_gate_named_in_a_dependency_is_one_kqctl_knows() -> None:
    from kqctl.kueue.engine.feature_gates import KUEUE_FEATURE_GATES
    from kqctl.kueue.validate.config_fields import GATE_DEPENDENCIES

    assert len(GATE_DEPENDENCIES) == 17  # defaultFeatureGateDependencies at ff69552e
    assert {g for gate, needs in GATE_DEPENDENCIES.items() for g in (gate, *needs)} <= set(KUEUE_FEATURE_GATES)


# --- VAL-CFG-15: metrics custom labels (Kueue's TestValidateCustomLabels cases) ------------------------------------

def labels(*entries: dict[str, Any]) -> dict[str, Any]:
    return config(metrics={"customLabels": list(entries)})


@pytest.mark.parametrize(("case", "body", "expected"), [
    ("empty custom labels", labels(), []),
    ("valid name only", labels({"name": "team"}), []),
    ("name with underscore valid as k8s label key", labels({"name": "has_underscore"}), []),
    ("valid multiple entries", labels({"name": "team"}, {"name": "env", "sourceLabelKey": "environment"},
                                      {"name": "cost", "sourceAnnotationKey": "billing/cost"}), []),
    ("valid with sourceLabelKey", labels({"name": "team", "sourceLabelKey": "org.example.com/team"}), []),
    ("valid workload with tracked values", labels({"name": "team", "sourceKind": "Workload", "trackedValues": ["a"]}),
     []),
    ("valid cohort with tracked values", labels({"name": "team", "sourceKind": "Cohort", "trackedValues": ["a"]}), []),
    ("invalid name - special chars", labels({"name": "team-name"}), [("VAL-CFG-15", "metrics.customLabels.0.name")]),
    ("invalid name - leading digit", labels({"name": "1team"}), [("VAL-CFG-15", "metrics.customLabels.0.name")]),
    ("invalid name - empty", labels({"name": ""}),
     [("VAL-CFG-15", "metrics.customLabels.0.name"), ("VAL-CFG-15", "metrics.customLabels.0.name")]),
    ("duplicate names", labels({"name": "team"}, {"name": "team"}), [("VAL-CFG-15", "metrics.customLabels.1.name")]),
    ("mutually exclusive sources",
     labels({"name": "team", "sourceLabelKey": "team-label", "sourceAnnotationKey": "team-annotation"}),
     [("VAL-CFG-15", "metrics.customLabels.0")]),
    ("invalid sourceLabelKey", labels({"name": "team", "sourceLabelKey": "invalid key with spaces"}),
     [("VAL-CFG-15", "metrics.customLabels.0.sourceLabelKey")]),
    ("invalid sourceAnnotationKey", labels({"name": "team", "sourceAnnotationKey": "invalid key with spaces"}),
     [("VAL-CFG-15", "metrics.customLabels.0.sourceAnnotationKey")]),
    ("unknown source kind", labels({"name": "team", "sourceKind": "Unknown"}),
     [("VAL-CFG-15", "metrics.customLabels")]),
    ("too many custom labels in total", labels(*({"name": f"c{i}"} for i in range(1, 22))),
     [("VAL-CFG-15", "metrics.customLabels"), ("VAL-CFG-15", "metrics.customLabels")]),
    ("too many custom labels", labels(*({"name": f"c{i}", "sourceKind": "Cohort"} for i in range(1, 10))),
     [("VAL-CFG-15", "metrics.customLabels")]),
    ("too many custom labels for workload",
     labels(*({"name": f"wl{i}", "sourceKind": "Workload", "trackedValues": ["v"]} for i in range(1, 4))),
     [("VAL-CFG-15", "metrics.customLabels")]),
    ("workload without tracked values", labels({"name": "team", "sourceKind": "Workload"}),
     [("VAL-CFG-15", "metrics.customLabels.0.trackedValues")]),
    ("too many tracked values", labels({"name": "team", "trackedValues": [f"v{i}" for i in range(17)]}),
     [("VAL-CFG-15", "metrics.customLabels.0.trackedValues")]),
    ("too many tracked values for workload",
     labels({"name": "team", "sourceKind": "Workload", "trackedValues": [f"v{i}" for i in range(13)]}),
     [("VAL-CFG-15", "metrics.customLabels.0.trackedValues")]),
    ("duplicate tracked values", labels({"name": "team", "trackedValues": ["a", "a"]}),
     [("VAL-CFG-15", "metrics.customLabels.0.trackedValues")]),
])
def test_kueue_testvalidatecustomlabels_cases(case: str, body: dict[str, Any],
                                              expected: list[tuple[str, str]]) -> None:
    assert found(body) == expected, case


def test_val_cfg_4_an_unknown_framework_gets_the_closest_registered_name() -> None:
    (finding,) = check_configuration(config(integrations={"frameworks": ["batch/jobs"]}))
    assert finding.hint == "did you mean batch/job?"
    assert '"batch/job", "deployment", "jobset.x-k8s.io/jobset"' in finding.message


def test_val_cfg_15_messages_say_what_was_expected() -> None:
    (finding,) = check_configuration(labels(*({"name": f"c{i}", "sourceKind": "Cohort"} for i in range(1, 10))))
    assert finding.message.endswith("too many custom labels for source kind Cohort: found 9, expected <= 6")
    (finding,) = check_configuration(labels({"name": "1team"}))
    assert "must match ^[a-zA-Z][a-zA-Z0-9_]*$" in finding.message


# --- VAL-CFG-17: DRA device class mappings (TestValidate and TestValidateDeviceClassMappings cases) ----------------

_SELECTOR = {"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}


def _counter(name: str = "memory", driver: str = "gpu.nvidia.com", selector: Any = _SELECTOR) -> dict[str, Any]:
    return {"counter": {"name": name, "driver": driver, **({"deviceSelector": selector} if selector else {})}}


def _capacity(name: str = "memory", driver: str = "gpu.example.com") -> dict[str, Any]:
    return {"capacity": {"name": name, "driver": driver, "deviceSelector": _SELECTOR}}


def dra(*mappings: dict[str, Any], gates: dict[str, bool] | None = None) -> dict[str, Any]:
    return config(resources={"deviceClassMappings": list(mappings)}, **({"featureGates": gates} if gates else {}))


def mapping(name: str = "gpu.memory", classes: tuple[str, ...] = ("mig.nvidia.com",),
            *sources: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "deviceClassNames": list(classes), **({"sources": list(sources)} if sources else {})}


_CC = {"KueueDRAIntegrationConsumableCapacity": True}
_MAPPINGS = "resources.deviceClassMappings"


@pytest.mark.parametrize(("case", "body", "expected"), [
    ("valid counter source on deviceClassMapping", dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter())), []),
    ("multi-counter: same DeviceClass with different counter names allowed",
     dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter()),
         mapping("gpu.compute", ("mig.nvidia.com",), _counter("multiprocessors"))), []),
    ("multi-counter: same DeviceClass with same counter name rejected",
     dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter()),
         mapping("gpu.memory2", ("mig.nvidia.com",), _counter())),
     [("VAL-CFG-17", f"{_MAPPINGS}.1.deviceClassNames.0")]),
    ("multi-counter: whole-device and counter for same DeviceClass rejected",
     dra(mapping("whole-gpu", ("mig.nvidia.com",)), mapping("gpu.memory", ("mig.nvidia.com",), _counter())),
     [("VAL-CFG-17", f"{_MAPPINGS}.1.deviceClassNames.0")]),
    ("multi-counter: counter then whole-device for same DeviceClass rejected",
     dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter()), mapping("whole-gpu", ("mig.nvidia.com",))),
     [("VAL-CFG-17", f"{_MAPPINGS}.1.deviceClassNames.0")]),
    ("sources configured but KueueDRAIntegrationPartitionableDevices disabled",
     dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter()),
         gates={"KueueDRAIntegrationPartitionableDevices": False}),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.counter")]),
    ("sources: missing driver", dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter(driver=""))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.counter.driver")]),
    ("sources: missing name", dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter(name=""))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.counter.name")]),
    ("sources: invalid counter name format",
     dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter(name="INVALID_NAME"))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.counter.name")]),
    ("sources: invalid driver name format",
     dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter(driver="NOT_VALID!!"))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.counter.driver")]),
    ("sources: driver name exceeds max length",
     dra(mapping("gpu.memory", ("mig.nvidia.com",),
                 _counter(driver="gpu-accelerator.nvidia-corporation.datacenter.example.com.internal"))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.counter.driver")]),
    ("sources: missing deviceSelector", dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter(selector=None))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.counter.deviceSelector.cel.expression")]),
    ("sources: multiple counter entries valid",
     dra(mapping("gpu.memory", ("mig.nvidia.com",), _counter(), _counter("multiprocessors"))), []),
    ("valid capacity source", dra(mapping("gpu.memory", ("gpu.example.com",), _capacity()), gates=_CC), []),
    ("valid capacity source with qualified name",
     dra(mapping("gpu.memory", ("gpu.example.com",), _capacity("gpu.example.com/memory")), gates=_CC), []),
    ("capacity source with CC gate disabled", dra(mapping("gpu.memory", ("gpu.example.com",), _capacity())),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.capacity")]),
    ("multiple capacity sources (multi-dimension)",
     dra(mapping("gpu.memory", ("gpu.example.com",), _capacity(), _capacity("cores")), gates=_CC), []),
    ("counter and capacity mixing rejected",
     dra(mapping("gpu.memory", ("gpu.example.com",), _counter(), _capacity()), gates=_CC),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources")]),
    ("capacity source with mixed-case driver rejected",
     dra(mapping("gpu.memory", ("gpu.example.com",), _capacity(driver="GPU.Example.com")), gates=_CC),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.capacity.driver")]),
    # TestValidateDeviceClassMappings
    ("valid multiple resources", dra(mapping("whole-gpus", ("gpu.nvidia.com",)),
                                     mapping("fpgas", ("fpga.example.com",))), []),
    ("capacity name with empty domain",
     dra(mapping("gpu.memory", ("gpu.example.com",), _capacity("/memory")), gates=_CC),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.capacity.name")]),
    ("capacity name with invalid C identifier",
     dra(mapping("gpu.memory", ("gpu.example.com",), _capacity("mem-ory")), gates=_CC),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.capacity.name")]),
    ("capacity name identifier exceeds max length",
     dra(mapping("gpu.memory", ("gpu.example.com",), _capacity("a" * 33)), gates=_CC),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.sources.0.capacity.name")]),
    ("invalid resource name", dra(mapping("invalid resource name", ("gpu.nvidia.com",))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.name")]),
    ("duplicate resource names", dra(mapping("whole-gpus", ("gpu.nvidia.com",)),
                                     mapping("whole-gpus", ("fpga.example.com",))),
     [("VAL-CFG-17", f"{_MAPPINGS}.1.name")]),
    ("empty device class names", dra(mapping("whole-gpus", ())), [("VAL-CFG-17", f"{_MAPPINGS}.0.deviceClassNames")]),
    ("device class conflict", dra(mapping("whole-gpus", ("gpu.nvidia.com",)), mapping("gpus", ("gpu.nvidia.com",))),
     [("VAL-CFG-17", f"{_MAPPINGS}.1.deviceClassNames.0")]),
    ("duplicate device class names within same mapping", dra(mapping("whole-gpus", ("a.com", "a.com"))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.deviceClassNames.1")]),
    ("max length resource name", dra(mapping(f"{'a' * 240}/{'b' * 12}", ("foo.com/device",))), []),
    ("over max length resource name", dra(mapping(f"{'a' * 240}/{'b' * 14}", ("foo.com/device",))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.name")]),
    ("over max length device class name", dra(mapping("valid-name", (f"{'x' * 240}/{'y' * 14}",))),
     [("VAL-CFG-17", f"{_MAPPINGS}.0.deviceClassNames.0")]),
])
def test_kueue_device_class_mapping_cases(case: str, body: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert found(body) == expected, case


def test_val_cfg_17_v1beta1_mappings_have_no_sources() -> None:
    assert found(config("v1beta1", resources={"deviceClassMappings": [mapping("gpu.memory", ("a.com",), _counter())]})
                 ) == [("VAL-CFG-1", f"{_MAPPINGS}.0.sources")]


# --- validate --kueue-version: the release's own Go types decode the file ------------------------------------------

def test_val_cfg_1_a_release_decodes_with_its_own_types() -> None:
    body = config(resources={"quotaCheckStrategy": "BlockUndeclared"})
    assert found(body) == []
    assert [(f.rule_id, ".".join(map(str, f.path))) for f in check_configuration(body, "v0.17.8")] == [
        ("VAL-CFG-1", "resources.quotaCheckStrategy")]
    assert check_configuration(body, "v0.18.6") == []
