"""`{{ text|text_lang }}`: the language a document's, a model's or a reader's text is written in, for its element's
lang= attribute. The page's own lang= is the interface language; a Chinese snippet on the English interface (or an
English question on the Chinese one) must say so, or a screen reader reads it in the wrong voice and the browser
sets it in the wrong fonts. The one rule for every template: `pipeline.textproc.detect_language`, as search reads it.
"""

from __future__ import annotations

from django import template

from rag_app.pipeline.textproc import detect_language

register = template.Library()


@register.filter
def text_lang(text: object) -> str:
    """'zh' or 'en' for text with letters in it; '' (language unknown) for none."""
    value = str(text or "")
    return detect_language(value) if value.strip() else ""
