"""Trial 38: a staff member, a reviewer and an admin at work on policies they wrote and uploaded themselves (travel,
expenses, leave, IT security, in English and Chinese; a helper's session). Each test is a defect it found, asserting
what a user expects; each failed on the code before its fix, but the end-to-end follow-up test, which checks the whole
path on a corpus too small to show the search's loss."""

from __future__ import annotations

import re

import pytest

from rag_app import services
from rag_app.generation.extractive import ExtractiveGenerator
from rag_app.models import Answer
from rag_app.pipeline.answerability import Asked, holds, identifiers
from rag_app.pipeline.assembly import assemble
from rag_app.pipeline.records import ChunkRecord
from rag_app.services.ask import retrieval_text
from tests import factories

TRAVEL = (
    "# Acme Corp Travel and Expense Policy\n\n"
    "## 1. Booking travel\n\n"
    "All business trips must be booked through the Travel Desk portal at least 14 days before departure.\n"
    "Trips abroad require written approval from the employee's department head before booking.\n\n"
    "## 2. Air travel\n\n"
    "Employees fly economy class on flights shorter than 6 hours.\n"
    "For flights of 6 hours or longer, premium economy is allowed; business class requires approval from a Vice "
    "President.\n\n"
    "## 4. Meals and per diem\n\n"
    "The daily meal allowance (per diem) is 60 USD for domestic trips and 85 USD for international trips.\n"
    "Alcohol is never reimbursed.\n"
)
ALLOWANCE = "How much is the daily meal allowance?"


def test_a_chain_of_follow_ups_that_swap_the_subject_keeps_asking_what_the_first_asked():
    """ "那国内呢？" after "and abroad?" after the allowance question was searched with "abroad" alone (the question
    before it) and found nothing; "And what is the timeline?" after "那时间表呢？" lost the plan the thread is about."""
    assert retrieval_text("那国内呢？", (ALLOWANCE, "and abroad?")) == f"那国内呢？\n{ALLOWANCE}"
    assert retrieval_text("And what is the timeline?", ("蓝鳍计划的补偿标准是什么？", "那时间表呢？")).split("\n")[
        1
    ].split() == ["时间", "时间表", "蓝鳍", "计划", "补偿", "标准"]
    # one level only, as before: a follow-up that asks something of its own is searched with the question before it
    assert retrieval_text("Why?", ("What is the refund window?", "Does it apply to gift cards?")) == (
        "Why?\napply gift cards"
    )


@pytest.mark.django_db
def test_a_second_follow_up_that_swaps_the_subject_is_answered_for_what_the_thread_asks(levels, staff_user):
    """ "那国内呢？" after "and abroad?" after "How much is the daily meal allowance?" found nothing: it was searched
    with "abroad" alone. "and abroad?" itself is not answered from the sentence on trips abroad, which states no
    allowance (the per diem's "international trips" is a word the question does not write: no quote is made up)."""
    factories.ingest_text(TRAVEL, source_id="policies/travel", file_name="travel.md", level="official")
    first = services.ask(user=staff_user, question=ALLOWANCE)
    abroad = services.ask(user=staff_user, question="and abroad?", parent=first)
    domestic = services.ask(user=staff_user, question="那国内呢？", parent=abroad)
    for answer in (first, domestic):
        assert answer.state == Answer.State.ANSWERED, (answer.question, answer.reason)
        text = " ".join(p.text for p in answer.paragraphs.all())
        assert "60 USD for domestic trips" in text and "written approval" not in text, (answer.question, text)
    assert "written approval" not in " ".join(p.text for p in abroad.paragraphs.all())


FAQ = (
    "# Travel FAQ (team wiki, 2023)\n\n"
    "Q: How long do I have to hand in my expense report?\n"
    "A: You have two weeks. Reports must be submitted within 14 days after the trip.\n\n"
    "Q: What is the hotel limit?\n"
    "A: The hotel limit is 150 USD per night, everywhere.\n"
)
EXPENSES = (
    "## 3. Hotels\n\n"
    "The hotel limit is 210 USD per night in most cities.\n\n"
    "## 5. Expense reports\n\n"
    "Expense reports must be submitted within 60 days after the trip ends.\n"
    "Receipts are required for every expense above 25 USD.\n"
)


