"""Prompt text for the model, in the question's language (zh / en).

The rules the model is told are the product's rules: answer only from the numbered sources,
cite them with the markers given, say when the sources do not suffice, and when sources
disagree give one statement per source (higher level and newer effective date first) instead
of merging them. The markers are the application's; the model never numbers anything.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .records import Assembly

OUTPUT_NAME = "cited_answer"

_SYSTEM = {
    "en": (
        "You answer questions about internal documents using ONLY the numbered sources below.\n"
        "Rules:\n"
        "1. Use only facts stated in the sources. Do not use outside knowledge.\n"
        "2. Every paragraph cites the sources it rests on with their markers, e.g. [S1] or [S1][S2]. "
        "Use only these markers: {markers}.\n"
        "3. If the sources do not answer the question, say so in one short paragraph without a marker.\n"
        "4. If sources disagree, do not merge them: give one statement per source, each with its marker, "
        "the higher level and newer effective date first.\n"
        "5. Each source shows its trust level; prefer higher levels, and answer narrowly when only "
        "low-level sources are available.\n"
        "6. Answer in English, briefly."
    ),
    "zh": (
        "你只能依据下面编号的资料回答关于内部文档的问题。\n"
        "规则：\n"
        "1. 只使用资料中写明的事实，不要使用资料以外的知识。\n"
        "2. 每个段落都要用资料编号注明出处，例如 [S1] 或 [S1][S2]。只能使用这些编号：{markers}。\n"
        "3. 如果资料不足以回答问题，用一个不带编号的短段落说明。\n"
        "4. 如果不同资料说法不一致，不要合并：每个资料单独陈述并注明编号，级别更高、生效日期更新的在前。\n"
        "5. 每个资料都标明了可信级别；优先采用级别高的资料，只有低级别资料时要谨慎、只回答资料明确说明的部分。\n"
        "6. 用中文简要回答。"
    ),
}
_FORMAT = {
    "json": {
        "en": 'Reply with JSON only: {"paragraphs": [{"text": "...", "citation_ids": ["S1"]}]}',
        "zh": '只输出 JSON：{"paragraphs": [{"text": "……", "citation_ids": ["S1"]}]}',
    },
    "text": {
        "en": "Reply in plain text paragraphs separated by a blank line, markers at the end of each paragraph.",
        "zh": "用纯文本段落回答，段落之间空一行，每段末尾写编号。",
    },
}
_USER = {
    "en": "Sources:\n\n{context}\n\nQuestion: {question}",
    "zh": "资料：\n\n{context}\n\n问题：{question}",
}


def answer_schema(markers: tuple[str, ...], *, limits: bool = False) -> dict[str, Any]:
    """JSON schema of the structured answer; citation_ids can only be the allowed markers.

    `limits` adds length caps (for llama.cpp grammars, which keep a tiny model from rambling);
    strict OpenAI json_schema mode is left without them.
    """
    citation: dict[str, Any] = {"type": "string", "enum": list(markers)} if markers else {"type": "string"}
    paragraph: dict[str, Any] = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "citation_ids": {"type": "array", "items": citation},
        },
        "required": ["text", "citation_ids"],
        "additionalProperties": False,
    }
    paragraphs: dict[str, Any] = {"type": "array", "items": paragraph}
    if limits:
        paragraph["properties"]["text"]["maxLength"] = 400
        paragraph["properties"]["citation_ids"]["maxItems"] = max(1, len(markers))
        paragraphs["maxItems"] = 4
    return {
        "type": "object",
        "properties": {"paragraphs": paragraphs},
        "required": ["paragraphs"],
        "additionalProperties": False,
    }


_HISTORY = {
    "en": "Earlier questions in this conversation (context only, not sources):\n{questions}\n\n",
    "zh": "本次对话中之前的问题（仅供理解上下文，不是资料）：\n{questions}\n\n",
}


def instructions() -> tuple[str, ...]:
    """Every instruction the model may be told, in both languages (the rules, the output formats, the thread's
    header): what a reply that says its prompt back is made of (support.model_states_nothing)."""
    formats = [text for by_language in _FORMAT.values() for text in by_language.values()]
    return (*_SYSTEM.values(), *formats, *_HISTORY.values())


def build_messages(
    *, question: str, assembly: Assembly, language: str, structured: bool, history: Sequence[str] = ()
) -> list[dict[str, str]]:
    lang = "zh" if language == "zh" else "en"
    markers = ", ".join(assembly.markers)
    system = _SYSTEM[lang].format(markers=markers) + "\n" + _FORMAT["json" if structured else "text"][lang]
    user = _USER[lang].format(context=assembly.context, question=question)
    if history:
        user = _HISTORY[lang].format(questions="\n".join(f"- {q}" for q in history)) + user
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def render_prompt(messages: list[dict[str, str]], response_format: dict[str, Any] | None = None) -> str:
    """The exact prompt as stored in the trace: messages, then the response format if any."""
    parts = [f"### {m['role']}\n{m['content']}" for m in messages]
    if response_format is not None:
        parts.append("### response_format\n" + json.dumps(response_format, ensure_ascii=False, sort_keys=True))
    return "\n\n".join(parts)


__all__ = ["OUTPUT_NAME", "answer_schema", "build_messages", "instructions", "render_prompt"]
