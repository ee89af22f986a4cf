"""Free text on a terminal: wrapped at spaces with a hanging indent, its own line breaks kept."""

from __future__ import annotations

import io

import pytest

from kqctl.render.console import wrap_text, write_wrapped


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("text, width, indent, hanging, expected", [
    ("one two three", 80, "", None, ["one two three"]),
    ("one two three", 9, "", None, ["one two", "  three"]),
    ("one two three", 9, "  ", "    ", ["  one two", "    three"]),
    # A line break is kept at any width, a pipe's included; the line after it starts at the left edge, as piped.
    ("first line.\nSecond line.", None, "", None, ["first line.", "Second line."]),
    ("first line.\nSecond line.", 80, "", None, ["first line.", "Second line."]),
    ("first line.\nSecond line.", 14, "", None, ["first line.", "Second line."]),
    ("first line here.\nSecond line here.", 12, "", None, ["first line", "  here.", "Second line", "  here."]),
    # The line after a break keeps its own leading spaces and wraps under them and two more.
    ("head\n  indented line here", 16, "", None, ["head", "  indented line", "    here"]),
    ("a\n\nb", 80, "", None, ["a", "", "b"]),
    ("a\n\nb", 1, "", None, ["a", "", "b"]),
])
def test_wrap_text_wraps_at_spaces_and_keeps_line_breaks(text: str, width: int | None, indent: str,
                                                          hanging: str | None, expected: list[str]) -> None:
    lines = wrap_text(text, width, indent, hanging, least=1)
    assert lines == expected
    assert all("\n" not in line for line in lines)


@pytest.mark.parametrize("stream_type, expected", [
    (io.StringIO, "Replayed 3 workloads: 3 finished.\nTime to admission: P50 3ms.\n"),
    (_Terminal, "Replayed 3 workloads: 3 finished.\nTime to admission: P50 3ms.\n"),
])
def test_write_wrapped_keeps_a_line_break_on_a_terminal_as_in_a_pipe(
        monkeypatch: pytest.MonkeyPatch, stream_type: type[io.StringIO], expected: str) -> None:
    monkeypatch.setenv("COLUMNS", "40")  # each line fits, the two together do not
    out = stream_type()
    write_wrapped(out, "Replayed 3 workloads: 3 finished.\nTime to admission: P50 3ms.")
    assert out.getvalue() == expected