IT_RULES = (
    "# IT Security Rules\n\n## Passwords\n\nPasswords must be at least 14 characters long.\n"
    "Passwords must be changed every 90 days.\n\n## Devices\n\n"
    "Laptops must lock the screen automatically after 5 minutes of inactivity.\n"
    "Lost or stolen devices must be reported to the IT Service Desk within 1 hour.\n"
)
LEAVE = (
    "# Leave policy\n\nEmployees receive 25 days of annual leave per calendar year.\n"
    "Sick leave must be reported to the line manager on the first day of absence.\n\n"
    "Unused leave may be carried over until 31 March of the following year.\n"
)


def _texts(answer: Answer) -> list[str]:
    return [p.text for p in answer.paragraphs.all()]


def test_a_deadline_given_as_a_span_answers_when():
    """ "You have two weeks." answers "When do I need to hand in my expense report?" as "within 60 days" does."""
    for text in ("A: You have two weeks.", "Reports are due 3 working days after the trip.", "7天内提交。"):
        assert holds(Asked.TIME, text), text
    # only a span a deadline gives (the review): not any quantity of time
    for text in (
        "He has two brothers and a sister.",
        "Employees receive 25 days of annual leave per calendar year.",
        "The license is valid for at least three years.",
        "员工每周工作40小时。",
        "统一天然气公司负责供气。",
    ):
        assert not holds(Asked.TIME, text), text


@pytest.mark.django_db
def test_a_stale_faq_that_gives_its_deadline_as_a_span_answers_and_is_quoted_without_its_labels(
    hybrid, levels, staff_user
):
    """ "When do I need to hand in my expense report?": the FAQ's answer ("You have two weeks. … within 14 days") was
    dropped as "the sentences on the question's focus give no time" (the focus window was its question line and "You
    have two weeks."). It answers, and is quoted without its "Q:" and "A:" labels."""
    factories.ingest_text(TRAVEL + "\n" + EXPENSES, source_id="policies/travel", file_name="t.md", level="official")
    factories.ingest_text(FAQ, source_id="wiki/travel-faq", file_name="faq.md", level="note")
    factories.ingest_text(IT_RULES, source_id="policies/it-security", file_name="it.md", level="reviewed")
    factories.ingest_text(LEAVE, source_id="policies/leave", file_name="leave.md", level="official")
    answer = services.ask(user=staff_user, question="When do I need to hand in my expense report?")
    assert answer.state == Answer.State.ANSWERED, answer.reason
    faq = [c for c in answer.trace.candidates if c["source_id"] == "wiki/travel-faq"]
    assert faq and faq[0]["kept"], faq
    # The answer's second sentence is read with its question's words too (session 56), and quoted with the first.
    assert _texts(answer) == [
        "How long do I have to hand in my expense report? You have two weeks. Reports must be submitted within 14 days"
        " after the trip."
    ]
    hotel = services.ask(user=staff_user, question="What is the hotel limit?")
    assert hotel.conflict and _texts(hotel) == [
        "The hotel limit is 210 USD per night in most cities.",
        "The hotel limit is 150 USD per night, everywhere.",
    ]


@pytest.mark.django_db
def test_a_clause_after_a_semicolon_is_quoted_with_its_condition_and_the_answer_comes_first(levels, staff_user):
    """ "Who approves business class?" was answered "Trips abroad require written approval from the employee's
    department head before booking." (the chunk before, in document order) and then "business class requires approval
    from a Vice President." without the condition before its semicolon."""
    factories.ingest_text(TRAVEL, source_id="policies/travel", file_name="travel.md", level="official")
    answer = services.ask(user=staff_user, question="Who approves business class?")
    assert answer.state == Answer.State.ANSWERED, answer.reason
    assert _texts(answer)[0] == (
        "For flights of 6 hours or longer, premium economy is allowed; business class requires approval from a Vice "
        "President."
    )


