"""Chinese, Japanese and Korean names written without a space (family name first)."""

from __future__ import annotations

from typing import Final

from aletheia.core.records import Author

__all__ = ["has_cjk", "split_cjk"]


def _is_cjk_char(char: str) -> bool:
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= code <= 0x4DBF  # extension A
        or 0x20000 <= code <= 0x2EBEF  # extensions B-F
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
        or 0x3040 <= code <= 0x30FF  # hiragana, katakana
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0x1100 <= code <= 0x11FF  # Hangul jamo
    )


def has_cjk(text: str) -> bool:
    """Whether a text has a Chinese, Japanese or Korean character."""
    return any(_is_cjk_char(char) for char in text)


def _has_kana(text: str) -> bool:
    return any(0x3040 <= ord(char) <= 0x30FF for char in text)


def _is_hangul(text: str) -> bool:
    return all(0xAC00 <= ord(char) <= 0xD7AF for char in text)


# Two-character Chinese and Korean surnames; anything else written without a space is split after
# its first character.
_COMPOUND_CJK_SURNAMES: Final = frozenset(
    {
        *("欧阳", "歐陽", "司马", "司馬", "上官", "诸葛", "諸葛", "东方", "東方", "皇甫", "尉迟"),
        *("尉遲", "公孙", "公孫", "慕容", "令狐", "夏侯", "长孙", "長孫", "宇文", "司徒", "端木"),
        *("南宫", "南宮", "西门", "西門", "独孤", "獨孤", "남궁", "선우", "제갈", "황보", "독고"),
    }
)


def split_cjk(token: str) -> Author:
    """A CJK name written without a space: family name first."""
    if _has_kana(token) or len(token) < 2:
        return Author(literal=token)  # Japanese: where the family name ends is not written
    if token[:2] in _COMPOUND_CJK_SURNAMES and len(token) >= 3:
        return Author(family=token[:2], given=token[2:])
    if len(token) <= 3 or (_is_hangul(token) and len(token) <= 4):
        return Author(family=token[:1], given=token[1:])
    return Author(literal=token)
