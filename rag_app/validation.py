"""Input rules shared by every entry point (page, API, CLI, queue): one rule, one place, one limit each.

Forms, API serializers, management commands and services call these functions; none of them
re-states a rule or a limit. Each raises InvalidInput with a code and a message for a person.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import unicodedata
from typing import Literal, cast

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.regex_helper import _lazy_re_compile
from django.utils.translation import gettext as _

MAX_QUESTION_CHARS = 2000
MAX_SOURCE_ID_CHARS = 500

# Unicode categories that never belong in an identifier or a question: controls, format characters
# (zero-width, byte-order mark, bidi overrides), surrogates, private use, unassigned; and the line
# and paragraph separators.
_NOT_TEXT = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


class InvalidInput(ValueError):
    """Input that cannot be accepted; `code` is machine-readable, the message is for a person."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class InvalidQuestion(InvalidInput):
    """The question cannot be asked (empty, too long, not text, bad mode). Nothing is stored."""


class InvalidSourceId(InvalidInput):
    """A document identifier that breaks the rules of `source_id_problem`."""


def source_id_problem(source_id: object) -> str | None:
    """Why `source_id` is not a valid document identifier, or None when it is; in the reader's language (the
    upload page shows it; the API's `code` says which rule, the CLI's language is English).

    Rules: text of 1 to MAX_SOURCE_ID_CHARS characters; no control, format or separator characters
    (a newline breaks every URL that names the document); no leading or trailing whitespace; no
    empty, "." or ".." path segments (ids are shown and linked as paths).
    """
    if not isinstance(source_id, str) or not source_id:
        return _("source_id must not be empty")
    source_id = canonical_source_id(source_id)  # judged as it is stored
    if len(source_id) > MAX_SOURCE_ID_CHARS:
        return _("source_id is %(n)s characters long; the limit is %(limit)s") % {
            "n": f"{len(source_id):,}",
            "limit": MAX_SOURCE_ID_CHARS,
        }
    bad = _invisible(source_id)
    if bad is not None:
        return _("source_id must not contain control or invisible characters (found %(char)s)") % {
            "char": f"U+{ord(bad):04X}"
        }
    if source_id != source_id.strip():
        return _("source_id must not start or end with whitespace")
    if any(part in {"", ".", ".."} for part in source_id.split("/")):
        return _("source_id must not contain empty, '.' or '..' path segments")
    return None


def _invisible(text: str) -> str | None:
    """The first control, format (zero-width, bidi) or separator character of `text`, or None."""
    return next((ch for ch in text if unicodedata.category(ch) in _NOT_TEXT), None)


MAX_FILE_NAME_CHARS = 500  # the file name columns (DocumentVersion, IngestJob), as long as a source_id may be


def file_name_problem(file_name: str) -> str | None:
    """Why the name an uploaded file gives itself is refused, or None: source_id_problem's characters (control,
    invisible, line separators), or longer than MAX_FILE_NAME_CHARS. Such a name is never changed silently: Django's
    multipart parser would drop those characters ("notes\u200b.txt" would become a new version of another document,
    "notes.txt") and cut a name past 255 characters (two long names differing at their end would become one
    document), so the upload paths keep the name as sent (rag_app.uploads) and every entry point (page, API, CLI,
    queue) judges it here."""
    bad = _invisible(file_name)
    if bad is None and "\ufffd" in file_name:  # a NUL as the upload parsers keep it (rag_app.uploads)
        bad = "\ufffd"
    if bad is not None:
        return _("the file name %(name)s contains control or invisible characters (found %(char)s)") % {
            "name": repr(file_name),
            "char": f"U+{ord(bad):04X}",
        }
    if len(file_name) > MAX_FILE_NAME_CHARS:
        return _("the file name is %(n)s characters long; the limit is %(limit)s") % {
            "n": f"{len(file_name):,}",
            "limit": MAX_FILE_NAME_CHARS,
        }
    return None


