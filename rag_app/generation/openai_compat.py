"""An OpenAI-compatible chat model (the official `openai` client) as a Generator.

Structured output asks for {"paragraphs": [{"text": str, "citation_ids": [str]}]} with
citation_ids constrained to this answer's markers by a JSON-schema enum:
- json_schema: response_format {"type": "json_schema", "json_schema": {name, schema, strict}}
- json_object: response_format {"type": "json_object", "schema": ...} (llama.cpp servers)
- none: plain text; paragraphs are split on blank lines and [S1]-style markers parsed later.
Every failure (timeout, connection, HTTP status, unparsable or empty output) becomes a
GenerationError with a reason code; the prompt and whatever came back travel with it so
the trace can show them. Markers are validated by alignment, not here.

Time: each attempt is bounded in wall-clock time by `timeout` and by what is left of `deadline` (RAG_LLM_DEADLINE,
every attempt together with the pauses between them): a deadline.Watchdog shuts the attempt's connection down when its
time is up, however the server trickles its headers or its reply, so an ask never outlasts the web worker that runs it
(gunicorn's --timeout; docs/DEPLOYMENT.md). The retries are this module's, not the client's: the client's would
sleep up to a minute on a server's Retry-After whatever time is left.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import random
import re
import time
from collections.abc import Sequence
from typing import Any

import openai
from markdown_it import MarkdownIt
from openai.types.chat import ChatCompletion

from rag_app.deadline import NO_KEEPALIVE, openai_call_within, watchdog_hooks
from rag_app.pipeline.prompts import OUTPUT_NAME, answer_schema, build_messages, render_prompt
from rag_app.pipeline.records import Assembly, Draft, DraftParagraph
from rag_app.validation import shown_text, storable

from .base import GenerationError

log = logging.getLogger(__name__)

_FENCE_RE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
_PARAGRAPH_SPLIT_RE = re.compile(r"\n\s*\n")

# Answers worth another try (the openai client's own list): timeout, conflict, rate limit, server errors.
_RETRY_STATUS = frozenset({408, 409, 429})
_BACKOFF_S = 0.5  # before the first retry, doubled each time (jittered)
_MAX_BACKOFF_S = 8.0
# A retry that would have less than this left before the deadline is not made (capped at the timeout).
_MIN_ATTEMPT_S = 1.0


class OpenAICompatGenerator:
    mode = "llm"

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        model: str,
        timeout: float,
        retries: int,
        deadline: float | None = None,
        structured: str = "json_schema",
        max_tokens: int = 512,
        temperature: float = 0.0,
    ) -> None:
        if structured not in {"json_schema", "json_object", "none"}:
            raise ValueError(f"unknown structured output mode {structured!r}")
        self.model = model
        self.structured = structured
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.timeout = timeout
        self.retries = retries
        # None: no bound on the attempts together beyond each one's timeout (and the pauses between them).
        self.deadline = deadline
        # Local servers accept any key; the client insists on a non-empty one. httpx applies `timeout` to each read,
        # so a server sending a byte now and then would hold the ask for as long as it likes: each attempt runs under
        # a Watchdog (_attempt), which needs a connection of its own per attempt (NO_KEEPALIVE).
        # The client closes an http client it made itself, never one it is given: this generator closes its own.
        self._http = openai.DefaultHttpxClient(limits=NO_KEEPALIVE, event_hooks=watchdog_hooks())
        self.client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            timeout=timeout,
            max_retries=0,  # _complete retries, within the deadline
            http_client=self._http,
        )

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter exit the modules it needs may be gone
            self._http.close()

    def response_format(self, assembly: Assembly) -> dict[str, Any] | None:
        if self.structured == "json_schema":
            schema = answer_schema(assembly.markers)
            return {"type": "json_schema", "json_schema": {"name": OUTPUT_NAME, "schema": schema, "strict": True}}
        if self.structured == "json_object":
            return {"type": "json_object", "schema": answer_schema(assembly.markers, limits=True)}
        return None

    def generate(self, *, question: str, assembly: Assembly, language: str, history: Sequence[str] = ()) -> Draft:
        structured = self.structured != "none"
        messages = build_messages(
            question=question, assembly=assembly, language=language, structured=structured, history=history
        )
        response_format = self.response_format(assembly)
        prompt = render_prompt(messages, response_format)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if response_format is not None:
            kwargs["response_format"] = response_format

        def fail(reason: str, message: str, raw: str = "") -> GenerationError:
            return GenerationError(reason, message, prompt=prompt, raw_output=storable(raw), model=self.model)

        try:
            completion = self._complete(kwargs)
        except openai.APITimeoutError as exc:
            raise fail("llm_timeout", "The model did not answer in time.") from exc
        except openai.APIConnectionError as exc:
            raise fail("llm_unreachable", "The model server could not be reached.") from exc
        except openai.APIStatusError as exc:
            body = _safe_text(exc.response)
            raise fail("llm_http_error", f"The model server answered HTTP {exc.status_code}.", body) from exc
        except openai.OpenAIError as exc:
            raise fail("llm_http_error", f"The model call failed: {type(exc).__name__}.") from exc
        except ValueError as exc:  # a 200 whose body is empty, not JSON or not UTF-8 (UnicodeDecodeError too)
            raise fail("llm_bad_output", f"The model server's reply could not be read ({type(exc).__name__}).") from exc

        if not isinstance(completion, ChatCompletion):  # e.g. an HTML error page from a proxy, with status 200
            raise fail("llm_bad_output", "The model server did not return a chat completion.", str(completion)[:2000])
        try:  # the client does not check the reply's shape: choices ["oops"], a message that is a string
            choice = completion.choices[0] if completion.choices else None
            content = (choice.message.content or "") if choice and choice.message else ""
            refusal = getattr(choice.message, "refusal", None) if choice and choice.message else None
        except (AttributeError, TypeError, IndexError, KeyError) as exc:
            message = "The model server's reply was not a chat completion."
            raise fail("llm_bad_output", message, str(completion)[:2000]) from exc
        model_name = storable(str(completion.model or self.model))
        if not isinstance(content, str):  # the client does not check the reply's types: 42, ["a", "b"]
            raise fail("llm_bad_output", "The model's answer was not text.", storable(str(content))[:2000])
        # A reply cut inside an emoji leaves half of it (a lone surrogate), which no database stores.
        content = storable(content)
        if refusal:
            raise fail("llm_refused", "The model refused to answer.", storable(str(refusal)))
        if not content.strip():
            raise fail("llm_empty_output", "The model returned an empty answer.", content)
        if structured:
            paragraphs = parse_structured(content)
            if paragraphs is None:
                truncated = choice is not None and choice.finish_reason == "length"
                detail = " (cut off at the token limit)" if truncated else ""
                raise fail("llm_bad_output", f"The model's answer was not the requested JSON{detail}.", content)
        else:
            paragraphs = parse_plain(content)
        if not paragraphs:
            raise fail("llm_empty_output", "The model returned no paragraphs.", content)
        finish_reason = storable(str(getattr(choice, "finish_reason", "") or ""))[:40]
        return Draft(
            paragraphs=paragraphs,
            raw_output=content,
            model=model_name,
            prompt=prompt,
            quoted=False,
            finish_reason=finish_reason,
        )

    def _complete(self, kwargs: dict[str, Any]) -> Any:
        """The server's reply to the chat request: up to `retries` more attempts after a timeout, a connection
        failure or a retryable status (408, 409, 429, 5xx), with jittered exponential backoff (a Retry-After is
        honoured), each attempt bounded by `timeout` and by what is left of `deadline` (_attempt). The last failure is
        raised when the retries run out, or when no attempt of at least _MIN_ATTEMPT_S fits before the deadline."""
        ends = time.monotonic() + self.deadline if self.deadline is not None else math.inf
        floor = min(_MIN_ATTEMPT_S, self.timeout)
        attempt = 0
        while True:
            limit = min(self.timeout, max(ends - time.monotonic(), 0.001))
            try:
                return self._attempt(kwargs, limit)
            except (openai.APIConnectionError, openai.APIStatusError) as exc:  # APITimeoutError is a connection error
                status = getattr(exc, "status_code", None)
                if attempt >= self.retries or (status is not None and not _retryable(status)):
                    raise
                pause = _pause(attempt, exc)
                if time.monotonic() + pause + floor > ends:
                    log.warning("model call: %s; no time left for another attempt", type(exc).__name__)
                    raise
                log.warning(
                    "model call: attempt %s of %s failed (%s); retrying in %.2f s",
                    attempt + 1,
                    self.retries + 1,
                    f"HTTP {status}" if status is not None else type(exc).__name__,
                    pause,
                )
                time.sleep(pause)
                attempt += 1

    def _attempt(self, kwargs: dict[str, Any], limit: float) -> Any:
        """One request, ended `limit` seconds from now in wall-clock time: httpx's own timeouts (each read, write and
        connect) are set to `limit` too, and the Watchdog cuts a reply that is still coming then. The error a cut
        connection gives (a read or write failing) is the attempt's timeout, APITimeoutError."""
        return openai_call_within(limit, lambda: self.client.chat.completions.create(**kwargs, timeout=limit))


