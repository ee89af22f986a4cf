"""YAML and JSON output of plain data, deterministic and faithful to what the user wrote."""

from __future__ import annotations

from typing import Any

import yaml

from kqctl.k8s.scalars import LiteralFloat
from kqctl.load.documents import string_style
from kqctl.render.jsontext import dumps_indented


class _Dumper(yaml.SafeDumper):
    """Block-style YAML like kubectl prints; numbers keep the spelling they were read with."""


def _literal_float(dumper: yaml.SafeDumper, value: LiteralFloat) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:float", value.text)


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # Strings kubectl would read back as booleans or numbers (y, 1e3) are quoted.
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=string_style(value))


_Dumper.add_representer(LiteralFloat, _literal_float)
_Dumper.add_representer(str, _str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1_000_000
    )


def dump_yaml_documents(documents: list[Any]) -> str:
    return yaml.dump_all(
        documents,
        Dumper=_Dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        explicit_start=True,
        width=1_000_000,
    )


def dump_json(data: Any) -> str:
    """``json.dumps(data, indent=2, ensure_ascii=False)`` and a newline, by jsontext's writer (the same text without
    the standard library's pure-Python indenting encoder: 1-2 s of a 50,000-workload ``simulate -o json``)."""
    return dumps_indented(data, ensure_ascii=False)
