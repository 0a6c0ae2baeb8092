"""The OpenAI-compatible generator over real HTTP: a scripted server for exact adversarial replies,
and llama.cpp's server with SmolLM2 for the real contract."""

from __future__ import annotations

import json

import pytest

from rag_app.generation import GenerationError
from rag_app.generation.openai_compat import OpenAICompatGenerator, parse_plain, parse_structured, reader_text
from rag_app.pipeline.alignment import align
from rag_app.pipeline.assembly import assemble
from rag_app.pipeline.records import Assembly, ChunkRecord, EvidenceStatus
from tests.llm_server import LlamaServer, Reply, ScriptedServer, completion, stalling_server


def assembly_en() -> Assembly:
    records = [
        ChunkRecord(
            chunk_id="policy/refund.md:v2:3",
            source_id="policy/refund.md",
            version=2,
            index=3,
            text="Refunds are accepted within 30 days of purchase with the original receipt.",
            title="Refund policy",
            relevance=0.9,
            level="official",
        ),
        ChunkRecord(
            chunk_id="faq.md:v1:0",
            source_id="faq.md",
            version=1,
            index=0,
            text="Gift cards cannot be refunded.",
            relevance=0.7,
        ),
    ]
    return assemble(records, budget_chars=3000)


def gen(server_url: str, structured: str = "json_schema", **kw: object) -> OpenAICompatGenerator:
    options: dict[str, object] = {"timeout": 5.0, "retries": 0, "max_tokens": 200} | kw
    return OpenAICompatGenerator(base_url=server_url, api_key="", model="scripted", structured=structured, **options)  # type: ignore[arg-type]


QUESTION = "How long do I have to return an item?"


def test_json_schema_request_constrains_citation_ids_to_the_allowed_markers(scripted_server: ScriptedServer) -> None:
    """The request carries response_format json_schema (strict) whose enum is exactly this answer's markers."""
    reply = {"paragraphs": [{"text": "Within 30 days.", "citation_ids": ["S1"]}]}
    scripted_server.queue(completion(json.dumps(reply)))
    draft = gen(scripted_server.base_url).generate(question=QUESTION, assembly=assembly_en(), language="en")
    sent = scripted_server.requests[0]
    fmt = sent["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    items = fmt["json_schema"]["schema"]["properties"]["paragraphs"]["items"]["properties"]["citation_ids"]["items"]
    assert items["enum"] == ["S1", "S2"]
    assert "[S1] Refund policy" in sent["messages"][1]["content"]
    assert draft.paragraphs[0].citation_ids == ("S1",)
    assert draft.raw_output == json.dumps(reply)
    assert "### response_format" in draft.prompt


def test_json_object_mode_sends_the_schema_the_llama_cpp_way(scripted_server: ScriptedServer) -> None:
    """json_object: response_format {"type": "json_object", "schema": {...}} with the marker enum."""
    scripted_server.queue(completion('{"paragraphs": [{"text": "30 days.", "citation_ids": ["S2"]}]}'))
    gen(scripted_server.base_url, "json_object").generate(question=QUESTION, assembly=assembly_en(), language="en")
    fmt = scripted_server.requests[0]["response_format"]
    assert fmt["type"] == "json_object"
    assert fmt["schema"]["properties"]["paragraphs"]["items"]["properties"]["citation_ids"]["items"]["enum"] == [
        "S1",
        "S2",
    ]


def test_plain_text_mode_parses_markers_per_paragraph(scripted_server: ScriptedServer) -> None:
    """none: no response_format; blank-line paragraphs; markers are read by alignment."""
    scripted_server.queue(completion("Returns are accepted for 30 days [S1].\n\nGift cards are final【S2】."))
    assembly = assembly_en()
    draft = gen(scripted_server.base_url, "none").generate(question=QUESTION, assembly=assembly, language="en")
    assert "response_format" not in scripted_server.requests[0]
    aligned = align(draft, assembly)
    assert [p.citation_ids for p in aligned.paragraphs] == [("S1",), ("S2",)]


def test_invented_markers_from_the_model_are_dropped_by_alignment(scripted_server: ScriptedServer) -> None:
    """A server that ignores the enum and cites S9: the draft carries it, alignment drops and reports it."""
    scripted_server.queue(completion('{"paragraphs": [{"text": "Thirty days [S7].", "citation_ids": ["S9"]}]}'))
    assembly = assembly_en()
    draft = gen(scripted_server.base_url).generate(question=QUESTION, assembly=assembly, language="en")
    aligned = align(draft, assembly)
    assert aligned.paragraphs[0].status == EvidenceStatus.INSUFFICIENT
    assert set(aligned.dropped_markers) == {"S9", "S7"}
    assert aligned.sources == ()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (completion("this is not json at all"), "llm_bad_output"),
        (completion('{"paragraphs": "oops"}'), "llm_bad_output"),
        (completion('{"paragraphs": [{"text": 5}]}'), "llm_bad_output"),
        (completion('{"paragraphs": [{"text": "cut off', finish_reason="length"), "llm_bad_output"),
        (completion(""), "llm_empty_output"),
        (completion('{"paragraphs": []}'), "llm_empty_output"),
        (Reply(status=500, body='{"error": {"message": "boom"}}'), "llm_http_error"),
        (Reply(status=400, body='{"error": {"message": "bad request"}}'), "llm_http_error"),
        (Reply(status=200, body="<html>proxy error</html>", content_type="text/html"), "llm_bad_output"),
    ],
    ids=[
        "not-json",
        "wrong-shape",
        "wrong-type",
        "truncated",
        "empty",
        "no-paragraphs",
        "http-500",
        "http-400",
        "html",
    ],
)
def test_bad_replies_become_typed_errors(scripted_server: ScriptedServer, reply: Reply, reason: str) -> None:
    """Every unusable reply is a GenerationError with a reason code, carrying the prompt and the raw reply."""
    scripted_server.queue(reply)
    with pytest.raises(GenerationError) as info:
        gen(scripted_server.base_url).generate(question=QUESTION, assembly=assembly_en(), language="en")
    assert info.value.reason == reason
    assert "Refunds are accepted within 30 days" in info.value.prompt


