"""Input that is not UTF-8 YAML text: named for what it is, located where it goes wrong."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kqctl.errors import InputError
from kqctl.load.documents import decode_text, parse_documents
from tests.support import REPO

NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"


@pytest.mark.parametrize("codec,display", [
    ("utf-16", "UTF-16 (little-endian)"),      # Python writes a little-endian BOM
    ("utf-16-le", "UTF-16 (little-endian)"),
    ("utf-16-be", "UTF-16 (big-endian)"),
    ("utf-32", "UTF-32 (little-endian)"),
    ("utf-32-le", "UTF-32 (little-endian)"),
    ("utf-32-be", "UTF-32 (big-endian)"),
])
def test_utf16_and_utf32_files_are_named_with_the_encoding_kqctl_needs(codec: str, display: str) -> None:
    with pytest.raises(InputError) as raised:
        decode_text(NAMESPACE.encode(codec), "ns.yaml")
    message = str(raised.value)
    assert display in message and "kqctl reads UTF-8" in message and "iconv" in message
    assert "binary" not in message


def test_binary_data_is_still_called_binary() -> None:
    with pytest.raises(InputError, match="binary data"):
        decode_text(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image.png")


def test_control_character_is_located_in_its_own_document_and_line() -> None:
    text = NAMESPACE + "---\n" + NAMESPACE.replace("name: a", 'name: "b\x01"')
    with pytest.raises(InputError) as raised:
        parse_documents(text, "two.yaml")
    error = raised.value
    assert (error.line, error.index) == (9, 1)
    assert "U+0001" in str(error) and "column 11" in str(error)


def test_control_character_column_counts_characters_not_utf8_bytes() -> None:
    text = 'a: "é"\nb: "\x02"\n'
    with pytest.raises(InputError) as raised:
        parse_documents(text, "t.yaml")
    assert raised.value.line == 2 and "column 5" in str(raised.value)


def test_control_character_in_a_stream_opened_with_a_document_marker() -> None:
    text = "---\na: 1\n---\nb: 2\n---\nc: \"\x03\"\n"
    with pytest.raises(InputError) as raised:
        parse_documents(text, "t.yaml")
    assert (raised.value.line, raised.value.index) == (6, 2)


def test_closed_stdin_is_an_input_error_not_a_crash() -> None:
    # A real process: "<&-" leaves Python without sys.stdin, which no in-process runner can fake.
    proc = subprocess.run([sys.executable, "-m", "kqctl", "validate", "-"], stdin=subprocess.DEVNULL,
                          capture_output=True, cwd=REPO, timeout=120,
                          preexec_fn=lambda: __import__("os").close(0))
    assert proc.returncode == 3, proc.stderr
    assert b"stdin is closed" in proc.stderr + proc.stdout
    assert b"internal error" not in proc.stderr