def canonical_source_id(source_id: str) -> str:
    """The one form a document identifier is stored and looked up in: Unicode NFC. A name typed as "Müller" (one
    code point for ü) and the same name as macOS writes file names (u + a combining diaeresis) are one document."""
    return unicodedata.normalize("NFC", source_id)


def validate_source_id(source_id: object) -> str:
    """`source_id` in its canonical form when valid, else InvalidSourceId naming the rule it breaks."""
    problem = source_id_problem(source_id)
    if problem is not None:
        raise InvalidSourceId(problem, "invalid_source_id")
    return canonical_source_id(cast(str, source_id))


_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# What text shown to readers (questions, titles, comments, the names a file gives itself) never holds: control,
# surrogate, private-use and unassigned characters. Bidirectional overrides (_BIDI_CONTROLS) are refused beside.
_NOT_SHOWN = frozenset({"Cc", "Cs", "Co", "Cn"})


def _not_shown(ch: str) -> bool:
    return unicodedata.category(ch) in _NOT_SHOWN


def is_blank(text: str) -> bool:
    """Whether `text` shows nothing: only whitespace and format characters (zero-width spaces and joiners, the word
    joiner, byte-order marks, bidi marks, soft hyphens). The one rule for what counts as empty: a question, a
    document's text (ingest.parsers.parse) and a title or level label (title_problem)."""
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in text)


def one_line_end(text: str) -> str:
    """`text` with every line end written "\n": a browser posts a textarea's line breaks as CRLF (the HTML standard's
    form encoding; with JavaScript the box sends "\n"), and an API client may send either, or a lone CR. A line
    break is text a reader typed, whichever way it came; a CR left in would be refused as a control character."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def clean_question(question: object) -> str:
    """The question as it will be asked and stored, or InvalidQuestion."""
    if not isinstance(question, str):
        raise InvalidQuestion(_("The question must be text."), "invalid_question")
    text = unicodedata.normalize("NFC", one_line_end(question)).strip()
    if is_blank(text):  # also zero-width spaces, BOMs and bidi marks alone
        raise InvalidQuestion(_("The question is empty."), "empty_question")
    if not any(unicodedata.category(ch)[0] in "LN" for ch in text):
        # Punctuation, symbols and emoji alone ("？？？", "...", "😀") give the search nothing to look for: answering
        # "nothing related" would say the documents were searched for something.
        raise InvalidQuestion(
            _("The question has no words to look for: it is only punctuation, symbols or emoji."), "empty_question"
        )
    if any(_not_shown(ch) and ch not in "\n\t" for ch in text):
        raise InvalidQuestion(_("The question contains control or non-text characters."), "invalid_question")
    if any(ch in _BIDI_CONTROLS for ch in text):
        # Embeddings, overrides and isolates reorder what reviewers read (the marks LRM/RLM stay allowed).
        raise InvalidQuestion(_("The question contains bidirectional override characters."), "invalid_question")
    # Measured as typed (the form's counter and the API's max_length count so): the normal form can be longer
    # ("\u0958" is two characters in NFC).
    typed = len(one_line_end(question).strip())
    if typed > MAX_QUESTION_CHARS:
        # In the asker's language (the web form and the API both show it): the question is refused, not stored.
        message = _("The question is %(n)s characters long; the limit is %(limit)s.")
        raise InvalidQuestion(message % {"n": f"{typed:,}", "limit": f"{MAX_QUESTION_CHARS:,}"}, "question_too_long")
    return text


MAX_TITLE_CHARS = 500  # Document.title's column


def title_problem(title: str, *, what: Literal["title", "label"] = "title", limit: int = MAX_TITLE_CHARS) -> str | None:
    """Why a name shown to readers (a document title given with an upload or changed later, a level's label) is
    refused, or None; in the reader's language. Refused: longer than its column (a title was cut silently on the
    command line); holding control characters (a bell, an escape sequence, a line break) or bidirectional overrides,
    which reorder what readers see ("rtl \u202egnp.exe"), as in a question; or showing nothing (is_blank: zero-width
    characters alone would be an empty link in the library, an empty badge). "" is the caller's business (an
    upload keeps the document's title, a PATCH clears it)."""
    if len(title) > limit:
        numbers = {"n": f"{len(title):,}", "limit": f"{limit:,}"}
        if what == "label":
            return _("the label is %(n)s characters long; the limit is %(limit)s") % numbers
        return _("the title is %(n)s characters long; the limit is %(limit)s") % numbers
    if any(_not_shown(ch) for ch in title):
        if what == "label":
            return _("the label contains control or non-text characters")
        return _("the title contains control or non-text characters")
    if any(ch in _BIDI_CONTROLS for ch in title):
        if what == "label":
            return _("the label contains bidirectional override characters")
        return _("the title contains bidirectional override characters")
    if title and is_blank(title):
        if what == "label":
            return _("the label shows nothing: it is only whitespace or invisible characters")
        return _("the title shows nothing: it is only whitespace or invisible characters")
    return None


