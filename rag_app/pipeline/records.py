"""The records every stage of the pipeline passes along.

Records first, projections second: a retrieval hit is a complete ChunkRecord from
the moment it leaves the index. The model context, the citation map, the stored
snippets and the UI are projections of one Assembly. Nothing here imports Django.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

NO_LOCATION = "no location provided"


def format_locator(section: str | None, page: int | None) -> str | None:
    """ "Section > Sub · p. 3", or None when the document gave neither (rule 7: never invented)."""
    parts: list[str] = []
    if section:
        parts.append(section)
    if page is not None:
        parts.append(f"p. {page}")
    return " · ".join(parts) if parts else None


class RejectReason(StrEnum):
    """Why a retrieval candidate was not kept (rule 10, 11, 15)."""

    BELOW_THRESHOLD = "below_threshold"
    NO_SOURCE_ID = "no_source_id"
    LEVEL_EXCLUDED = "level_excluded"
    EXPIRED = "expired"
    NOT_YET_EFFECTIVE = "not_yet_effective"
    SUPERSEDED = "superseded"  # a newer version of the document took effect (ChunkRecord.superseded_on)
    DUPLICATE_SOURCE = "duplicate_source"
    OVER_BUDGET = "over_budget"
    NOT_ANSWERING = "not_answering"  # on topic, but does not state what the question asks (answerability.py)


class EvidenceStatus(StrEnum):
    LINKED = "linked"
    INSUFFICIENT = "insufficient"


@dataclass(frozen=True, slots=True)
class Scope:
    """What a question is asked within, beyond what the asker may read: each facet that is not empty
    narrows the search to documents of those levels (slugs), access groups (names) or source_ids."""

    levels: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()
    # The groups' ids, in the order of `groups` (services.scope sets them): a stored scope names its groups as they
    # are called now, after a rename (services.scope.current_scope). Empty for a scope stored before they were kept.
    group_ids: tuple[int, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.levels or self.groups or self.documents)

    def as_dict(self) -> dict[str, list[str]]:
        """The form shown (the API, the pages): only the facets that narrow."""
        facets = {"levels": self.levels, "groups": self.groups, "documents": self.documents}
        return {name: list(values) for name, values in facets.items() if values}

    def stored_form(self) -> dict[str, list[Any]]:
        """The stored form (Answer.scope, the trace's settings, the remembered scope): `as_dict` and the groups' ids."""
        out: dict[str, list[Any]] = dict(self.as_dict())
        if self.groups and len(self.group_ids) == len(self.groups):
            out["group_ids"] = list(self.group_ids)
        return out

    @classmethod
    def stored(cls, data: object) -> Scope:
        """The scope `stored_form` stored (an answer's, to replay it); a facet that is not a list of strings, or
        anything else, reads as not narrowing; ids that are not one integer per group are left out."""
        facets = data if isinstance(data, dict) else {}

        def values(name: str) -> tuple[str, ...]:
            raw = facets.get(name)
            return tuple(v for v in raw if isinstance(v, str)) if isinstance(raw, list) else ()

        groups = values("groups")
        raw_ids = facets.get("group_ids")
        ids = (
            tuple(raw_ids)
            if isinstance(raw_ids, list)
            and len(raw_ids) == len(groups)
            and all(isinstance(i, int) and not isinstance(i, bool) for i in raw_ids)
            else ()
        )
        return cls(levels=values("levels"), groups=groups, documents=values("documents"), group_ids=ids)


@dataclass(frozen=True, slots=True)
class Held:
    """A term of the question that a retrieval hit holds (search/explain.py): the term, how the hit holds it
    (word | synonym | name | dateline | translation) and, when the passage holds it as something else, that
    (the synonym's or rendering's term, the characters of a name)."""

    term: str
    how: str
    written: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"term": self.term, "how": self.how, "as": self.written}


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """One retrieval hit: text, identity, location, trust and similarity together (rules 1, 2)."""

    chunk_id: str
    source_id: str | None
    version: int
    index: int
    text: str
    title: str | None = None
    url: str | None = None
    section: str | None = None
    page: int | None = None
    start: int = 0
    end: int = 0
    level: str | None = None
    level_weight: float = 0.0
    # The level's label as the search read it (None: no level, or a record built elsewhere): stored with the
    # citation and the trace, so that an old answer shows its level as it was when answered.
    level_label: str | None = None
    # Calibrated relevance in [0, 1]: comparable across queries, the one value the threshold reads.
    relevance: float = 0.0
    lexical_score: float | None = None
    dense_score: float | None = None
    # The part of `relevance` that comes from the document standing out from every other
    # candidate document (search/scoring.py `standout`); 0 when another document matches as well.
    standout: float = 0.0
    # The lexical relevance of the question translated word by word (pipeline/crosslingual.py): the
    # lexical part of `relevance` is the larger of this and the question's own; 0 when not translated.
    translated: float = 0.0
    effective_from: dt.date | None = None
    effective_until: dt.date | None = None
    # The date the next version of the document takes effect (DocumentVersion.superseded_on): this version is in
    # force until then. None for the current version.
    superseded_on: dt.date | None = None
    language: str | None = None
    # The chunk's indexed terms (its text, title and section path, as search stored them), for checks that
    # read the candidate pool without tokenizing it again; empty when the record was built elsewhere.
    terms: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    # Why it was retrieved (search/explain.py): the question's terms it holds and how, in the question's
    # order, and those it lacks; empty when the record was built elsewhere. The trace keeps both.
    held: tuple[Held, ...] = field(default=(), compare=False, repr=False)
    missing: tuple[str, ...] = field(default=(), compare=False, repr=False)
    # The chunk row's key where the search read it: a citation is stored against this row, never found again
    # by chunk_id alone (a document deleted while the question was answered may have its id reused by another
    # one, whose chunk ids are the same). None when the record was built elsewhere.
    pk: int | None = field(default=None, compare=False, repr=False)

    @property
    def display_title(self) -> str:
        """Rule 7: a missing title shows the source_id, never an invented one."""
        return self.title or self.source_id or self.chunk_id

    @property
    def locator(self) -> str | None:
        """Human-readable location, or None when the document gave none."""
        return format_locator(self.section, self.page)

    @property
    def locator_label(self) -> str:
        return self.locator or NO_LOCATION


@dataclass(frozen=True, slots=True)
class Rejection:
    record: ChunkRecord
    reason: RejectReason
    detail: str = ""  # why, in English words, for the trace and the API
    # The same, as data the pages put in the reader's language (presentation.decision_detail): {"code": ..., and
    # the values the detail names}; empty where the reason code says all.
    facts: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)


def below_top_k(record: ChunkRecord, top_k: int) -> Rejection:
    """The rejection of a passage ranked behind the first `top_k` kept (RAG_TOP_K): `over_budget`, code `top_k`."""
    return Rejection(record, RejectReason.OVER_BUDGET, f"ranked below RAG_TOP_K={top_k}", {"code": "top_k", "n": top_k})


@dataclass(frozen=True, slots=True)
class Beside:
    """The kept passage of a lower level a passage under its bar was judged beside (tiering.beside): its chunk_id,
    level and cosine, as they were then (a later cut may leave it out)."""

    chunk_id: str
    level: str | None
    cosine: float | None


@dataclass(frozen=True, slots=True)
class Selection:
    """Output of tiering: kept records in final rank order, and every rejected one with its reason."""

    kept: tuple[ChunkRecord, ...]
    rejected: tuple[Rejection, ...]
    threshold: float
    # Why a kept record qualified when its relevance alone did not (tiering: a copy of a qualified
    # passage), by chunk_id; the trace shows it beside the record. `copies`: such a copy's original.
    notes: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    copies: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    # A kept record under its bar judged beside a kept one of a lower level (tiering.outranking), by chunk_id: that
    # record, as it was then. The trace shows it as why it was kept.
    beside: Mapping[str, Beside] = field(default_factory=dict, compare=False, hash=False)
    # A kept record that goes on with the list a kept record's chunk introduces and leaves unfinished, by chunk_id:
    # that record's chunk_id (tiering.with_list_continuations). The trace shows it as why it was kept.
    continued: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    # The titles of the candidates' documents the question names (pipeline/naming.py), ranked first.
    named: frozenset[str] = frozenset()
    # The question's language, with each passage's, set the passage's bar (tiering.share); "" when the lower
    # bar for a question asked in the passage's language did not apply (hybrid.qualify: the screen off).
    asked_in: str = ""
    # Whether the question asks for a value (answerability.asks_value): a passage read across languages then needs
    # less of the threshold (tiering.share).
    value: bool = False

    @property
    def has_evidence(self) -> bool:
        return bool(self.kept)


@dataclass(frozen=True, slots=True)
class AssembledSource:
    """One entry of the citation map: the marker, the record, and exactly the text the model saw."""

    marker: str
    record: ChunkRecord
    snippet: str
    shortened: bool = False


@dataclass(frozen=True, slots=True)
class Assembly:
    """The ONE projection step's result: context and citation map built from the same loop."""

    sources: tuple[AssembledSource, ...]
    context: str
    dropped: tuple[Rejection, ...] = ()
    budget_chars: int = 0
    named: frozenset[str] = frozenset()  # Selection.named: the titles the question names

    @property
    def markers(self) -> tuple[str, ...]:
        return tuple(s.marker for s in self.sources)

    def by_marker(self) -> dict[str, AssembledSource]:
        return {s.marker: s for s in self.sources}


@dataclass(frozen=True, slots=True)
class DraftParagraph:
    text: str
    citation_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Draft:
    """What a generator returned, before alignment. raw_output is kept verbatim for the trace."""

    paragraphs: tuple[DraftParagraph, ...]
    raw_output: str = ""
    model: str = ""
    prompt: str = ""
    quoted: bool = False  # extractive answers are verbatim quotations
    conflict: bool = False
    finish_reason: str = ""  # a model's, as its server gave it: "length" when cut off at the token limit

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


@dataclass(frozen=True, slots=True)
class AlignedParagraph:
    text: str
    citation_ids: tuple[str, ...]
    status: EvidenceStatus
    support: float | None = None
    weak: bool = False


@dataclass(frozen=True, slots=True)
class AlignedAnswer:
    paragraphs: tuple[AlignedParagraph, ...]
    # Cited sources, each marker once, in first-citation order.
    sources: tuple[AssembledSource, ...]
    dropped_markers: tuple[str, ...] = ()
    conflict: bool = False
    conflicting_markers: tuple[str, ...] = ()
    notes: dict[str, object] = field(default_factory=dict)
