"""Which elements are open, by the HTML standard's tree construction: the end tags a page may leave out.

HTML closes an element by itself when the next one opens: `<li>` closes an open `<li>`, `<p>` and every block
(`<div>`, `<section>`, `<table>`, ...) close an open `<p>`, `<td>` closes `<td>`, `<tr>` closes `<tr>`, and the end
tag of an ancestor (`</ul>`, `</div>`, `</table>`) closes what is open inside it. Real pages leave these end tags
out, so the HTML parser asks here whether it is inside an element that shows nothing (marked `hidden`, a script,
a template) instead of waiting for an end tag that never comes.

`OpenElements` keeps the standard's *stack of open elements* (WHATWG HTML, 13.2.4.3) and applies the rules of the
"in body", "in table", "in row", "in cell" and "in select" insertion modes that push and pop it (13.2.6.4.7 ff.):
its scopes (13.2.4.2), "close a p element", the list-item and cell rules, the end tags of ancestors, "any other
end tag", and foreign content (`<svg>`, `<math>`) that an HTML tag breaks out of (13.2.6.5). What decides only
where an element goes in the tree and not whether it is open (foster parenting, the adoption agency's cloning,
the list of active formatting elements) is left out: an end tag of a formatting element (`</b>`) closes it, or,
with a block opened inside it, only it (the block stays open), as the adoption agency leaves the stack.
Quirks mode is not modelled: `<table>` closes an open `<p>`, as in a page with `<!DOCTYPE html>`.

Every check is O(1) (a stack of the positions of each tag and of each scope's boundaries), so a page of a
million nested elements costs no more than a flat one.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# 13.1.2 void elements: never open.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track",
     "wbr", "basefont", "bgsound", "frame", "image"}
)  # fmt: skip
# 13.2.4.2 the special category (HTML elements).
_SPECIAL = frozenset(
    {"address", "applet", "area", "article", "aside", "base", "basefont", "bgsound", "blockquote", "body", "br",
     "button", "caption", "center", "col", "colgroup", "dd", "details", "dir", "div", "dl", "dt", "embed",
     "fieldset", "figcaption", "figure", "footer", "form", "frame", "frameset", "head", "header", "hgroup", "hr",
     "html", "iframe", "img", "input", "keygen", "li", "link", "listing", "main", "marquee", "menu", "meta", "nav",
     "noembed", "noframes", "noscript", "object", "ol", "p", "param", "plaintext", "pre", "script", "search",
     "section", "select", "source", "style", "summary", "table", "tbody", "td", "template", "textarea", "tfoot",
     "th", "thead", "title", "tr", "track", "ul", "wbr", "xmp", *_HEADINGS}
)  # fmt: skip
_CELLS = ("td", "th")
_SECTIONS = ("tbody", "thead", "tfoot")
_TABLE_PARTS = frozenset({"caption", "col", "colgroup", "tr", *_CELLS, *_SECTIONS})
# The elements whose position decides the table insertion modes (the nearest one: "in table", "in table body",
# "in row", "in cell", "in caption"; html and template: neither).
_TABLE_CONTEXT = frozenset({"html", "table", "template", "caption", "tr", *_CELLS, *_SECTIONS})
# A table's own structure: what opens in it while one of these is the current node goes before the table, except
# the table's parts and what the "in table" mode inserts in place.
_FOSTERS = frozenset({"table", "tr", *_SECTIONS})
# What a select holds ("in select"; every other start tag is ignored there).
_IN_SELECT = frozenset({"option", "optgroup", "hr", "input", "keygen", "textarea", "script", "template"})
_IN_TABLE = _TABLE_PARTS | {"table", "script", "style", "template", "form", "input"}
# Foreign elements that are special and bound the default scope: HTML integration points and MathML text ones.
_FOREIGN_SPECIAL = frozenset({"foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext", "annotation-xml"})
_DEFAULT_SCOPE = frozenset({"applet", "caption", "html", "table", "td", "th", "marquee", "object", "template"})
# Which boundaries each scope stops at (HTML elements; a foreign special element bounds every scope but "table").
_SCOPES: dict[str, frozenset[str]] = {
    "default": _DEFAULT_SCOPE,
    "list_item": _DEFAULT_SCOPE | {"ol", "ul"},
    "button": _DEFAULT_SCOPE | {"button"},
    "table": frozenset({"html", "table", "template"}),
    "special": _SPECIAL,
    # What stops the search for an open <li>, <dd> or <dt> when the next one opens: a special element other than
    # address, div and p.
    "list_walk": _SPECIAL - {"address", "div", "p"},
    "table_context": _TABLE_CONTEXT,
}
_FOREIGN_BOUNDS = frozenset({"default", "list_item", "button", "special", "list_walk"})
# "close a p element": the start tags that close an open <p> in button scope.
_CLOSES_P = frozenset(
    {"address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "fieldset",
     "figcaption", "figure", "footer", "header", "hgroup", "main", "menu", "nav", "ol", "p", "search", "section",
     "summary", "ul", "pre", "listing", "form", "plaintext", "table", "hr", "xmp", "li", "dd", "dt", *_HEADINGS}
)  # fmt: skip
# End tags that close their element, and everything open inside it, when it is in (default) scope.
_BLOCK_ENDS = frozenset(
    {"address", "article", "aside", "blockquote", "button", "center", "details", "dialog", "dir", "div", "dl",
     "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "listing", "main", "menu", "nav", "ol",
     "pre", "search", "section", "summary", "ul", "applet", "marquee", "object"}
)  # fmt: skip
_FORMATTING = frozenset(
    {"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"}
)
# 13.2.6.5: the HTML start tags that end foreign content (an <svg> or <math> left open).
_BREAKS_FOREIGN = frozenset(
    {"b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed", "h1", "h2",
     "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr", "ol", "p", "pre",
     "ruby", "s", "small", "span", "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var"}
)  # fmt: skip
_INTEGRATION = frozenset({"foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext", "annotation-xml"})
# Elements whose content is text, not markup, up to their own end tag (raw text and RCDATA; <noscript> as a browser
# that runs scripts reads it). Python's tokenizer knows only <script> and <style>: tags inside the others are
# ignored here.
_RAW = frozenset({"iframe", "noembed", "noframes", "noscript", "textarea", "title", "xmp"})


@functools.cache
def _scopes_of(tag: str, foreign: bool) -> tuple[str, ...]:
    """The scopes an element bounds."""
    if foreign:
        return tuple(s for s in _SCOPES if s in _FOREIGN_BOUNDS) if tag in _FOREIGN_SPECIAL else ()
    return tuple(scope for scope, tags in _SCOPES.items() if tag in tags)


@dataclass
class _Open:
    tag: str
    foreign: bool
    hides: bool  # what is inside it shows nothing: it, or an element it is in, is flagged
    gone: bool = False  # taken off by a formatting end tag while a block opened inside it stays open


class OpenElements:
    """The stack of open elements of one page, each knowing whether what is inside it shows nothing."""

    def __init__(self) -> None:
        self._stack: list[_Open] = []
        self._at: defaultdict[tuple[str, bool], list[int]] = defaultdict(list)  # (tag, foreign) -> positions
        self._bounds: dict[str, list[int]] = {scope: [] for scope in _SCOPES}
        self._html_upto: list[int] = [0]  # [i + 1]: how many HTML (not foreign) elements the first i + 1 are

    # --- what the parser calls -------------------------------------------------------------------------------------

    def start(
        self, tag: str, *, flagged: bool, self_closing: bool = False, attrs: frozenset[str] = frozenset()
    ) -> bool:
        """A start tag: close what it implies, then open it (a void element, or a foreign one written `<x/>`, opens
        nothing; a tag the standard ignores, nothing either). `flagged`: it shows nothing, and neither does anything
        inside it. True when it lands inside an element that shows nothing."""
        top = self._top()
        if top is not None and top.tag in _RAW and not top.foreign:
            return top.hides  # text, not a tag
        if self._in_foreign():
            if tag in _BREAKS_FOREIGN or (tag == "font" and attrs & {"color", "face", "size"}):
                while self._in_foreign():
                    self._pop()
            else:
                inside = self._top_hides()
                if not self_closing:
                    self._push(tag, foreign=True, flagged=flagged)
                return inside
        if self._in_select():
            if tag in _TABLE_PARTS or tag == "table":
                if self._in_scope(("table",), "table") and self._last("table") < self._last("select"):
                    self._close_in_scope(("select",), "table")  # "in select in table": the table goes on
                    return self.start(tag, flagged=flagged, self_closing=self_closing, attrs=attrs)
                return self._top_hides()
            if tag == "select":
                self._close_in_scope(("select",), "table")  # a select in a select closes it and opens nothing
                return self._top_hides()
            if tag not in _IN_SELECT:
                return self._top_hides()  # ignored: a select holds options
        if (tag in _TABLE_PARTS or tag == "table") and not self._table_start(tag):
            return self._top_hides()  # a table's part outside a table: ignored
        self._close_implied_by(tag)
        foster = self._fostered(tag)
        inside = self._fostered_hides() if foster else self._top_hides()
        if tag in VOID or tag == "head" or (tag in {"html", "body"} and self._last(tag) >= 0):
            return inside
        if not (self_closing and tag in {"svg", "math"}):
            self._push(tag, foreign=tag in {"svg", "math"}, flagged=flagged, inside=inside)
        return inside

    def end(self, tag: str) -> None:
        """An end tag: close its element and what is open inside it, if the standard's rule finds it."""
        top = self._top()
        if top is not None and top.tag in _RAW and not top.foreign:
            if tag == top.tag:
                self._pop()
            return  # anything else is text
        if tag in {"p", "br"} and self._in_foreign():
            while self._in_foreign():  # </p> and </br> end foreign content
                self._pop()
        foreign_at = self._last(tag, foreign=True)
        if foreign_at >= 0 and self._html_upto[-1] == self._html_upto[foreign_at + 1]:
            self._pop_to(foreign_at)  # a foreign element of that name, with no HTML one above it
            return
        if tag in {"html", "head", "body", "br"} or tag in VOID:
            return  # body and html stay open to the end (what follows </body> is still in the body)
        if self._in_select() and tag not in {"select", "option", "optgroup", "template"}:
            in_table = (tag in _TABLE_PARTS or tag == "table") and self._last("table") < self._last("select")
            if in_table and self._in_scope((tag,), "table"):  # "in select in table": the select ends, the tag closes
                self._close_in_scope(("select",), "table")
                self.end(tag)
            return  # ignored in a select
        if tag == "template":
            if (at := self._last("template")) >= 0:
                self._pop_to(at)
        elif tag == "p":
            self._close_in_scope(("p",), "button")
        elif tag == "li":
            self._close_in_scope(("li",), "list_item")
        elif tag in {"dd", "dt"} or tag in _BLOCK_ENDS:
            self._close_in_scope((tag,), "default")
        elif tag in _HEADINGS:
            self._close_in_scope(tuple(_HEADINGS), "default")
        elif tag in _TABLE_PARTS or tag in {"table", "select"}:
            self._close_in_scope((tag,), "table")
        elif tag in _FORMATTING:
            self._formatting_end(tag)
        else:
            self._any_other_end(tag)

    def close(self) -> None:
        """The end of the page: everything is closed."""
        while self._stack:
            self._pop()

    def count(self, tag: str) -> int:
        """How many HTML elements of this tag are open (the tables a cell is nested in, say)."""
        return len(self._at.get((tag, False), ()))

    @property
    def hiding(self) -> bool:
        """Text here shows nothing (text in a table's own structure goes before the table: foster parenting)."""
        top = self._top()
        if top is not None and top.tag in _FOSTERS and not top.foreign:
            return self._fostered_hides()
        return self._top_hides()

    # --- the standard's rules --------------------------------------------------------------------------------------

    def _table_start(self, tag: str) -> bool:
        """A table's part (or a table) opening, by the insertion mode the stack is in ("in table", "in table body",
        "in row", "in cell", "in caption"): what it closes, and the table body or row it implies. False: ignored
        (a cell, row or section outside any table)."""
        while True:
            at = self._bound("table_context")
            context = self._stack[at].tag if at >= 0 else None
            if context in _CELLS or context == "caption":
                if tag not in _TABLE_PARTS:
                    return True  # a table in a cell or a caption: a new table
                self._pop_to(at)  # close the cell (the caption), then the tag again
            elif context == "tr":
                if tag in _CELLS:
                    self._pop_to(at + 1)
                    return True
                self._pop_to(at)  # the row ends; the tag again in its table body
            elif context in _SECTIONS:
                if tag in {"tr", *_CELLS}:
                    self._pop_to(at + 1)
                    if tag != "tr":
                        self._push("tr", foreign=False, flagged=False)  # a cell implies its row
                    return True
                self._pop_to(at)  # the table body ends; the tag again in its table
            elif context == "table":
                if tag == "table":
                    self._pop_to(at)  # a table opened in a table closes it
                    continue
                self._pop_to(at + 1)  # "clear the stack back to a table context"
                if tag in {"tr", *_CELLS}:
                    self._push("tbody", foreign=False, flagged=False)  # a row implies its table body
                    continue
                return True
            else:
                return tag == "table"  # "in body": a table opens; its parts are ignored

    def _close_implied_by(self, tag: str) -> None:
        if tag in _CLOSES_P:
            self._close_in_scope(("p",), "button")
        if tag in _HEADINGS and self._current() in _HEADINGS:
            self._pop()
        elif tag == "li":
            self._close_list_item(("li",))
        elif tag in {"dd", "dt"}:
            self._close_list_item(("dd", "dt"))
        elif tag in {"option", "optgroup"}:
            if self._current() == "option":
                self._pop()
        elif tag in {"rb", "rtc", "rp", "rt"}:
            if self._in_scope(("ruby",), "default"):
                implied = {"rb", "rp", "rt"} if tag in {"rp", "rt"} else {"rb", "rp", "rt", "rtc"}
                while self._current() in implied:
                    self._pop()
        elif tag in {"input", "keygen", "textarea"}:
            self._close_in_scope(("select",), "table")  # a select cannot hold these: it is closed first
        elif tag == "button":
            self._close_in_scope(("button",), "default")
        elif tag in {"a", "nobr"} and self._last(tag) >= 0:
            self._formatting_end(tag)

    def _close_list_item(self, tags: tuple[str, ...]) -> None:
        """<li> (or <dd>/<dt>) closes an open one unless a special element other than address, div or p is nearer
        (the open one is such an element itself)."""
        at = max(self._last(t) for t in tags)
        if at >= 0 and at >= self._bound("list_walk"):
            self._pop_to(at)

    def _formatting_end(self, tag: str) -> None:
        at = self._last(tag)
        if at < 0 or at < self._bound("default"):
            return  # not open, or open outside the scope (in a table cell's ancestor): nothing to close
        if self._bound("special") > at:
            self._take_off(at)  # the adoption agency's "furthest block" stays open
        else:
            self._pop_to(at)

    def _any_other_end(self, tag: str) -> None:
        at = self._last(tag)
        if at >= 0 and at >= self._bound("special"):  # no special element above it
            self._pop_to(at)

    def _close_in_scope(self, tags: tuple[str, ...], scope: str) -> None:
        if self._in_scope(tags, scope):
            self._pop_to(max(self._last(t) for t in tags))

    def _in_scope(self, tags: tuple[str, ...], scope: str) -> bool:
        at = max(self._last(t) for t in tags)
        return at >= 0 and at >= self._bound(scope)  # an element that bounds the scope is in it itself

    def _fostered(self, tag: str) -> bool:
        """What opens while the current node is a table, its body or a row goes before the table, into the table's
        parent (foster parenting), unless it is part of the table."""
        top = self._top()
        return top is not None and top.tag in _FOSTERS and not top.foreign and tag not in _IN_TABLE

    def _fostered_hides(self) -> bool:
        table = self._last("table")
        return table > 0 and self._stack[table - 1].hides

    # --- the stack -------------------------------------------------------------------------------------------------

    def _in_foreign(self) -> bool:
        """The current node is a foreign element other than an HTML integration point (whose content is HTML)."""
        top = self._top()
        return top is not None and top.foreign and top.tag not in _INTEGRATION

    def _in_select(self) -> bool:
        """The "in select" insertion mode: the current node is a select, or an option or group in one."""
        return self._current() in {"select", "option", "optgroup"} and self._in_scope(("select",), "table")

    def _top(self) -> _Open | None:
        return self._stack[-1] if self._stack else None

    def _top_hides(self) -> bool:
        return bool(self._stack) and self._stack[-1].hides

    def _current(self) -> str | None:
        top = self._top()
        return None if top is None or top.foreign else top.tag

    def _last(self, tag: str, *, foreign: bool = False) -> int:
        positions = self._at.get((tag, foreign))
        return positions[-1] if positions else -1

    def _bound(self, scope: str) -> int:
        bounds = self._bounds[scope]
        return bounds[-1] if bounds else -1

    def _push(self, tag: str, *, foreign: bool, flagged: bool, inside: bool | None = None) -> None:
        at = len(self._stack)
        hides = flagged or (self._top_hides() if inside is None else inside)
        self._stack.append(_Open(tag, foreign, hides))
        self._html_upto.append(self._html_upto[-1] + (not foreign))
        self._at[(tag, foreign)].append(at)
        for scope in _scopes_of(tag, foreign):
            self._bounds[scope].append(at)

    def _pop(self) -> None:
        self._forget(self._stack.pop())
        self._html_upto.pop()
        while self._stack and self._stack[-1].gone:  # already off the standard's stack: it goes with what was above
            self._stack.pop()
            self._html_upto.pop()

    def _pop_to(self, at: int) -> None:
        while len(self._stack) > at:
            self._pop()

    def _take_off(self, at: int) -> None:
        entry = self._stack[at]
        self._forget(entry)
        entry.gone = True

    def _forget(self, entry: _Open) -> None:
        """`entry` leaves the stack: it is the last of its tag, and the last boundary of its scopes (what is taken
        off from below the top is a formatting element, which bounds no scope)."""
        self._at[(entry.tag, entry.foreign)].pop()
        for scope in _scopes_of(entry.tag, entry.foreign):
            self._bounds[scope].pop()