GPL_6B = (
    "6. Conveying Non-Source Forms.\n\n"
    "You may convey a covered work in object code form under the terms of sections 4 and 5, provided that you also "
    "convey the machine-readable Corresponding Source under the terms of this License, in one of these ways:\n\n"
    "b) Convey the object code in, or embodied in, a physical product, accompanied by a written offer, valid for at "
    "least three years and valid for as long as you offer spare parts or customer support for that product model, to "
    "give anyone who possesses the object code a copy of the Corresponding Source.\n"
)


@pytest.mark.django_db
def test_a_weak_official_passage_read_across_languages_does_not_answer_over_a_strong_reviewed_one(
    hybrid, levels, staff_user
):
    """ "我的密码至少要几位？" (how long must my password be at least?) was answered from GPL 3's "valid for at least
    three years" (official; 密码 rendered as "code", 0.37) over the IT rules' "Passwords must be at least 14 characters
    long" (reviewed, 0.75), which was kept and not quoted: the level put the licence first, whatever the relevance."""
    factories.ingest_text(GPL_6B, source_id="licenses/gpl-3.0", file_name="gpl3.txt", level="official")
    factories.ingest_text(IT_RULES, source_id="policies/it-security", file_name="it.md", level="reviewed")
    factories.ingest_text(LEAVE, source_id="policies/leave", file_name="leave.md", level="official")
    answer = services.ask(user=staff_user, question="我的密码至少要几位？")
    assert answer.state == Answer.State.ANSWERED, answer.reason
    texts = _texts(answer)
    assert texts[0].startswith("Passwords must be at least 14 characters long."), texts
    assert not any("three years" in t for t in texts), texts


LEAVE_ZH = (
    "# 员工休假管理制度\n\n## 一、年假\n\n员工入职满一年后享有带薪年假。\n工作满1年不满10年的，年假为每年5天。\n"
    "工作满10年不满20年的，年假为每年10天。\n工作满20年的，年假为每年15天。\n\n## 二、病假\n\n"
    "病假连续超过2天的，须提交二级以上医院出具的诊断证明。\n"
)


@pytest.mark.django_db
def test_the_askers_own_span_of_time_is_not_a_number_the_policy_must_name(hybrid, levels, staff_user):
    """ "工作12年有几天年假？" was "no answering passage": the policy states the range (满10年不满20年), never 12,
    and every number of a question was read as one its passage must name. A year stays one ("2008年…")."""
    factories.ingest_text(LEAVE_ZH, source_id="policies/leave-zh", file_name="leave.md", level="official")
    factories.ingest_text(IT_RULES, source_id="policies/it-security", file_name="it.md", level="reviewed")
    answer = services.ask(user=staff_user, question="工作12年有几天年假？")
    assert answer.state == Answer.State.ANSWERED, answer.reason
    assert "工作满10年不满20年的，年假为每年10天。" in " ".join(_texts(answer))
    assert identifiers("2008年的时候有几门课？") == ["2008"] and identifiers("a 7 hour flight, GPL 3") == ["3"]
    # an ordinal or a year written short is a number the passage names (the review)
    assert identifiers("怀孕第12周需要做什么检查？") == ["12"] and identifiers("08年版的手册还有效吗？") == ["08"]


def test_a_related_passage_does_not_mention_the_questions_words_not_jiebas_glued_pieces():
    """ "报销单要在出差回来后多少天内交？" told the asker "Does not mention: 单要, 出差, 天内交": 单要 and 天内交
    are pieces jieba's HMM glued (报销单 + 要, 天内 + 交), no words of the question."""
    from rag_app.presentation import _lacks

    asked = {"单要": "单要", "出差": "出差", "天内交": "天内交", "如果": "如果"}
    assert _lacks(["单要", "出差", "天内交"], asked) == ("出差",)


