"""The quota tree (rule set Q), checked against the worked example of §3.2."""

from __future__ import annotations

from kqctl.kueue.engine.quota import (
    Limits,
    QuotaNode,
    add_usage,
    available,
    compute_subtree_quota,
    lendable_from_tree,
    potential,
    remove_usage,
)

FR = ("f", "cpu")


def node(name: str, parent: QuotaNode | None = None, cohort: bool = False, **limits: int | None) -> QuotaNode:
    quota = Limits(limits.get("nominal") or 0, limits.get("borrowing"), limits.get("lending"))
    result = QuotaNode(name, cohort, {FR: quota})
    if parent is not None:
        result.parent = parent
        parent.children.append(result)
    return result


def worked_example() -> dict[str, QuotaNode]:
    root = node("root", cohort=True, nominal=4000)
    team = node("team", root, cohort=True, nominal=2000, borrowing=3000, lending=1000)
    a = node("a", team, nominal=6000, lending=2000)
    b = node("b", team, nominal=4000)
    c = node("c", root, nominal=5000, borrowing=0)
    compute_subtree_quota(root)
    return {"root": root, "team": team, "a": a, "b": b, "c": c}


def test_q1_q2_subtree_and_local_quota() -> None:
    t = worked_example()
    assert t["team"].subtree[FR] == 8000 and t["team"].local_quota(FR) == 7000
    assert t["root"].subtree[FR] == 10000
    assert t["a"].local_quota(FR) == 4000 and t["b"].local_quota(FR) == 0


def test_q5_available_in_empty_tree() -> None:
    t = worked_example()
    assert [available(t[n], FR) for n in "abc"] == [15000, 11000, 5000]


def test_q6_potential() -> None:
    t = worked_example()
    assert [potential(t[n], FR) for n in "abc"] == [15000, 11000, 5000]


def test_q4_usage_propagates_beyond_private_part_and_q5_after_admissions() -> None:
    t = worked_example()
    add_usage(t["a"], FR, 1000)
    add_usage(t["b"], FR, 3000)
    add_usage(t["c"], FR, 5000)
    assert t["team"].usage[FR] == 3000 and t["root"].usage[FR] == 5000
    assert [available(t[n], FR) for n in "abc"] == [11000, 8000, 0]


def test_q4_remove_is_the_inverse_of_add() -> None:
    t = worked_example()
    add_usage(t["b"], FR, 3000)
    remove_usage(t["b"], FR, 3000)
    assert t["b"].usage[FR] == 0 and t["team"].usage[FR] == 0 and t["root"].usage.get(FR, 0) == 0


def test_flat_cohort_shortcut_q33() -> None:
    cohort = node("co", cohort=True)
    x = node("x", cohort, nominal=10, borrowing=5)
    node("y", cohort, nominal=20)
    compute_subtree_quota(cohort)
    assert potential(x, FR) == 15 and available(x, FR) == 15


def test_lendable_from_tree_is_zero_when_nobody_else_has_quota() -> None:
    cohort = node("co", cohort=True)
    x = node("x", cohort, nominal=10, borrowing=5)
    node("y", cohort, nominal=0)
    compute_subtree_quota(cohort)
    assert lendable_from_tree(x, FR) == 0


def _available_by_helpers(node: QuotaNode, fr: tuple[str, str]) -> int:
    """Q-5 as it was written before quota._available wrote local_quota and local_available out (the slow path)."""
    from kqctl.k8s.quantity import sat_add, sat_sub

    if node.parent is None:
        return sat_sub(node.subtree.get(fr, 0), node.usage.get(fr, 0))
    parent_available = _available_by_helpers(node.parent, fr)
    borrowing = node.limits(fr).borrowing_limit
    if borrowing is not None:
        local = node.local_quota(fr)
        stored_in_parent = sat_sub(node.subtree.get(fr, 0), local)
        used_in_parent = max(0, sat_sub(node.usage.get(fr, 0), local))
        parent_available = min(parent_available, sat_add(sat_sub(stored_in_parent, used_in_parent), borrowing))
    return sat_add(node.local_available(fr), parent_available)


def test_q5_available_written_out_equals_the_helpers_over_random_trees_and_usage() -> None:
    """Random trees (nested cohorts, lending and borrowing limits, none, unlimited nominal quotas, a flavor-resource
    some nodes lack) under random admissions and removals: available is what the helpers' formula gives."""
    import random

    from kqctl.k8s.quantity import UNLIMITED

    other = ("g", "cpu")
    for seed in range(40):
        rng = random.Random(seed)

        def limit(rng: random.Random = rng) -> int | None:
            return rng.choice([None, None, 0, rng.randrange(0, 6000), UNLIMITED])

        root = node("root", cohort=True, nominal=rng.choice([0, rng.randrange(0, 8000), UNLIMITED]))
        cohorts = [root]
        for i in range(rng.randrange(0, 3)):
            cohorts.append(node(f"co{i}", rng.choice(cohorts), cohort=True, nominal=rng.randrange(0, 4000),
                                borrowing=limit(), lending=limit()))
        queues = [node(f"cq{i}", rng.choice(cohorts), nominal=rng.randrange(0, 6000), borrowing=limit(),
                       lending=limit()) for i in range(rng.randrange(1, 6))]
        compute_subtree_quota(root)
        held: list[tuple[QuotaNode, int]] = []
        for _ in range(30):
            if held and rng.random() < 0.4:
                queue, amount = held.pop(rng.randrange(len(held)))
                remove_usage(queue, FR, amount)
            else:
                queue, amount = rng.choice(queues), rng.randrange(0, 5000)
                add_usage(queue, FR, amount)
                held.append((queue, amount))
            for each in [*queues, *cohorts]:
                for fr in (FR, other):
                    assert available(each, fr) == max(0, _available_by_helpers(each, fr)), (seed, each.name)
