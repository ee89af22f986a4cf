"""A reader for the subset of Go that Kueue's table-driven unit tests build their cases with.

Used by port_kueue_unit_cases.py to translate test cases (builder chains such as
``utiltestingapi.MakeWorkload("low", "").Priority(-1).Request(corev1.ResourceCPU, "2")``, composite
literals, slices and maps) into Python values. It parses expressions only: literals, names, selectors,
calls, composite literals (typed or elided), ``&``/``*``/unary minus, ``+``/``-``/``*`` and index
expressions. Evaluation is left to the caller (``Evaluator``), which knows what each builder does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<rune>'(?:[^'\\]|\\.)')
  | (?P<num>\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>:=|\.\.\.|&&|\|\||==|!=|<=|>=|[{}()\[\],:.&*\-+=!<>/;|%])
""", re.VERBOSE | re.DOTALL)


@dataclass
class Tok:
    kind: str
    text: str
    pos: int


def tokenize(src: str) -> list[Tok]:
    out: list[Tok] = []
    pos = 0
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if not m:
            raise SyntaxError(f"bad character at {pos}: {src[pos:pos + 20]!r}")
        kind = m.lastgroup or ""
        if kind not in ("ws", "comment"):
            out.append(Tok(kind, m.group(), pos))
        pos = m.end()
    return out


# --- syntax tree -------------------------------------------------------------------------------------


@dataclass
class Lit:
    value: Any


@dataclass
class Name:
    name: str


@dataclass
class Attr:
    obj: Any
    name: str


@dataclass
class Call:
    func: Any
    args: list[Any]


@dataclass
class Index:
    obj: Any
    index: Any


@dataclass
class Unary:
    op: str
    operand: Any


@dataclass
class Binary:
    op: str
    left: Any
    right: Any


@dataclass
class TypeExpr:
    text: str  # "[]kueue.Workload", "map[string]int", "kueue.Foo"


@dataclass
class Composite:
    type: Any  # TypeExpr, Name, Attr, or None (elided)
    elems: list[tuple[Any, Any]] = field(default_factory=list)  # (key or None, value)


