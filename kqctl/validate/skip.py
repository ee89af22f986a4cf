"""What ``validate`` does not validate at all (kubeconform's ``-skip`` and ``-ignore-missing-schemas``).

``--skip KIND[,KIND]`` names kinds (``Deployment``, any case) or ``apiVersion/Kind`` (``apps/v1/Deployment``,
``v1/Service``); ``--ignore-missing-kinds`` skips the objects of kinds kqctl does not read (a Helm render's
Deployments and Services), which are otherwise a ``LOAD-SKIPPED`` warning. A skipped object gets no finding and is
counted as skipped; one of a kind kqctl reads still takes part in the cross-object checks (others refer to it).
"""

from __future__ import annotations

from dataclasses import dataclass

from kqctl.load.objects import LoadedObject

SKIPPED_BY_FLAG = "--skip"
MISSING_KIND = "--ignore-missing-kinds: a kind kqctl does not validate"


@dataclass(frozen=True)
class Skipping:
    kinds: frozenset[str] = frozenset()  # lower-case Kind, or lower-case apiVersion/Kind
    missing_kinds: bool = False

    @classmethod
    def parse(cls, values: list[str] | None, missing_kinds: bool) -> Skipping:
        kinds = {part.strip().lower() for value in values or [] for part in value.split(",") if part.strip()}
        return cls(frozenset(kinds), missing_kinds)

    def __bool__(self) -> bool:
        return bool(self.kinds) or self.missing_kinds

    def reason(self, obj: LoadedObject) -> str | None:
        """Why ``obj`` is not validated, or None when it is."""
        kind = obj.kind.lower()
        if kind and (kind in self.kinds or f"{obj.api_version.lower()}/{kind}" in self.kinds):
            return SKIPPED_BY_FLAG
        if self.missing_kinds and obj.info is None and any(f.rule_id == "LOAD-SKIPPED" for f in obj.findings):
            return MISSING_KIND
        return None