@pytest.mark.django_db
def test_the_candidate_table_names_each_markers_footnote_number_and_a_kept_source_left_uncited(
    hybrid, levels, staff_user, reviewer_user
):
    """The reviewer read S3 in the candidates and [1] in the answer for one passage, and a kept passage that was not
    quoted had nothing to say why it is not in the answer."""
    import re

    from django.test import Client
    from django.urls import reverse

    factories.ingest_text(GPL_6B, source_id="licenses/gpl-3.0", file_name="gpl3.txt", level="official")
    factories.ingest_text(IT_RULES, source_id="policies/it-security", file_name="it.md", level="reviewed")
    factories.ingest_text(LEAVE, source_id="policies/leave", file_name="leave.md", level="official")
    answer = services.ask(user=staff_user, question="我的密码至少要几位？")
    cited = {c.marker for p in answer.paragraphs.all() for c in p.citations.all()}
    kept = [c["marker"] for c in answer.trace.candidates if c.get("kept")]
    assert cited and set(kept) - cited, (kept, cited)
    client = Client()
    client.force_login(reviewer_user)
    html = client.get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    table = html[html.index('class="table candidates"') :]
    for marker in kept:
        row = re.search(rf"<td[^>]*>{marker}(.*?)</tr>", table, re.S)
        assert row, marker
        if marker in cited:
            assert re.search(r"\[\d\]", row.group(1)) and "not cited" not in row.group(1)
        else:
            assert "given to the generator, not cited in the answer" in row.group(1)


@pytest.mark.django_db
def test_an_example_question_asks_about_a_section_not_about_the_documents_own_name(levels, staff_user):
    """The ask page offered "What does “Travel and Expense Policy” say about Acme Corp Travel and Expense Policy?": the
    document's opening heading taken for a topic of it."""
    from rag_app.selectors import example_questions

    factories.ingest_text(TRAVEL, source_id="policies/travel", file_name="travel.md", title="Travel and Expense Policy")
    factories.ingest_text(LEAVE_ZH, source_id="policies/leave-zh", file_name="leave.md")
    assert set(example_questions(user=staff_user)) == {
        "What does “Travel and Expense Policy” say about Booking travel?",
        "《员工休假管理制度》中关于“年假”是怎么说的？",
    }


SHORT_FAQ = "# Travel FAQ\n\nQ: What is the hotel limit?\nA: 150 USD per night, everywhere.\n"
SHORT_FAQ_ZH = "# 差旅常见问题\n\n问：酒店住宿标准是多少？\n答：每晚不超过600元。\n"


@pytest.mark.django_db
@pytest.mark.parametrize("file_name", ["faq.md", "faq.txt"])
@pytest.mark.parametrize(("text", "question", "said"), [
    (SHORT_FAQ, "What is the hotel limit?", "150 USD per night"),
    (SHORT_FAQ_ZH, "酒店住宿标准是多少？", "每晚不超过600元"),
])  # fmt: skip
def test_a_faq_whose_answer_line_is_short_is_answered_by_its_question_and_answer(
    levels, staff_user, file_name, text, question, said
):
    """The review of this session's changes: with its question line never quoted, a FAQ whose answer line does not
    repeat the question's words ("A: 150 USD per night, everywhere.") was "nothing stated"; and in a plain text the
    "Q: …" / "A: …" lines were read as a table's record, so the inner "A:" was quoted."""
    factories.ingest_text(text, source_id="wiki/faq", file_name=file_name, level="note")
    factories.ingest_text(LEAVE, source_id="policies/leave", file_name="leave.md", level="official")
    answer = services.ask(user=staff_user, question=question)
    assert answer.state == Answer.State.ANSWERED, answer.reason
    [quote] = _texts(answer)
    assert said in quote and not any(label in quote for label in ("Q:", "A:", "问：", "答：")), quote


