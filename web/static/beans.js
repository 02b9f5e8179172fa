/* Space Beans score sheet on a phone.
 *
 * Each phone picks its player. Card values are tapped in; the trophy a
 * close-out yields is shown before anything is sent (rule S2: a card equal to
 * the collection's size becomes the trophy). A secret collection's cards stay
 * in this phone's localStorage: the table only ever learns how many there
 * are, until the collection is turned face up or the game ends.
 */
(function () {
  "use strict";
  var TP = window.TablePi;
  var _ = TP._;
  var panel = document.getElementById("beans-panel");
  if (!panel) return;
  var $ = function (id) { return document.getElementById(id); };

  var state = null;      // the game's public state (space_beans only)
  var gameId = null;
  var draft = [];        // card values being entered
  var mode = null;       // "add", "reveal" or "final"

  function score(cards) {
    return cards.indexOf(cards.length) >= 0 ? cards.length : 0;
  }
  TP.beansScore = score;

  function scoreWords(cards) {
    var n = cards.length;
    if (!n) return "";
    return score(cards)
      ? _("{n} cards with a {n}: closing out gives a trophy worth {n}", { n: n })
      : _("{n} cards, none shows {n}: closing out gives no trophy", { n: n });
  }

  // The deck has one card of each value 1..3 and two of each 4..9 per bean (S1).
  function deckProblem(bean, cards) {
    var counts = {};
    for (var i = 0; i < cards.length; i++) {
      var v = cards[i];
      counts[v] = (counts[v] || 0) + 1;
      var copies = v <= 3 ? 1 : 2;
      if (counts[v] > copies) {
        return copies > 1 ? _("{bean} has only {n} cards of value {v}", { bean: bean, n: copies, v: v })
          : _("{bean} has only {n} card of value {v}", { bean: bean, n: copies, v: v });
      }
    }
    return "";
  }

  function myIndex() {
    var v = localStorage.getItem("tablepi-beans-player:" + gameId);
    var i = v === null ? -1 : parseInt(v, 10);
    return state && i >= 0 && i < state.players.length ? i : -1;
  }

  // The secret collection, kept on this phone only, as batches of cards so an
  // undone addition can be dropped again.
  function secretKey(i) { return "tablepi-secret:" + gameId + ":" + i; }
  function loadSecret(i) {
    try { return JSON.parse(localStorage.getItem(secretKey(i))) || { bean: null, batches: [] }; }
    catch (e) { return { bean: null, batches: [] }; }
  }
  function saveSecret(i, sec) { localStorage.setItem(secretKey(i), JSON.stringify(sec)); }
  function secretCards(sec) { return [].concat.apply([], sec.batches); }
  function syncSecret(i, count) {
    var sec = loadSecret(i);
    while (sec.batches.length && secretCards(sec).length > count) sec.batches.pop();
    if (!sec.batches.length) sec.bean = null;
    saveSecret(i, sec);
    return sec;
  }

  function cardsHtml(values, cls) {
    return values.map(function (v, k) {
      return '<span class="bean-card ' + (cls || "") + '" data-k="' + k + '">' + v + "</span>";
    }).join("");
  }
  function esc(t) {
    return String(t).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function render() {
    var el = $("state-json");
    var pub = null;
    try { pub = el ? JSON.parse(el.textContent) : null; } catch (e) { pub = null; }
    var game = pub && pub.game;
    if (!game || game.kind !== "space_beans") { panel.classList.add("hidden"); state = null; return; }
    panel.classList.remove("hidden");
    if (gameId !== game.id) { draft = []; mode = null; }
    gameId = game.id;
    state = game.state;
    var s = state;

    $("beans-who").innerHTML = '<span class="muted">' + esc(_("I am")) + "</span> " + s.players.map(function (p) {
      return '<button type="button" class="small ' + (p.index === myIndex() ? "" : "secondary") +
        '" data-beans-player="' + p.index + '">' + esc(p.name) + "</button>";
    }).join(" ");

    var me = myIndex();
    var show = function (id, yes) { $(id).classList.toggle("hidden", !yes); };
    if (me < 0) {
      $("beans-me").innerHTML = '<p class="muted">' + esc(_("Pick your name to keep your score sheet on this phone.")) + "</p>";
      ["beans-actions"].forEach(function (id) { show(id, false); });
      return;
    }
    var p = s.players[me];
    if (s.finished) {
      show("beans-actions", false);
      $("beans-me").innerHTML = "<p><b>" + esc(p.name) + "</b>: " + esc(_("{n} points in all. The final scores are below.", { n: p.total })) + "</p>";
      localStorage.removeItem(secretKey(me));
      return;
    }
    show("beans-actions", true);
    var secretCount = p.secret_count || p.reveal_pending || 0;
    var sec = syncSecret(me, secretCount);
    var local = secretCards(sec);
    $("beans-me").innerHTML =
      "<p><b>" + esc(p.name) + "</b>: " + esc(_("{n} trophy points", { n: p.trophy_points })) +
      (p.bonus ? " + " + esc(_("{n} bonus", { n: p.bonus })) : "") + " (" + esc(_("{n} to go", { n: p.to_target })) + ")</p>" +
      '<div class="small muted">' + esc(_("Trophies")) + '</div><div class="bean-cards">' +
      (p.trophies.length ? cardsHtml(p.trophies.map(function (t) { return t.value; }), "trophy")
        : '<span class="muted">' + esc(_("none yet")) + "</span>") + "</div>" +
      '<div class="small muted">' + esc(_("Open collection")) + (p.open ? ": " + esc(p.open.bean) : "") + '</div><div class="bean-cards">' +
      (p.open ? cardsHtml(p.open.cards) : '<span class="muted">' + esc(_("none")) + "</span>") + "</div>" +
      '<div class="small muted">' + esc(local.length
        ? _("Secret collection ({n} cards, {bean}, on this phone only)", { n: secretCount, bean: sec.bean || "" })
        : _("Secret collection ({n} cards)", { n: secretCount })) + '</div><div class="bean-cards" id="beans-secret-local">' +
      (local.length ? cardsHtml(local, "") : secretCount ? '<span class="muted">' + esc(_("not recorded on this phone")) + "</span>"
        : '<span class="muted">' + esc(_("none")) + "</span>") + "</div>";

    var active = s.active === me && !s.end_triggered;
    var newMode = null;
    if (active && p.reveal_pending) newMode = "reveal";
    else if (s.end_triggered && s.awaiting_final.indexOf(me) >= 0) newMode = "final";
    else if (active && !s.added_this_turn) newMode = "add";
    if (newMode !== mode) {
      draft = (newMode === "reveal" || newMode === "final") ? local.slice() : [];
      mode = newMode;
      if (sec.bean && (mode === "reveal" || mode === "final")) $("beans-bean").value = sec.bean;
    }

    show("beans-closeout", active && s.round >= 2 && !s.added_this_turn && !!p.open && !p.reveal_pending);
    if (p.open) {
      $("beans-closeout-cards").innerHTML = '<div class="bean-cards">' + cardsHtml(p.open.cards) + "</div>";
      $("beans-closeout-preview").textContent = scoreWords(p.open.cards);
    }
    show("beans-end-turn", active && s.added_this_turn && !p.reveal_pending);
    show("beans-entry", mode !== null);
    var beanSel = $("beans-bean");
    if (beanSel.options.length !== s.beans.length) {
      beanSel.innerHTML = s.beans.map(function (b) { return "<option>" + esc(b) + "</option>"; }).join("");
      if (sec.bean) beanSel.value = sec.bean;
    }
    renderEntry();
  }

  function target() {
    var r = panel.querySelector("input[name=beans-target]:checked");
    return r ? r.value : "open";
  }

  function renderEntry() {
    if (!state || mode === null) return;
    var me = myIndex();
    var p = state.players[me];
    var need = p.reveal_pending || p.secret_count || 0;
    // The secret collection is always the second one: not offered before an open one.
    var secretRadio = panel.querySelector("input[name=beans-target][value=secret]");
    if (secretRadio) {
      secretRadio.disabled = !p.open;
      secretRadio.closest("label").classList.toggle("hidden", !p.open);
      if (!p.open && secretRadio.checked) panel.querySelector("input[name=beans-target][value=open]").checked = true;
    }
    var t = target();
    var beanSel = $("beans-bean");
    $("beans-entry-target").classList.toggle("hidden", mode !== "add");
    beanSel.disabled = false;
    var preview = "", note = "", title = _("Add cards"), send = _("Add");
    var counted = _("{n} of {need} cards", { n: draft.length, need: need });
    if (mode === "reveal") {
      title = _("Your secret collection turned face up: enter its {need} cards", { need: need });
      send = _("Turn face up");
      preview = draft.length === need ? _("Closing it out would give: {score}", { score: scoreWords(draft) }) : counted;
    } else if (mode === "final") {
      title = _("The game is over: enter your secret collection ({need} cards)", { need: need });
      send = _("Enter and score");
      preview = draft.length === need ? scoreWords(draft) : counted;
    } else if (t === "open") {
      if (p.open) { beanSel.value = p.open.bean; beanSel.disabled = true; }
      var all = (p.open ? p.open.cards : []).concat(draft);
      preview = draft.length ? _("Open collection then: {score}", { score: scoreWords(all) }) : "";
      send = p.open ? _("Add to the open collection") : _("Start the open collection");
    } else {
      var sec = loadSecret(me);
      if (sec.bean) { beanSel.value = sec.bean; beanSel.disabled = true; }
      var allS = secretCards(sec).concat(draft);
      preview = draft.length ? _("Secret collection then: {score}", { score: scoreWords(allS) }) : "";
      note = _("Only the number of cards ({n}) goes to the table; the values stay on this phone.", { n: draft.length });
      send = p.secret_count ? _("Add to the secret collection") : _("Start the secret collection");
    }
    $("beans-entry-title").textContent = title;
    $("beans-draft").innerHTML = draft.length ? cardsHtml(draft) : '<span class="muted">' + esc(_("no cards yet")) + "</span>";
    var known = mode === "add" && t === "open" && p.open ? p.open.cards.concat(draft) : draft;
    var problem = mode === "add" && t === "secret" ? "" : deckProblem(beanSel.value, known);
    $("beans-preview").textContent = problem || preview;
    $("beans-preview").style.color = problem ? "var(--bad)" : "";
    $("beans-secret-note").textContent = note;
    $("beans-send").textContent = send;
    $("beans-send").disabled = !draft.length;
  }

  // The value pad: 1..9.
  $("beans-pad").innerHTML = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(function (v) {
    return '<button type="button" class="secondary" data-card="' + v + '">' + v + "</button>";
  }).join("");
  $("beans-pad").addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-card]");
    if (!b) return;
    draft.push(parseInt(b.getAttribute("data-card"), 10));
    renderEntry();
  });
  $("beans-draft").addEventListener("click", function (ev) {
    var c = ev.target.closest("[data-k]");
    if (!c) return;
    draft.splice(parseInt(c.getAttribute("data-k"), 10), 1);
    renderEntry();
  });
  $("beans-clear").addEventListener("click", function () { draft = []; renderEntry(); });
  panel.addEventListener("change", function (ev) {
    if (ev.target.name === "beans-target") { draft = []; renderEntry(); }
    if (ev.target.id === "beans-bean") renderEntry();
  });
  $("beans-who").addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-beans-player]");
    if (!b) return;
    localStorage.setItem("tablepi-beans-player:" + gameId, b.getAttribute("data-beans-player"));
    mode = null;
    render();
  });

  $("beans-closeout-send").addEventListener("click", function () {
    TP.command({ type: "close_out", player: myIndex() }).catch(function () {});
  });

  $("beans-send").addEventListener("click", function () {
    var me = myIndex();
    var bean = $("beans-bean").value;
    var cards = draft.slice();
    var cmd;
    if (mode === "reveal") cmd = { type: "reveal", player: me, bean: bean, cards: cards };
    else if (mode === "final") cmd = { type: "final", player: me, bean: bean, cards: cards };
    else if (target() === "open") cmd = { type: "add", player: me, collection: "open", bean: bean, cards: cards };
    else cmd = { type: "add", player: me, collection: "secret", count: cards.length };
    TP.command(cmd).then(function () {
      var sec = loadSecret(me);
      if (cmd.type === "add" && cmd.collection === "secret") {
        sec.bean = sec.bean || bean;
        sec.batches.push(cards);
        saveSecret(me, sec);
      } else if (cmd.type === "reveal" || cmd.type === "final") {
        localStorage.removeItem(secretKey(me));
      }
      draft = [];
      // The table's new state may have been drawn already, before the cards were kept
      // here: draw it again. A state from before the command is left to its update.
      var p = state && state.players[me];
      if (p && (p.secret_count || 0) >= secretCards(sec).length) render();
      else renderEntry();
    }).catch(function () { /* shown already */ });
  });

  TP.afterRender(render);
})();
