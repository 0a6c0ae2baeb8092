"""`{{ text|lang_attr }}` (the element's ` lang="…"`) and `{{ text|text_lang }}` (the code alone): the language a
document's, a model's or a reader's text is written in. The page's own lang= is the interface language; a Chinese
snippet on the English interface (or an English question on the Chinese one) must say so, or a screen reader reads
it in the wrong voice and the browser sets it in the wrong fonts. The one rule for every template:
`pipeline.textproc.detect_language`, as search reads it.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from rag_app.pipeline.textproc import detect_language, is_traditional

register = template.Library()


@register.filter
def text_lang(text: object) -> str:
    """'zh' or 'en' for text with letters in it, 'zh-Hant' for Chinese in traditional characters (a browser sets
    it in a traditional font, whose glyph shapes differ, not in its default Chinese one); '' for none ("12:30 –
    14:00", a row of figures, "—"), which is in no language of its own."""
    value = str(text or "")
    if not any(ch.isalpha() for ch in value):
        return ""
    language = detect_language(value)
    return "zh-Hant" if language == "zh" and is_traditional(value) else language


@register.filter
def lang_attr(text: object) -> SafeString | str:
    """` lang="zh"` / ` lang="en"` for the element holding `text`; nothing for a text without letters, which then
    reads in the page's language (an empty lang= would declare it unknown). Only the three codes are ever written."""
    code = text_lang(text)
    return format_html(' lang="{}"', code) if code else ""
