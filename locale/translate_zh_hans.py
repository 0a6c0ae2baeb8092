"""Fill locale/zh_Hans/LC_MESSAGES/django.po from the table below, then compile it.

Run after `manage.py makemessages -l zh_Hans ...`: `python locale/translate_zh_hans.py`.
The compiled .mo is committed, so no gettext is needed at run time.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

PO = Path(__file__).parent / "zh_Hans" / "LC_MESSAGES" / "django.po"

ZH: dict[str, str | list[str]] = {
    "File": "文件",
    "txt, md, html or pdf": "txt、md、html 或 pdf",
    "Stable id; defaults to the file name.": "稳定的标识；默认为文件名。",
    "URL": "网址",
    "Access groups": "可访问的用户组",
    "None = all staff.": "不选 = 所有员工可见。",
    "Effective from": "生效日期",
    "Effective until": "失效日期",
    "The file is %(size)s bytes; the limit is %(limit)s bytes.": "文件大小为 %(size)s 字节，上限为 %(limit)s 字节。",
    "Add a document": "添加文档",
    (
        "The same content again changes nothing; changed content becomes a new version, "
        "and answers that cited the old one keep showing it."
    ): "内容相同则不作任何改动；内容变化则生成新版本，引用旧版本的回答仍显示旧版本。",
    "Add": "添加",
    "Question": "问题",
    "any": "全部",
    "has insufficient paragraphs": "有证据不足的段落",
    "has weak support": "有支持较弱的段落",
    "flagged as conflicting": "标记为来源冲突",
    "State": "状态",
    "Flag": "标记",
    "User": "用户",
    "Document (source id)": "文档（来源 ID）",
    "From": "从",
    "To": "到",
    "Slug": "标识",
    "Label": "名称",
    "Weight": "权重",
    "Description": "说明",
    "Documents": "文档",
    "Level": "等级",
    "(no level)": "（无等级）",
    "Level created.": "等级已创建。",
    "The server could not complete this request. Nothing was changed on this page; try again in a moment.": (
        "服务器未能完成此请求。本页未作任何改动，请稍后重试。"
    ),
    "The server could not be reached. Check the connection and try again.": "无法连接服务器。请检查网络连接后重试。",
    "Your session has changed (you signed in again elsewhere, or it expired). Reload the page and try again.": (
        "您的会话已变更（在别处重新登录，或已过期）。请刷新页面后重试。"
    ),
    "Too many requests in a short time. Wait a moment and try again.": "短时间内请求过多。请稍候再试。",
    "Close": "关闭",
    "The question must be text.": "问题必须是文本。",
    "The question is empty.": "问题为空。",
    "The question contains control or non-text characters.": "问题含有控制字符或非文本字符。",
    "The question contains bidirectional override characters.": "问题含有双向覆盖字符。",
    "The question is %(n)s characters long; the limit is %(limit)s.": "问题长 %(n)s 个字符，上限为 %(limit)s 个字符。",
    "%(file)s: %(problem)s": "%(file)s：%(problem)s",
    "Invalid token.": "认证令牌无效。",  # DRF's own words for an unknown key
    (
        "Two files are named %(file)s: the second would replace the first as a new version of one document."
        " Upload them separately, each with its own source_id."
    ): (
        "有两个文件都名为 %(file)s：后一个会作为同一文档的新版本替换前一个。"
        "请分开上传，并为每个文件指定各自的 source_id。"
    ),
    "Level saved.": "等级已保存。",
    "Nothing changed.": "没有变化。",
    "%(n)d document changed.": ["已修改 %(n)d 个文档。"],
    "Document assistant": "文档助手",
    "Main": "主导航",
    "Ask": "提问",
    "My questions": "我的提问",
    "Review": "审阅",
    "Source levels": "来源等级",
    "Language": "语言",
    "Switch": "切换",
    "Log out": "退出登录",
    "The answer could not be produced": "无法生成回答",
    "Something went wrong while answering this question. Please try again in a moment; "
    "if it keeps happening, tell a reviewer.": "回答此问题时出错。请稍后重试；如果问题持续出现，请告知审阅人。",
    "Reason code": "原因代码",
    "No evidence found": "未找到证据",
    "We searched the documents you can access for “%(q)s”.": "我们在您有权访问的文档中搜索了“%(q)s”。",
    "Nothing we found qualified as evidence, so no answer was written: an answer without sources "
    "would only be a guess.": "找到的内容都不足以作为证据，因此没有生成回答：没有来源的回答只是猜测。",
    "What you can do": "您可以",
    "Rephrase the question, more specifically or more simply.": "换一种说法提问，更具体或更简单一些。",
    "Try other terms: the words the documents themselves would use (names, codes, titles).": (
        "换用其他词语：使用文档本身会用的说法（名称、编号、标题）。"
    ),
    "Ask a reviewer: the answer may be in a document that is not indexed yet or not shared with you.": (
        "咨询审阅人：答案可能在尚未索引或未向您开放的文档中。"
    ),
    "Sources disagree": "来源说法不一致",
    "These sources say different things; each statement below is cited and the answer is flagged "
    "for review:": "以下来源的说法不同；下面每条陈述都注明了出处，此回答已标记待审阅：",
    "Quoted from the documents (extractive answer): the passages below are verbatim quotations, "
    "not a summary.": "摘自文档（抽取式回答）：以下段落是原文引用，不是总结。",
    "similarity": "相似度",
    "no location provided": "未提供位置",
    "version %(v)s": "第 %(v)s 版",
    "a newer version exists": "已有更新版本",
    "Open in the document": "在文档中打开",
    "insufficient evidence": "证据不足",
    "The cited passage only partly supports this paragraph.": "引用的段落只部分支持这一段。",
    "weak support": "支持较弱",
    "Sources": "来源",
    "source level (trust), set by admins": "来源等级（可信度），由管理员设置",
    "no level": "无等级",
    "Pages": "分页",
    "previous": "上一页",
    "page %(n)s of %(total)s": "第 %(n)s 页，共 %(total)s 页",
    "next": "下一页",
    "answered": "已回答",
    "no evidence": "无证据",
    "error": "出错",
    "Something went wrong while answering. Please try again in a moment; if it keeps happening, "
    "tell a reviewer.": "回答时出错。请稍后重试；如果问题持续出现，请告知审阅人。",
    "Your questions": "您的提问",
    "All my questions": "我的全部提问",
    "You have not asked anything yet.": "您还没有提过问题。",
    "Ask a question about the documents": "就文档内容提问",
    "Searching the documents and writing the answer…": "正在检索文档并撰写回答…",
    "effective": "有效期",
    "original": "原文",
    "You are reading version %(v)s. A newer version (%(nv)s) exists; answers keep pointing at the "
    "version they cited.": "您正在阅读第 %(v)s 版。已有更新的第 %(nv)s 版；回答仍指向其引用的版本。",
    "Read the newest version": "阅读最新版本",
    "chunk %(i)s": "片段 %(i)s",
    "p. %(p)s": "第 %(p)s 页",
    "cited": "被引用",
    "Versions": "版本",
    "version %(n)s": "第 %(n)s 版",
    "current": "当前",
    "Title": "标题",
    "Source id": "来源 ID",
    "No documents are shared with you yet.": "目前没有向您开放的文档。",
    "Asked": "提问时间",
    "Levels express how far a source is trusted. Among sources above the relevance threshold, a higher "
    "weight ranks first. Every change is recorded below.": (
        "等级表示来源的可信程度。在超过相关度阈值的来源中，权重越高排序越靠前。每次修改都记录在下方。"
    ),
    "Levels": "等级",
    "Save": "保存",
    "New level": "新建等级",
    "Create": "创建",
    "Document levels": "文档等级",
    "Find": "查找",
    "Search": "搜索",
    "Select": "选择",
    "Document": "文档",
    "No documents.": "没有文档。",
    "Set the selected documents to": "将所选文档设为",
    "Change level": "修改等级",
    "Change log": "修改记录",
    "When": "时间",
    "Who": "操作人",
    "What": "内容",
    "No changes yet.": "尚无修改。",
    "Provenance": "溯源",
    "The replay could not run: retrieval failed. See the server log.": "无法重放：检索失败。请查看服务器日志。",
    "Retrieved now for the same question, with your permissions.": "按您的权限，对同一问题现在检索到的结果。",
    "Threshold": "阈值",
    "Chunk": "片段",
    "Relevance": "相关度",
    "Now": "现在",
    "Used then": "当时是否使用",
    "superseded version": "旧版本",
    "kept": "保留",
    "rejected": "排除",
    "yes": "是",
    "no": "否",
    "Nothing is retrieved for this question now.": "现在检索不到与此问题相关的内容。",
    "Asked by": "提问人",
    "Asked at": "提问时间",
    "Mode": "模式",
    "Message": "消息",
    "Timings": "耗时",
    "Answer as shown": "展示给用户的回答",
    "Retrieval candidates": "检索候选",
    "%(n)s candidate from a document you cannot access is not shown.": ["有 %(n)s 个来自您无权访问文档的候选未显示。"],
    "Marker": "标记",
    "Lexical": "词法分数",
    "Dense": "向量分数",
    "Standout": "领先加分",
    "Another source disagrees (quoted from it, not written by the model):": (
        "另一来源与此不一致（引自该来源，非模型撰写）："
    ),
    "Question words": "问题用词",
    "Does not mention": "未提及",
    "None of the related passages mentions %(words)s.": "以上相关段落都没有提到：%(words)s。",
    "the question's words this chunk holds, and how; then those it lacks": (
        "本片段包含问题中的哪些词、以何种方式包含；其后是缺少的词"
    ),
    "not held": "未包含",
    "the relevance, and the bar this chunk had to reach: the threshold's share for its language and the question's": (
        "相关度，以及本片段须达到的门槛：按其语言和问题语言所取的阈值比例"
    ),
    "English passages need a share of it; each candidate shows the bar it had to reach": (
        "英文段落只需其中一定比例；每个候选都标出了它须达到的门槛"
    ),
    "not recorded": "未记录",
    "synonym": "同义词",
    "name in pinyin": "拼音人名地名",
    "dateline": "文档日期行",
    "translation": "翻译",
    "part of the relevance added because this document leads every other candidate document": (
        "因该文档明显领先其他候选文档而增加的相关度部分"
    ),
    "Decision": "决定",
    "No candidates were recorded.": "没有记录候选。",
    "What the model saw": "模型看到的内容",
    "The context, prompt and raw output are withheld: they quote documents you cannot access.": (
        "上下文、提示词和原始输出未显示：其中引用了您无权访问的文档。"
    ),
    "Context": "上下文",
    "Prompt": "提示词",
    "Raw model output": "模型原始输出",
    "Dropped markers": "丢弃的标记",
    "none": "无",
    "Error": "错误",
    "No trace was recorded for this answer.": "此回答没有记录追踪信息。",
    "Replay": "重放",
    "Run retrieval again for the same question against the current index and compare with what was used.": (
        "用当前索引对同一问题重新检索，并与当时使用的结果对比。"
    ),
    "Replay retrieval": "重放检索",
    "Retrieving…": "检索中…",
    "%(n)s answer": ["%(n)s 个回答"],
    "Flags": "标记",
    "conflict": "冲突",
    "Answers to review": "待审阅的回答",
    "Filter": "筛选",
    "Log in": "登录",
    "Your username and password didn't match. Please try again.": "用户名或密码不正确，请重试。",
    "Username": "用户名",
    "Password": "密码",
    "Search terms": "检索词",
    "Some passages matched, but none was relevant enough to answer from.": "有段落匹配，但没有一段相关到足以据此回答。",
    "Passages were found, but none of what they say answers the question.": (
        "找到了段落，但其中的内容都不能回答这个问题。"
    ),
    "The documents discuss this topic, but none of the passages found states what was asked.": (
        "文档涉及这一主题，但找到的段落都没有说明所问的内容。"
    ),
    "No document matched the terms of the question.": "没有文档与问题中的词语匹配。",
    "There are no documents you may search yet.": "目前还没有您可以检索的文档。",
    "The matching passages have no source id, so they cannot be cited.": "匹配的段落没有来源 ID，因此无法引用。",
    "%(n)s more row": ["另外 %(n)s 行"],
    "This paragraph rests on a document you cannot access.": "这一段依据的是您无权访问的文档。",
    "— choose a level —": "— 请选择级别 —",
    "Choose the level to set.": "请选择要设置的级别。",
    (
        "Chosen groups replace the document's current ones; none chosen keeps them"
        " (a new document is then open to all staff)."
    ): "所选用户组将替换文档当前的用户组；不选则保持不变（新文档则对所有员工可见）。",
    "Open to all staff (remove every access group)": "对所有员工开放（移除全部访问用户组）",
    "— keep the current level (none for a new document) —": "— 保持当前级别（新文档则无级别）—",
    "Choose groups or open the document to all staff, not both.": "请选择用户组或对所有员工开放，二者只能选其一。",
    "Too many questions in a short time; try again in %(s)d seconds.": "短时间内提问过多，请 %(s)d 秒后再试。",
    "chunks %(first)s–%(last)s of %(all)s (page %(n)s of %(total)s)": (
        "第 %(first)s–%(last)s 段，共 %(all)s 段（第 %(n)s 页，共 %(total)s 页）"
    ),
    "staff": "员工",
    "reviewer": "审阅人",
    "admin": "管理员",
    "Access denied": "无权访问",
    "You cannot open this page": "您无法打开此页面",
    "You are signed in as %(name)s, but this page needs the %(role)s role.": (
        "您当前以 %(name)s 身份登录，但此页面需要“%(role)s”角色。"
    ),
    "Ask an administrator to give your account that role, or log in as someone who has it.": (
        "请联系管理员为您的账户授予该角色，或以拥有该角色的账户登录。"
    ),
    "You are signed in as %(name)s, but your account may not open this page.": (
        "您当前以 %(name)s 身份登录，但您的账户无权打开此页面。"
    ),
    "Ask an administrator for access, or log in as someone who has it.": (
        "请联系管理员开通权限，或以有权访问的账户登录。"
    ),
    "Log in with an account that may open this page.": "请使用有权打开此页面的账户登录。",
    "Go to the ask page": "前往提问页面",
    "Back to the previous page": "返回上一页",
    "Log in as someone else": "以其他账户登录",
    "Page not found": "页面不存在",
    (
        "There is nothing at this address, or it is not open to your account. "
        "Check the link, or go on from one of the pages below."
    ): "此地址没有内容，或您的账户无权查看。请检查链接，或从下面的页面继续。",
    "Server error": "服务器错误",
    "Something went wrong": "出了点问题",
    (
        "The server could not finish this request. The error has been logged; "
        "try again in a moment, and tell an administrator if it keeps happening."
    ): "服务器未能完成此请求。错误已记录；请稍后重试，如果问题持续出现，请告知管理员。",
    # The document library (/documents/)
    "%(n)s document": ["%(n)s 个文档"],
    "Version": "版本",
    "Updated": "更新日期",
    "all staff": "所有员工",
    "No documents match these filters.": "没有符合筛选条件的文档。",
    "Title or source id": "标题或来源 ID",
    "All levels": "所有等级",
    "flagged by readers, not reviewed yet": "读者已标记、尚未审阅",
    "Comment (optional)": "备注（可选）",
    "Verdict": "结论",
    "Note": "说明",
    "helpful": "有帮助",
    "not helpful": "没有帮助",
    "wrong source": "来源不对",
    "source does not support it": "来源不支持该说法",
    "asked for a reviewer": "请求审阅人查看",
    "ok": "正确",
    "wrong": "错误",
    "needs a document update": "需要更新文档",
    "Thank you: your feedback was saved and reviewers can see it.": "谢谢：您的反馈已保存，审阅人可以看到。",
    "Review saved.": "审阅已保存。",
    "Choose a verdict.": "请选择结论。",
    "Flag this source": "标记此来源",
    "This source is not about the question": "此来源与问题无关",
    "This source does not say what the answer says": "此来源并未说明回答中的内容",
    "Flag source [%(n)s]": "标记来源 [%(n)s]",
    "Feedback": "反馈",
    "Reviewed": "已审阅",
    "Was this answer helpful?": "这个回答有帮助吗？",
    "Helpful": "有帮助",
    "Not helpful": "没有帮助",
    "A reviewer can check whether the documents cover this, or add what is missing.": (
        "审阅人可以核实文档是否涵盖此问题，或补充缺失的内容。"
    ),
    "Ask a reviewer": "请审阅人查看",
    "Readers' feedback": "读者反馈",
    "Source": "来源",
    "Comment": "备注",
    "No feedback yet.": "暂无反馈。",
    "Your verdict": "您的结论",
    "Save the review": "保存审阅",
    "Nothing related was found": "没有找到相关内容",
    "These filters cannot be used; nothing is listed until they are corrected:": (
        "这些筛选条件无法使用；改正之前不列出任何回答："
    ),
    "Related passages, but none answers the question": "有相关段落，但没有一段能回答这个问题",
    "Related, not enough to answer": "相关但不足以回答",
    "Then": "当时",
    "not a candidate": "不是候选",
    "changed": "有变化",
    "Confirm the level change": "确认级别修改",
    "%(n)s document will be set to “%(label)s”:": ["%(n)s 个文档将被设为“%(label)s”："],
    "%(n)s document will lose its level and rank lowest:": ["%(n)s 个文档将失去级别并排在最后："],
    "Nothing would change.": "不会有任何改动。",
    "%(n)s selected document already has this level.": ["所选的 %(n)s 个文档已经是这个级别。"],
    "Yes, change the levels": "是的，修改级别",
    "Cancel": "取消",
    (
        "Retrieved, filtered and assembled now for the same question, with"
        " your permissions, beside what the same steps gave then."
    ): ("按您的权限，对同一问题现在重新检索、筛选和组装的结果，与当时同样步骤的结果并列。"),
    "%(n)s chunk changed its fate.": ["%(n)s 个片段的结果有变化。"],
    "Only these levels": "仅限这些级别",
    "Only documents of these groups": "仅限这些用户组的文档",
    "Only these documents": "仅限这些文档",
    "The answer this question follows up is not available.": "所追问的回答不可用。",
    "Follow-up to": "追问自",
    "Asked within": "提问范围",
    "levels": "级别",
    "groups": "用户组",
    "documents": "文档",
    "Ask a follow-up": "追问",
    "No readable document matches.": "没有可查看的文档与之匹配。",
    "What you can ask about": "您可以询问的内容",
    "%(n)s document is open to you": ["您可以查看 %(n)s 个文档"],
    "last updated %(when)s": "最近更新于 %(when)s",
    "Browse the documents": "浏览文档",
    "For example": "例如",
    "No documents are open to you yet. Ask an administrator to add or share some.": (
        "目前还没有向您开放的文档。请联系管理员添加或共享文档。"
    ),
    "Your follow-up question": "您的追问",
    "Scope": "范围",
    "narrowed": "已限定",
    "all documents open to you": "您可查看的全部文档",
    "Find a document": "查找文档",
    # Retire, restore and delete documents (issue 14, part 3).
    "retired": "已停用",
    "restored": "已恢复",
    "deleted": "已删除",
    "%(title)s is retired: it is no longer used for new answers.": "《%(title)s》已停用：不再用于新的回答。",
    "%(title)s is restored: it is used for new answers again.": "《%(title)s》已恢复：重新用于新的回答。",
    "Tick the confirmation box to delete the document.": "请勾选确认框以删除该文档。",
    (
        "%(n)d answer cites this document, so it was not deleted. Retire it instead, or tick"
        " “Also delete the answers that cite it”."
    ): ["有 %(n)d 个回答引用了该文档，因此未删除。您可以改为停用它，或勾选“同时删除引用它的回答”。"],
    "%(title)s (%(source_id)s) is deleted.": "《%(title)s》（%(source_id)s）已删除。",
    "%(n)d answer citing it was deleted.": ["引用它的 %(n)d 个回答已一并删除。"],
    "Delete for good": "永久删除",
    (
        "Deleting removes every version of this document and its text; the audit log keeps who deleted it"
        " and when. Retiring keeps it readable instead."
    ): "删除会移除该文档的所有版本及其文本；审计日志会保留删除人和删除时间。停用则会保留文档供查看。",
    "%(n)s answer cites this document.": ["有 %(n)s 个回答引用了该文档。"],
    "Also delete the answers that cite it": "同时删除引用它的回答",
    "I understand that this cannot be undone": "我了解此操作无法撤销",
    "Delete the document": "删除文档",
    "This document is retired: it is no longer used for new answers": "该文档已停用：不再用于新的回答",
    "retired on": "停用于",
    "Its versions and the answers that cite them stay readable.": "它的各个版本以及引用它们的回答仍可查看。",
    "Restore": "恢复",
    "Manage this document": "管理此文档",
    "Retire": "停用",
    "A retired document is no longer used for new answers; it stays readable and can be restored.": (
        "停用的文档不再用于新的回答；它仍可查看，也可以恢复。"
    ),
    "withheld: the answer rests on a document you cannot access": "已隐去：该回答依据的是您无权访问的文档",
    "txt, md, html, pdf, Word (docx), PowerPoint (pptx), Excel (xlsx) or csv": (
        "txt、md、html、pdf、Word（docx）、PowerPoint（pptx）、Excel（xlsx）或 csv"
    ),
    # ingest jobs (issue 14): the upload page, its job list and the job states
    "Files": "文件",
    (
        "txt, md, html, pdf, Word (docx), PowerPoint (pptx), Excel (xlsx) or csv; choose several to add them together."
    ): "txt、md、html、pdf、Word（docx）、PowerPoint（pptx）、Excel（xlsx）或 csv；可一次选择多个文件。",
    "Stable id; defaults to the file name. Only with a single file.": "稳定的标识；默认为文件名。仅限单个文件。",
    "Only with a single file.": "仅限单个文件。",
    "At most %(n)d files at once.": "一次最多 %(n)d 个文件。",
    "Only with a single file: several files are each named by their file name.": (
        "仅限单个文件：多个文件各以其文件名命名。"
    ),
    "queued": "排队中",
    "running": "处理中",
    "done": "已完成",
    "failed": "失败",
    "ingest a file": "导入文件",
    "re-index a document": "重建文档索引",
    "re-embed a document": "重新计算文档向量",
    (
        "The ingest queue is not reachable, so nothing was added. Try again in a moment, or ask an operator to"
        " check the worker's broker."
    ): "无法连接导入队列，因此未添加任何内容。请稍后重试，或请运维人员检查任务队列（broker）。",
    "%(n)d file is queued; its progress is shown below.": ["已有 %(n)d 个文件排队；进度显示在下方。"],
    "%(n)d file was refused; the reason is shown below.": ["%(n)d 个文件被拒绝；原因显示在下方。"],
    "Add documents": "添加文档",
    "Your recent uploads": "您最近的上传",
    "Waiting for a worker": "等待后台进程",
    "waiting for a worker": "等待后台进程",
    "Chunks indexed": "已索引的片段",
    "%(done)s of %(total)s chunks": "%(total)s 个片段中已完成 %(done)s 个",
    "Reading the file": "正在读取文件",
    "reading the file": "正在读取文件",
    "open": "打开",
    "Nothing uploaded yet.": "尚未上传任何文件。",
    (
        "Each file is read, indexed and embedded by a background worker; you can leave this page meanwhile. "
        "The same content again changes nothing; changed content becomes a new version, and answers that "
        "cited the old one keep showing it."
    ): (
        "每个文件由后台进程读取、索引并计算向量；期间您可以离开此页面。内容相同则不作任何改动；"
        "内容变化则生成新版本，引用旧版本的回答仍显示旧版本。"
    ),
    "quotation (extractive)": "引文（抽取式）",
    "language model": "语言模型",
    "retrieval": "检索",
    "context assembly": "上下文组装",
    "generation": "生成",
    "citation check": "引用核对",
    "storing": "存储",
    "total": "合计",
    "%(ms)s ms": "%(ms)s 毫秒",
    "This type of file cannot be read. Supported types:": "无法读取此类文件。支持的类型：",
    "The file is larger than the upload limit.": "文件超过了上传大小上限。",
    "The file holds no text.": "文件中没有文字。",
    "The file's text could not be decoded.": "无法解码文件中的文字。",
    "The file is binary, not text.": "这是二进制文件，不是文本。",
    "The file is encrypted or password-protected.": "文件已加密或受密码保护。",
    "The file could not be read as the type its name says.": "无法按文件名所示的类型读取此文件。",
    "The upload was refused.": "上传被拒绝。",
    "The level chosen for this file no longer exists.": "为此文件选择的来源级别已不存在。",
    "The document no longer exists.": "该文档已不存在。",
    "No embedder is configured, so there was nothing to embed.": "未配置向量模型，因此没有可生成向量的内容。",
    "The account that queued this file no longer exists.": "提交此文件的账号已不存在。",
    "The worker stopped while reading this file, each time it tried; the file was set aside.": (
        "每次尝试读取此文件时后台进程都中止了；此文件已被搁置。"
    ),
    "A temporary failure stopped the ingest; upload the file again.": "暂时性故障中断了导入；请重新上传此文件。",
    "The ingest failed with an internal error; the detail is in the worker's log.": (
        "导入因内部错误失败；详情见后台进程的日志。"
    ),
    "Detail:": "详情：",
    # A failed job's detail: what the parser or the job says, kept as a sentence and its values (services.ingest_jobs).
    "the file name has no extension; supported: %(supported)s": "文件名没有扩展名；支持的类型：%(supported)s",
    "unsupported file type %(ext)s; supported: %(supported)s": "不支持的文件类型 %(ext)s；支持的类型：%(supported)s",
    "unsupported file type: %(name)s": "不支持的文件类型：%(name)s",
    "the file is empty": "文件是空的",
    "the file has no text": "文件中没有文字",
    "the file has no text to index": "文件中没有可索引的文字",
    "the HTML page shows no text of its own (only its site's header, navigation or footer)": (
        "该 HTML 页面没有自身的正文（只有网站的页眉、导航或页脚）"
    ),
    "not a valid %(kind)s file: a %(ext)s file is a zip package, and this one is not": (
        "不是有效的 %(kind)s 文件：%(ext)s 文件应是 zip 包，而此文件不是"
    ),
    "the %(kind)s file is damaged or truncated (not a readable zip package: %(error)s)": (
        "%(kind)s 文件已损坏或不完整（不是可读的 zip 包：%(error)s）"
    ),
    "the %(kind)s file has %(parts)s parts; the limit is %(limit)s": (
        "%(kind)s 文件有 %(parts)s 个部件，上限为 %(limit)s 个"
    ),
    (
        "the %(kind)s file unpacks to %(size)s bytes; the limit is %(limit)s bytes (ten times RAG_MAX_UPLOAD_BYTES, at "
        "most 512 MiB)"
    ): "%(kind)s 文件解压后有 %(size)s 字节，上限为 %(limit)s 字节（RAG_MAX_UPLOAD_BYTES 的十倍，最多 512 MiB）",
    (
        "not a valid %(kind)s file: the package has no %(part)s (it may be damaged, or another kind of file renamed "
        "%(ext)s)"
    ): "不是有效的 %(kind)s 文件：包中没有 %(part)s（文件可能已损坏，或是改名为 %(ext)s 的其他类型文件）",
    (
        "the %(kind)s file is password-protected or damaged (an encrypted Office container that cannot be read: "
        "%(error)s); save an unprotected %(ext)s copy and ingest that"
    ): (
        "%(kind)s 文件受密码保护或已损坏（无法读取的加密 Office 容器：%(error)s）；"
        "请另存一份不受保护的 %(ext)s 副本再导入"
    ),
    "the %(kind)s file is password-protected; remove the password (save an unprotected copy) and ingest that": (
        "%(kind)s 文件受密码保护；请去掉密码（另存一份不受保护的副本）再导入"
    ),
    (
        "this is an old binary %(kind)s file (%(old)s), which is not supported; open it in %(kind)s, save it as "
        "%(new)s (or as PDF) and ingest that"
    ): "这是旧版二进制 %(kind)s 文件（%(old)s），不受支持；请在 %(kind)s 中打开，另存为 %(new)s（或 PDF）后再导入",
    (
        "This is an old binary %(kind)s file (%(old)s), which cannot be read. Open it in %(kind)s, save it as %(new)s "
        "(or as PDF), and upload that."
    ): "这是旧版二进制 %(kind)s 文件（%(old)s），无法读取。请在 %(kind)s 中打开，另存为 %(new)s（或 PDF）后再上传。",
    "not a valid %(kind)s file: an OLE compound file with no %(kind)s document in it": (
        "不是有效的 %(kind)s 文件：这是一个不含 %(kind)s 文档的 OLE 复合文件"
    ),
    "the %(kind)s file is damaged or unreadable (%(error)s)": "%(kind)s 文件已损坏或无法读取（%(error)s）",
    "the %(kind)s file is damaged or unreadable (structure nested too deeply)": (
        "%(kind)s 文件已损坏或无法读取（结构嵌套过深）"
    ),
    "the PDF is password-protected; save an unprotected copy and ingest that": (
        "PDF 文件受密码保护；请另存一份不受保护的副本再导入"
    ),
    "not a PDF file (no %PDF- header)": "不是 PDF 文件（没有 %PDF- 文件头）",
    "the PDF is encrypted with a method that cannot be opened here (%(error)s)": (
        "PDF 文件使用了此处无法打开的加密方式（%(error)s）"
    ),
    "the PDF is damaged or unreadable (%(error)s)": "PDF 文件已损坏或无法读取（%(error)s）",
    "the PDF is damaged or unreadable (structure nested too deeply)": "PDF 文件已损坏或无法读取（结构嵌套过深）",
    "the PDF has no extractable text (a scanned PDF needs OCR first)": (
        "PDF 文件中没有可提取的文字（扫描件需要先做 OCR 文字识别）"
    ),
    "the %(kind)s file has more than %(limit)s rows; split it into smaller files": (
        "%(kind)s 文件超过 %(limit)s 行；请拆分成较小的文件"
    ),
    "the %(kind)s file has more than %(limit)s cells with values; split it into smaller files": (
        "%(kind)s 文件中有值的单元格超过 %(limit)s 个；请拆分成较小的文件"
    ),
    (
        "the %(kind)s file reads as more than %(limit)s characters of text (twice RAG_MAX_UPLOAD_BYTES); split it into "
        "smaller files"
    ): "%(kind)s 文件读出的文字超过 %(limit)s 个字符（RAG_MAX_UPLOAD_BYTES 的两倍）；请拆分成较小的文件",
    "the CSV file is malformed (record %(record)s: %(error)s)": "CSV 文件格式有误（第 %(record)s 条记录：%(error)s）",
    "the %(kind)s file has no cells with values": "%(kind)s 文件中没有有值的单元格",
    "the presentation has no text": "演示文稿中没有文字",
    "the Word document has no text": "Word 文档中没有文字",
    "the file looks binary (it is mostly control characters), not text": (
        "文件看起来是二进制文件（大多是控制字符），不是文本"
    ),
    "the file looks binary (it contains NUL bytes), not text": "文件看起来是二进制文件（含有 NUL 字节），不是文本",
    "file starts with a %(enc)s byte-order mark but is not valid %(enc)s": (
        "文件以 %(enc)s 字节顺序标记开头，但不是有效的 %(enc)s"
    ),
    "file starts with a %(enc)s byte-order mark but does not read as text": (
        "文件以 %(enc)s 字节顺序标记开头，但读不出文本"
    ),
    (
        "the text encoding could not be recognised (tried UTF-8, GB18030, Big5 and others); save the file as UTF-8"
    ): "无法识别文本编码（已尝试 UTF-8、GB18030、Big5 等）；请把文件另存为 UTF-8",
    "file is %(size)s bytes; the limit is %(limit)s bytes (RAG_MAX_UPLOAD_BYTES)": (
        "文件大小为 %(size)s 字节，上限为 %(limit)s 字节（RAG_MAX_UPLOAD_BYTES）"
    ),
    "the task broker is unreachable: %(error)s": "无法连接任务队列：%(error)s",
    "RAG_EMBEDDER is none: nothing to embed": "RAG_EMBEDDER 为 none：没有需要生成向量的内容",
    "the level %(level)s chosen for this file was deleted before it was read": (
        "为此文件选择的来源级别 %(level)s 在读取文件之前已被删除"
    ),
    "the account %(account)s that queued this file no longer exists": "提交此文件的账号 %(account)s 已不存在",
    "the account %(account)s that queued this file may no longer upload (inactive or not an admin)": (
        "提交此文件的账号 %(account)s 已无权上传（已停用或不再是管理员）"
    ),
    "the worker stopped %(times)s times while running this job; it was not tried again": (
        "后台进程在运行此任务时中止了 %(times)s 次；不再重试"
    ),
    "gave up after %(tries)s tries: %(error)s": "尝试 %(tries)s 次后放弃：%(error)s",
    (
        "The access chosen with this file was not applied: another admin changed who may read the document after it "
        "was queued, and that stays."
    ): "随此文件选择的访问权限未被应用：在它排队之后，另一位管理员更改了可阅读该文档的人员，以其设置为准。",
    "This answer no longer exists: a document it cited was deleted.": "此回答已不存在：它引用的文档已被删除。",
    "The language model took too long to answer. Try again in a moment.": "语言模型响应超时。请稍后再试。",
    "The language model could not be reached. Try again in a moment; if it keeps happening, tell an administrator.": (
        "无法连接语言模型。请稍后再试；如果一直如此，请告知管理员。"
    ),
    "The model server refused the request. Try again later; if it keeps happening, tell an administrator.": (
        "模型服务器拒绝了请求。请稍后再试；如果一直如此，请告知管理员。"
    ),
    "No language model is configured. Tell an administrator.": "尚未配置语言模型。请告知管理员。",
    "The language model's reply could not be read as an answer. Try again or rephrase the question.": (
        "无法把语言模型的回复读作回答。请重试或换一种问法。"
    ),
    "The language model returned nothing. Try again or rephrase the question.": (
        "语言模型没有返回内容。请重试或换一种问法。"
    ),
    "The language model declined to answer from these passages.": "语言模型拒绝根据这些段落作答。",
    "The answer came back empty. Try again or rephrase the question.": "生成的回答为空。请重试或换一种问法。",
    "The search service could not be reached. The question was saved; try again shortly.": (
        "无法连接检索服务。问题已保存；请稍后再试。"
    ),
    "The search service could not read the question. The question was saved for review.": (
        "检索服务无法处理这个问题。问题已保存，供审阅人查看。"
    ),
    "The search index was made with another embedding model and must be rebuilt. Tell an administrator.": (
        "检索索引由另一个向量模型生成，需要重建。请告知管理员。"
    ),
    "A document this answer rested on was deleted while the question was being answered. Ask it again.": (
        "回答所依据的文档在作答过程中被删除了。请重新提问。"
    ),
    "Answered": "已回答",
    "No evidence": "无依据",
    "its reason names a passage of a document you cannot access": "其原因提到了您无权访问的文档中的段落",
    "The model's answer was cut off at its length limit: the last paragraph may be incomplete.": (
        "模型的回答在长度上限处被截断：最后一段可能不完整。"
    ),
    "below the relevance bar": "低于相关度门槛",
    "no source id, so it cannot be cited": "没有来源编号，无法引用",
    "its level is left out": "其级别不在范围内",
    "no longer in effect": "已失效",
    "not yet in effect": "尚未生效",
    "enough of this document already": "该文档已选够段落",
    "over the budget": "超出限额",
    "does not state what was asked": "未说明所问内容",
    "number": "数字",
    "length or area": "长度或面积",
    "other name": "别名",
    "person's name": "人名",
    "definition": "定义",
    "date": "日期",
    "time": "时间",
    "time of day": "钟点",
    "answer": "答案",
    "a unit of length": "长度单位",
    "a unit of weight": "重量单位",
    "money": "金额",
    "a duration": "时长",
    "kilometres or miles": "公里或英里",
    "people": "人数",
    "a speed": "速度",
    "relevance %(relevance)s < %(bar)s, qualified with %(original)s (%(original_relevance)s), which it copies but "
    "for one stretch": (
        "相关度 %(relevance)s < %(bar)s，因与 %(original)s（%(original_relevance)s）仅一处不同而随其入选"
    ),
    "level %(level)s": "级别 %(level)s",
    "goes on with the list that %(chunk)s introduces": "接续 %(chunk)s 引出的列表",
    "in force until %(d)s, when a newer version takes effect": "有效至 %(d)s，届时新版本生效",
    "You are reading version %(v)s, in force until %(d)s; version %(nv)s takes effect then.": (
        "您正在阅读第 %(v)s 版，有效至 %(d)s；届时第 %(nv)s 版生效。"
    ),
    "from %(d)s": "自 %(d)s 起",
    (
        "No document you may read is within the scope chosen: a document must match every part of it at once. Widen "
        "the scope and ask again."
    ): "您可读的文档都不在所选范围内：文档须同时符合范围的每一项。请放宽范围后再提问。",
    "The PDF holds no text, only images (a scan): run OCR on it, then upload it again.": (
        "该 PDF 没有文字，只有图像（扫描件）：请先进行 OCR 文字识别，再重新上传。"
    ),
    "The document is retired: this version is stored, and no answer uses it until an admin restores the document.": (
        "该文档已停用：此版本已保存，但在管理员恢复该文档之前不会用于任何回答。"
    ),
    "in force": "现行有效",
    "effective until %(date)s": "有效期至 %(date)s",
    "effective from %(date)s": "自 %(date)s 起生效",
    "the same chunk twice": "同一分块出现两次",
    "more than %(n)d source": "来源超过 %(n)d 个",
    "%(n)d of its chunks kept before it": "其前已保留该文档 %(n)d 个分块",
    "the context holds at most %(n)d character": "上下文最多容纳 %(n)d 个字符",
    "ranked below the first %(n)d passage": "排在前 %(n)d 个段落之后",
    "does not mention %(words)s, which the question names": "未提到问题中所指的 %(words)s",
    "of another document than the one the question names (%(names)s)": "属于问题所指文档（%(names)s）以外的文档",
    "in another part of its document than the one the question names (%(names)s)": (
        "位于文档中问题所指部分（%(names)s）以外的部分"
    ),
    "read in its language through %(held)s alone, not %(words)s, and not the passage closest to the whole "
    "question": "仅凭“%(held)s”一词跨语言匹配，未涉及%(words)s，且不是与整个问题最接近的段落",
    "holds %(focus)s of the question's focus, where %(chunk)s of another document holds all of it": (
        "只涵盖问题重点的 %(focus)s，而另一文档的 %(chunk)s 涵盖了全部"
    ),
    "read across languages only, and no such passage is near the whole question (cosine %(cosine)s < "
    "%(floor)s)": "仅为跨语言匹配，且没有段落与整个问题足够接近（余弦 %(cosine)s < %(floor)s）",
    (
        "relevance %(relevance)s < %(bar)s, judged beside %(lower)s (level %(level)s), which the embedder puts no "
        "nearer the question (cosine %(cosine)s against %(lower_cosine)s)"
    ): (
        "相关度 %(relevance)s < %(bar)s，与级别为 %(level)s 的 %(lower)s 一并判断，嵌入模型认为后者离问题并不更近"
        "（余弦 %(cosine)s 对比 %(lower_cosine)s）"
    ),
    "read across languages only, and a passage in the question's language (%(by)s) is much nearer the whole "
    "question (cosine %(cosine)s, against %(own)s)": (
        "仅为跨语言匹配，且有一段问题语言的段落（%(by)s）与整个问题近得多（余弦 %(cosine)s，对比 %(own)s）"
    ),
    "on topic, but no two sentences hold the question's focus (best %(best)s < %(min)s)": (
        "主题相关，但没有连续两句涵盖问题的重点（最高 %(best)s < %(min)s）"
    ),
    "the sentences on the question's focus give no %(kind)s in %(unit)s": (
        "涉及问题重点的句子未给出以%(unit)s计的%(kind)s"
    ),
    "the sentences on the question's focus give no %(kind)s": "涉及问题重点的句子未给出%(kind)s",
    "read version %(v)s": "阅读第 %(v)s 版",
    "support": "支持度",
    "Support threshold": "支持度门槛",
    "a paragraph its citations support less is marked weak support, as is one stating a number or name they lack": (
        "引用的支持度低于此值的段落标为“支持较弱”，陈述了引用中没有的数字或名称的段落也是如此"
    ),
    (
        "You cannot review this answer: part of it rests on a document you cannot access. "
        "A reviewer who may read its sources can."
    ): "您无法审核此回答：其中部分内容依据您无权访问的文档。可由能够阅读其来源的审核人审核。",
    "Unknown feedback kind %(kind)s; one of: %(kinds)s.": "未知的反馈类型 %(kind)s；可选：%(kinds)s。",
    "Say which citation is wrong or unsupported.": "请指明哪一条引用有误或不支持该段落。",
    "No such citation in this answer.": "此回答中没有这条引用。",
    "Only citation feedback names a citation.": "只有针对引用的反馈才能指明引用。",
    "Unknown verdict %(verdict)s; one of: %(verdicts)s.": "未知的审核结论 %(verdict)s；可选：%(verdicts)s。",
    "The comment must be text.": "评论必须是文本。",
    "The comment is %(n)s characters long; the limit is %(limit)s.": "评论长 %(n)s 个字符，上限为 %(limit)s 个字符。",
    "The comment contains control or non-text characters.": "评论包含控制字符或非文本字符。",
    "The comment contains bidirectional override characters.": "评论包含双向覆盖字符。",
    "vote changed later": "之后已改票",
    "Verdicts": "审核结论",
    "No verdict yet.": "尚无审核结论。",
    "the level's weight this chunk was ranked with": "此片段排序时所用的级别权重",
    "weight %(weight)s": "权重 %(weight)s",
    "an admin has changed this level since the answer": "回答之后管理员已修改此级别",
    "now %(label)s, weight %(weight)s": "现为 %(label)s，权重 %(weight)s",
    "no level has this code now": "现已没有使用此代码的级别",
    "The embedding server did not answer, each time the ingest tried; upload the file again once it is back.": (
        "每次尝试导入时，向量嵌入服务器都没有响应；请在其恢复后重新上传此文件。"
    ),
    "The embedding server refused this file's text or answered something unusable.": (
        "向量嵌入服务器拒绝了此文件的文本，或返回了无法使用的结果。"
    ),
    "The stored vectors were made with another embedding model; an administrator must rebuild them first.": (
        "已存储的向量由另一个向量模型生成；需先由管理员重建。"
    ),
    "Skip to main content": "跳到主要内容",
    "Ask a question": "提问",
    "passage you opened": "你打开的段落",
    "source_id must not be empty": "source_id 不能为空",
    "source_id is %(n)s characters long; the limit is %(limit)s": "source_id 有 %(n)s 个字符，上限为 %(limit)s 个",
    "source_id must not contain control or invisible characters (found %(char)s)": (
        "source_id 不能包含控制字符或不可见字符（发现 %(char)s）"
    ),
    "source_id must not start or end with whitespace": "source_id 的开头和结尾不能是空白字符",
    "source_id must not contain empty, '.' or '..' path segments": "source_id 不能包含空的、“.”或“..”路径段",
    "the file name %(name)s contains control or invisible characters (found %(char)s)": (
        "文件名 %(name)s 包含控制字符或不可见字符（发现 %(char)s）"
    ),
    "the file name is %(n)s characters long; the limit is %(limit)s": "文件名有 %(n)s 个字符，上限为 %(limit)s 个",
    "the label is %(n)s characters long; the limit is %(limit)s": "名称有 %(n)s 个字符，上限为 %(limit)s 个",
    "the title is %(n)s characters long; the limit is %(limit)s": "标题有 %(n)s 个字符，上限为 %(limit)s 个",
    "the label contains control or non-text characters": "名称包含控制字符或非文本字符",
    "the title contains control or non-text characters": "标题包含控制字符或非文本字符",
    "the label contains bidirectional override characters": "名称包含双向文本覆盖字符",
    "the title contains bidirectional override characters": "标题包含双向文本覆盖字符",
    "the label shows nothing: it is only whitespace or invisible characters": (
        "名称不显示任何内容：只有空白字符或不可见字符"
    ),
    "the title shows nothing: it is only whitespace or invisible characters": (
        "标题不显示任何内容：只有空白字符或不可见字符"
    ),
    "%(url)s is not an http(s) URL": "%(url)s 不是 http(s) 网址",
    "url is longer than %(limit)s characters": "网址超过 %(limit)s 个字符",
    "effective_until is before effective_from": "失效日期（effective_until）早于生效日期（effective_from）",
    "its document was retired since": "其文档此后已停用",
    "a newer version replaced it since": "此后已被更新的版本取代",
    "no longer retrieved for this question": "此问题现已检索不到它",
    "Passages on this were found, but none is in effect today.": "找到了相关段落，但今天没有一段有效。",
    "in effect from %(d)s": "自 %(d)s 起生效",
    "in effect until %(d)s": "有效期至 %(d)s",
    # A label's colon and the comma between two statements, with their context (msgctxt): full-width in Chinese.
    ": ": "：",
    ", ": "，",
    # A list of words is written with the enumeration comma; two lists side by side, with a full-width semicolon.
    "between the words of a list\x04, ": "、",
    "between two lists\x04; ": "；",
    "how a question word is held\x04 (%(how)s)": "（%(how)s）",
    # The API's not-found details.
    "No ingest job %(id)s.": "没有编号为 %(id)s 的导入任务。",
    "No chunk %(id)s.": "没有片段 %(id)s。",
    "No level %(slug)s.": "没有等级 %(slug)s。",
    "No answer %(id)s.": "没有编号为 %(id)s 的回答。",
    "Answer %(id)s has no trace.": "回答 %(id)s 没有溯源记录。",
    # Django's forms write a label's suffix as gettext(":"), half-width in Django's own catalogue.
    ":": "：",
    "a document's level": "文档的等级",
    "a document's access groups": "文档的访问组",
    "a level created": "新建等级",
    "a level's label": "等级的名称",
    "a level's slug": "等级的标识",
    "a level's weight": "等级的权重",
    "We searched the documents you can access, within the scope chosen above, for “%(q)s”.": (
        "我们在您有权访问的文档中，按上方所选范围搜索了“%(q)s”。"
    ),
    "a newer version is in effect": "已有更新的版本生效",
    "its next version is in effect from %(date)s": "其下一版本自 %(date)s 起生效",
    "no access group named %(names)s (an administrator creates groups first)": (
        "没有名为 %(names)s 的访问组（请先由管理员创建）"
    ),
    (
        "%(names)s: a role group gives its members a role, not access to documents, so it cannot be a document's "
        "access group. Choose access groups, or none for all staff."
    ): (
        "%(names)s：角色组授予成员的是角色，而不是文档的访问权限，因此不能作为文档的访问组。"
        "请选择访问组；不选则所有员工可见。"
    ),
    "The passage the answer saw": "回答所依据的段落",
    "The task broker was unreachable, so no worker could be asked to do this.": (
        "任务队列无法连接，因此没有工作进程能接手此任务。"
    ),
    "scope.%(facet)s must be a list of names.": "scope.%(facet)s 须为名称列表。",
    "scope.%(facet)s names %(n)d items; the limit is %(limit)d.": (
        "scope.%(facet)s 列出了 %(n)d 项，上限为 %(limit)d 项。"
    ),
    "Unknown levels in the scope: %(names)s.": "范围中有未知的等级：%(names)s。",
    "Unknown groups in the scope: %(names)s.": "范围中有未知的访问组：%(names)s。",
    "Unknown documents in the scope: %(names)s.": "范围中有未知的文档：%(names)s。",
    "The scope is an object with the keys %(keys)s.": "范围须为一个对象，其键为 %(keys)s。",
    "No document %(source_id)s.": "没有文档 %(source_id)s。",
    "%(source_id)s v%(version)s %(chunks)s chunks new": "%(source_id)s：新文档，第 %(version)s 版，%(chunks)s 个分块",
    "%(source_id)s v%(version)s %(chunks)s chunks updated": (
        "%(source_id)s：内容有变，已存为第 %(version)s 版，%(chunks)s 个分块"
    ),
    "%(source_id)s v%(version)s %(chunks)s chunks unchanged": (
        "%(source_id)s：内容与第 %(version)s 版相同，未作改动（%(chunks)s 个分块）"
    ),
    "This needs the %(role)s role.": "此操作需要 %(role)s 角色。",
    "The request body is larger than the server accepts.": "请求正文超出服务器接受的大小。",
    "The request was malformed.": "请求格式有误。",
    "Internal server error; it has been logged.": "服务器内部错误；已记录。",
    "No API endpoint at %(path)s.": "%(path)s 处没有 API 端点。",
    "Did you mean %(path)s/ ?": "您是否要访问 %(path)s/ ？",
    "Unknown field.": "未知字段。",
    "Sent more than once: give one value.": "重复发送：只能给出一个值。",
    "This field may not be blank.": "该字段不能为空。",
    "Must be a string.": "必须是字符串。",
    "Null characters are not allowed.": "不能含有空字符（NUL）。",
    "Must be a number.": "必须是数字。",
    "The end date %(last)s is before the start date %(first)s.": "结束日期 %(last)s 早于开始日期 %(first)s。",
    "The database is busy or unavailable, so nothing was saved. Try again in a moment.": (
        "数据库繁忙或不可用，因此没有保存任何内容。请稍后再试。"
    ),
    "Database unavailable": "数据库不可用",
    "The database is unavailable": "数据库不可用",
    (
        "The database is busy or unavailable, so nothing was saved (a question you asked was not saved either). "
        "Try again in a moment, and tell an administrator if it keeps happening."
    ): (
        "数据库繁忙或不可用，因此没有保存任何内容（您提出的问题也没有保存）。"
        "请稍后再试；如果问题持续出现，请告知管理员。"
    ),
    "The database is busy or unavailable, so your question was not saved. Try again in a moment.": (
        "数据库繁忙或不可用，因此您的问题没有保存。请稍后再试。"
    ),
    "A temporary failure stopped the re-embedding.": "暂时性故障中断了向量的重新计算。",
    "The embedding server did not answer, each time the re-embedding tried.": (
        "每次重新计算向量时，向量服务都没有响应。"
    ),
    "The embedding server refused the document's text or answered something unusable.": (
        "向量服务拒绝了该文档的文本，或返回了无法使用的结果。"
    ),
    "The worker stopped while re-embedding the document, each time it tried.": (
        "每次重新计算该文档的向量时，后台进程都中途停止了。"
    ),
    "The re-embedding failed with an internal error; the detail is in the worker's log.": (
        "重新计算向量时发生内部错误；详情见后台进程的日志。"
    ),
    "Vector search finds the document by its old title until its title is changed again or an operator runs"
    " rag_embed --rebuild.": "在再次修改标题或运维人员运行 rag_embed --rebuild 之前，向量检索仍按旧标题查找该文档。",
    "%(source_id)s: %(chunks)s chunk embedded again with the new title": [
        "%(source_id)s：已按新标题重新计算 %(chunks)s 个分块的向量"
    ],
    "flagged by readers": "读者已标记",
    "%(chunks)s chunk re-indexed": ["已重建 %(chunks)s 个分块的索引"],
    "a document's title": "文档的标题",
    "deleted since": "此后已删除",
    "the marker the candidates below carry": "下方候选段落所标的标记",
    "its footnote number in the answer": "它在回答中的脚注编号",
    "Unknown level {value}; known levels: {known}.": "未知的级别 {value}；已有的级别：{known}。",
    "There is no such date: {value}.": "没有这个日期：{value}。",
    "given to the generator, not cited in the answer": "已交给生成器，回答中未引用",
    "(as %(chunk)s, the same text in the version before)": "（即 %(chunk)s，与上一版本文字相同）",
    "Chunks embedded again": "已重新计算向量的分块",
    "Starting": "正在开始",
    "starting": "正在开始",
    "The question has no words to look for: it is only punctuation, symbols or emoji.": (
        "问题中没有可查找的字词：只有标点、符号或表情符号。"
    ),
    "with the earlier question's words": "沿用上一个问题的词语",
    "No question of yours matches this search.": "没有与此搜索匹配的提问。",
    "Words of the question": "问题中的词语",
    "That is more than the limit: shorten the text before sending it.": "超出字数上限：请先删减再发送。",
    "The text is within the limit again.": "字数已回到上限以内。",
    "%(n)s document found": ["找到 %(n)s 份文档"],
    "More than %(n)s documents match; the first %(n)s are listed. Type more of a title or id to narrow the search.": (
        "匹配的文档超过 %(n)s 份，只列出前 %(n)s 份。请输入更多标题或 ID 中的字词以缩小范围。"
    ),
    "restricted to this group: deleting it would open the document to every staff user": (
        "仅限此组访问：删除此组会使该文档对所有员工开放"
    ),
    "The account that queued this file may no longer upload documents.": "提交此文件的账户已无权上传文档。",
    "a role: deleting it would take the role from every member": "这是一个角色：删除它会取消所有成员的该角色",
    "Group": "组",
    # trial 32h: a stale form (CSRF) and a form's endpoint opened as a page (405)
    "Form out of date": "表单已过期",
    "This form was out of date": "此表单已过期",
    "The page it was on was opened before you signed in or out (perhaps in another tab), so it could not be "
    "accepted. Nothing was sent or saved.": (
        "表单所在的页面是在您登录或退出（可能在另一个标签页中）之前打开的，因此无法受理。没有发送或保存任何内容。"
    ),
    "Your question is kept: open the ask page again to send it.": "您的问题已保留：重新打开提问页面即可发送。",
    "Open the page again and send the form from there.": "请重新打开该页面，再从那里提交表单。",
    "Ask your question again": "重新提问",
    "Open the page again": "重新打开该页面",
    "Not a page": "不是页面",
    "This address is not a page": "此地址不是页面",
    "A form sends to this address (a vote, a flag, a review, a change); it cannot be opened as a page. Nothing was "
    "changed. Go back to the page the form is on and send it from there.": (
        "此地址用于接收表单提交（评价、标记、审核或修改），不能作为页面打开。没有任何内容被更改。请返回表单所在的页面，再从那里提交。"
    ),
    "This page was opened before you signed in or out elsewhere: nothing was saved. Send it again.": (
        "此页面是在您于别处登录或退出之前打开的：没有保存任何内容。请重新发送。"
    ),
    "You were signed out, so your question was not asked. Sign in: it will be back in the box.": (
        "您已退出登录，所以问题没有提出。请登录：问题会回到输入框中。"
    ),
    "What this acts on no longer exists (it was deleted, or is no longer open to you). Reload the page to see what is "
    "there now.": "此操作的对象已不存在（已被删除，或已不再对您开放）。请重新加载页面，查看现在的内容。",
}

_ENTRY = re.compile(
    r"^(?:msgctxt ((?:\".*\"\n)+))?msgid ((?:\".*\"\n)+)(msgid_plural ((?:\".*\"\n)+))?((?:msgstr.*\n(?:\".*\"\n)*)+)",
    re.M,
)
# A key "context\x04msgid" (gettext's own spelling of a msgctxt) translates that context alone; a plain msgid, every
# context that has no key of its own.
_CONTEXT = "\x04"


def _unquote(block: str) -> str:
    return "".join(
        line[1:-1].encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
        for line in block.strip().splitlines()
        if line.startswith('"')
    )


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def fill(po: str) -> tuple[str, list[str]]:
    missing: list[str] = []

    def replace(m: re.Match[str]) -> str:
        context = _unquote(m.group(1)) if m.group(1) else None
        msgid = _unquote(m.group(2).replace("msgid ", "", 1))
        if not msgid:
            return m.group(0)
        zh = ZH.get(f"{context}{_CONTEXT}{msgid}") if context is not None else None
        zh = ZH.get(msgid) if zh is None else zh
        if zh is None:
            missing.append(msgid)
            return m.group(0)
        head = (f"msgctxt {m.group(1)}" if m.group(1) else "") + "msgid " + m.group(2) + (m.group(3) or "")
        if m.group(3):
            text = zh[0] if isinstance(zh, list) else zh
            return head + f"msgstr[0] {_quote(text)}\n"
        assert isinstance(zh, str), msgid
        return head + f"msgstr {_quote(zh)}\n"

    out = _ENTRY.sub(replace, po)
    # msgmerge's fuzzy guesses are replaced by the table above; msgfmt would skip fuzzy entries.
    out = re.sub(r"^#\| .*\n", "", out, flags=re.M)
    out = re.sub(r"^#, fuzzy\n", "", out, flags=re.M)
    out = re.sub(r"^#, fuzzy, ", "#, ", out, flags=re.M)
    out = re.sub(r'"Plural-Forms: .*\\n"', '"Plural-Forms: nplurals=1; plural=0;\\\\n"', out)
    out = out.replace('"Language: \\n"', '"Language: zh_Hans\\n"')
    out = out.replace("charset=CHARSET", "charset=UTF-8")
    return out, missing


if __name__ == "__main__":
    text, missing = fill(PO.read_text(encoding="utf-8"))
    PO.write_text(text, encoding="utf-8")
    for msgid in missing:
        print("untranslated:", msgid)
    subprocess.run(["msgfmt", "--check", "-o", str(PO.with_suffix(".mo")), str(PO)], check=True)
