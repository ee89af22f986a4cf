"""YuniKorn's name rules (yunikorn-core ``configvalidator.go``, ``security/acl.go``) and Go RE2 checks.

Go's ``$`` without multi-line mode matches only at the end of the text; Python's also before a final
newline, so every pattern here anchors with ``\\Z``.
"""

from __future__ import annotations

import re
import warnings

# V7: a queue name (one path element): no dots.
QUEUE_NAME = re.compile(r"[a-zA-Z0-9_:#/@-]{1,64}\Z")
QUEUE_NAME_MESSAGE = ("invalid queue name, max 64 characters consisting of alphanumeric characters and "
                      "'-', '_', '#', '@', '/', ':' allowed")
# V15/V19: users (may end in $) and groups of limits and placement filters.
USER_NAME = re.compile(r"[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?\Z")
GROUP_NAME = re.compile(r"[_a-zA-Z][a-zA-Z0-9:_.-]*\Z")
# V15: what makes a single-entry filter list a regexp rather than a name.
SPECIAL = re.compile(r"[\^$*+?()\[{}|]")
# V14: placement rule names are Go identifiers.
RULE_NAME = re.compile(r"[_a-zA-Z][a-zA-Z0-9_]*\Z")
# The ACL parser is stricter than the validator: names it does not take are silently ignored.
ACL_USER = re.compile(r"[_a-zA-Z][a-zA-Z0-9_.@-]*[$]?\Z")
ACL_GROUP = re.compile(r"[_a-zA-Z][a-zA-Z0-9_-]*\Z")

# namespace annotations that set limits on a namespace's dynamic queue (G6)
NAMESPACE_QUOTA = "yunikorn.apache.org/namespace.quota"
NAMESPACE_MAX_APPS = "yunikorn.apache.org/namespace.maxApps"

WILDCARD = "*"
ROOT = "root"
DOT = "."
DOT_REPLACE = "_dot_"
DEFAULT_PARTITION = "default"
DEFAULT_PLACEMENT_QUEUE = "root.default"
RECOVERY_QUEUE = "root.@recovery@"


def is_queue_name_valid(name: str) -> bool:
    return QUEUE_NAME.match(name) is not None


# Constructs Go's RE2 does not have (lookaround, back-references, conditionals, atomic groups).
_NOT_RE2 = re.compile(r"\(\?(?:=|!|<=|<!|P=|\(|>)|\\[1-9]")
_REPEAT = re.compile(r"\{(\d+)(?:,(\d*))?\}")
_RE2_ONLY = [
    (re.compile(r"\\[pP](?:\{[^}]*\}|[A-Za-z])"), "."),  # Unicode classes
    (re.compile(r"\\z"), r"\\Z"),
    (re.compile(r"\(\?<([A-Za-z_][A-Za-z0-9_]*)>"), r"(?P<\1>"),
]


def go_regexp_compiles(pattern: str) -> bool:
    """Whether Go's ``regexp.Compile`` accepts ``pattern`` (RE2 syntax), as nearly as Python can tell."""
    if _NOT_RE2.search(pattern):
        return False
    if any(int(m.group(1)) > 1000 or (m.group(2) or "0").isdigit() and int(m.group(2) or 0) > 1000
           for m in _REPEAT.finditer(pattern)):
        return False  # RE2 caps repetition counts at 1000
    translated = re.sub(r"\\Q(.*?)(?:\\E|\Z)", lambda m: re.escape(m.group(1)), pattern)
    for construct, replacement in _RE2_ONLY:
        translated = construct.sub(replacement, translated)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # POSIX classes ([[:alpha:]]) are fine in RE2
            re.compile(translated)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def go_list(values: list[str] | None) -> str:
    """Go's ``%v`` of a ``[]string``."""
    return "[" + " ".join(values or []) + "]"