def test_a_slow_server_times_out(scripted_server: ScriptedServer) -> None:
    """A reply slower than the timeout is llm_timeout, not a hang."""
    scripted_server.queue(Reply(body="{}", delay=2.0))
    with pytest.raises(GenerationError) as info:
        gen(scripted_server.base_url, timeout=0.5).generate(question=QUESTION, assembly=assembly_en(), language="en")
    assert info.value.reason == "llm_timeout"


def test_retries_are_used_on_a_500_then_succeed(scripted_server: ScriptedServer) -> None:
    """With retries configured, a transient 500 followed by a good reply gives a draft."""
    scripted_server.queue(
        Reply(status=500, body="{}"), completion('{"paragraphs": [{"text": "ok", "citation_ids": ["S1"]}]}')
    )
    draft = gen(scripted_server.base_url, retries=1).generate(question=QUESTION, assembly=assembly_en(), language="en")
    assert draft.paragraphs[0].text == "ok"
    assert len(scripted_server.requests) == 2


def test_the_deadline_ends_the_attempts_together(scripted_server: ScriptedServer) -> None:
    """RAG_LLM_DEADLINE bounds every attempt together: a hanging server is given up on at the deadline, however
    many retries and however long a timeout are left (the web worker must outlive the ask)."""
    import time

    scripted_server.queue(*(Reply(body="{}", delay=6.0) for _ in range(4)))
    generator = gen(scripted_server.base_url, timeout=4.0, retries=3, deadline=1.2)
    started = time.monotonic()
    with pytest.raises(GenerationError) as info:
        generator.generate(question=QUESTION, assembly=assembly_en(), language="en")
    elapsed = time.monotonic() - started
    assert info.value.reason == "llm_timeout" and "Refunds are accepted" in info.value.prompt
    assert 1.2 <= elapsed < 2.7, elapsed  # the first attempt was cut at the deadline, not at its own 4 s
    assert len(scripted_server.requests) == 1  # and no retry was started with no time left for it


