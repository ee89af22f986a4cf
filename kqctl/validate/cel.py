"""The CRDs' CEL rules (``x-kubernetes-validations``), evaluated as the API server does on create.

Every rule is evaluated at every node of the document its schema node applies to (inside lists
and maps too) with ``self`` bound to that node. Transition rules (they mention ``oldSelf``) only
run on update and are skipped, except ``optionalOldSelf`` rules, which also run on create with an
empty ``oldSelf``. A false result is an error worded as the API server words it
(``Invalid value: "object": <message>``); known Kueue rules get the design doc's VAL id.
DEF-3: the API server skips CEL when the schema check failed; the caller decides that.

Why two evaluators: the ``cel`` library converts its input into CEL values at ~2 µs per map, so
binding ``self`` to a whole ClusterQueue spec costs tens of µs per rule. Rules written in the
small CEL subset the Kueue CRDs use (field selection, ``has``, the list macros, ``size``,
comparisons, boolean logic, literals) are therefore compiled once into Python closures that read
the document as it is, following CEL's semantics (error absorption by ``&&``/``||``/``all``/
``exists``, heterogeneous equality, no implicit int/double arithmetic). Any other rule, and every
``messageExpression``, goes to the ``cel`` library. The tests check that both agree on every CRD
rule for many generated documents, except where the library stops at the first error inside
``all()``/``exists()``: CEL, and cel-go in the API server, let a false (true) element win there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

from kqctl.findings import Finding, Severity, error
from kqctl.origin import FieldPath
from kqctl.validate.schema import load_schema

# Stable rule ids: a failed known Kueue rule is ``CEL-<VAL id>``; any other rule ``CEL-RULE``.
CEL_RULE = "CEL-RULE"
CEL_EVAL = "CEL-EVAL"
# The API server rejects an object when one of its rules cannot be evaluated on it (e.g. "no such
# key" for a ResourceFlavor with topologyName but no nodeLabels), so this is an error too.
EVAL_SEVERITY = Severity.ERROR

CEL_RULES = "x-kubernetes-validations"

Schema = dict[str, Any]
Env = dict[str, Any]
Evaluator = Callable[[Env], Any]


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def validate_cel(body: dict[str, Any], api_version: str, kind: str, release: str | None = None) -> list[Finding]:
    """CEL findings for one (defaulted) document; ``[]`` when there is no schema or no rule (``release``: the
    rules of a released version's schema, see ``schema.load_schema``)."""
    plan = _plan(api_version, kind, release)
    out: list[Finding] = []
    if plan is not None:
        _walk(body, plan, (), out)
    return out


# --------------------------------------------------------------------------------------------
# Rule ids: the design doc's VAL ids for the messages of Kueue's CRD rules
# --------------------------------------------------------------------------------------------

_TAINT_EFFECTS = "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"
_VAL_IDS: dict[tuple[str, str], str] = {
    ("ClusterQueue", "flavors must have the same number of resources as the coveredResources"): "VAL-CQ-11",
    ("Cohort", "flavors must have the same number of resources as the coveredResources"): "VAL-CO-2",
    ("ClusterQueue", "borrowingLimit must be nil when cohort is empty"): "VAL-CQ-12",
    (
        "ClusterQueue",
        "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor",
    ): "VAL-CQ-13",
    ("ClusterQueue", "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"): "VAL-CQ-15",
    (
        "ResourceFlavor",
        "operator must be Exists when 'key' is empty, which means 'match all values and all keys'",
    ): "VAL-RF-4",
    ("ResourceFlavor", "effect must be 'NoExecute' when 'tolerationSeconds' is set"): "VAL-RF-5",
    ("ResourceFlavor", "supported toleration values: 'Equal'(default), 'Exists'"): "VAL-RF-6",
    ("ResourceFlavor", "a value must be empty when 'operator' is 'Exists'"): "VAL-RF-7",
    ("ResourceFlavor", "at least one nodeLabel is required when topology is set"): "VAL-RF-10",
    ("ResourceFlavor", "topologyName is immutable when topologyName is set"): "VAL-RF-11",
    ("LocalQueue", "field is immutable"): "VAL-LQ-2",
    ("Workload", "minCount should be positive and less or equal to count"): "VAL-WL-3",
    ("Workload", "only the PriorityClass kind is allowed for the scheduling.k8s.io group"): "VAL-WL-9",
    ("Workload", "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group"): "VAL-WL-9",
    ("Workload", "priority should not be nil when priorityClassRef is set"): "VAL-WL-10",
    ("Workload", "priority should not be nil when priorityClassName is set"): "VAL-WL-10",  # v1beta1
    ("Workload", "podSetAssignments must have the same number of podSets as the spec"): "VAL-WL-11",
}
# The same taint-effect message guards two fields of a ResourceFlavor.
_VAL_IDS_BY_FIELD: dict[tuple[str, str, str], str] = {
    ("ResourceFlavor", _TAINT_EFFECTS, "nodeTaints"): "VAL-RF-2",
    ("ResourceFlavor", _TAINT_EFFECTS, "tolerations"): "VAL-RF-8",
}


def rule_id_for(kind: str, message: str, field_name: str) -> str:
    """``CEL-<VAL id>`` for a known Kueue rule, ``CEL-RULE`` otherwise."""
    val_id = _VAL_IDS_BY_FIELD.get((kind, message, field_name)) or _VAL_IDS.get((kind, message))
    return f"CEL-{val_id}" if val_id else CEL_RULE


# --------------------------------------------------------------------------------------------
# Plan: the schema nodes that carry rules, and the way down to them
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One compiled ``x-kubernetes-validations`` entry."""

    text: str
    rule_id: str
    message: str
    reason: str | None
    field_path: FieldPath
    evaluate: Evaluator  # raises CelEvalError when the rule errors on the document
    message_evaluate: Evaluator | None = None
    optional_old_self: bool = False


@dataclass
class _Plan:
    node_type: str
    rules: list[Rule] = field(default_factory=list)
    props: dict[str, _Plan] = field(default_factory=dict)
    items: _Plan | None = None
    values: _Plan | None = None  # map values (additionalProperties)


@cache
def _plan(api_version: str, kind: str, release: str | None = None) -> _Plan | None:
    schema = load_schema(api_version, kind, release)
    if schema is None:
        return None
    return _PlanBuilder(schema, kind).build(schema, "")


class _PlanBuilder:
    def __init__(self, root: Schema, kind: str) -> None:
        self.definitions: dict[str, Schema] = root.get("definitions", {})
        self.kind = kind
        self.refs: dict[str, _Plan | None] = {}

    def build(self, node: Schema, field_name: str) -> _Plan | None:
        """The plan for ``node``, or None when neither it nor anything below it has a rule."""
        if "$ref" in node:
            return self._ref(node["$ref"])
        plan = _Plan(node_type=_node_type(node))
        plan.rules = [r for r in (self._rule(raw, field_name) for raw in node.get(CEL_RULES, ())) if r]
        for name, sub in node.get("properties", {}).items():
            child = self.build(sub, name)
            if child is not None:
                plan.props[name] = child
        if isinstance(node.get("items"), dict):
            plan.items = self.build(node["items"], field_name)
        if isinstance(node.get("additionalProperties"), dict):
            plan.values = self.build(node["additionalProperties"], field_name)
        if not (plan.rules or plan.props or plan.items or plan.values):
            return None
        return plan

    def _ref(self, ref: str) -> _Plan | None:
        name = ref.rsplit("/", 1)[-1]
        if name not in self.refs:
            self.refs[name] = None  # recursion guard; referenced core models carry no rules
            definition = self.definitions.get(name)
            self.refs[name] = self.build(definition, name) if definition is not None else None
        return self.refs[name]

    def _rule(self, raw: dict[str, Any], field_name: str) -> Rule | None:
        text = raw["rule"]
        optional_old_self = bool(raw.get("optionalOldSelf"))
        if _mentions_old_self(text) and not optional_old_self:
            return None  # transition rule: evaluated on update only
        message = raw.get("message") or f"failed rule: {text}"
        message_expression = raw.get("messageExpression")
        return Rule(
            text=text,
            rule_id=rule_id_for(self.kind, message, field_name),
            message=message,
            reason=raw.get("reason"),
            field_path=parse_field_path(raw.get("fieldPath", "")),
            evaluate=compile_rule(text, optional_old_self),
            message_evaluate=_library_evaluator(message_expression, optional_old_self)
            if message_expression
            else None,
            optional_old_self=optional_old_self,
        )


def _node_type(node: Schema) -> str:
    node_type = node.get("type")
    if isinstance(node_type, str):
        return node_type
    return "object" if "properties" in node else "string"


def _mentions_old_self(text: str) -> bool:
    try:
        return any(kind == "ident" and value == "oldSelf" for kind, value in _tokens(text))
    except CelUnsupported:
        return re.search(r"\boldSelf\b", text) is not None


_FIELD_PATH_PART = re.compile(r"\.([A-Za-z_$][A-Za-z0-9_$-]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]")


def parse_field_path(text: str) -> FieldPath:
    """``.spec.foo['a.b']`` → ``("spec", "foo", "a.b")`` (the rule's ``fieldPath``)."""
    parts: list[str | int] = []
    pos = 0
    while pos < len(text):
        match = _FIELD_PATH_PART.match(text, pos)
        if match is None:
            return tuple(parts)  # malformed: keep what was understood (the CRD would be rejected)
        name, quoted, index = match.groups()
        parts.append(int(index) if index is not None else name if name is not None else quoted)
        pos = match.end()
    return tuple(parts)


# --------------------------------------------------------------------------------------------
# Walking a document alongside the plan
# --------------------------------------------------------------------------------------------


def _walk(value: Any, plan: _Plan, path: FieldPath, out: list[Finding]) -> None:
    if plan.rules:
        _run_rules(value, plan, path, out)
    if isinstance(value, dict):
        for name, child in plan.props.items():
            item = value.get(name)
            if item is not None:  # absent (or null, pruned by the server): no rule applies
                _walk(item, child, path + (name,), out)
        if plan.values is not None:
            for key, item in value.items():
                if item is not None:
                    _walk(item, plan.values, path + (key,), out)
    elif isinstance(value, list) and plan.items is not None:
        for i, item in enumerate(value):
            if item is not None:
                _walk(item, plan.items, path + (i,), out)


def _run_rules(value: Any, plan: _Plan, path: FieldPath, out: list[Finding]) -> None:
    env: Env = {"self": value}
    for rule in plan.rules:
        try:
            result = rule.evaluate(env)
        except CelEvalError as exc:
            out.append(_eval_finding(rule, path, str(exc)))
            continue
        if result is not True:
            if result is not False:
                out.append(_eval_finding(rule, path, f"rule did not return a bool but {result!r}"))
                continue
            out.append(error(rule.rule_id, path + rule.field_path, _message(rule, plan.node_type, env)))


def _eval_finding(rule: Rule, path: FieldPath, detail: str) -> Finding:
    return Finding(CEL_EVAL, EVAL_SEVERITY, path, f"{detail} evaluating rule: {rule.text}")


def _message(rule: Rule, node_type: str, env: Env) -> str:
    text = rule.message
    if rule.message_evaluate is not None:
        try:
            computed = rule.message_evaluate(env)
        except CelEvalError:
            computed = None  # the API server also falls back to the static message
        if isinstance(computed, str) and computed.strip():
            text = computed
    if rule.reason == "FieldValueForbidden":
        return f"Forbidden: {text}"
    if rule.reason == "FieldValueRequired":
        return f"Required value: {text}"
    if rule.reason == "FieldValueDuplicate":
        return f'Duplicate value: "{node_type}": {text}'
    return f'Invalid value: "{node_type}": {text}'


# --------------------------------------------------------------------------------------------
# Compiling a rule: fast path first, the cel library otherwise
# --------------------------------------------------------------------------------------------


class CelEvalError(Exception):
    """A CEL evaluation error (no such key, no such overload, overflow, ...)."""


class CelUnsupported(Exception):
    """The expression is outside the subset the fast path compiles."""


def compile_rule(text: str, optional_old_self: bool = False) -> Evaluator:
    """An evaluator for one rule, called with ``{"self": node}``; never raises at compile time."""
    if not optional_old_self:
        try:
            return compile_fast(text)
        except CelUnsupported:
            pass
    return _library_evaluator(text, optional_old_self)


def _cel_library() -> ModuleType:
    # Imported on first use only: ``import cel`` takes ~0.3 s (its CLI pulls in prompt_toolkit),
    # and every rule of the Kueue CRDs runs on the fast path.
    import cel

    return cel


def _library_evaluator(text: str, optional_old_self: bool) -> Evaluator:
    cel = _cel_library()
    try:
        program = cel.compile(text)
    except Exception as exc:  # the library signals syntax problems with several exception types
        reason = f"cannot compile: {exc}"

        def broken(env: Env) -> Any:
            raise CelEvalError(reason)

        return broken

    def run(env: Env) -> Any:
        variables = {"self": to_cel_value(env["self"])}
        if optional_old_self:
            variables["oldSelf"] = cel.OptionalValue.none()  # create: there is no old object
        try:
            return program.execute(variables)
        except Exception as exc:  # KeyError, TypeError, RuntimeError... all are evaluation errors
            raise CelEvalError(f"{type(exc).__name__}: {exc}") from None

    return run


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def to_cel_value(value: Any) -> Any:
    """A document value as the API server hands it to CEL.

    Null fields are absent (pruned); ``LiteralFloat`` becomes a float, and an integral number
    becomes an int because kubectl sends ``2.0`` as ``2``.
    """
    if isinstance(value, dict):
        return {k: to_cel_value(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [to_cel_value(v) for v in value]
    if isinstance(value, float) and not isinstance(value, _Double):
        if value.is_integer() and _INT64_MIN <= value <= _INT64_MAX:
            return int(value)
        return float(value)
    return value


# --------------------------------------------------------------------------------------------
# Fast path, part 1: tokens and syntax tree
# --------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<double>\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
  | (?P<uint>(?:0x[0-9a-fA-F]+|\d+)[uU])
  | (?P<int>0x[0-9a-fA-F]+|\d+)
  | (?P<string>'[^'\\\n]*'|"[^"\\\n]*")
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>&&|\|\||==|!=|<=|>=|[<>!?:.,()\[\]{}+\-*/%])
    """,
    re.VERBOSE,
)
# Escapes, raw/bytes/triple-quoted strings and uint literals make the tokenizer stop: those rules
# go to the library.
_UNSUPPORTED_TOKENS = frozenset({"uint"})


def _tokens(text: str) -> Iterator[tuple[str, str]]:
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.lastgroup in _UNSUPPORTED_TOKENS:
            raise CelUnsupported(f"cannot tokenize at {pos}")
        pos = match.end()
        kind = match.lastgroup or ""
        if kind == "ws":
            continue
        value = match.group()
        # A word that is followed by a string literal is a raw/bytes prefix (r'..', b".."): unsupported.
        if kind == "ident" and value in ("r", "R", "b", "B") and text[pos : pos + 1] in ("'", '"'):
            raise CelUnsupported("string prefixes are not supported")
        yield kind, value


Node = tuple[Any, ...]
_MACROS = frozenset({"all", "exists", "exists_one", "filter", "map"})
_RELATIONS = frozenset({"==", "!=", "<", "<=", ">", ">=", "in"})


class _Parser:
    """Recursive descent over CEL's grammar, producing tuples such as ``("sel", operand, "f")``."""

    def __init__(self, text: str) -> None:
        self.tokens = list(_tokens(text))
        self.pos = 0

    def parse(self) -> Node:
        node = self.expr()
        if self.pos != len(self.tokens):
            raise CelUnsupported("unexpected trailing input")
        return node

    def peek(self) -> str:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise CelUnsupported("unexpected end of expression")
        token = self.tokens[self.pos]
        if expected is not None and token[1] != expected:
            raise CelUnsupported(f"expected {expected!r}")
        self.pos += 1
        return token

    def expr(self) -> Node:
        condition = self.logical("||", self.and_expr)
        if self.peek() != "?":
            return condition
        self.take("?")
        then = self.logical("||", self.and_expr)
        self.take(":")
        return ("cond", condition, then, self.expr())

    def and_expr(self) -> Node:
        return self.logical("&&", self.relation)

    def logical(self, op: str, operand: Callable[[], Node]) -> Node:
        node = operand()
        while self.peek() == op:
            self.take()
            node = ("and" if op == "&&" else "or", node, operand())
        return node

    def relation(self) -> Node:
        node = self.binary(("+", "-"), self.multiplication)
        while self.peek() in _RELATIONS and self.tokens[self.pos][0] in ("op", "ident"):
            op = self.take()[1]
            node = ("bin", op, node, self.binary(("+", "-"), self.multiplication))
        return node

    def multiplication(self) -> Node:
        return self.binary(("*", "/", "%"), self.unary)

    def binary(self, ops: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        node = operand()
        while self.peek() in ops and self.tokens[self.pos][0] == "op":
            op = self.take()[1]
            node = ("bin", op, node, operand())
        return node

    def unary(self) -> Node:
        if self.peek() == "!":
            self.take()
            return ("not", self.unary())
        if self.peek() == "-":
            self.take()
            return ("neg", self.unary())
        return self.member()

    def member(self) -> Node:
        node = self.primary()
        while self.peek() in (".", "["):
            if self.take()[1] == "[":
                index = self.expr()
                self.take("]")
                node = ("idx", node, index)
                continue
            kind, name = self.take()
            if kind != "ident":
                raise CelUnsupported("expected a field name")
            if self.peek() == "(":
                node = self.call(name, node)
            else:
                node = ("sel", node, name)
        return node

    def primary(self) -> Node:
        kind, value = self.take()
        if kind == "int":
            return ("lit", int(value, 0))
        if kind == "double":
            return ("lit", _Double(value))
        if kind == "string":
            return ("lit", value[1:-1])
        if kind == "ident":
            if value in _LITERAL_WORDS:
                return ("lit", _LITERAL_WORDS[value])
            return self.call(value, None) if self.peek() == "(" else ("id", value)
        if value == "(":
            node = self.expr()
            self.take(")")
            return node
        if value == "[":
            return ("list", self.arguments("]"))
        raise CelUnsupported(f"unsupported token {value!r}")

    def call(self, name: str, target: Node | None) -> Node:
        self.take("(")
        args = self.arguments(")")
        if target is None and name == "has":
            if len(args) != 1 or args[0][0] != "sel":
                raise CelUnsupported("has() needs a field selection")
            return ("has", args[0][1], args[0][2])
        if target is not None and name in _MACROS:
            if len(args) not in (2, 3) or args[0][0] != "id":
                raise CelUnsupported(f"malformed macro {name}")
            return ("macro", name, target, args[0][1], args[1:])
        return ("call", name, target, args)

    def arguments(self, closing: str) -> list[Node]:
        args: list[Node] = []
        while self.peek() != closing:
            args.append(self.expr())
            if self.peek() != ",":
                break
            self.take(",")
        self.take(closing)
        return args


class _Double(float):
    """A double literal of the rule (documents' integral numbers are CEL ints, literals are not)."""


_LITERAL_WORDS: dict[str, Any] = {"true": True, "false": False, "null": None}


# --------------------------------------------------------------------------------------------
# Fast path, part 2: CEL values and operators
# --------------------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    t = type(value)
    if t is bool:
        return "bool"
    if t is int:
        return "int"
    if t is str:
        return "string"
    if t is dict or isinstance(value, dict):
        return "map"
    if t is list or isinstance(value, list):
        return "list"
    if isinstance(value, float):
        # JSON numbers from the document: kubectl sends 2.0 as 2, an int for the API server.
        if t is not _Double and value.is_integer() and _INT64_MIN <= value <= _INT64_MAX:
            return "int"
        return "double"
    if isinstance(value, int):
        return "int"
    return t.__name__


_NUMERIC = frozenset({"int", "double"})


_SIMPLE_TYPES = frozenset({str, int, bool})


def _equal(a: Any, b: Any) -> bool:
    if type(a) is type(b) and type(a) in _SIMPLE_TYPES:
        return bool(a == b)  # the common case, without classifying both values
    ka, kb = _kind(a), _kind(b)
    if ka in _NUMERIC and kb in _NUMERIC:
        return bool(a == b)
    if ka != kb:
        return False  # heterogeneous equality: different types are never equal
    if ka == "list":
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if ka == "map":
        left = {k: v for k, v in a.items() if v is not None}
        right = {k: v for k, v in b.items() if v is not None}
        return left.keys() == right.keys() and all(_equal(v, right[k]) for k, v in left.items())
    return bool(a == b)


def _compare(op: str, a: Any, b: Any) -> bool:
    ka, kb = _kind(a), _kind(b)
    if not ((ka in _NUMERIC and kb in _NUMERIC) or (ka == kb and ka in ("string", "bool"))):
        raise CelEvalError(f"no such overload: {ka} {op} {kb}")
    if op == "<":
        return bool(a < b)
    if op == "<=":
        return bool(a <= b)
    if op == ">":
        return bool(a > b)
    return bool(a >= b)


def _contains(element: Any, container: Any) -> bool:
    kind = _kind(container)
    if kind == "list":
        return any(_equal(element, item) for item in container)
    if kind == "map":
        return isinstance(element, str) and container.get(element) is not None
    raise CelEvalError(f"no such overload: in {kind}")


def _checked_int(value: int) -> int:
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise CelEvalError("integer overflow")
    return value


def _arithmetic(op: str, a: Any, b: Any) -> Any:
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        raise CelEvalError(f"no such overload: {ka} {op} {kb}")  # CEL never mixes int and double
    if ka == "int":
        return _int_arithmetic(op, int(a), int(b))
    if ka == "double" and op in ("+", "-", "*", "/"):
        return _double_arithmetic(op, float(a), float(b))
    if op == "+" and ka in ("string", "list"):
        return a + b
    raise CelEvalError(f"no such overload: {ka} {op} {kb}")


def _int_arithmetic(op: str, a: int, b: int) -> int:
    if op == "+":
        return _checked_int(a + b)
    if op == "-":
        return _checked_int(a - b)
    if op == "*":
        return _checked_int(a * b)
    if b == 0:
        raise CelEvalError("division by zero" if op == "/" else "modulus by zero")
    quotient = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # truncates toward zero
    return _checked_int(quotient) if op == "/" else a - quotient * b


def _double_arithmetic(op: str, a: float, b: float) -> float:
    if op == "+":
        return _Double(a + b)
    if op == "-":
        return _Double(a - b)
    if op == "*":
        return _Double(a * b)
    if b == 0:
        return _Double(float("nan") if a == 0 else float("inf") if a > 0 else float("-inf"))
    return _Double(a / b)


def _size(value: Any) -> int:
    if type(value) is list:
        return len(value)
    kind = _kind(value)
    if kind in ("string", "list"):
        return len(value)
    if kind == "map":
        return sum(1 for v in value.values() if v is not None)
    raise CelEvalError(f"no such overload: size({kind})")


def _select(value: Any, name: str) -> Any:
    if not isinstance(value, dict):
        raise CelEvalError(f"no such overload: .{name} on {_kind(value)}")
    found = value.get(name)
    if found is None:
        raise CelEvalError(f"no such key: {name}")
    return found


def _iterate(value: Any) -> list[Any]:
    if type(value) is list:
        return value  # never mutated by the macros
    kind = _kind(value)
    if kind == "list":
        return list(value)
    if kind == "map":
        return [k for k, v in value.items() if v is not None]  # macros over a map see its keys
    raise CelEvalError(f"no such overload: macro over {kind}")


def _bool(value: Any) -> bool:
    if value is True or value is False:
        return bool(value)
    raise CelEvalError(f"no such overload: expected bool, got {_kind(value)}")


# --------------------------------------------------------------------------------------------
# Fast path, part 3: syntax tree to closures
# --------------------------------------------------------------------------------------------


@cache
def compile_fast(text: str) -> Evaluator:
    """Compile a rule in the supported subset; raises CelUnsupported otherwise."""
    return _compile(_Parser(text).parse())


def _compile(node: Node) -> Evaluator:
    compiler = _COMPILERS.get(node[0])
    if compiler is None:
        raise CelUnsupported(f"unsupported construct {node[0]}")
    return compiler(node)


def _compile_literal(node: Node) -> Evaluator:
    value = node[1]
    return lambda env: value


def _compile_ident(node: Node) -> Evaluator:
    name = node[1]

    def run(env: Env) -> Any:
        try:
            return env[name]
        except KeyError:
            raise CelEvalError(f"undeclared reference to '{name}'") from None

    return run


def _compile_select(node: Node) -> Evaluator:
    operand, name = _compile(node[1]), node[2]
    return lambda env: _select(operand(env), name)


def _compile_has(node: Node) -> Evaluator:
    operand, name = _compile(node[1]), node[2]

    def run(env: Env) -> bool:
        value = operand(env)
        if not isinstance(value, dict):
            raise CelEvalError(f"no such overload: has() on {_kind(value)}")
        return value.get(name) is not None

    return run


def _compile_index(node: Node) -> Evaluator:
    operand, index = _compile(node[1]), _compile(node[2])

    def run(env: Env) -> Any:
        container, key = operand(env), index(env)
        if isinstance(container, list):
            if _kind(key) != "int" or not 0 <= key < len(container):
                raise CelEvalError(f"index out of bounds: {key}")
            return container[int(key)]
        if isinstance(container, dict) and isinstance(key, str):
            return _select(container, key)
        raise CelEvalError(f"no such overload: {_kind(container)}[{_kind(key)}]")

    return run


def _compile_list(node: Node) -> Evaluator:
    items = [_compile(item) for item in node[1]]
    return lambda env: [item(env) for item in items]


def _compile_not(node: Node) -> Evaluator:
    operand = _compile(node[1])
    return lambda env: not _bool(operand(env))


def _compile_neg(node: Node) -> Evaluator:
    operand = _compile(node[1])

    def run(env: Env) -> Any:
        value = operand(env)
        kind = _kind(value)
        if kind == "int":
            return _checked_int(-int(value))
        if kind == "double":
            return _Double(-value)
        raise CelEvalError(f"no such overload: -{kind}")

    return run


def _outcome(evaluator: Evaluator, env: Env) -> Any:
    """The value of an operand, or the error it raised (for CEL's error-absorbing operators)."""
    try:
        return evaluator(env)
    except CelEvalError as exc:
        return exc


def _compile_logical(node: Node) -> Evaluator:
    # CEL's && and || are commutative: ``false && <error>`` and ``<error> && false`` are false.
    left, right = _compile(node[1]), _compile(node[2])
    absorbing = node[0] == "or"  # the value that decides the result on its own

    def run(env: Env) -> bool:
        first = _outcome(left, env)
        if first is absorbing:
            return absorbing
        second = _outcome(right, env)
        if second is absorbing:
            return absorbing
        for outcome in (first, second):
            if isinstance(outcome, CelEvalError):
                raise outcome
            _bool(outcome)
        return not absorbing

    return run


def _compile_conditional(node: Node) -> Evaluator:
    condition, then, otherwise = (_compile(n) for n in node[1:])
    return lambda env: then(env) if _bool(condition(env)) else otherwise(env)


def _compile_binary(node: Node) -> Evaluator:
    op, left, right = node[1], _compile(node[2]), _compile(node[3])
    if op == "==":
        return lambda env: _equal(left(env), right(env))
    if op == "!=":
        return lambda env: not _equal(left(env), right(env))
    if op == "in":
        return lambda env: _contains(left(env), right(env))
    if op in ("<", "<=", ">", ">="):
        return lambda env: _compare(op, left(env), right(env))
    return lambda env: _arithmetic(op, left(env), right(env))


def _compile_call(node: Node) -> Evaluator:
    name, target, args = node[1], node[2], [_compile(a) for a in node[3]]
    if name == "size" and ((target is None and len(args) == 1) or (target is not None and not args)):
        operand = _compile(target) if target is not None else args[0]
        return lambda env: _size(operand(env))
    if name in _STRING_METHODS and target is not None and len(args) == 1:
        receiver, argument, method = _compile(target), args[0], _STRING_METHODS[name]
        return lambda env: _string_method(method, receiver(env), argument(env))
    raise CelUnsupported(f"unsupported function {name}")


_STRING_METHODS: dict[str, Callable[[str, str], bool]] = {
    "startsWith": str.startswith,
    "endsWith": str.endswith,
    "contains": str.__contains__,
}


def _string_method(method: Callable[[str, str], bool], receiver: Any, argument: Any) -> bool:
    if not isinstance(receiver, str) or not isinstance(argument, str):
        raise CelEvalError("no such overload: string method on non-strings")
    return method(receiver, argument)


def _compile_macro(node: Node) -> Evaluator:
    name, target, var, args = node[1], _compile(node[2]), node[3], [_compile(a) for a in node[4]]
    if name == "map":
        return _map_macro(target, var, args)
    if len(args) != 1:
        raise CelUnsupported(f"{name} takes two arguments")
    return _MACRO_BUILDERS[name](target, var, args[0])


def _quantifier(decisive: bool) -> Callable[[Evaluator, str, Evaluator], Evaluator]:
    """all() (decisive False) and exists() (decisive True): the decisive value wins over errors,
    and an error wins over the other value, as the CEL spec says."""
    def build(target: Evaluator, var: str, predicate: Evaluator) -> Evaluator:
        def run(env: Env) -> bool:
            scope = dict(env)
            failure: CelEvalError | None = None
            for item in _iterate(target(env)):
                scope[var] = item
                outcome = _outcome(predicate, scope)
                if outcome is decisive:
                    return decisive
                if outcome is not (not decisive):
                    failure = outcome if isinstance(outcome, CelEvalError) else CelEvalError("no such overload")
            if failure is not None:
                raise failure
            return not decisive

        return run

    return build


_all_macro = _quantifier(False)
_exists_macro = _quantifier(True)


def _exists_one_macro(target: Evaluator, var: str, predicate: Evaluator) -> Evaluator:
    def run(env: Env) -> bool:
        scope = dict(env)
        count = 0
        for item in _iterate(target(env)):
            scope[var] = item
            count += _bool(predicate(scope))
        return count == 1

    return run


def _filter_macro(target: Evaluator, var: str, predicate: Evaluator) -> Evaluator:
    def run(env: Env) -> list[Any]:
        scope = dict(env)
        kept = []
        for item in _iterate(target(env)):
            scope[var] = item
            if _bool(predicate(scope)):
                kept.append(item)
        return kept

    return run


def _map_macro(target: Evaluator, var: str, args: list[Evaluator]) -> Evaluator:
    predicate, transform = (args[0], args[1]) if len(args) == 2 else (None, args[0])

    def run(env: Env) -> list[Any]:
        scope = dict(env)
        mapped = []
        for item in _iterate(target(env)):
            scope[var] = item
            if predicate is None or _bool(predicate(scope)):
                mapped.append(transform(scope))
        return mapped

    return run


_MACRO_BUILDERS: dict[str, Callable[[Evaluator, str, Evaluator], Evaluator]] = {
    "all": _all_macro,
    "exists": _exists_macro,
    "exists_one": _exists_one_macro,
    "filter": _filter_macro,
}

_COMPILERS: dict[str, Callable[[Node], Evaluator]] = {
    "lit": _compile_literal,
    "id": _compile_ident,
    "sel": _compile_select,
    "has": _compile_has,
    "idx": _compile_index,
    "list": _compile_list,
    "not": _compile_not,
    "neg": _compile_neg,
    "and": _compile_logical,
    "or": _compile_logical,
    "cond": _compile_conditional,
    "bin": _compile_binary,
    "call": _compile_call,
    "macro": _compile_macro,
}
