"""An outdated note answering alone is judged beside the official rule the embedder puts as near the question.

"病假工资咋算的" (how is sick pay worked out?) asks in the words of a 2021 FAQ note ("Q9：病假工资怎么算？
A：病假期间按基本工资的70%发放。"), which qualifies; the official leave rule says it in its own words
("每年度累计病假在5天以内的，工资全额发放；超过5天的部分，按本人基本工资的80%发放") and scores under the bar. The
embedder, which reads the whole question, puts the rule's passage as near as the note's (tiering.outranking), so it is
judged beside it by the answerability check and, answering, cited first by its level. Asked through the real pipeline
with the embedder on (`hybrid`).
"""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer
from tests.factories import ingest_text

FAQ = """# 人事行政部内部FAQ（整理于2021年，仅供参考）

Q1：每天几点上班？
A：上海、深圳统一上午9:00上班，下午18:00下班。

Q3：迟到会扣钱吗？
A：每月迟到3次以内不扣，超出的每次扣30元。

Q4：年假有几天？
A：入职满一年的员工年假5天，没休完的可以顺延到次年6月30日。

Q6：餐补多少钱？
A：每个工作日餐补20元，随工资发放。

Q9：病假工资怎么算？
A：病假期间按基本工资的70%发放。

Q11：婚假有几天？
A：婚假一共3天，需要在OA里上传结婚证。
"""

LEAVE = """# 请假管理办法

（人力资源部发布，2024年1月1日起施行）

一、适用范围
本办法适用于公司全体正式员工。试用期员工除病假、丧假外，其他假期转正后方可享受。

三、带薪年休假
（一）员工累计工作已满1年不满10年的，年休假5天；已满10年不满20年的，年休假10天；已满20年的，年休假15天。
（三）年休假当年度未休完的，可顺延至次年3月31日前使用，逾期未休的视为自动放弃，不予折算工资。

四、病假
（一）员工因病休假须提供二级及以上医院出具的诊断证明及病假建议书，1天以内的病假可凭挂号单或门诊病历。
（二）每年度累计病假在5天以内的，工资全额发放；超过5天的部分，按本人基本工资的80%发放，且不低于上海市最低工资标准的80%。

六、婚假
员工依法办理结婚登记的，享受婚假10天（含法定婚假3天及上海市延长婚假7天），须在结婚登记之日起1年内一次性休完。
"""


@pytest.fixture
def documents(levels) -> None:
    ingest_text(FAQ, source_id="hr/faq-2021", file_name="faq.md", title="人事行政部内部FAQ", level="note")
    ingest_text(LEAVE, source_id="hr/leave", file_name="leave.md", title="请假管理办法", level="official")


@pytest.mark.django_db
def test_the_official_rule_is_cited_beside_the_note_that_asks_in_the_question_s_words(
    hybrid, documents, staff_user
) -> None:
    answer = services.ask(user=staff_user, question="病假工资咋算的")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    paragraphs = list(answer.paragraphs.all())
    cited = [c.chunk.version.document.source_id for p in paragraphs for c in p.citations.all()]
    assert cited[:1] == ["hr/leave"], cited
    assert "80%" in paragraphs[0].text
    rule = next(c for c in answer.trace.candidates if c["chunk_id"].startswith("hr/leave") and c.get("kept"))
    assert rule["facts"]["code"] == "beside", rule
    assert rule["facts"]["lower"].startswith("hr/faq-2021") and rule["facts"]["level"] == "note", rule
    assert rule["facts"]["relevance"] < rule["facts"]["bar"]
    assert rule["facts"]["cosine"] >= rule["facts"]["lower_cosine"]