def test_a_retry_gets_only_what_is_left_of_the_deadline(scripted_server: ScriptedServer) -> None:
    """A 503, then a hanging server: the retry is made (time is left) but cut when the deadline is reached."""
    import time

    scripted_server.queue(Reply(status=503, body="{}"), Reply(body="{}", delay=8.0))
    generator = gen(scripted_server.base_url, timeout=6.0, retries=1, deadline=2.5)
    started = time.monotonic()
    with pytest.raises(GenerationError) as info:
        generator.generate(question=QUESTION, assembly=assembly_en(), language="en")
    elapsed = time.monotonic() - started
    assert info.value.reason == "llm_timeout" and len(scripted_server.requests) == 2
    assert 2.5 <= elapsed < 4.0, elapsed  # not the retry's own 6 s


def _failed_in(generator: OpenAICompatGenerator) -> tuple[str, float]:
    """The reason the generator's answer failed with, and the seconds it took to fail."""
    import time

    started = time.monotonic()
    with pytest.raises(GenerationError) as info:
        generator.generate(question=QUESTION, assembly=assembly_en(), language="en")
    return info.value.reason, time.monotonic() - started


def test_each_attempt_ends_at_its_own_timeout_in_all() -> None:
    """RAG_LLM_TIMEOUT is wall-clock time per attempt: a server that trickles its headers (never silent for a read
    timeout to notice) is cut at 1 s, and the retry, which has time left, at 1 s again."""
    with stalling_server("headers") as server:
        reason, elapsed = _failed_in(gen(server.base_url, timeout=1.0, retries=1, deadline=10.0))
    assert reason == "llm_timeout" and server.requests == 2
    # two attempts and the pause between them (at most 0.5 s), with room for a loaded machine; uncut, the trickle runs
    # on to the deadline of 10 s
    assert 2.0 <= elapsed < 2.0 + 0.5 + 1.5, elapsed


def test_a_retry_on_a_server_that_keeps_its_connection_open_is_cut_at_the_deadline() -> None:
    """A 503 on a connection the server keeps open, then a reply that trickles: the retry is made on a connection of
    its own, whose socket the deadline's watchdog knows, and is cut when the deadline is reached."""
    with stalling_server("503", "body") as server:
        reason, elapsed = _failed_in(gen(server.base_url, timeout=5.0, retries=1, deadline=2.0))
    assert reason == "llm_timeout" and server.requests == 2
    assert 2.0 <= elapsed < 3.5, elapsed  # not the retry's own 5 s


def test_a_retry_after_past_the_deadline_is_not_waited_for(scripted_server: ScriptedServer) -> None:
    """A server that asks for a minute's pause: the answer is the 429 at once, not a minute's sleep."""
    import time

    scripted_server.queue(Reply(status=429, body='{"error": {"message": "slow down"}}', headers={"Retry-After": "60"}))
    started = time.monotonic()
    with pytest.raises(GenerationError) as info:
        gen(scripted_server.base_url, retries=2, deadline=10.0).generate(
            question=QUESTION, assembly=assembly_en(), language="en"
        )
    assert info.value.reason == "llm_http_error" and "slow down" in info.value.raw_output
    assert len(scripted_server.requests) == 1 and time.monotonic() - started < 2


def test_a_refusal_is_not_retried(scripted_server: ScriptedServer) -> None:
    scripted_server.queue(Reply(status=400, body='{"error": {"message": "bad request"}}'))
    with pytest.raises(GenerationError) as info:
        gen(scripted_server.base_url, retries=3).generate(question=QUESTION, assembly=assembly_en(), language="en")
    assert info.value.reason == "llm_http_error" and len(scripted_server.requests) == 1


def test_an_unreachable_server_is_llm_unreachable() -> None:
    """Nothing listening: llm_unreachable."""
    from tests.llm_server import free_port

    with pytest.raises(GenerationError) as info:
        gen(f"http://127.0.0.1:{free_port()}/v1").generate(question=QUESTION, assembly=assembly_en(), language="en")
    assert info.value.reason == "llm_unreachable"