def _retryable(status: int) -> bool:
    return status in _RETRY_STATUS or status >= 500


def _pause(attempt: int, exc: Exception) -> float:
    """Seconds before the next attempt: 0.5, 1, 2, ... (at most 8, jittered), or the server's Retry-After (seconds,
    up to a minute; the deadline still bounds it)."""
    pause = min(_MAX_BACKOFF_S, _BACKOFF_S * 2**attempt) * random.uniform(0.75, 1.0)
    response = getattr(exc, "response", None)
    retry_after = response.headers.get("retry-after") if response is not None else None
    try:
        return max(pause, min(60.0, float(retry_after))) if retry_after else pause
    except ValueError:  # an HTTP date: keep the computed pause
        return pause


def parse_structured(content: str) -> tuple[DraftParagraph, ...] | None:
    """The structured answer, or None if it is not the requested shape. Markers are not judged here."""
    fenced = _FENCE_RE.match(content)
    text = fenced.group(1) if fenced else content
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("paragraphs"), list):
        return None
    out: list[DraftParagraph] = []
    for item in data["paragraphs"]:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            return None
        ids = item.get("citation_ids", [])
        if not isinstance(ids, list):
            return None
        out.append(DraftParagraph(text=reader_text(item["text"]), citation_ids=tuple(str(i) for i in ids)))
    return tuple(p for p in out if p.text.strip() or p.citation_ids)


