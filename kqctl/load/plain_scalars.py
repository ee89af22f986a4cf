"""How kubectl (sigs.k8s.io/yaml, go-yaml v2: YAML 1.1) types a plain YAML scalar.

``y``/``n``/``on``/``off`` are booleans, ``~`` is null, ``0755`` is octal, ``2e0`` and ``.5`` are numbers,
timestamps stay strings. Shared by the libyaml reader (kqctl/load/documents.py) and the checks that decide
when rapidyaml may read a stream instead (kqctl/load/ryml_stream.py).
"""

from __future__ import annotations

import re

STR_TAG = "tag:yaml.org,2002:str"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
BOOL_TAG = "tag:yaml.org,2002:bool"
NULL_TAG = "tag:yaml.org,2002:null"
MERGE_TAG = "tag:yaml.org,2002:merge"


_INT_PATTERN = re.compile(r"[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+)\Z")
_FLOAT_PATTERN = re.compile(
    r"[-+]?(?:(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF))\Z"
    r"|\.(?:nan|NaN|NAN)\Z"
)
BOOL_WORDS = frozenset("y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF".split())
NULL_WORDS = frozenset(("", "~", "null", "Null", "NULL"))
NUMBER_START = frozenset("-+0123456789.")
# Plain scalars that are not strings under kubectl's typing all start with one of NUMBER_START or
# are one of these words (see plain_scalar_tag).
PLAIN_NON_STRINGS = BOOL_WORDS | NULL_WORDS | {"<<"}


def plain_scalar_tag(value: str) -> str:
    if value in NULL_WORDS:
        return NULL_TAG
    first = value[0]
    if first in NUMBER_START:
        if _INT_PATTERN.match(value):
            return INT_TAG
        if _FLOAT_PATTERN.match(value):
            return FLOAT_TAG
        return STR_TAG
    if value in BOOL_WORDS:
        return BOOL_TAG
    return MERGE_TAG if value == "<<" else STR_TAG
