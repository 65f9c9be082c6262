"""The sources' answer shapes, recorded and compared (seed 000 §10.4, the nightly contract check).

A shape is what a payload's structure is, without its values: a JSON object is a dict of its keys'
shapes, an array a one-element list of its items' shape (merged over the items; `[]` when empty),
a scalar one of `"string"`, `"number"`, `"boolean"`, `"null"` (`"any"` matches everything). An
XML answer (arXiv's Atom, PubMed's efetch) is read the same way: an element is a dict of its
children by local name, each a list (XML says nothing of how many), its attributes as `"@name"`
and text beside children as `"#text"`; an element with text alone is `"string"`.

`compare_shapes(recorded, current)` reports what a parser would trip over: a recorded key that is
gone (`missing_key`), a value of another type (`type_changed`; `null` where a value was recorded is
not one: fields are optional). A key the answer has and the recording does not is `new_key`,
listed but not drift. The recorded shapes (`data/api_contracts.json`) hold the keys the parsers
read, written by hand from real answers; the check is `aletheia.pipeline.contracts`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Final, Literal

from aletheia.sources.safe_xml import parse_untrusted_xml

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

__all__ = [
    "SHAPES_FILE",
    "ShapeDifference",
    "compare_shapes",
    "json_shape",
    "load_contracts",
    "merge_shapes",
    "xml_shape",
]

SHAPES_FILE: Final = "api_contracts.json"
DifferenceKind = Literal["missing_key", "type_changed", "new_key"]


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"


def merge_shapes(first: Any, second: Any) -> Any:
    """One shape covering both (the items of one array): keys united, `null` giving way to a type,
    two different types becoming `"any"`."""
    if first == "null" or first is None:
        return second
    if second == "null" or second is None:
        return first
    if isinstance(first, dict) and isinstance(second, dict):
        merged = dict(first)
        for key, shape in second.items():
            merged[key] = merge_shapes(merged[key], shape) if key in merged else shape
        return merged
    if isinstance(first, list) and isinstance(second, list):
        if not first or not second:
            return first or second
        return [merge_shapes(first[0], second[0])]
    return first if first == second else "any"


def json_shape(value: Any) -> Any:
    """The shape of a JSON value (see the module docstring)."""
    if isinstance(value, dict):
        return {str(key): json_shape(item) for key, item in value.items()}
    if isinstance(value, list):
        item: Any = None
        for element in value:
            item = merge_shapes(item, json_shape(element))
        return [] if item is None else [item]
    return _scalar(value)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _element_shape(element: ET.Element) -> Any:
    children: dict[str, Any] = {f"@{_local(name)}": "string" for name in element.attrib}
    for child in element:
        name = _local(child.tag)
        shape = [_element_shape(child)]
        children[name] = merge_shapes(children[name], shape) if name in children else shape
    text = (element.text or "").strip()
    if not children:
        return "string" if text else "null"
    if text:
        children["#text"] = "string"
    return children


def xml_shape(text: str) -> Any:
    """The shape of an XML document's root element (see the module docstring). Parsed as the
    sources' clients parse it (`safe_xml`: no entity declaration, no internal DTD subset; a
    `SourceParseError` otherwise)."""
    return _element_shape(parse_untrusted_xml(text, source="contract check", allow_doctype=True))


@dataclass(frozen=True)
class ShapeDifference:
    kind: DifferenceKind
    path: str  # `message.author[].family`
    recorded: str | None
    current: str | None

    @property
    def drift(self) -> bool:
        return self.kind != "new_key"

    def describe(self) -> str:
        if self.kind == "missing_key":
            return f"{self.path}: missing (recorded as {self.recorded})"
        if self.kind == "new_key":
            return f"{self.path}: new key ({self.current})"
        return f"{self.path}: was {self.recorded}, now {self.current}"


def _kind_of(shape: Any) -> str:
    if isinstance(shape, dict):
        return "object"
    if isinstance(shape, list):
        return "array"
    return str(shape)


def compare_shapes(recorded: Any, current: Any, path: str = "") -> list[ShapeDifference]:
    """What changed from `recorded` to `current` (see the module docstring), in key order."""
    if recorded in ("any", "null") or current == "null":
        return []
    if recorded == "string" and isinstance(current, dict) and "#text" in current:
        return []  # XML text that now holds markup (`<i>`, `<sup>`) is still text
    here = path or "(root)"
    if isinstance(recorded, dict):
        if not isinstance(current, dict):
            return [ShapeDifference("type_changed", here, "object", _kind_of(current))]
        found: list[ShapeDifference] = []
        for key, shape in recorded.items():
            where = f"{path}.{key}" if path else key
            if key not in current:
                found.append(ShapeDifference("missing_key", where, _kind_of(shape), None))
            else:
                found.extend(compare_shapes(shape, current[key], where))
        for key in sorted(current.keys() - recorded.keys()):
            where = f"{path}.{key}" if path else key
            found.append(ShapeDifference("new_key", where, None, _kind_of(current[key])))
        return found
    if isinstance(recorded, list):
        if not isinstance(current, list):
            return [ShapeDifference("type_changed", here, "array", _kind_of(current))]
        if not recorded or not current:
            return []  # an empty array says nothing of its items
        return compare_shapes(recorded[0], current[0], f"{path}[]")
    if isinstance(current, dict | list) or current not in (recorded, "any"):
        return [ShapeDifference("type_changed", here, str(recorded), _kind_of(current))]
    return []


def load_contracts() -> dict[str, Any]:
    """The recorded contracts: per source, the query the nightly check sends and the answer's shape."""
    text = (resources.files("aletheia.sources") / "data" / SHAPES_FILE).read_text(encoding="utf-8")
    contracts: dict[str, Any] = json.loads(text)["sources"]
    return contracts
