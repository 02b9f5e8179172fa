/* Live pages: keep the #live region in step with the table.
 *
 * The server renders the region (/part/<view>); this script re-fetches it
 * whenever the event stream says the state changed, ticks countdowns between
 * updates, and sends commands (after the PIN) to the JSON API.
 */
(function () {
  "use strict";
  var body = document.body;
  var view = body.getAttribute("data-view");
  var region = document.getElementById("live");
  var hooks = [];
  var fetching = false;
  var again = false;
  var lastHtml = null;
  // What the server drew into the page itself, before any script touched it: the
  // first fetch after a load compares against it, so an unchanged state is left alone.
  var pageHtml = region ? region.innerHTML.trim() : null;

  var TP = (window.TablePi = window.TablePi || {});
  var _ = TP._;
  TP.afterRender = function (fn) { hooks.push(fn); fn(region); };

  function runHooks() {
    for (var i = 0; i < hooks.length; i++) {
      try { hooks[i](region); } catch (e) { console.error(e); }
    }
    startCountdowns();
  }

  // One fetch at a time; a change during a fetch triggers exactly one more.
  function refresh() {
    if (!region || !view) return;
    if (fetching) { again = true; return; }
    fetching = true;
    fetch("/part/" + view, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.text(); })
      .then(function (html) {
        // The same state again (a command's own refresh after its event's):
        // the page is left alone, so a tap or a choice in progress is not lost.
        if (html === lastHtml) return;
        var first = lastHtml === null;
        lastHtml = html;
        if (first && sameAsPage(html)) return;
        region.innerHTML = html;
        runHooks();
      })
      .catch(function (e) { setStatus("offline", _("Cannot reach the table ({why})", { why: e.message })); })
      .then(function () {
        fetching = false;
        if (again) { again = false; refresh(); }
      });
  }
  TP.refresh = refresh;

  // The browser's own serialisation of both sides, so that quoting and spacing do not count.
  function sameAsPage(html) {
    var parsed = document.createElement("template");
    parsed.innerHTML = html;
    return parsed.innerHTML.trim() === pageHtml;
  }

  function setStatus(cls, text) {
    var el = document.getElementById("link-status");
    if (!el) return;
    el.className = "link-status " + cls;
    el.textContent = text;
  }

  // Live event stream; the browser reconnects by itself, and every (re)open
  // re-reads the state because events may have been missed while away.
  function connect() {
    if (!window.EventSource) { setInterval(refresh, 2000); return; }
    // The TV says so: the table keeps a live-view slot for it.
    var es = new EventSource("/api/events" + (body.getAttribute("data-view") === "tv" ? "?view=tv" : ""));
    var opened = false;
    var refused = false;
    es.onopen = function () {
      refused = false;
      setStatus("online", _("live"));
      if (opened) refresh();
      opened = true;
    };
    es.onerror = function () { if (!refused) setStatus("offline", _("reconnecting…")); };
    ["state", "missed", "timer", "table_player"].forEach(function (t) { es.addEventListener(t, refresh); });
    // A new language for the table: the TV (which follows it) reads the whole page again.
    es.addEventListener("settings", function (ev) {
      var d = {};
      try { d = JSON.parse(ev.data); } catch (e) { /* keep going */ }
      if (d.language && view === "tv") window.location.reload();
      else refresh();
    });
    es.addEventListener("rolling", function () { body.classList.add("rolling"); });
    // A reading the table refused comes with the state (its "refused_reading"), drawn in the region.
    es.addEventListener("reading", function () { body.classList.remove("rolling"); });
    es.addEventListener("camera", function (ev) {
      var d = {};
      try { d = JSON.parse(ev.data); } catch (e) { /* keep going */ }
      showNotice(d.shown || d.message || (d.lost ? _("Camera lost") : _("Camera back")), d.lost ? "warn" : "info");
    });
    // A button on the table was refused: say why here too, not only on the OLED.
    es.addEventListener("refused", function (ev) {
      try { var r = JSON.parse(ev.data); showNotice(_("The table: {message}", { message: r.shown || r.message }), "warn"); } catch (e) { /* keep going */ }
    });
    // Refused a live view for now (too many open): not live, and the browser retries later.
    es.addEventListener("busy", function (ev) {
      var text = _("busy");
      try { var b = JSON.parse(ev.data); text = b.shown || b.message || text; } catch (e) { /* keep going */ }
      refused = true;
      setStatus("offline", text);
    });
    es.addEventListener("error", function (ev) {
      if (!ev.data) return;  // a connection error, handled by onerror
      try { var m = JSON.parse(ev.data); showNotice(m.shown || m.message || ev.data, "warn"); } catch (e) { showNotice(ev.data, "warn"); }
    });
    TP.events = es;
  }

  // Leaving the page ends its stream at once, so its slot is free for the next
  // page; a page restored from the browser's cache connects again.
  window.addEventListener("pagehide", function () { if (TP.events) TP.events.close(); });
  window.addEventListener("pageshow", function (ev) { if (ev.persisted) connect(); });

  function showNotice(text, cls) {
    var el = document.getElementById("notice");
    if (!el) return;
    el.textContent = text;
    el.className = "notice " + (cls || "info");
    clearTimeout(showNotice.t);
    showNotice.t = setTimeout(function () { el.className = "notice hidden"; }, 6000);
  }
  TP.notice = showNotice;

  // Countdowns: the server renders the remaining seconds at render time and
  // whether the timer runs; the page counts down from the moment it got them.
  var countdownTimer = null;
  function startCountdowns() {
    var els = document.querySelectorAll("[data-countdown]");
    var now = performance.now();
    for (var i = 0; i < els.length; i++) {
      if (!els[i].hasAttribute("data-t0")) els[i].setAttribute("data-t0", String(now));
    }
    if (!countdownTimer && els.length) countdownTimer = setInterval(tick, 100);
    tick();
  }
  function fmt(sec) {
    var s = Math.max(0, Math.ceil(sec - 1e-6));
    var m = Math.floor(s / 60);
    return m > 0 ? m + ":" + String(s % 60).padStart(2, "0") : String(s);
  }
  function tick() {
    var els = document.querySelectorAll("[data-countdown]");
    var now = performance.now();
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      var left = parseFloat(el.getAttribute("data-countdown"));
      if (el.getAttribute("data-running") === "1") {
        left -= (now - parseFloat(el.getAttribute("data-t0") || now)) / 1000;
      }
      left = Math.max(0, left);
      el.textContent = fmt(left);
      el.classList.toggle("warning", left <= 10 && left > 0);
      el.classList.toggle("expired", left <= 0);
      // The table's "ended" event may be a second away: the words must not say "running" at 0.
      if (left <= 0 && el.getAttribute("data-running") === "1") {
        var label = document.getElementById("timer-label");
        if (label && label.getAttribute("data-ended-text")) label.textContent = label.getAttribute("data-ended-text");
      }
    }
  }

  // Dice drawn like the server's (macros.html).
  var PIPS = {
    1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[27, 27], [50, 50], [73, 73]],
    4: [[28, 28], [72, 28], [28, 72], [72, 72]], 5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
    6: [[28, 25], [72, 25], [28, 50], [72, 50], [28, 75], [72, 75]]
  };
  function dieSvg(value) {
    var pips = (PIPS[value] || []).map(function (p) {
      return '<circle class="pip" cx="' + p[0] + '" cy="' + p[1] + '" r="9"/>';
    }).join("");
    var q = PIPS[value] ? "" : '<text x="50" y="64" text-anchor="middle" font-size="44" fill="#888">?</text>';
    return '<svg viewBox="0 0 100 100" aria-hidden="true"><rect class="face" x="4" y="4" width="92" height="92" rx="16"/>' +
      pips + q + "</svg>";
  }
  TP.dieSvg = dieSvg;

  // Commands and the PIN.
  TP.authed = function () { return sessionStorage.getItem("tablepi-authed") === "1"; };
  function setAuthed(yes) {
    if (yes) sessionStorage.setItem("tablepi-authed", "1");
    else sessionStorage.removeItem("tablepi-authed");
    body.classList.toggle("authed", !!yes);
  }
  TP.setAuthed = setAuthed;

  // The API's messages are clauses ("there is nothing to take back"); a player reads a sentence.
  function sentence(text) {
    text = String(text).trim();
    if (!text) return text;
    text = text.charAt(0).toUpperCase() + text.slice(1);
    return /[.!?…]$/.test(text) ? text : text + ".";
  }

  function errorText(data, status) {
    if (data && data.error) {
      // The rule's code stays in the JSON for developers; players read the words (in their language: "shown").
      return sentence(data.shown || data.error);
    }
    return _("The table refused that (HTTP {status}).", { status: status });
  }
  TP.errorText = errorText;

  function showError(text) {
    var el = document.getElementById("action-error");
    if (el) {
      el.textContent = text || "";
      el.classList.toggle("hidden", !text);
    } else if (text) {
      showNotice(text, "warn");
    }
  }
  TP.showError = showError;

  // POST JSON; resolves to the parsed reply, rejects with a plain-words message.
  TP.post = function (url, payload) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(payload || {})
    }).then(function (r) {
      return r.text().then(function (t) {
        var data = null;
        try { data = t ? JSON.parse(t) : null; } catch (e) { data = null; }
        if (r.status === 401 || r.status === 403) {
          setAuthed(false);
          throw new Error(errorText(data, r.status) || _("Enter the table's PIN first."));
        }
        if (!r.ok) throw new Error(errorText(data, r.status));
        return data;
      });
    });
  };

  // One command at a time: a double tap must not end two turns.
  var sending = false;
  TP.command = function (cmd) {
    if (sending) return Promise.reject(new Error(_("a command is on its way")));
    sending = true;
    showError("");
    body.classList.add("busy");
    return TP.post("/api/commands", cmd)
      .then(function (data) { refresh(); return data; })
      .catch(function (e) { showError(e.message); throw e; })
      .finally(function () { sending = false; body.classList.remove("busy"); });
  };

  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("[data-command]");
    if (!el || el.disabled) return;
    ev.preventDefault();
    var cmd;
    try { cmd = JSON.parse(el.getAttribute("data-command")); } catch (e) { return; }
    TP.command(cmd).catch(function () { /* shown already */ });
  });

  var pinForm = document.getElementById("pin-form");
  if (pinForm) {
    pinForm.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var input = pinForm.querySelector("input[name=pin]");
      var out = document.getElementById("pin-error");
      out.textContent = "";
      TP.post("/api/login", { pin: input.value.trim() })
        // The "sign in first" error from before is stale now: it goes.
        .then(function () { signIns++; setAuthed(true); showError(""); input.value = ""; refresh(); })
        .catch(function (e) { out.textContent = e.message; });
    });
  }
  var logout = document.getElementById("pin-forget");
  if (logout) logout.addEventListener("click", function (ev) {
    ev.preventDefault();
    setAuthed(false);
    showError("");
    // Ends the session on the table too, not just on this page.
    TP.post("/api/logout", {}).catch(function () { /* signed out here already */ });
  });

  var inviteLink = document.getElementById("invite");
  if (inviteLink) inviteLink.addEventListener("click", function (ev) {
    ev.preventDefault();
    var card = document.getElementById("invite-card");
    TP.post("/api/invite", {})
      .then(function (data) {
        // The QR code is the table's own SVG; the link goes in as text.
        card.querySelector(".invite-qr").innerHTML = data.qr;
        card.querySelector(".invite-url").textContent = data.url;
        card.classList.remove("hidden");
      })
      .catch(function (e) { showError(e.message); });
  });

  setAuthed(TP.authed());
  // The session cookie is the truth (it outlives this tab, and a new PIN ends it).
  var signIns = 0;
  // An invitation from a player's phone signs this one in; the link is used
  // up, so it leaves the address bar (and the history) at once.
  var invited = /(?:^#|&)invite=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (invited) {
    history.replaceState(null, "", location.pathname + location.search);
    TP.post("/api/join", { invite: invited[1] })
      .then(function () { signIns++; setAuthed(true); showError(""); refresh(); })
      .catch(function (e) {
        var out = document.getElementById("pin-error");
        if (out) out.textContent = e.message;
      });
  }
  fetch("/api/session", { credentials: "same-origin" })
    .then(function (r) { return r.json(); })
    .then(function (d) { if (!signIns) setAuthed(!!d.signed_in); })
    .catch(function () { /* keep the stored guess */ });
  runHooks();
  connect();
})();
