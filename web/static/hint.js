/* Beam Me Up hints on a phone: off by default, switched on per player on this
 * phone (kept in its storage); the best keep's dice are marked in the roll. */
(function () {
  "use strict";
  var TP = window.TablePi;
  var KEY = "tablepi-hints";

  function players() {
    try { return JSON.parse(localStorage.getItem(KEY) || "[]"); } catch (e) { return []; }
  }
  function setPlayer(name, on) {
    var list = players().filter(function (n) { return n !== name; });
    if (on) list.push(name);
    try { localStorage.setItem(KEY, JSON.stringify(list)); } catch (e) { /* private mode: this page only */ }
  }

  function show(region) {
    var card = region.querySelector("#hint-card");
    document.querySelectorAll("#roll-dice .hint-keep").forEach(function (d) { d.classList.remove("hint-keep"); });
    if (!card) return;
    var who = card.getAttribute("data-player");
    var toggle = card.querySelector("#hint-toggle");
    var list = card.querySelector("#hint");
    var on = players().indexOf(who) >= 0;
    toggle.checked = on;
    list.classList.toggle("hidden", !on);
    toggle.onchange = function () { setPlayer(who, toggle.checked); show(region); };
    var best = list.querySelector("li");
    if (!on || !best || best.getAttribute("data-stop") === "true") return;
    // Mark the best keep's dice in the roll, each value as many times as kept.
    var keep = JSON.parse(best.getAttribute("data-keep"));
    document.querySelectorAll("#roll-dice .die").forEach(function (die) {
      var at = keep.indexOf(parseInt(die.getAttribute("data-value"), 10));
      if (at >= 0) { keep.splice(at, 1); die.classList.add("hint-keep"); }
    });
  }
  if (TP && TP.afterRender) TP.afterRender(show);
})();
