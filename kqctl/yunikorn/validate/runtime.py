"""What fails only when YuniKorn uses a config its validator accepted (spec §4, V20, V21, V27b, V27c).

* V20: building the queues (``NewConfiguredQueue``): a child template with a bad quantity, an ACL the
  validator splits on blanks but the queue on single spaces, and a partition whose top queue is a case
  variant of ``root`` (the validator takes it, ``initialPartitionFromConfig`` does not);
* V21: building the placement rules (``placement.newRule`` and each rule's ``initialise``): on start-up
  the placement manager is left without rules and rejects every application;
* V27b/V27c: no partition, or none named ``default`` (the one the Kubernetes shim submits to).
"""

from __future__ import annotations

from collections.abc import Iterator

from kqctl.yunikorn.api.config import PartitionConf, QueueConf, SchedulerConf
from kqctl.yunikorn.api.configvalidator import Violation
from kqctl.yunikorn.api.names import DEFAULT_PARTITION, ROOT
from kqctl.yunikorn.engine.placement import rule_error
from kqctl.yunikorn.engine.queue import ROOT_NAME_ERROR, Queue, QueueCreationError, new_configured_queue


def queue_creation(partition: PartitionConf) -> Iterator[Violation]:
    """V20: the first queue YuniKorn fails to build (it stops there), and a top queue not spelled ``root``."""
    root_conf = partition.root
    failure = _build(root_conf, None)
    if failure is not None:
        conf, message = failure
        yield Violation("YK-V20", message, conf.loc.path, conf.loc.line)
    if root_conf.name != ROOT and not root_conf.inserted:
        yield Violation("YK-V20", ROOT_NAME_ERROR + f" (the top queue is named {root_conf.name!r}: the validator "
                        "matches root in any case, the partition only exactly)", root_conf.loc.at("name"),
                        root_conf.loc.line_of("name"))


def _build(conf: QueueConf, parent: Queue | None) -> tuple[QueueConf, str] | None:
    try:
        queue = new_configured_queue(conf, parent)
    except QueueCreationError as exc:
        return conf, str(exc)
    for child in conf.children:
        failure = _build(child, queue)
        if failure is not None:
            return failure
    return None


def placement_rules(partition: PartitionConf) -> Iterator[Violation]:
    """V21: ``buildRules`` fails on the first rule it cannot build."""
    for rule in partition.placementrules or []:
        message = rule_error(rule)
        if message is not None:
            yield Violation("YK-V21", message, rule.loc.path, rule.loc.line)
            return


def partitions(config: SchedulerConf, text: str) -> Iterator[Violation]:
    """V27b: text with no partition stops every partition on reload; V27c: none named ``default``."""
    items = config.partitions or []
    if not items:
        yield Violation("YK-V27B", "no partition is defined: on a reload YuniKorn stops every existing partition, and "
                                "at start-up it has none, so nothing is scheduled", config.loc.at("partitions"),
                        config.loc.line_of("partitions"))
        return
    if not any(p.name == DEFAULT_PARTITION for p in items):
        names = ", ".join(p.name for p in items)
        yield Violation("YK-V27C", f"no partition named default (only {names}): the Kubernetes shim submits every "
                                "application to partition default, so nothing from Kubernetes is placed",
                        items[0].loc.at("name"), items[0].loc.line_of("name"))