def _generated(texts: list[str], question: str) -> list[str]:
    records, start = [], 0
    for i, text in enumerate(texts):
        records.append(ChunkRecord(chunk_id=f"doc:v1:{i}", source_id="doc", version=1, index=i, text=text,
                                   relevance=0.9 - i / 10, start=start, end=start + len(text)))  # fmt: skip
        start += len(text)
    draft = ExtractiveGenerator().generate(
        question=question, assembly=assemble(records, budget_chars=10_000, per_source=4), language="en"
    )
    return [p.text for p in draft.paragraphs]


def test_a_rating_scales_label_and_a_quoted_question_stay_in_their_sentences():
    """Only a FAQ's labels are left out ("A: exceeds expectations…" of a rating scale is grade A's statement), and a
    statement that ends with a quoted question is a statement."""
    scale = (
        "Performance ratings\n\nA: exceeds expectations in every goal and earns a 10% bonus.\n\nB: meets expectations."
    )
    assert "A: exceeds expectations in every goal" in _generated([scale], "What bonus does rating A earn?")[0]
    asked = (
        'Before booking, every traveller must answer the question "Is this trip necessary?" '
        "Trips must be booked through the Travel Desk portal."
    )
    shown = _generated([asked], "What question must every traveller answer before booking?")
    assert shown[0].startswith("Before booking, every traveller must answer the question"), shown


def test_a_passage_cut_at_a_chunk_boundary_is_never_read_back_to_front():
    """The review: the chunk holding the best sentence was put first even where it goes on from the chunk before it
    (a sentence cut at the boundary; a list after the sentence that introduces it)."""
    cut = ["出差期间的住宿标准如下：一线城市每晚不超过600元，", "其他城市每晚不超过400元。超出部分由员工自理。"]
    assert _generated(cut, "其他城市住宿每晚多少钱？")[0] == cut[0]
    listing = ["The following expenses are never reimbursed:", "\n- alcohol;\n- minibar charges;\n- traffic fines."]
    shown = _generated(listing, "Are traffic fines reimbursed?")
    assert shown[0].startswith("The following expenses are never reimbursed"), shown


@pytest.mark.django_db
def test_a_candidate_cited_only_by_a_withheld_paragraph_is_not_called_uncited(levels):
    """The review: a model answer whose context held hr text withholds its paragraphs from a reviewer outside hr;
    the open passage it cites had no footnote shown and was said to be "not cited in the answer"."""
    from django.urls import reverse

    from tests.test_leaks import OPEN, SECRET
    from tests.views.answers import Para, make_answer
    from tests.views.conftest import client_for

    asker = factories.make_user("asker", groups=("staff", "hr"))
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    factories.make_document(OPEN, source_id="open/canteen.txt")
    factories.make_document("Parking is free for visitors.", source_id="open/parking.txt")
    secret, open_ = factories.chunks_of("hr/pay.txt")[0], factories.chunks_of("open/canteen.txt")[0]
    parking = factories.chunks_of("open/parking.txt")[0]
    candidates = [
        {"chunk_id": c.chunk_id, "source_id": source_id, "kept": True, "marker": marker, "relevance": 0.8}
        for c, source_id, marker in (
            (secret, "hr/pay.txt", "S1"),
            (open_, "open/canteen.txt", "S2"),
            (parking, "open/parking.txt", "S3"),
        )
    ]
    trace = {
        "marker_map": {
            m: {"chunk_id": c["chunk_id"], "source_id": c["source_id"]} for c in candidates for m in [c["marker"]]
        },
        "candidates": candidates,
        "context": f"[S1] {SECRET}\\n[S2] {OPEN}\\n[S3] Parking is free for visitors.",
        "settings_snapshot": {"quoted": False},
    }
    answer = make_answer(user=asker, paragraphs=[Para(OPEN, cites=[("S2", open_)])], mode=Answer.Mode.LLM, trace=trace)
    html = client_for(reviewer).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert SECRET not in html
    table = html[html.index('class="table candidates"') :]
    rows = {m: re.search(rf"<td[^>]*>{m}(.*?)</tr>", table, re.S) for m in ("S2", "S3")}
    assert rows["S2"] and "not cited" not in rows["S2"].group(1), rows["S2"]
    assert rows["S3"] and "given to the generator, not cited in the answer" in rows["S3"].group(1)