class Parser:
    def __init__(self, src: str, start: int = 0) -> None:
        self.toks = tokenize(src)
        self.i = 0
        while self.i < len(self.toks) and self.toks[self.i].pos < start:
            self.i += 1

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def next(self) -> Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def accept(self, text: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.text == text and tok.kind in ("op", "ident"):
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> None:
        tok = self.next()
        if tok.text != text:
            raise SyntaxError(f"expected {text!r} at {tok.pos}, got {tok.text!r}")

    # types
    def parse_type(self) -> str:
        tok = self.peek()
        assert tok is not None
        if tok.text == "[":
            self.next()
            size = ""
            if self.peek() is not None and self.peek().text != "]":  # type: ignore[union-attr]
                size = self.next().text
            self.expect("]")
            return f"[{size}]" + self.parse_type()
        if tok.text == "map":
            self.next()
            self.expect("[")
            key = self.parse_type()
            self.expect("]")
            return f"map[{key}]" + self.parse_type()
        if tok.text == "*":
            self.next()
            return "*" + self.parse_type()
        if tok.text == "struct":
            self.next()
            self.skip_braces()
            return "struct{}"
        if tok.text == "func":
            raise SyntaxError("func types are not supported")
        name = self.next().text
        while self.peek() is not None and self.peek().text == ".":  # type: ignore[union-attr]
            self.next()
            name += "." + self.next().text
        if self.peek() is not None and self.peek().text == "[" and self._generic_args_follow():  # type: ignore[union-attr]
            self.next()
            args = [self.parse_type()]
            while self.accept(","):
                args.append(self.parse_type())
            self.expect("]")
            name += "[" + ",".join(args) + "]"
        return name

    def _generic_args_follow(self) -> bool:
        # "Manager[*A, *B]" after a type name: only inside types; treat "[" followed by a type then "]" as generic.
        nxt = self.peek(1)
        return nxt is not None and (nxt.text == "*" or (nxt.kind == "ident" and nxt.text[:1].isupper()))

    # expressions
    def parse_expr(self) -> Any:
        return self.parse_binary(0)

    PREC = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 3, ">": 3, "<=": 3, ">=": 3, "+": 4, "-": 4, "*": 5, "/": 5,
            "%": 5}

    def parse_binary(self, min_prec: int) -> Any:
        left = self.parse_unary()
        while True:
            tok = self.peek()
            if tok is None or tok.kind != "op" or tok.text not in self.PREC or self.PREC[tok.text] <= min_prec - 1:
                return left
            prec = self.PREC[tok.text]
            if prec < min_prec:
                return left
            self.next()
            right = self.parse_binary(prec + 1)
            left = Binary(tok.text, left, right)

    def parse_unary(self) -> Any:
        tok = self.peek()
        assert tok is not None
        if tok.kind == "op" and tok.text in ("&", "*", "-", "!"):
            self.next()
            return Unary(tok.text, self.parse_unary())
        return self.parse_postfix(self.parse_primary())

    def parse_primary(self) -> Any:
        tok = self.peek()
        assert tok is not None
        if tok.kind == "str":
            self.next()
            # unicode_escape reads bytes as Latin-1: back to bytes, then UTF-8 ("→" stays one character)
            return Lit(bytes(tok.text[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8"))
        if tok.kind == "raw":
            self.next()
            return Lit(tok.text[1:-1])
        if tok.kind == "num":
            self.next()
            text = tok.text.replace("_", "")
            return Lit(float(text) if ("." in text or "e" in text.lower()) else int(text))
        if tok.text == "(":
            self.next()
            inner = self.parse_expr()
            self.expect(")")
            return inner
        if tok.text in ("[", "map", "struct"):
            typ = self.parse_type()
            if self.peek() is not None and self.peek().text == "{":  # type: ignore[union-attr]
                return self.parse_composite(TypeExpr(typ))
            return TypeExpr(typ)
        if tok.text == "{":
            return self.parse_composite(None)
        if tok.text == "func":
            return self.skip_func_literal()
        if tok.kind == "ident":
            self.next()
            return Name(tok.text)
        raise SyntaxError(f"unexpected {tok.text!r} at {tok.pos}")

    def skip_func_literal(self) -> Any:
        start = self.next().pos
        self.skip_braces()
        return Lit(("func", start))

    def skip_braces(self) -> None:
        """Past the next balanced ``{ ... }`` (a struct type's fields, a func literal's signature and body)."""
        depth = 0
        while True:
            t = self.next()
            if t.text == "{":
                depth += 1
            elif t.text == "}":
                depth -= 1
                if depth == 0:
                    return

    def parse_postfix(self, expr: Any) -> Any:
        while True:
            tok = self.peek()
            if tok is None:
                return expr
            if tok.text == ".":
                self.next()
                if self.peek() is not None and self.peek().text == "(":  # type assertion x.(T)
                    self.next()
                    self.parse_type()
                    self.expect(")")
                    continue
                expr = Attr(expr, self.next().text)
            elif tok.text == "(":
                self.next()
                args = []
                while not self.accept(")"):
                    if self._looks_like_type_arg():
                        args.append(TypeExpr(self.parse_type()))
                    else:
                        args.append(self.parse_expr())
                    self.accept("...")
                    if not self.accept(","):
                        self.expect(")")
                        break
                expr = Call(expr, args)
            elif tok.text == "[":
                self.next()
                if self._looks_like_type_arg():
                    index: Any = TypeExpr(self.parse_type())
                else:
                    index = self.parse_expr()
                while self.accept(","):
                    self.parse_type()
                self.expect("]")
                expr = Index(expr, index)
            elif tok.text == "{" and self._is_type_expr(expr):
                expr = self.parse_composite(expr)
            else:
                return expr

    def _looks_like_type_arg(self) -> bool:
        """``*pkg.T`` (then a closing bracket or a comma) as an argument (``[]T`` and ``map[K]V`` parse as
        expressions)."""
        tok = self.peek()
        if tok is None:
            return False
        texts = [t.text if t is not None else "" for t in (self.peek(k) for k in range(1, 5))]
        return tok.text == "*" and texts[1] == "." and texts[3] in (")", "]", ",")

    @staticmethod
    def _is_type_expr(expr: Any) -> bool:
        if isinstance(expr, Name):
            return expr.name[:1].isupper() or expr.name in ("struct",)
        if isinstance(expr, Attr):
            return isinstance(expr.obj, Name) and expr.name[:1].isupper() and expr.obj.name[:1].islower()
        if isinstance(expr, Index):
            return Parser._is_type_expr(expr.obj)
        return False

    def parse_composite(self, typ: Any) -> Composite:
        self.expect("{")
        comp = Composite(typ)
        while not self.accept("}"):
            first = self.parse_expr()
            if self.accept(":"):
                value = self.parse_expr()
                comp.elems.append((first, value))
            else:
                comp.elems.append((None, first))
            if not self.accept(","):
                self.expect("}")
                break
        return comp


def parse_at(src: str, pos: int) -> tuple[Any, int]:
    """The expression starting at character ``pos`` and the character position after it."""
    parser = Parser(src, pos)
    expr = parser.parse_expr()
    end = parser.toks[parser.i].pos if parser.i < len(parser.toks) else len(src)
    return expr, end
