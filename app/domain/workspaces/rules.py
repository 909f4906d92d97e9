"""Workspace input rules, checked before anything is stored (no I/O here): names, file content
(text or base64, exactly one), media types and snapshot labels."""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import CONTENT_TYPE, MAX_TEXT, MAX_UPLOAD, check_text

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
MAX_LABEL = 200
TEXT_TYPE = "text/plain; charset=utf-8"
BINARY_TYPE = "application/octet-stream"


def check_name(value: Any) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise ValidationFailed(
            "name must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or "
            "digit, e.g. research-notes",
            field="name",
        )
    return value


def check_description(fields: dict[str, Any]) -> str | None:
    check_text(fields, "description", limit=MAX_TEXT)
    description: str | None = fields.get("description")
    return description


def check_label(value: Any) -> str | None:
    """A snapshot's optional label, e.g. "before refactor"."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_LABEL:
        raise ValidationFailed(f"label must be 1-{MAX_LABEL} characters", field="label")
    return value.strip()


def content_of(text: Any, content_base64: Any) -> bytes:
    """The file's bytes: `text` as UTF-8, or `content_base64` decoded; exactly one given. An
    empty file is a file."""
    if (text is None) == (content_base64 is None):
        raise ValidationFailed(
            "give the file's content as text or as contentBase64 (exactly one)", field="text"
        )
    if text is not None:
        data = str(text).encode()
    else:
        try:
            data = base64.b64decode(str(content_base64), validate=True)
        except (binascii.Error, ValueError):
            raise ValidationFailed(
                "contentBase64 must be standard base64 (A-Z, a-z, 0-9, '+', '/', '=' padding)",
                field="content_base64",
            ) from None
    if len(data) > MAX_UPLOAD:
        raise ValidationFailed(
            f"a workspace file holds at most {MAX_UPLOAD} bytes, got {len(data)}", field="text"
        )
    return data


def media_type_of(given: Any, path: str, *, text: bool) -> str:
    """The given media type (lower case), else the one its extension names, else plain text
    or bytes as the content was sent."""
    if given is None:
        guessed = mimetypes.guess_type(path, strict=False)[0]
        return guessed or (TEXT_TYPE if text else BINARY_TYPE)
    value = str(given).strip().lower()
    if len(value) > 100 or not CONTENT_TYPE.match(value):
        raise ValidationFailed(
            "mediaType must be a media type like text/markdown or image/png",
            field="media_type",
        )
    return value