def test_glued_reading_leaves_a_name_whole():
    """The review: 张伟峰, a name jieba's dictionary lacks, was read as 张 + 伟 + 峰, so a passage on 张经理 held it
    "as a word" and "does not mention" lost it."""
    from rag_app.pipeline.textproc import glued_pieces
    from rag_app.presentation import _lacks

    assert glued_pieces("张伟峰") == glued_pieces("米泽站") == () and glued_pieces("分算") == ("分", "算")
    assert _lacks(["张伟峰"], {"张伟峰": "张伟峰"}) == ("张伟峰",)


def test_a_weak_passage_read_across_languages_gives_way_only_to_one_that_ranks_with_it_otherwise():
    """The review: the cross-language rule let an expired note, and a document the question does not name, answer
    over the in-force official text the question names."""
    import datetime as dt

    from rag_app.pipeline.tiering import select

    def record(source_id: str, text: str, relevance: float, **kw: object) -> ChunkRecord:
        return ChunkRecord(chunk_id=f"{source_id}:v1:0", source_id=source_id, version=1, index=0, text=text,
                           relevance=relevance, **kw)  # fmt: skip

    official = record("it", "Log-in secrets need 14 characters or more.", 0.45, level="official", level_weight=3,
                      language="en", title="IT Rules")  # fmt: skip
    for note, named in (
        (
            record(
                "old",
                "密码至少要8位。",
                0.8,
                level="note",
                level_weight=1,
                language="zh",
                title="信息安全规定",
                effective_until=dt.date(2020, 1, 1),
            ),
            (),
        ),
        (
            record("faq", "密码至少要8位。", 0.8, level="note", level_weight=1, language="zh", title="信息安全须知"),
            ("IT Rules",),
        ),
    ):
        selection = select([note, official], threshold=0.3, today=dt.date(2026, 12, 6), expired_policy="demote",
                           asked_in="zh", named=named)  # fmt: skip
        assembly = assemble(selection, budget_chars=10_000, per_source=3)
        question = "IT Rules 里密码至少要几位？" if named else "我的密码至少要几位？"
        draft = ExtractiveGenerator().generate(question=question, assembly=assembly, language="zh")
        assert draft.paragraphs[0].text == "Log-in secrets need 14 characters or more.", (note.source_id, draft)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "language", "said"),
    [
        ("level", "secret", "en", "Unknown level 'secret'; known levels: official, reviewed, note."),
        ("level", "secret", "zh-hans", "official, reviewed, note"),
        ("effective_from", "2026-02-30", "en", "There is no such date: 2026-02-30."),
        ("effective_until", "2026-13-01", "en", "There is no such date: 2026-13-01."),
        ("effective_from", "30.02.2026", "en", "Date has wrong format."),
    ],
)
def test_an_upload_with_an_unknown_level_or_no_such_date_is_told_what_is_wrong(levels, field, value, language, said):
    """The second trial: "-F level=secret" was told "Object with slug=secret does not exist." (the CLI lists the
    known levels) and an impossible date in the asked format "Date has wrong format"."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    admin = factories.make_user("adm", groups=("staff", "admin"))
    client = APIClient()
    client.force_authenticate(admin)
    body = {"file": SimpleUploadedFile("a.txt", b"Refunds are paid within 30 days."), field: value}
    response = client.post("/api/v1/documents/?wait=1", body, format="multipart", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400
    message = " ".join(response.json()["fields"][field])
    assert said in message, message
    if language == "zh-hans":
        assert "未知" in message, message
