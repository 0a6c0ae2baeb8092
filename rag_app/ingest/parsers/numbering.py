"""List numbers as documents show them: a number in the formats Word writes (w:numFmt) and HTML's list types use.
One table for every parser that writes a list item's number (word.py, html.py)."""

from __future__ import annotations

from collections.abc import Callable

import cn2an


def _letters(number: int) -> str:
    """1 -> a, 26 -> z, 27 -> aa; a number under 1 as a number."""
    out = ""
    while number > 0:
        number, rest = divmod(number - 1, 26)
        out = chr(ord("a") + rest) + out
    return out or str(number)


def _roman(number: int) -> str:
    """1 -> i, 14 -> xiv (1..3999); other numbers as numbers."""
    if not 0 < number < 4000:
        return str(number)
    out = ""
    for value, letters in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                           (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):  # fmt: skip
        count, number = divmod(number, value)
        out += letters * count
    return out


def _chinese(number: int) -> str:
    return str(cn2an.an2cn(number)) if number > 0 else str(number)


# Word's number formats (w:numFmt) as it writes them; a format not here (a bullet, "none", a picture) adds no number.
FORMATS: dict[str, Callable[[int], str]] = {
    "decimal": str,
    "decimalZero": lambda n: f"{n:02d}",
    "decimalFullWidth": lambda n: str(n).translate({ord(d): 0xFF10 + int(d) for d in "0123456789"}),
    "lowerLetter": _letters,
    "upperLetter": lambda n: _letters(n).upper(),
    "lowerRoman": _roman,
    "upperRoman": lambda n: _roman(n).upper(),
    "chineseCounting": _chinese,
    "chineseCountingThousand": _chinese,
    "chineseLegalSimplified": lambda n: str(cn2an.an2cn(n, "up")) if n > 0 else str(n),
    "ideographTraditional": lambda n: "甲乙丙丁戊己庚辛壬癸"[n - 1] if 0 < n <= 10 else str(n),
    "japaneseCounting": _chinese,
    "taiwaneseCounting": _chinese,
}
# HTML's list types (<ol type="a">) in Word's names.
HTML_TYPES = {"1": "decimal", "a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman", "I": "upperRoman"}
