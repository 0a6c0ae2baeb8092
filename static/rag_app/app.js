/* Hover cards for footnote markers, and small progressive enhancements.
 * No inline scripts anywhere (CSP): this file is the only hand-written JS.
 * Cards open on hover and keyboard focus through CSS (:hover, :focus-within); this adds
 * tap-to-toggle on touch screens, Escape to close, and aria-expanded for assistive tech. */
(function () {
  "use strict";

  function markers(root) {
    return (root || document).querySelectorAll(".fn-marker");
  }

  function setOpen(fn, open) {
    fn.classList.toggle("open", open);
    var marker = fn.querySelector(".fn-marker");
    if (marker) marker.setAttribute("aria-expanded", open ? "true" : "false");
  }

  function closeAll(except) {
    document.querySelectorAll(".fn.open").forEach(function (fn) {
      if (fn !== except) setOpen(fn, false);
    });
  }

  document.addEventListener("pointerup", function (event) {
    if (event.pointerType !== "touch") return;
    var marker = event.target.closest(".fn-marker");
    if (!marker) {
      if (!event.target.closest(".hovercard")) closeAll(null);
      return;
    }
    var fn = marker.closest(".fn");
    var opening = !fn.classList.contains("open");
    closeAll(fn);
    setOpen(fn, opening);
    if (opening) {
      fn.classList.remove("dismissed");
      place(fn);
    } else {
      // A second tap closes the card. The marker's hover and the focus the tap's mouse events give it after
      // this would hold it open: it stays dismissed until the pointer comes back (the next tap).
      fn.classList.add("dismissed");
      fn.dataset.tapClosed = "1";
    }
    marker.dataset.tapped = "1";
  });

  document.addEventListener("click", function (event) {
    // On touch a tap toggles the card instead of jumping to the source panel (the card links to the passage).
    var marker = event.target.closest(".fn-marker");
    if (marker && marker.dataset.tapped === "1") {
      event.preventDefault();
      marker.dataset.tapped = "";
      delete marker.closest(".fn").dataset.tapClosed;
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var fn = document.activeElement && document.activeElement.closest(".fn");
    closeAll(null);
    if (fn) {
      fn.classList.add("dismissed");
      // Focus inside the card (its link) would fall to <body> as the card hides: it goes back to the marker.
      var own = fn.querySelector(".fn-marker");
      if (own && document.activeElement !== own) own.focus();
      fn.classList.add("dismissed"); // focusing the marker reopened it
      if (own) own.setAttribute("aria-expanded", "false");
    }
  });

  document.addEventListener("focusin", function (event) {
    var fn = event.target.closest && event.target.closest(".fn");
    if (fn && fn.dataset.tapClosed === "1") return; // the focus of the tap that closed it
    if (fn) {
      place(fn);
      fn.classList.remove("dismissed");
      var marker = fn.querySelector(".fn-marker");
      if (marker) marker.setAttribute("aria-expanded", "true");
    }
  });

  function place(fn) {
    // Keep the card on screen: shift it left when it would overflow the right edge, and open it
    // above its marker when it would run off the bottom (on phones the CSS pins it as a sheet).
    // (Setting a CSSOM property is allowed under CSP; style attributes in markup are not.)
    window.requestAnimationFrame(function () {
      var card = fn.querySelector(".hovercard");
      if (!card) return;
      card.style.left = "";
      fn.classList.remove("above");
      var rect = card.getBoundingClientRect();
      if (!rect.width) return;
      var limit = document.documentElement.clientWidth - 8;
      if (rect.right > limit && getComputedStyle(card).position !== "fixed") {
        var shift = Math.min(rect.right - limit, Math.max(rect.left - 8, 0));
        card.style.left = -shift + "px";
      }
      var room = fn.getBoundingClientRect().top;
      if (rect.bottom > window.innerHeight - 8 && room > rect.height + 8) fn.classList.add("above");
    });
  }

  document.addEventListener("pointerover", function (event) {
    var open = event.target.closest && event.target.closest(".fn");
    if (open) place(open);
    // Escape hides a card until the pointer or focus comes back to its marker.
    var fn = event.target.closest && event.target.closest(".fn.dismissed");
    if (fn) {
      fn.classList.remove("dismissed");
      delete fn.dataset.tapClosed; // a tap that closed it without a click (a long press) is over
    }
  });

  document.addEventListener("focusout", function (event) {
    var fn = event.target.closest && event.target.closest(".fn");
    if (fn && !fn.contains(event.relatedTarget)) {
      var marker = fn.querySelector(".fn-marker");
      if (marker) marker.setAttribute("aria-expanded", "false");
    }
  });

  function count(textarea, live) {
    // A live character count; past the limit it says so (the server refuses, it never cuts). The count is no live
    // region (a screen reader would say "1 / 2000", "2 / 2000" at every keystroke): it describes the box, read with
    // it, and crossing the limit either way is announced once.
    var out = document.querySelector('.char-count[data-for="' + textarea.id + '"]');
    var max = parseInt(textarea.dataset.maxChars, 10);
    if (!out || !max) return;
    if (!out.id) out.id = textarea.id + "-count";
    describe(textarea, out.id);
    // Characters as the server counts them (code points): .length counts a character outside the Basic
    // Multilingual Plane (an emoji, the 𨋢 or 𠮷 of Hong Kong names and words) as two UTF-16 units.
    var n = Array.from(textarea.value).length;
    var wasOver = out.classList.contains("over");
    out.textContent = n + " / " + max;
    out.classList.toggle("over", n > max);
    textarea.setAttribute("aria-invalid", n > max ? "true" : "false");
    if (live && wasOver !== n > max) {
      announce(out.textContent + " " + (n > max ? document.body.dataset.msgTooLong : document.body.dataset.msgShortEnough));
    }
  }

  function describe(field, id) {
    var ids = (field.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
    if (ids.indexOf(id) < 0) ids.push(id);
    field.setAttribute("aria-describedby", ids.join(" "));
  }

  // One polite live region for the whole page (base.html), there from the start: text put in it is announced, which a
  // region inserted or replaced by a swap is not. The same words twice (a filter giving the same count) are said
  // again: emptied first, filled on the next tick.
  function announce(text) {
    var box = document.getElementById("announcer");
    if (!box || !text) return;
    box.textContent = "";
    window.setTimeout(function () {
      box.textContent = text;
    }, 50);
  }

  document.addEventListener("keydown", function (event) {
    // Enter in the scope's document search searches; it must not submit (ask) the question form.
    if (event.key === "Enter" && event.target.matches && event.target.matches('input[name="doc_q"]')) {
      event.preventDefault();
      event.target.dispatchEvent(new Event("search", { bubbles: true }));
    }
  });

  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("textarea[data-max-chars]")) count(event.target, true);
  });

  function enhance(root) {
    markers(root).forEach(function (m) {
      m.setAttribute("aria-expanded", "false");
    });
    (root || document).querySelectorAll("textarea[data-max-chars]").forEach(function (box) {
      count(box, false);
    });
    (root || document).querySelectorAll(".nojs-only").forEach(function (el) {
      el.hidden = true; // what only a page without JavaScript needs (htmx does it live)
    });
    (root || document).querySelectorAll("select.js-autosubmit").forEach(function (select) {
      // A pick with the pointer sends the form at once. From the keyboard an arrow key changes a closed select's value
      // (and fires change) as the reader goes through the options: that must not reload the page (a change of
      // context on input): the choice is sent with Enter, or with the button, shown again.
      var form = select.form;
      var button = form && form.querySelector(".js-hide");
      var keyed = false;
      if (button) button.hidden = true;
      select.addEventListener("pointerdown", function () {
        keyed = false;
      });
      select.addEventListener("keydown", function (event) {
        if (event.key === "Enter") {
          event.preventDefault();
          form.submit();
        } else if (event.key !== "Tab" && event.key !== "Shift") {
          keyed = true;
        }
      });
      select.addEventListener("change", function () {
        if (!keyed) form.submit();
        else if (button) button.hidden = false;
      });
    });
  }

  // A request htmx did not swap (a server error, a session that changed, too many requests, no connection)
  // must not leave the page silently as it was: the message goes in #request-error (base.html), as text.
  // Where focus goes back to when the box is closed: the field or button that sent the request (closing the box with
  // its button would otherwise leave focus on <body>, and a keyboard user at the top of the page).
  var errorReturn = null;
  // What takes focus without being given a tabindex (focusOn gives one to anything else).
  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
  function returnTarget(elt) {
    if (!elt || !elt.isConnected) return null;
    if (elt.matches("form")) elt = elt.querySelector("textarea, input:not([type=hidden]), select, button");
    return elt && elt.matches(FOCUSABLE) ? elt : null;
  }
  function requestError(status, elt) {
    var box = document.getElementById("request-error");
    if (!box) return;
    var active = document.activeElement;
    errorReturn = returnTarget(active && active !== document.body ? active : elt);
    var msg = document.body.dataset;
    // a 404: what the request acts on was deleted meanwhile (an answer with its document): trying again cannot work
    var text = { 0: msg.msgOffline, 403: msg.msgSession, 404: msg.msgGone, 429: msg.msgBusy }[status] || msg.msgFailed;
    box.querySelector(".request-error-text").textContent = status ? text + " (HTTP " + status + ")" : text;
    box.setAttribute("role", "alert"); // an alert only while shown (a hidden one would still be one)
    box.hidden = false;
  }
  function hideRequestError() {
    var box = document.getElementById("request-error");
    if (!box) return;
    box.hidden = true;
    box.removeAttribute("role");
  }
  document.addEventListener("htmx:responseError", function (event) {
    requestError(event.detail.xhr ? event.detail.xhr.status : 0, event.detail.elt);
  });
  document.addEventListener("htmx:sendError", function (event) {
    requestError(0, event.detail.elt);
  });
  document.addEventListener("htmx:beforeRequest", hideRequestError);
  // The language switch returns to the page shown: after htmx pushed a new URL (an answer, a filter), that one.
  document.addEventListener("htmx:pushedIntoHistory", function () {
    var next = document.querySelector('form.lang input[name="next"]');
    if (next) next.value = window.location.pathname + window.location.search;
  });
  document.addEventListener("click", function (event) {
    if (!(event.target.closest && event.target.closest(".request-error-close"))) return;
    hideRequestError();
    focusOn(returnTarget(errorReturn) || document.querySelector("main h1, main"));
    errorReturn = null;
  });

  document.addEventListener("DOMContentLoaded", function () {
    enhance(document);
  });
  // A form's errors swapped in by htmx name their field as Django's error lists do (id "<field id>_error"): the field
  // says it is invalid and is described by them, as on the page a plain post gives; a swap without them clears that.
  function tieErrors(root) {
    document.querySelectorAll("[data-error-tied]").forEach(function (field) {
      field.removeAttribute("data-error-tied");
      field.setAttribute("aria-invalid", "false");
      var rest = (field.getAttribute("aria-describedby") || "").split(" ").filter(function (id) {
        return id && id !== field.id + "_error";
      });
      if (rest.length) field.setAttribute("aria-describedby", rest.join(" "));
      else field.removeAttribute("aria-describedby");
    });
    root.querySelectorAll('.errorlist[id$="_error"]').forEach(function (list) {
      var field = document.getElementById(list.id.slice(0, -"_error".length));
      if (!field) return;
      var ids = (field.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      if (ids.indexOf(list.id) < 0) ids.push(list.id);
      field.setAttribute("aria-describedby", ids.join(" "));
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("data-error-tied", "1");
    });
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    enhance(event.target);
    if (event.target.id === "answer") tieErrors(event.target);
    // After asking, bring the answer into view when it landed below the fold (phones).
    if (event.target.id === "answer") {
      var top = event.target.getBoundingClientRect().top;
      if (top > window.innerHeight * 0.6 || top < 0) event.target.scrollIntoView({ block: "start" });
    }
  });

  // Where the reader was when a request started: the element, and the nearest box with an id around it (a swap that
  // replaces the element puts a new box with the same id in its place).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var active = document.activeElement;
    var xhr = event.detail.xhr;
    if (xhr && active && active !== document.body) {
      var box = active.closest("[id]");
      xhr.ragFocus = { element: active, box: box ? box.id : "" };
    }
    // The request's progress message (hx-indicator) is said once as it starts: the indicator itself is hidden
    // (display: none) until then, and a region that appears is not announced.
    var indicator = event.detail.elt && event.detail.elt.getAttribute && event.detail.elt.getAttribute("hx-indicator");
    var shown = indicator && document.querySelector(indicator);
    if (shown) announce(shown.textContent.trim());
  });

  // A polled list (the upload page's jobs) says each item whose state changed since the poll before, once: its state
  // and its outcome (or its name). Items are matched by id across the swap that replaces them.
  var statesBefore = {};
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.querySelectorAll) return;
    target.querySelectorAll("[data-announce-state][id]").forEach(function (item) {
      statesBefore[item.id] = item.dataset.state;
    });
  });

  function stateChanges(root) {
    var said = [];
    root.querySelectorAll("[data-announce-state][id]").forEach(function (item) {
      var before = statesBefore[item.id];
      if (before === undefined || before === item.dataset.state) return;
      statesBefore[item.id] = item.dataset.state;
      var state = item.querySelector(".job-state");
      var outcome = [].map.call(item.querySelectorAll(".job-result"), function (p) {
        // the outcome without its link's word ("open"): the link is there to be followed, not read out
        return [].filter
          .call(p.childNodes, function (node) {
            return node.nodeName !== "A";
          })
          .map(function (node) {
            return node.textContent;
          })
          .join("")
          .trim();
      });
      if (!outcome.length) outcome = [(item.querySelector(".job-file, .job-source") || item).textContent.trim()];
      said.push((state ? state.textContent.trim() + ": " : "") + outcome.join(" "));
    });
    return said.join(" · ");
  }

  function focusLost() {
    var active = document.activeElement;
    return !active || active === document.body || !active.isConnected;
  }

  function focusOn(element) {
    if (!element) return;
    if (!element.matches(FOCUSABLE)) element.setAttribute("tabindex", "-1");
    element.focus();
  }

  // After a swap, focus is never left on <body> (the next Tab would start at the top of the page) nor on the button
  // that asked: an answer or its error takes it (its heading, or the alert); a box that was replaced under the focus
  // (a source's flag form, a pager's list) gives it to its message, or to the box itself. What a swap marks
  // data-announce (a filter's new count), and each item of a polled list that changed state, is said in the page's
  // live region.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (target && !target.isConnected && target.id) target = document.getElementById(target.id);
    if (!target) return;
    var changed = stateChanges(target);
    if (changed) announce(changed);
    // What focus lands on is read out; the live region says what it does not (said twice, it would be heard twice).
    var moved = moveFocus(target, event.detail.xhr && event.detail.xhr.ragFocus);
    var said = target.querySelector("[data-announce]");
    if (said && !moved) announce(said.textContent.trim());
  });

  function moveFocus(target, from) {
    if (!from) return false;
    var to = null;
    if (target.id === "answer") {
      // the reader who asked and waited (focus lost, or still on the button), not one who went elsewhere meanwhile
      if (focusLost() || document.activeElement === from.element) to = target.querySelector("[role=alert], .question");
    } else if (focusLost()) {
      var box = from.box && document.getElementById(from.box);
      if (box) to = box.querySelector("[role=status], [role=alert], [data-announce], h1, h2, h3") || box;
    }
    if (!to) return false;
    focusOn(to);
    return true;
  }
  // The question being typed is kept in this tab (sessionStorage) until it is asked: a reload while it is being asked,
  // or the header's language switch (a form of its own, which the box is not part of), brings it back into an empty
  // box; dropped once the answer to it has come.
  var DRAFT = "rag-ask-draft";
  function askBox() {
    var form = document.getElementById("ask-form");
    return form ? form.querySelector("textarea[name=question]") : null;
  }
  // Per reader (a tab whose session ended and whose next reader signs in does not give them the last one's words)
  // and per thread (a follow-up's box is not a new question's).
  function readerPrefix() {
    var form = document.getElementById("ask-form");
    return DRAFT + ":" + (form ? form.getAttribute("data-draft-owner") || "" : "") + ":";
  }
  function draftKey() {
    var parent = document.querySelector("#ask-form input[name=parent]");
    return readerPrefix() + (parent && parent.value ? parent.value : "");
  }
  // Every kept draft but those whose key starts with `kept` ("" drops them all).
  function dropDrafts(kept) {
    Object.keys(window.sessionStorage).forEach(function (key) {
      if (key.indexOf(DRAFT + ":") === 0 && (!kept || key.indexOf(kept) !== 0)) window.sessionStorage.removeItem(key);
    });
  }
  function keepDraft() {
    var box = askBox();
    if (!box) return;
    try {
      if (box.value.trim()) window.sessionStorage.setItem(draftKey(), box.value);
      else window.sessionStorage.removeItem(draftKey());
    } catch (e) {
      /* storage refused (private mode, full): the draft is not kept, nothing else changes */
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var box = askBox();
    if (!box) return;
    try {
      dropDrafts(readerPrefix()); // another reader's, left in this tab
      var draft = window.sessionStorage.getItem(draftKey());
      if (draft && !box.value.trim()) {
        box.value = draft;
        count(box, false);
      }
    } catch (e) {
      /* no storage: nothing to bring back */
    }
    box.addEventListener("input", keepDraft);
  });
  // Signing out leaves no question behind in the tab for whoever signs in next.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || !form.classList || !form.classList.contains("logout-form")) return;
    try {
      dropDrafts("");
    } catch (e) {
      /* no storage */
    }
  });
  // The draft a request asks is the one of the thread it was sent from: the answer's swap replaces the follow-up
  // marker (out of band) before the request ends, so the key is taken as it starts.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = document.getElementById("ask-form");
    if (form && event.detail.elt === form && event.detail.xhr) event.detail.xhr.ragDraftKey = draftKey();
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var xhr = event.detail.xhr;
    if (!xhr || !xhr.ragDraftKey || event.target.id !== "answer") return;
    // Refused (the form's errors swapped in, with 200 so that htmx shows them): still to be asked, kept.
    if (event.target.querySelector("#id_question_error")) return;
    try {
      window.sessionStorage.removeItem(xhr.ragDraftKey); // asked and answered: what stays in the box was asked
    } catch (e) {
      /* no storage */
    }
  });
})();