def parse_plain(content: str) -> tuple[DraftParagraph, ...]:
    """Plain text: one paragraph per blank-line-separated block; markers stay in the text for alignment.
    Paragraph text is what readers are shown (reader_text: no control or bidi override characters, no Markdown
    marks); the trace keeps the reply as it came."""
    blocks = (reader_text(block).strip() for block in _PARAGRAPH_SPLIT_RE.split(content))
    return tuple(DraftParagraph(text=block) for block in blocks if block)


# Models write Markdown, which the answer is not rendered as: a heading's marks, emphasis and code spans are
# dropped, their words kept (markdown-it-py reads them as CommonMark does; a list's numbers and bullets stay: they
# say the order).
_MARKDOWN = MarkdownIt("commonmark")
_HEADING_RE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(?=\S)", re.MULTILINE)
_BREAKS = frozenset({"softbreak", "hardbreak"})


_TIMES_RE = re.compile(r"(?<=\d)\s*\*\s*(?=\d)")


def reader_text(text: str) -> str:
    """A model's paragraph as readers are shown it (pages, API, CLI): validation.shown_text's characters dropped,
    and its Markdown read as the reader would see it rendered: "**30 days**", "*30 days*" and "`30 days`" are
    "30 days", "## Refunds" is "Refunds", a link "[the policy](https://...)" is "the policy (https://...)". Anything
    else, raw HTML too, stays as written (and is escaped where shown). shown_text runs again on the words read:
    a character reference ("&#x202E;") is decoded by the reading into the character it names."""
    text = shown_text(text)
    if not any(mark in text for mark in "*_`#[<&\\"):
        return text
    # A star between two digits multiplies ("2*3*4 = 24"): read as emphasis it would drop, and the reader would see
    # "234 = 24", a number no source holds.
    text = _TIMES_RE.sub(lambda m: m.group(0).replace("*", "\\*"), text)
    parts: list[str] = []
    href, start = "", 0
    for token in _MARKDOWN.parseInline(_HEADING_RE.sub("", text))[0].children or ():
        if token.type in _BREAKS:
            parts.append("\n")
        elif token.type == "link_open":
            href = str(token.attrGet("href") or "")
            start = len(parts)
        elif token.type == "link_close":
            label = "".join(parts[start:])
            if href and href not in label:
                parts.append(f" ({href})")
        elif token.type in {"text", "code_inline", "html_inline", "image"}:  # an image: its alt text
            parts.append(token.content)
    return shown_text("".join(parts))


def _safe_text(response: Any) -> str:
    try:
        return str(response.text)[:2000]
    except Exception:  # a broken error body must not hide the original error
        return ""