def positive_int(value: str) -> int:
    """An argparse type for a count or a batch size of the management commands: a whole number of at least 1
    ("--batch 0" would loop for ever or do nothing, "--limit -3" sample one question per group)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {number}")
    return number


def storable(text: str) -> str:
    """`text` from outside the product (a model's reply, a file's name as the file system gives it) as every
    database here stores it: a lone surrogate (half of a cut emoji, or a byte of a file name that is not UTF-8)
    becomes U+FFFD, and NUL, which PostgreSQL's text refuses, is dropped. Anything else is left as it came."""
    if text.isascii():
        return text.replace("\x00", "")
    return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text if ch != "\x00")


def shown_name(name: str | None) -> str | None:
    """A name a file gives itself (its title, a heading of its section path, a sheet's name, its file name), as
    readers are shown it: title_problem's characters dropped (control, surrogate, private-use and unassigned
    characters, and bidirectional overrides; a line break or tab becomes a space). A person's title breaking the
    rule is refused (check_request); a file's own metadata never stops its ingest. None stays None."""
    if name is None:
        return None
    return _shown(name, keep="")


def shown_text(text: str) -> str:
    """A model's reply as readers are shown it (pages, API, CLI): shown_name's characters dropped (an escape
    sequence's ESC and BEL, bidirectional overrides), line breaks and tabs kept. The trace keeps the reply as it
    came."""
    return _shown(one_line_end(text), keep="\n\t")


def _shown(text: str, *, keep: str) -> str:
    kept = []
    for ch in text:
        if ch in keep:
            kept.append(ch)
        elif ch.isspace() and (_not_shown(ch) or unicodedata.category(ch) in {"Zl", "Zp"}):
            kept.append(" ")  # a line break, a tab, a form feed, U+0085, U+2028: the words stay apart
        elif not _not_shown(ch) and ch not in _BIDI_CONTROLS:
            kept.append(ch)
    return "".join(kept)


MAX_LABEL_CHARS = 100  # SourceLevel.label's column
MAX_LEVEL_DESCRIPTION_CHARS = 2000


def validate_title(value: str) -> None:
    """A document title changed without an upload (an upload's is checked by check_request): title_problem's rule,
    as a Django validator (DRF takes them too)."""
    if (problem := title_problem(value)) is not None:
        raise ValidationError(problem, code="invalid_title")


def validate_label(value: str) -> None:
    """A level's label (form and API alike): title_problem's rule, as a Django validator."""
    if (problem := title_problem(value, what="label", limit=MAX_LABEL_CHARS)) is not None:
        raise ValidationError(problem, code="invalid_label")


MAX_URL_CHARS = 1000  # Document.url's column


