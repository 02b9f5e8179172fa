/* The device panel: the table's screen, its three buttons, the camera. */
(function () {
  "use strict";
  var TP = window.TablePi;
  var img = document.getElementById("oled");
  var shown = null;
  var loading = false;

  // Poll the display version (cheap JSON) and fetch the image only when it
  // changed; a "display" event triggers the same check at once.
  // In simulation this page is the table: it shows the screen as the OLED
  // does, danger coin included (to players holding the PIN only).
  var asTable = document.querySelector("main").getAttribute("data-simulated") === "1";
  function checkDisplay() {
    // The screen's image is for players only (it may show what the table shows them).
    if (loading || !TP.authed()) return;
    fetch(asTable ? "/api/device/screen" : "/api/device", { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (d) {
        var v = asTable ? (d ? d.version : null) : (d && d.display ? d.display.version : null);
        if (v !== null && v !== undefined && v !== shown) {
          loading = true;
          var next = new Image();
          next.onload = function () { img.src = next.src; shown = v; img.setAttribute("data-version", String(v)); loading = false; };
          next.onerror = function () { loading = false; };
          next.src = "/api/device/oled.png?" + (asTable ? "view=table&" : "") + "v=" + v;
        }
      })
      .catch(function () { /* the next poll tries again */ });
  }
  setInterval(checkDisplay, 300);
  checkDisplay();

  // Buttons: a press held as long as the table's own buttons need (1.5 s by
  // default), or with "hold" ticked, is long.
  var hint = document.getElementById("hold-hint");
  var LONG_MS = parseInt((hint && hint.getAttribute("data-hold-ms")) || "1500", 10);
  var downAt = {};
  function press(button, long) {
    TP.showError("");
    TP.post("/api/device/press", { button: button, long: long })
      .then(function () { setTimeout(checkDisplay, 60); })
      .catch(function (e) { TP.showError(e.message); });
  }
  document.querySelectorAll("[data-button]").forEach(function (b) {
    var name = b.getAttribute("data-button");
    b.addEventListener("pointerdown", function (ev) {
      downAt[name] = performance.now();
      b.classList.add("down");
      if (b.setPointerCapture) b.setPointerCapture(ev.pointerId);
    });
    b.addEventListener("pointerup", function () {
      b.classList.remove("down");
      if (downAt[name] === undefined) return;
      var held = performance.now() - downAt[name];
      delete downAt[name];
      press(name, document.getElementById("hold").checked || held >= LONG_MS);
    });
    b.addEventListener("pointercancel", function () { b.classList.remove("down"); delete downAt[name]; });
    // A long touch must stay a long press, not open the browser's menu.
    b.addEventListener("contextmenu", function (ev) { ev.preventDefault(); });
    b.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); press(name, document.getElementById("hold").checked); }
    });
  });

  // Camera frame and reading: only in a game with dice (the page leaves them out otherwise).
  var cam = document.getElementById("camera");
  var note = document.getElementById("camera-note");
  var camBusy = false;
  function refreshCamera() {
    if (!cam || camBusy) return;
    camBusy = true;
    var next = new Image();
    next.onload = function () { cam.src = next.src; note.textContent = ""; camBusy = false; };
    next.onerror = function () { note.textContent = TP._("No camera frame yet."); camBusy = false; };
    next.src = "/api/camera.jpg?t=" + Date.now();
  }
  if (cam) {
    setInterval(refreshCamera, 1500);
    refreshCamera();
  }

  // The dice as they lie in the frame, left to right (then top to bottom), each with its confidence.
  function frameOrder(dice) {
    return dice.slice().sort(function (a, b) {
      var ba = a.box || [0, 0], bb = b.box || [0, 0];
      return (ba[0] - bb[0]) || (ba[1] - bb[1]);
    });
  }
  function showReading(r) {
    var box = document.getElementById("reading");
    if (!box) return;
    if (!r) { box.innerHTML = ""; return; }
    box.innerHTML = frameOrder(r.dice || []).map(function (d) {
      var pct = Math.round((d.confidence || 0) * 100);
      return '<span class="read-die"><span class="die" title="' + TP._("confidence {p}%", { p: pct }) + '">' + TP.dieSvg(d.value) +
        '</span><span class="small muted conf">' + pct + "%</span></span>";
    }).join("");
    if (r.problem) {
      var problem = document.createElement("span");
      problem.className = "small";
      problem.style.color = "var(--bad)";
      problem.textContent = r.problem_shown || r.problem;
      box.appendChild(problem);
    }
  }

  // Dice set aside: the same marks here, on every phone and for the next roll.
  function showKept(kept) {
    document.querySelectorAll("[data-keep]").forEach(function (c) {
      c.checked = kept.indexOf(parseInt(c.getAttribute("data-keep"), 10)) >= 0;
    });
  }
  fetch("/api/device", { cache: "no-store" }).then(function (r) { return r.json(); })
    .then(function (d) { showKept(d.kept || []); }).catch(function () { /* the next event says */ });
  // A reading the table refused stays in its state until fixed or thrown again: shown on opening too.
  fetch("/api/state", { cache: "no-store" }).then(function (r) { return r.json(); })
    .then(function (s) {
      var refused = s.game && s.game.refused_reading;
      if (refused && !document.querySelector("#reading .read-die")) showReading(refused);
    }).catch(function () { /* the next reading says */ });

  var pageKind = document.querySelector("main").getAttribute("data-kind");
  if (TP.events) {
    TP.events.addEventListener("display", function () { checkDisplay(); });
    TP.events.addEventListener("reading", function (ev) {
      try { showReading(JSON.parse(ev.data)); } catch (e) { /* ignore */ }
      refreshCamera();
    });
    TP.events.addEventListener("kept", function (ev) {
      try { showKept(JSON.parse(ev.data).dice || []); } catch (e) { /* ignore */ }
    });
    TP.events.addEventListener("state", function (ev) {
      setTimeout(checkDisplay, 50);
      var d = {};
      try { d = JSON.parse(ev.data); } catch (e) { /* keep going */ }
      var game = d.game;
      // Another game has other buttons (and maybe no dice): show its page.
      if (pageKind && (game ? game.kind : "none") !== pageKind) { window.location.reload(); return; }
      if (!game || !game.state || game.state.dice === null || game.state.dice === undefined) showKept([]);
    });
  }

  var rollButton = document.getElementById("roll");
  if (rollButton) rollButton.addEventListener("click", function () {
    TP.showError("");
    TP.post("/api/device/roll", {}).then(function () { setTimeout(refreshCamera, 300); })
      .catch(function (e) { TP.showError(e.message); });
  });
  var keepRow = document.getElementById("keep-row");
  if (keepRow) keepRow.addEventListener("change", function () {
    var kept = [];
    document.querySelectorAll("[data-keep]").forEach(function (c) {
      if (c.checked) kept.push(parseInt(c.getAttribute("data-keep"), 10));
    });
    TP.post("/api/device/keep", { dice: kept }).catch(function (e) { TP.showError(e.message); });
  });
})();
