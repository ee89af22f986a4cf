"""Scalar types produced by the loader that keep what the user wrote."""

from __future__ import annotations


class LiteralFloat(float):
    """A YAML/JSON number that is not an integer, remembering its source text.

    Quantities may be written as bare numbers (``nominalQuota: 0.5``); QTY-1 says to read them as
    their literal text, never through float arithmetic, so the loader keeps the text here.
    """

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> LiteralFloat:
        obj = super().__new__(cls, _to_float(text))
        obj.text = text
        return obj

    def __repr__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[type[LiteralFloat], tuple[str]]:
        # copy/deepcopy/pickle rebuild the value from its text, not from the float.
        return (LiteralFloat, (self.text,))


def _to_float(text: str) -> float:
    lowered = text.lower().replace("_", "")
    if lowered in (".inf", "+.inf"):
        return float("inf")
    if lowered == "-.inf":
        return float("-inf")
    if lowered == ".nan":
        return float("nan")
    return float(lowered)


def literal_text(value: object) -> str:
    """The text a scalar was written as (``0.5`` stays ``"0.5"``, ``10`` becomes ``"10"``)."""
    if isinstance(value, LiteralFloat):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