class _IntranetURLValidator(URLValidator):
    """Django's URL rule, but a host may be one name without a dot, as an intranet's are ("https://intranet/policies",
    "http://wiki:8090/pages/123"): Django's own takes only "localhost" so."""

    # Django's dotted host, or one ASCII label holding a letter (not an integer written as an IP address)
    host_re = (
        "(" + URLValidator.hostname_re + URLValidator.domain_re + URLValidator.tld_re
        + r"|(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)"
    )  # fmt: skip
    regex = _lazy_re_compile(
        r"^(?:[a-z0-9.+-]*)://"
        r"(?:[^\s:@/]+(?::[^\s:@/]*)?@)?"
        r"(?:" + URLValidator.ipv4_re + "|" + URLValidator.ipv6_re + "|" + host_re + ")"
        r"(?::[0-9]{1,5})?"
        r"(?:[/?#][^\s]*)?"
        r"\Z",
        re.IGNORECASE,
    )


_HTTP_URL = _IntranetURLValidator(schemes=["http", "https"])


def url_problem(url: str) -> str | None:
    """Why a document's URL is refused, or None: it becomes a link in the UI and the answer JSON, so only an http(s)
    URL (a javascript:, data: or ftp: one never is) of at most MAX_URL_CHARS characters. An upload (check_request)
    and a change without one (the API's PATCH) both ask here; blank is the caller's business (keep or clear)."""
    try:
        _HTTP_URL(url)
    except ValidationError:
        return _("%(url)s is not an http(s) URL") % {"url": repr(url[:200])}
    if len(url) > MAX_URL_CHARS:
        return _("url is longer than %(limit)s characters") % {"limit": MAX_URL_CHARS}
    return None


def validate_url(value: str) -> None:
    """url_problem's rule as a Django validator (DRF and forms take them); a blank value is left to the field."""
    if value and (problem := url_problem(value)) is not None:
        raise ValidationError(problem, code="invalid_url")


def date_order_problem(first: dt.date | None, last: dt.date | None) -> str | None:
    """A range of days whose last day comes before its first matches nothing: the review filter (page: From / To;
    API: date_from / date_to) refuses it under its end, as an upload refuses effective dates in the wrong order,
    instead of answering an empty list."""
    if first is not None and last is not None and last < first:
        return _("The end date %(last)s is before the start date %(first)s.") % {"last": last, "first": first}
    return None


MAX_COMMENT_CHARS = 2000


def parent_unavailable() -> str:
    """Why a follow-up is refused when the answer it continues is not one its asker may read
    (selectors.thread_parent), or no longer exists: the page's form and the API say the same, in the reader's
    language."""
    return _("The answer this question follows up is not available.")


def clean_comment(comment: object) -> str:
    """A reader's or reviewer's free text: trimmed, at most MAX_COMMENT_CHARS as typed, no control characters."""
    if comment is None:
        return ""
    if not isinstance(comment, str):
        raise InvalidInput(_("The comment must be text."), "invalid_comment")
    text = unicodedata.normalize("NFC", one_line_end(comment)).strip()
    # Measured as typed, as a question is (the form's counter counts so): the normal form can be longer
    # ("\u0958" is two characters in NFC).
    typed = len(one_line_end(comment).strip())
    if typed > MAX_COMMENT_CHARS:
        message = _("The comment is %(n)s characters long; the limit is %(limit)s.")
        raise InvalidInput(message % {"n": f"{typed:,}", "limit": f"{MAX_COMMENT_CHARS:,}"}, "comment_too_long")
    if any(_not_shown(ch) and ch not in "\n\t" for ch in text):
        raise InvalidInput(_("The comment contains control or non-text characters."), "invalid_comment")
    if any(ch in _BIDI_CONTROLS for ch in text):  # as in a question: they reorder what reviewers read
        raise InvalidInput(_("The comment contains bidirectional override characters."), "invalid_comment")
    return text


# The codes of this module's rules. A 400 that one of them caused (one field, one rule) carries the rule's code on
# every operation that applies it (api/errors.py): the URL an upload refuses and the URL a PATCH refuses are both
# invalid_url, where a DRF field wrapping the rule answered `invalid`.
RULE_CODES = frozenset(
    {
        "invalid_source_id",
        "invalid_file_name",
        "invalid_question",
        "empty_question",
        "question_too_long",
        "invalid_title",
        "invalid_label",
        "invalid_url",
        "invalid_comment",
        "comment_too_long",
    }
)
