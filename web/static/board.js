// The venue board: draws one card per table from the board's "tables" events.
// Every text goes in with textContent: what tables publish is never markup.
(function () {
  "use strict";
  var _ = window.TablePi._;
  // Words for the states a table reports, for the catalogs.
  var TIMER_WORDS = { ready: _("ready"), running: _("running"), paused: _("paused"), ended: _("time is up") };
  var STATUS_WORDS = [_("offline"), _("online"), _("unknown"), _("connecting"), _("the humans"), _("the aliens")];
  // A table publishes its game's progress in English ("roll 2/3 · 5 to win",
  // "mission 2 · Bridge", "round 4 · last round"): said here in the board's language.
  var DETAILS = [
    [/^roll (\d+)\/(\d+)$/, function (m) { return _("roll {n}/{of}", { n: m[1], of: m[2] }); }],
    [/^(\d+) to win$/, function (m) { return _("{n} to win", { n: m[1] }); }],
    [/^mission (\d+)$/, function (m) { return _("mission {n}", { n: m[1] }); }],
    [/^round (\d+)$/, function (m) { return _("round {n}", { n: m[1] }); }],
    [/^last round$/, function () { return _("last round"); }]
  ];
  function detailWords(detail) {
    return String(detail).split(" · ").map(function (part) {
      for (var i = 0; i < DETAILS.length; i++) {
        var m = part.match(DETAILS[i][0]);
        if (m) return DETAILS[i][1](m);
      }
      return part;  // a phase name, kept as the box prints it
    }).join(" · ");
  }
  var grid = document.getElementById("tables");
  var empty = document.getElementById("empty");
  var tables = new Map(); // table id -> {data, el}
  var WARN_SECONDS = 10;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clock(seconds) {
    var whole = Math.max(0, Math.ceil(seconds - 1e-6));
    var m = Math.floor(whole / 60), s = whole % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function naturalKey(t) {
    return (t.name || t.table || "").toLowerCase();
  }

  function compare(a, b) {
    return naturalKey(a).localeCompare(naturalKey(b), undefined, { numeric: true });
  }

  function timerLeft(timer) {
    if (!timer || timer.left === null || timer.left === undefined) return null;
    if (timer.running && timer.endsLocal) return Math.max(0, timer.endsLocal - Date.now() / 1000);
    return timer.left;
  }

  function drawTimer(node, timer) {
    var left = timerLeft(timer);
    if (left === null || !timer || timer.state === "none") {
      node.textContent = "";
      node.className = "t-timer hidden";
      return;
    }
    var state = timer.running && left <= 0 ? "ended" : timer.state;
    var cls = "t-timer " + state;
    if (timer.running && left > 0 && left <= WARN_SECONDS) cls += " warn";
    node.className = cls;
    node.textContent = clock(left);
    node.title = _("mission timer: {state}", { state: _(TIMER_WORDS[state] || state) });
  }

  var linked = true; // whether the board hears the broker

  function card(t) {
    var game = t.game || {};
    // Without the broker the board hears no table: a card shows what was last
    // heard and says that the board, not the table, lost the link.
    var root = el("section", "table " + (linked ? t.status || "unknown" : "unheard"));
    root.dataset.table = t.table;
    root.dataset.seq = game.seq === undefined || game.seq === null ? "" : String(game.seq);
    root.dataset.status = t.status || "unknown";
    var head = el("div", "t-head");
    head.appendChild(el("span", "t-name", t.name || t.table));
    var status = linked ? (t.status === "online" || !t.status ? "" : _(t.status)) : _("the board lost the broker");
    head.appendChild(el("span", "t-status", status));
    var timer = el("span", "t-timer hidden");
    head.appendChild(timer);
    root.appendChild(head);
    drawTimer(timer, game.finished ? null : t.timer);
    if (!game.kind) {
      root.appendChild(el("div", "t-idle", _("No game on the table")));
      return root;
    }
    root.appendChild(el("div", "t-game", game.title || game.kind));
    var bits = [];
    if (game.detail) bits.push(detailWords(game.detail));
    if (game.turn && !game.finished) bits.push(game.kind === "outer_space" ? _("leader {name}", { name: game.turn }) : _("turn: {name}", { name: game.turn }));
    if (bits.length) root.appendChild(el("div", "t-detail", bits.join(" · ")));
    var players = game.players || [];
    var scored = players.some(function (p) { return p.score !== null && p.score !== undefined; });
    var list = el("ul", "t-players" + (scored ? "" : " names"));
    players.forEach(function (p) {
      var li = el("li");
      if (p.name === game.turn && !game.finished) li.classList.add("turn");
      if (p.name === game.leader) li.classList.add("leader");
      li.appendChild(el("span", "p-name", p.name));
      if (p.table) li.appendChild(el("span", "p-table", _("table")));
      if (scored) li.appendChild(el("span", "p-score", p.score === null ? "–" : p.score));
      list.appendChild(li);
    });
    root.appendChild(list);
    if (game.finished || game.winner) {
      root.appendChild(el("div", "t-winner", game.winner ? _("Won: {winner}", { winner: _(game.winner) }) : _("Game over")));
    }
    return root;
  }

  function layout() {
    var n = tables.size;
    var cols = n <= 1 ? 1 : n <= 4 ? 2 : n <= 9 ? 3 : n <= 16 ? 4 : n <= 20 ? 5 : 6;
    var rows = Math.max(1, Math.ceil(n / cols));
    var fit = Math.max(rows, 5); // beyond 30 tables the board scrolls
    var style = document.documentElement.style;
    style.setProperty("--cols", cols);
    style.setProperty("--rows", n > 30 ? 5 : rows);
    style.setProperty("--scale", fit > 5 || rows >= 5 ? 1 : rows >= 4 ? 1.15 : rows >= 3 ? 1.3 : 1.6);
    empty.classList.toggle("hidden", n > 0);
    var online = 0;
    tables.forEach(function (entry) { if (entry.data.status === "online") online++; });
    document.getElementById("count").textContent =
      n ? (n === 1 ? _("{n} table", { n: n }) : _("{n} tables", { n: n })) + " · " + _("{n} online", { n: online })
        : _("no tables yet");
  }

  function reorder() {
    var sorted = Array.from(tables.values()).sort(function (a, b) { return compare(a.data, b.data); });
    sorted.forEach(function (entry) { grid.appendChild(entry.el); });
  }

  function apply(msg) {
    var now = Date.now() / 1000;
    var moved = false;
    var heard = msg.link === "online";
    if (heard !== linked) {
      linked = heard;
      tables.forEach(function (entry) {
        var node = card(entry.data);
        entry.el.replaceWith(node);
        entry.el = node;
      });
    }
    if (msg.full) {
      var keep = new Set(msg.tables.map(function (t) { return t.table; }));
      tables.forEach(function (entry, id) {
        if (!keep.has(id)) { entry.el.remove(); tables.delete(id); moved = true; }
      });
    }
    (msg.removed || []).forEach(function (id) {
      var entry = tables.get(id);
      if (entry) { entry.el.remove(); tables.delete(id); moved = true; }
    });
    msg.tables.forEach(function (t) {
      if (t.timer && t.timer.running && t.timer.left !== null) t.timer.endsLocal = now + t.timer.left;
      var entry = tables.get(t.table);
      var node = card(t);
      if (entry) {
        if (naturalKey(entry.data) !== naturalKey(t)) moved = true;
        entry.el.replaceWith(node);
      } else {
        grid.appendChild(node);
        moved = true;
      }
      tables.set(t.table, { data: t, el: node });
    });
    if (moved) reorder();
    layout();
    var broker = document.getElementById("broker");
    broker.textContent = _("broker: {state}", { state: _(msg.link) });
    broker.title = msg.link_error || "";
    broker.className = "pill " + (msg.link === "online" ? "online" : "offline");
  }

  function tick() {
    tables.forEach(function (entry) {
      var timer = entry.data.timer;
      var game = entry.data.game || {};
      if (timer && timer.running && !game.finished) drawTimer(entry.el.querySelector(".t-timer"), timer);
    });
    var d = new Date();
    document.getElementById("clock").textContent =
      d.getHours() + ":" + String(d.getMinutes()).padStart(2, "0");
  }

  var link = document.getElementById("link");
  function setLink(ok) {
    link.textContent = ok ? _("live") : _("reconnecting…");
    link.className = "pill " + (ok ? "online" : "offline");
    link.id = "link";
  }

  try {
    apply(Object.assign({ full: true }, JSON.parse(document.getElementById("snapshot").textContent)));
  } catch (e) { /* the live stream brings it all */ }
  var source = new EventSource("api/events");
  source.addEventListener("tables", function (e) {
    setLink(true);
    apply(JSON.parse(e.data));
  });
  source.onerror = function () { setLink(false); };
  setInterval(tick, 200);
  tick();
})();
