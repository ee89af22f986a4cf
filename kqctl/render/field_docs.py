"""``kqctl fields`` output: kubectl explain's layout (KIND, VERSION, FIELD, DESCRIPTION, FIELDS), or data."""

from __future__ import annotations

from typing import Any, TextIO

from kqctl.validate.field_docs import FieldDoc

DESCRIPTION_INDENT = "     "  # kubectl explain indents descriptions by five spaces, fields by three
FIELD_INDENT = "   "


def field_data(doc: FieldDoc) -> dict[str, Any]:
    return {"kind": doc.kind, "apiVersion": doc.api_version, "field": doc.path or None, "type": doc.type,
            "description": doc.description or None, "enum": list(doc.enum) or None, "default": doc.default,
            "fields": [{"name": f.name, "type": f.type, "required": f.required, "description": f.description or None}
                       for f in doc.fields]}


def render_field(doc: FieldDoc, fmt: str, out: TextIO) -> None:
    from kqctl.render.console import terminal_width, wrap_text
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, field_data(doc), fmt, rows="fields")
        return
    width = terminal_width(out)
    lines = [f"KIND:     {doc.kind}", f"VERSION:  {doc.api_version}", ""]
    if doc.path:
        lines += [f"FIELD: {doc.path.rsplit('.', 1)[-1]} <{doc.type}>", ""]
    if doc.enum:
        lines += [f"ENUM:     {', '.join(doc.enum)}"]
    if doc.default is not None:
        lines += [f"DEFAULT:  {doc.default}"]
    if doc.enum or doc.default is not None:
        lines.append("")
    lines.append("DESCRIPTION:")
    description = doc.description or ("(kqctl ships no description for this field; kubectl explain has the "
                                      "Kubernetes documentation)")
    lines += wrap_text(description, width, DESCRIPTION_INDENT, DESCRIPTION_INDENT)
    if doc.fields:
        lines += ["", "FIELDS:"]
        for field in doc.fields:
            required = " -required-" if field.required else ""
            lines.append(f"{FIELD_INDENT}{field.name}\t<{field.type}>{required}")
            if field.description:
                lines += wrap_text(field.description, width, DESCRIPTION_INDENT, DESCRIPTION_INDENT)
            lines.append("")
        lines.pop()
    out.write("\n".join(lines) + "\n")