def test_chinese_question_gets_the_chinese_prompt(scripted_server: ScriptedServer) -> None:
    """Prompt language follows the question."""
    scripted_server.queue(completion('{"paragraphs": [{"text": "三十天。", "citation_ids": ["S1"]}]}'))
    gen(scripted_server.base_url).generate(question="退货期限是多久？", assembly=assembly_en(), language="zh")
    system = scripted_server.requests[0]["messages"][0]["content"]
    assert "只能依据" in system and "S1, S2" in system


def test_parsers() -> None:
    """Code fences around JSON are tolerated; empty paragraphs are skipped; plain text splits on blank lines."""
    fenced = '```json\n{"paragraphs": [{"text": "A", "citation_ids": ["S1"]}, {"text": " ", "citation_ids": []}]}\n```'
    parsed = parse_structured(fenced)
    assert parsed is not None and [p.text for p in parsed] == ["A"]
    assert parse_structured("[1, 2]") is None
    assert [p.text for p in parse_plain("a [S1]\n\n\n b\n")] == ["a [S1]", "b"]


@pytest.mark.llm
@pytest.mark.parametrize("structured", ["json_object", "none"])
def test_real_llama_cpp_server_contract(llama_server: LlamaServer, structured: str) -> None:
    """Through the real server the contract holds: a parsed draft whose surviving markers are all in the map.

    The tiny model's wisdom is not tested; only that its reply parses (json_object is grammar-
    constrained to the schema) and that alignment keeps nothing outside this answer's markers.
    """
    assembly = assembly_en()
    generator = OpenAICompatGenerator(
        base_url=llama_server.base_url,
        api_key="",
        model=llama_server.model,
        timeout=120,
        retries=0,
        structured=structured,
        max_tokens=48 if structured == "none" else 256,
    )
    try:
        draft = generator.generate(question=QUESTION, assembly=assembly, language="en")
    except GenerationError as exc:
        # A tiny model may write nothing in plain text, or run into the token cap mid-JSON;
        # both must come back as typed errors that carry the raw reply.
        assert (exc.reason, structured) == ("llm_empty_output", "none") or (
            exc.reason == "llm_bad_output" and "cut off" in exc.message and exc.raw_output
        ), exc.reason
        return
    assert draft.raw_output
    aligned = align(draft, assembly)
    allowed = set(assembly.markers)
    for para in aligned.paragraphs:
        assert set(para.citation_ids) <= allowed
    assert {s.marker for s in aligned.sources} <= allowed
    if structured == "json_object":
        data = json.loads(draft.raw_output)
        for item in data["paragraphs"]:
            assert set(item["citation_ids"]) <= allowed  # the grammar enforces the enum


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        ("**Refunds** are accepted within *30 days*. [S1]", "Refunds are accepted within 30 days. [S1]"),
        ("Bring the `original receipt`.", "Bring the original receipt."),
        ("## Refunds\nWithin 30 days. [S1]", "Refunds\nWithin 30 days. [S1]"),
        ("See [the policy](https://example.com/refunds).", "See the policy (https://example.com/refunds)."),
        ("退款须在**30天**内【S1】", "退款须在30天内【S1】"),
    ],
)
def test_a_models_markdown_marks_are_not_shown(reply: str, shown: str) -> None:
    assert reader_text(reply) == shown
    assert [p.text for p in parse_plain(reply)] == [shown]


@pytest.mark.parametrize(
    "reply",
    [
        "1. Bring the receipt.\n2. Ask within 30 days.",
        "- gift cards\n- store credit",
        "a * b * c, 2*3 = 6, snake_case_name, 5 < 6",
        "The fee is 2*3*4 = 24 and 10 * 5 * 2 = 100.",  # stars between digits multiply: read as emphasis, "234"
        "<script>alert(1)</script> [S1][S2]",
    ],
)
def test_text_that_is_no_markdown_emphasis_stays_as_written(reply: str) -> None:
    """A list's numbers and bullets, a lone asterisk or underscore, raw HTML (escaped where shown) and markers stay."""
    assert reader_text(reply) == reply
