"""The data formats of ``-o`` every command with ``-o json`` shares: json, yaml, jsonpath=TEMPLATE and
custom-columns=SPEC (kubectl's spellings), applied to the very document ``-o json`` writes.

A command names the collection its rows come from (``rows``: a top-level key of its document, e.g.
``workloads``): custom-columns prints one line per entry of it, and ``--sort-by`` with a JSONPath orders it in
every data format, as kubectl orders a list's items. A collection the document keys by name (a JSON object)
gives each entry its key as ``name`` when the entry has no ``name`` of its own, so ``NAME:.name`` always works.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from kqctl.errors import UsageError

JSONPATH = "jsonpath="
CUSTOM_COLUMNS = "custom-columns="
TEMPLATE_PREFIXES = (JSONPATH, CUSTOM_COLUMNS)


def is_data_format(fmt: str) -> bool:
    return fmt in ("json", "yaml") or fmt.startswith(TEMPLATE_PREFIXES)


def check_output(output: str, formats: Sequence[str]) -> str:
    """``-o`` checked before anything is read: one of ``formats``, or (when ``formats`` has json) a jsonpath or
    custom-columns template that parses. A usage error names the choices."""
    if output in formats:
        return output
    if "json" in formats and output.startswith(TEMPLATE_PREFIXES):
        _template(output)  # a malformed template is a usage error now, not after the inputs are read
        return output
    if output in ("jsonpath", "custom-columns") and "json" in formats:
        raise UsageError(f"-o {output} needs a template: -o {output}=... (e.g. -o jsonpath='{{.cycles}}', "
                         "-o custom-columns=NAME:.name)")
    extra = ", jsonpath=TEMPLATE, custom-columns=SPEC" if "json" in formats else ""
    raise UsageError(f"unknown output format {output!r}; choose one of: {', '.join(formats)}{extra}")


def _template(fmt: str) -> Any:
    from kqctl.render.jsonpath import TemplateError, parse_custom_columns, parse_template

    try:
        if fmt.startswith(JSONPATH):
            return parse_template(fmt[len(JSONPATH):])
        return parse_custom_columns(fmt[len(CUSTOM_COLUMNS):])
    except TemplateError as exc:
        raise UsageError(str(exc)) from None


def entries(collection: Any) -> list[Any]:
    """The entries of a collection as custom-columns rows (see the module's note on names)."""
    if isinstance(collection, dict):
        return [{"name": key, **value} if isinstance(value, dict) and "name" not in value else value
                for key, value in collection.items()]
    if isinstance(collection, list):
        return list(collection)
    return [] if collection is None else [collection]


def sorted_by(data: Any, rows: str | None, sort_by: str | None) -> Any:
    """``data`` with its ``rows`` collection ordered by ``--sort-by``, a JSONPath into its objects as kubectl takes
    it: ``{.a.b}``, ``.a.b``, or relaxed, ``a.b``, so a table's column name that is also a field of the objects
    (``reason``, ``priority``) orders them by that field. A path no object has is a usage error, a column name
    that is no field (``pending-demand``) included: it names the nearest field, never leaves the rows unsorted
    without a word."""
    from kqctl.render.columns import is_jsonpath

    if not sort_by or rows is None or not isinstance(data, dict) or rows not in data:
        return data
    from kqctl.render.jsonpath import TemplateError, relaxed, sort_key_for, unmatched_sort_path

    column = not is_jsonpath(sort_by)
    try:
        key = sort_key_for(sort_by)
    except TemplateError as exc:
        if column:
            raise UsageError(f"--sort-by {sort_by!r}: -o json, yaml and templates sort by a JSONPath into the "
                             f"objects, as kubectl does, and {relaxed(sort_by)} is none (a column's name orders a "
                             "table only)") from None
        raise UsageError(f"--sort-by: {exc}") from None
    collection = data[rows]
    unmatched = unmatched_sort_path(sort_by, entries(collection))
    if unmatched is not None:
        shown = "-o json, yaml and templates sort by a JSONPath into the objects, as kubectl does (a column's name " \
            "orders a table only): " if column else ""
        raise UsageError(f"--sort-by {sort_by!r}: {shown}{unmatched}")
    if isinstance(collection, dict):
        named = entries(collection)
        order = sorted(range(len(named)), key=lambda i: (key(named[i]), i))
        keys = list(collection)
        return {**data, rows: {keys[i]: collection[keys[i]] for i in order}}
    if isinstance(collection, list):
        return {**data, rows: sorted(collection, key=key)}
    return data


def write_data(out: TextIO, data: Any, fmt: str, rows: str | None = None, sort_by: str | None = None,
               headers: bool = True) -> None:
    """``data`` (the -o json document) in ``fmt``: json, yaml, jsonpath=... or custom-columns=...

    ``rows``: the key of the collection custom-columns lists (None: the document itself is the one row, or
    each element when it is a list)."""
    from kqctl.render.structured import dump_json, dump_yaml

    data = sorted_by(data, rows, sort_by)
    if fmt == "json":
        out.write(dump_json(data))
    elif fmt == "yaml":
        out.write(dump_yaml(data))
    elif fmt.startswith(JSONPATH):
        out.write(_template(fmt).render(data))
    elif fmt.startswith(CUSTOM_COLUMNS):
        _write_custom_columns(out, _template(fmt), data, rows, headers)
    else:
        raise ValueError(f"not a data format: {fmt!r}")


def write_manifests(out: TextIO, documents: list[Any], fmt: str, single: bool = True) -> None:
    """Kubernetes objects (convert's output): YAML documents, or in json and templates one object or a ``kind:
    List`` of them (``single``: one object alone, as kubectl prints one object); templates see the List."""
    from kqctl.render.structured import dump_json, dump_yaml_documents

    listed = {"apiVersion": "v1", "kind": "List", "items": documents}
    if fmt == "yaml":
        out.write(dump_yaml_documents(documents))
    elif fmt == "json":
        out.write(dump_json(documents[0] if single and len(documents) == 1 else listed))
    else:
        write_data(out, listed, fmt, rows="items")


def _write_custom_columns(out: TextIO, columns: Any, data: Any, rows: str | None, headers: bool) -> None:
    from kqctl.render.columns import Column, Table, format_lines
    from kqctl.render.jsonpath import custom_column_cell

    if rows is not None and isinstance(data, dict):
        items = entries(data.get(rows))
    else:
        items = data if isinstance(data, list) else [data]
    table = Table([Column(column.header, literal_header=True) for column in columns])
    for item in items:
        table.add([custom_column_cell(column, item) for column in columns], item=item)
    for line in format_lines(table, headers=headers):
        out.write(line + "\n")
