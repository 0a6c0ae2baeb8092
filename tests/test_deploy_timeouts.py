"""The shipped process files and the shipped settings agree on time: an ask gives up on the model (RAG_LLM_DEADLINE,
every attempt together) well before gunicorn's --timeout kills the web worker running it, so the answer is stored
as `llm_timeout` instead of the asker getting a 502 and the question being lost (docs/DEPLOYMENT.md)."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from config import settings as shipped  # the defaults a deployment gets (deploy/rag.env.example sets none)

ROOT = Path(settings.BASE_DIR)
WEB_PROCESS_FILES = ("Procfile", "deploy/systemd/rag-web.service")
# What the rest of an ask may take beside the model: retrieval, assembly, the checks and storing take well under a
# second at 100k chunks (docs/PERFORMANCE.md); the rest is room for a slow database or embedding server. The model
# call itself ends at RAG_LLM_DEADLINE in wall-clock time, however its server stalls (rag_app.deadline; measured
# in tests/generation/test_openai_compat.py and tests/test_review28_diff.py), plus the milliseconds it takes to shut
# its connection down and the system's name lookup of the model server's host, which no timeout bounds.
REST_OF_THE_ASK_S = 20


def gunicorn_timeout(name: str) -> int:
    text = (ROOT / name).read_text()
    match = re.search(r"gunicorn[^\n]*(?:\\\n[^\n]*)*?--timeout\s+(\d+)", text)
    assert match is not None, f"{name} names no gunicorn --timeout"
    return int(match.group(1))


def test_every_web_process_file_gives_gunicorn_the_same_timeout():
    assert len({gunicorn_timeout(name) for name in WEB_PROCESS_FILES}) == 1


def test_the_model_deadline_leaves_the_rest_of_the_ask_time_before_gunicorn_kills_the_worker():
    """The question's vector (RAG_EMBEDDING_QUERY_DEADLINE, with an embedding server) and the model's answer
    (RAG_LLM_DEADLINE) are each bounded in wall-clock time; both together and the rest fit under gunicorn's timeout."""
    deadline = float(shipped.RAG["LLM_DEADLINE"]) + float(shipped.RAG["EMBEDDING_QUERY_DEADLINE"])
    for name in WEB_PROCESS_FILES:
        timeout = gunicorn_timeout(name)
        assert deadline + REST_OF_THE_ASK_S <= timeout, (
            f"{name}: gunicorn kills a web worker at {timeout} s, but an ask may wait {deadline:.0f} s on the model"
            f" and the embedding server (RAG_LLM_DEADLINE + RAG_EMBEDDING_QUERY_DEADLINE) plus up to"
            f" {REST_OF_THE_ASK_S} s for the rest"
        )
