/* Beam Me Up on a phone: set dice aside, and enter or correct a roll by hand.
 *
 * A roll typed in is sent as {"type": "roll", "dice": [...], "kept": [...],
 * "manual": true}; correcting the camera's reading takes its roll back
 * (undo) and sends the corrected one.
 */
(function () {
  "use strict";
  var TP = window.TablePi;
  var _ = TP._;
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }
  var box = document.getElementById("roll-composer");
  if (!box) return;
  var slotsEl = document.getElementById("rc-slots");
  var padEl = document.getElementById("rc-pad");

  var dieSvg = TP.dieSvg;

  var current = { seq: null, dice: null, phase: null, kind: null };
  var keptIdx = [];              // dice of the current roll set aside for the next
  var slots = [0, 0, 0, 0, 0];   // 0: not entered yet
  var locked = [false, false, false, false, false];
  var active = 0;
  var correcting = false;
  var correctingSeq = null;  // the roll the composer was opened to correct

  function readState() {
    var el = document.getElementById("state-json");
    var pub = null;
    try { pub = el ? JSON.parse(el.textContent) : null; } catch (e) { pub = null; }
    var g = pub && pub.game;
    var s = g && g.kind === "beam_me_up" ? g.state : null;
    return { seq: pub ? pub.seq : null, kind: g && g.kind, dice: s ? s.dice : null, phase: s ? s.phase : null, s: s,
      rollSeq: g && g.last_roll ? g.last_roll.seq : null, refused: g ? g.refused_reading : null };
  }

  function afterRender() {
    var st = readState();
    var changed = JSON.stringify(st.dice) !== JSON.stringify(current.dice) || st.phase !== current.phase;
    var before = current;
    current = st;
    if (changed) {
      // A corrected roll keeps the marks on the dice it did not change.
      keptIdx = st.dice && before.dice && st.phase === before.phase && st.dice.length === before.dice.length
        ? keptIdx.filter(function (i) { return st.dice[i] === before.dice[i]; })
        : [];
    }
    if (st.kind !== "beam_me_up" || st.phase !== "rolling") close();
    var buttons = document.querySelectorAll("#roll-dice .die-button");
    for (var i = 0; i < buttons.length; i++) {
      var k = keptIdx.indexOf(i) >= 0;
      buttons[i].setAttribute("aria-pressed", k ? "true" : "false");
    }
  }

  function renderComposer() {
    slotsEl.innerHTML = slots.map(function (v, i) {
      return '<button type="button" class="die-button" data-slot="' + i + '" aria-label="' +
        esc(_("die {n}", { n: i + 1 }) + ": " + (v || _("not set")) + (locked[i] ? ", " + _("set aside") : "")) + '"' +
        ' style="outline:' + (i === active && !locked[i] ? "3px solid var(--accent)" : "none") + '">' +
        '<span class="die' + (locked[i] ? " kept" : "") + '">' + dieSvg(v) + "</span></button>";
    }).join("");
    padEl.innerHTML = [1, 2, 3, 4, 5, 6].map(function (v) {
      return '<button type="button" class="die-button" data-pick="' + v + '" aria-label="' + esc(_("value {v}", { v: v })) + '">' +
        '<span class="die">' + dieSvg(v) + "</span></button>";
    }).join("");
    document.getElementById("rc-send").disabled = slots.indexOf(0) >= 0;
  }

  function open(mode) {
    var st = readState();
    correcting = mode === "correct";
    correctingSeq = correcting ? st.rollSeq : null;
    slots = [0, 0, 0, 0, 0];
    locked = [false, false, false, false, false];
    if (mode === "seen" && st.refused) {
      // The camera's refused reading, as it saw it: the dice set aside stay
      // marked (first), the others as read; the player fixes what is wrong.
      var seen = (st.refused.dice || []).map(function (d) { return d.value; });
      (st.refused.kept || []).slice(0, 5).forEach(function (v, n) {
        slots[n] = v; locked[n] = true;
        var at = seen.indexOf(v);
        if (at >= 0) seen.splice(at, 1);
      });
      var n = locked.indexOf(false);
      seen.forEach(function (v) {
        if (n >= 0 && n < 5) { slots[n] = v; n++; }
      });
    } else if (correcting && st.dice) {
      slots = st.dice.slice(0, 5);
      // The dice set aside before this roll stay marked in the editor (tap one to free it).
      var aside = ((st.s && st.s.kept) || []).slice();
      slots.forEach(function (v, n) {
        var at = aside.indexOf(v);
        if (at >= 0) { locked[n] = true; aside.splice(at, 1); }
      });
    } else if (st.dice) {
      keptIdx.forEach(function (idx, n) { slots[n] = st.dice[idx]; locked[n] = true; });
    }
    active = locked.indexOf(false);
    document.getElementById("rc-title").textContent = correcting ? _("Correct the roll") : _("Enter a roll by hand");
    box.classList.remove("hidden");
    renderComposer();
    box.scrollIntoView({ behavior: "smooth", block: "center" });
  }
  function close() { box.classList.add("hidden"); }

  document.addEventListener("click", function (ev) {
    var opener = ev.target.closest("[data-open-roll]");
    if (opener) { open(opener.getAttribute("data-open-roll")); return; }
    var die = ev.target.closest("#roll-dice .die-button");
    if (die && TP.authed()) {
      var idx = parseInt(die.getAttribute("data-die-index"), 10);
      var at = keptIdx.indexOf(idx);
      if (at >= 0) keptIdx.splice(at, 1); else keptIdx.push(idx);
      keptIdx.sort();
      afterRender();
      // The table, /device and the other phones show the same marks.
      TP.post("/api/device/keep", { dice: keptIdx }).catch(function () { /* the phone still knows */ });
    }
  });
  slotsEl.addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-slot]");
    if (!b) return;
    var i = parseInt(b.getAttribute("data-slot"), 10);
    if (locked[i]) { locked[i] = false; }  // a set-aside die can be re-rolled after all (B11)
    active = i;
    renderComposer();
  });
  padEl.addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-pick]");
    if (!b || active < 0) return;
    slots[active] = parseInt(b.getAttribute("data-pick"), 10);
    var next = -1;
    for (var k = 1; k <= 5; k++) {
      var j = (active + k) % 5;
      if (!locked[j] && slots[j] === 0) { next = j; break; }
    }
    active = next < 0 ? active : next;
    renderComposer();
  });
  document.getElementById("rc-cancel").addEventListener("click", close);
  document.getElementById("rc-send").addEventListener("click", function () {
    var cmd = { type: "roll", dice: slots.slice(), manual: true };
    var kept = [];
    for (var i = 0; i < 5; i++) if (locked[i]) kept.push(slots[i]);
    // The dice still marked as set aside go with the roll (a correction's too).
    if (kept.length) cmd.kept = kept;
    // The undo names the roll being corrected: if it was taken back already
    // (another phone corrected it first), the table refuses rather than take
    // back the move before it.
    var undo = correctingSeq ? { type: "undo", seq: correctingSeq } : { type: "undo" };
    var first = correcting ? TP.command(undo) : Promise.resolve();
    first.then(function () { return TP.command(cmd); })
      .then(function () { close(); keptIdx = []; })
      .catch(function () { /* shown already */ });
  });

  function showKept(kept) {
    keptIdx = kept.slice();
    var buttons = document.querySelectorAll("#roll-dice .die-button");
    for (var i = 0; i < buttons.length; i++) buttons[i].setAttribute("aria-pressed", keptIdx.indexOf(i) >= 0 ? "true" : "false");
  }
  // Another phone or /device set dice aside.
  if (TP.events) TP.events.addEventListener("kept", function (ev) {
    try { showKept(JSON.parse(ev.data).dice || []); } catch (e) { /* ignore */ }
  });

  TP.afterRender(afterRender);
  // The marks made before this page opened.
  fetch("/api/device", { cache: "no-store", credentials: "same-origin" })
    .then(function (r) { return r.json(); })
    .then(function (d) { if (current.dice) showKept(d.kept || []); })
    .catch(function () { /* none known */ });
})();
