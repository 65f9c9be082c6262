"""Schema drift on demand (`SourceSimConfig.renamed_keys`): an answer's JSON keys, or its XML
element names, renamed wherever they occur, so the nightly contract check can be shown a source
whose answer changed shape (issue 29)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["renamed"]


def _rename(value: Any, names: Mapping[str, str]) -> Any:
    if isinstance(value, dict):
        return {names.get(key, key): _rename(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_rename(item, names) for item in value]
    return value


def renamed(body: bytes, content_type: str, names: Mapping[str, str]) -> bytes:
    """`body` with the keys (JSON) or element names (XML) in `names` renamed; other bodies as they are."""
    if "json" in content_type:
        return json.dumps(_rename(json.loads(body), names), ensure_ascii=False).encode("utf-8")
    if "xml" in content_type:
        text = body.decode("utf-8")
        for old, new in names.items():
            # An element's name, with or without a namespace prefix, in its opening and closing tags.
            text = re.sub(rf"(</?(?:[\w.-]+:)?){re.escape(old)}(?=[\s/>])", rf"\g<1>{new}", text)
        return text.encode("utf-8")
    return body
