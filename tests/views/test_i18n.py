"""English and Simplified Chinese, chosen by the browser or the language switch."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse

from rag_app.models import Answer
from tests import factories
from tests.views.answers import Para, make_answer
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}


def test_the_browser_language_picks_chinese(staff_user):
    """A Chinese Accept-Language gets the Chinese UI (from the committed .mo, no gettext needed)."""
    html = client_for(staff_user).get(reverse("ask"), **ZH).content.decode()
    assert '<html lang="zh-hans">' in html
    assert "就文档内容提问" in html


def test_the_no_evidence_panel_is_translated(staff_user):
    """The no-evidence panel, with what to do next, reads in Chinese."""
    answer = make_answer(user=staff_user, state=Answer.State.NO_EVIDENCE, question="月亮是什么做的？")
    html = client_for(staff_user).get(answer.get_absolute_url(), **ZH).content.decode()
    assert "没有找到相关内容" in html and "换一种说法提问" in html and "咨询审阅人" in html
    assert "我们在您有权访问的文档中搜索了“月亮是什么做的？”。" in html


def test_the_badges_are_translated(staff_user, levels):
    """Insufficient-evidence badge, weak-support mark, similarity and location labels in Chinese."""
    doc = factories.make_document("退款在三十天内支付。", source_id="zh-doc", title="退款政策")
    chunk = factories.chunks_of(doc)[0]
    answer = make_answer(
        user=staff_user,
        paragraphs=[
            Para("退款在三十天内支付。", cites=[("S1", chunk)], weak=True),
            Para("礼品卡不退。", insufficient=True),
        ],
    )
    html = client_for(staff_user).get(answer.get_absolute_url(), **ZH).content.decode()
    assert "证据不足" in html and "支持较弱" in html and "相似度" in html and "未提供位置" in html


def test_the_language_switch_sets_the_cookie(staff_user):
    """Posting the language form switches the UI to Chinese for the next pages."""
    client = client_for(staff_user)
    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": reverse("ask")})
    assert response.status_code == 302
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    assert "就文档内容提问" in client.get(reverse("ask")).content.decode()


def test_english_stays_the_default(staff_user):
    """Without a preference the UI is English."""
    html = client_for(staff_user).get(reverse("ask")).content.decode()
    assert '<html lang="en">' in html and "Ask a question about the documents" in html


def test_every_ui_string_has_a_compiled_chinese_translation():
    """The committed .mo holds a translation for every msgid of the .po (none missing, none fuzzy)."""
    import gettext
    import re
    from pathlib import Path

    folder = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES"
    po = (folder / "django.po").read_text(encoding="utf-8")
    msgids = len(re.findall(r"^msgid ", po, flags=re.M)) - 1  # minus the header entry
    with (folder / "django.mo").open("rb") as mo:
        catalog = gettext.GNUTranslations(mo)._catalog  # type: ignore[attr-defined]
    translated = {key if isinstance(key, str) else key[0] for key, text in catalog.items() if text} - {""}
    assert "#, fuzzy" not in po
    assert len(translated) == msgids
