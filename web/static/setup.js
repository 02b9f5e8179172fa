/* Set-up: start a game, and edit Beam Me Up board layouts.
 *
 * The table stores no layouts of its own: a custom layout travels inside the
 * new game's settings (as the player's "layout"), and this browser keeps the
 * saved ones (localStorage) and can write or read them as JSON files.
 */
(function () {
  "use strict";
  var TP = window.TablePi;
  var $ = function (id) { return document.getElementById(id); };
  var _ = TP._;
  // The printed boards' names as the catalog has them (the server sends them in English).
  var BOARD_NAMES = [_("Board A"), _("Board B"), _("Board C"), _("Board D")];
  var PRINTED = JSON.parse($("layouts-json").textContent);
  var COLUMNS = ["1", "2", "3", "4", "5", "6", "straight"];
  var COLUMN_WORDS = { straight: _("straight") };
  var KINDS = {
    beam_me_up: { min: 2, max: 4, hint: _("2 to 4 players; each plays on a printed board (A to D) or a saved layout. " +
      "Tick “table” for a seat the table plays itself: play alone against it, or fill an empty seat.") },
    outer_space: { min: 6, max: 12, hint: _("6 to 12 players; the table runs the mission timer and the danger coin.") },
    space_beans: { min: 2, max: 6, hint: _("2 to 6 players; each phone keeps its player's score sheet.") }
  };
  var STORE = "tablepi-layouts";

  function esc(t) {
    return String(t).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function saved() {
    try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch (e) { return {}; }
  }
  function kind() { return document.querySelector("input[name=kind]:checked").value; }

  // -- players ----------------------------------------------------------------
  var players = [
    { name: "", board: "A" }, { name: "", board: "B" }
  ];
  function boardOptions(selected) {
    var opts = Object.keys(PRINTED).map(function (k) {
      return '<option value="' + k + '"' + (k === selected ? " selected" : "") + ">" + esc(_(PRINTED[k].name)) + "</option>";
    });
    var mine = saved();
    Object.keys(mine).forEach(function (n) {
      var v = "custom:" + n;
      opts.push('<option value="' + esc(v) + '"' + (v === selected ? " selected" : "") + ">" + esc(_("{name} (saved)", { name: n })) + "</option>");
    });
    return opts.join("");
  }
  function renderPlayers() {
    var k = kind();
    var bmu = k === "beam_me_up";
    $("players").innerHTML = players.map(function (p, i) {
      return "<li>" +
        '<input type="text" placeholder="' + esc(_("Player {n}", { n: i + 1 })) + '" value="' + esc(p.name) + '" data-i="' + i + '" aria-label="' + esc(_("name of player {n}", { n: i + 1 })) + '">' +
        (bmu ? '<select data-board="' + i + '" aria-label="' + esc(_("board of player {n}", { n: i + 1 })) + '">' + boardOptions(p.board) + "</select>" +
          '<label class="seat-kind" title="' + esc(_("played by the table")) + '"><input type="checkbox" data-table="' + i + '"' +
          (p.table ? " checked" : "") + ' aria-label="' + esc(_("player {n} played by the table", { n: i + 1 })) + '"> ' + esc(_("table")) + "</label>" : "") +
        '<button type="button" class="secondary small" data-up="' + i + '" aria-label="' + esc(_("move up")) + '"' + (i === 0 ? " disabled" : "") + ">↑</button>" +
        '<button type="button" class="secondary small" data-down="' + i + '" aria-label="' + esc(_("move down")) + '"' + (i === players.length - 1 ? " disabled" : "") + ">↓</button>" +
        '<button type="button" class="secondary small" data-remove="' + i + '" aria-label="' + esc(_("remove")) + '">✕</button>' +
        "</li>";
    }).join("");
    $("add-player").disabled = players.length >= KINDS[k].max;
    $("kind-hint").textContent = KINDS[k].hint;
    $("os-settings").classList.toggle("hidden", k !== "outer_space");
    // The board layout editor is for Beam Me Up boards only.
    $("layout-editor").classList.toggle("hidden", k !== "beam_me_up");
  }
  // The game's own limit on a name, said as soon as a name passes it (a
  // paste is never cut short in silence; the table refuses it too).
  var NAME_CHARS = parseInt($("players").getAttribute("data-name-chars"), 10) || 40;
  function checkNames() {
    var long = players.filter(function (p) { return p.name.trim().length > NAME_CHARS; });
    var note = $("name-too-long");
    note.textContent = long.length ? _("A name is at most {max} characters; this one has {n}.",
      { max: NAME_CHARS, n: long[0].name.trim().length }) : "";
    note.classList.toggle("hidden", !long.length);
    $("players").querySelectorAll("input[type=text]").forEach(function (input) {
      input.setAttribute("aria-invalid", input.value.trim().length > NAME_CHARS ? "true" : "false");
    });
  }
  $("players").addEventListener("input", function (ev) {
    var i = ev.target.getAttribute("data-i");
    if (i !== null) players[+i].name = ev.target.value;
    checkNames();
  });
  $("players").addEventListener("change", function (ev) {
    var i = ev.target.getAttribute("data-board");
    if (i !== null) players[+i].board = ev.target.value;
    i = ev.target.getAttribute("data-table");
    if (i !== null) players[+i].table = ev.target.checked;
  });
  $("players").addEventListener("click", function (ev) {
    var b = ev.target.closest("button");
    if (!b) return;
    var i;
    if ((i = b.getAttribute("data-up")) !== null && +i > 0) {
      players.splice(+i - 1, 0, players.splice(+i, 1)[0]);
    } else if ((i = b.getAttribute("data-down")) !== null && +i < players.length - 1) {
      players.splice(+i + 1, 0, players.splice(+i, 1)[0]);
    } else if ((i = b.getAttribute("data-remove")) !== null) {
      players.splice(+i, 1);
    }
    renderPlayers();
  });
  $("add-player").addEventListener("click", function () {
    var boards = Object.keys(PRINTED);
    players.push({ name: "", board: boards[players.length % boards.length] });
    renderPlayers();
    var inputs = $("players").querySelectorAll("input[type=text]");
    inputs[inputs.length - 1].focus();
  });
  document.querySelectorAll("input[name=kind]").forEach(function (r) {
    r.addEventListener("change", function () {
      var k = kind();
      while (players.length < KINDS[k].min) players.push({ name: "", board: Object.keys(PRINTED)[players.length % 4] });
      renderPlayers();
    });
  });

  function settings() {
    var k = kind();
    var names = players.map(function (p, i) { return p.name.trim() || _("Player {n}", { n: i + 1 }); });
    if (k === "beam_me_up") {
      var mine = saved();
      // A seat the table plays is called "Table" unless named (numbered when there are several).
      var unnamed = players.filter(function (p) { return p.table && !p.name.trim(); }).length;
      var n = 0;
      players.forEach(function (p, i) {
        if (p.table && !p.name.trim()) { n++; names[i] = unnamed > 1 ? _("Table {n}", { n: n }) : _("Table"); }
      });
      return {
        players: players.map(function (p, i) {
          var seat = { name: names[i] };
          var layout = p.board.indexOf("custom:") === 0 ? mine[p.board.slice(7)] : null;
          if (layout) seat.layout = layout; else seat.board = p.board;
          if (p.table) seat.table = true;
          return seat;
        })
      };
    }
    if (k === "outer_space") return { players: names, timer_seconds: parseFloat($("timer-seconds").value) };
    return { players: names };
  }

  $("new-game").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var err = $("setup-error");
    var button = $("start-game");
    if (button.disabled) return;
    err.classList.add("hidden");
    button.disabled = true;
    var command = { type: "new_game", kind: kind(), settings: settings() };
    var stopped = new Error("");
    // The new game is checked first: asking to set a game aside for one that cannot start helps nobody.
    TP.post("/api/commands/check", command)
      .then(function () {
        // A game in progress is never thrown away without asking (it can be resumed later).
        var current = $("current-game");
        if (current && current.getAttribute("data-running") === "1" &&
            !window.confirm(_("{game} is in progress. Set it aside and start a new game? It can be resumed from this page.", { game: current.getAttribute("data-name") }))) throw stopped;
        return TP.post("/api/commands", command);
      })
      .then(function () { window.location.href = "/"; })
      .catch(function (e) {
        if (e !== stopped) { err.textContent = e.message; err.classList.remove("hidden"); }
        button.disabled = false;
      });
  });

  // What the TV shows for spectators: one setting for the whole table.
  var odds = $("tv-odds");
  if (odds) odds.addEventListener("change", function () {
    var err = $("tv-settings-error");
    err.classList.add("hidden");
    TP.post("/api/tv-settings", { odds: odds.checked })
      .catch(function (e) { odds.checked = !odds.checked; err.textContent = e.message; err.classList.remove("hidden"); });
  });

  // The table's language: the TV, the table's screen, and phones that chose none.
  var tableLanguage = $("table-language");
  if (tableLanguage) tableLanguage.addEventListener("change", function () {
    var err = $("language-error");
    err.classList.add("hidden");
    TP.post("/api/language", { language: tableLanguage.value })
      .then(function () { window.location.reload(); })
      .catch(function (e) { err.textContent = e.message; err.classList.remove("hidden"); });
  });

  // Resume a game set aside; the game in progress, if any, is set aside in its place.
  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("[data-resume]");
    if (!el) return;
    var current = $("current-game");
    if (current && current.getAttribute("data-running") === "1" &&
        !window.confirm(_("{game} is in progress. Set it aside and resume the other game?", { game: current.getAttribute("data-name") }))) return;
    TP.command({ type: "resume_game", game: parseInt(el.getAttribute("data-resume"), 10) })
      .then(function () { window.location.href = "/"; })
      .catch(function () { /* shown already */ });
  });

  // -- layout editor ------------------------------------------------------------
  var CYCLE = [null, "rocket", "pink", "blue"];
  var SQUARE_WORDS = { "": _("empty"), rocket: _("rocket"), pink: _("pink"), blue: _("blue") };
  var KEYS = { rocket: "rockets", pink: "pink_stars", blue: "blue_stars" };
  var grid = {};   // "column:row" -> "rocket" | "pink" | "blue"
  var topRow = 7;

  function load(layout) {
    grid = {};
    topRow = layout.top_row || 7;
    Object.keys(KEYS).forEach(function (cls) {
      (layout[KEYS[cls]] || []).forEach(function (sq) { grid[sq.column + ":" + sq.row] = cls; });
    });
    $("layout-space").value = layout.space_row || 6;
    $("layout-space").max = topRow;
    renderEditor();
  }
  function current() {
    var out = { name: ($("layout-name").value || _("My board")).trim().slice(0, 40),
      space_row: parseInt($("layout-space").value, 10) || 6, top_row: topRow,
      rockets: [], pink_stars: [], blue_stars: [] };
    COLUMNS.forEach(function (c) {
      for (var r = 1; r <= topRow; r++) {
        var cls = grid[c + ":" + r];
        if (cls) out[KEYS[cls]].push({ column: c, row: r });
      }
    });
    return out;
  }
  function renderEditor() {
    var space = parseInt($("layout-space").value, 10) || 6;
    var html = "";
    for (var r = topRow; r >= 0; r--) {
      COLUMNS.forEach(function (c) {
        var cls = grid[c + ":" + r];
        var icon = cls ? '<span class="mark ' + cls + '"><svg viewBox="0 0 100 100" aria-hidden="true"><use href="#i-' +
          (cls === "rocket" ? "rocket" : "star") + '"/></svg></span>' : "";
        html += '<button type="button" class="sq' + (r === 0 ? " r0" : r >= space ? " space" : "") +
          '" data-sq="' + c + ":" + r + '"' + (r === 0 ? " disabled" : "") +
          ' aria-label="' + esc(_("column {column}, row {row}: {what}", { column: COLUMN_WORDS[c] || c, row: r, what: SQUARE_WORDS[cls || ""] })) + '">' + icon + "</button>";
      });
    }
    $("editor").innerHTML = html;
  }
  $("editor").addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-sq]");
    if (!b) return;
    var key = b.getAttribute("data-sq");
    var next = CYCLE[(CYCLE.indexOf(grid[key] || null) + 1) % CYCLE.length];
    if (next) grid[key] = next; else delete grid[key];
    renderEditor();
  });
  $("layout-space").addEventListener("change", renderEditor);
  $("layout-base").addEventListener("change", function () {
    load(PRINTED[$("layout-base").value]);
  });

  function message(text, bad) {
    var el = $("layout-msg");
    el.textContent = text;
    el.style.color = bad ? "var(--bad)" : "var(--good)";
  }
  function renderSaved() {
    var names = Object.keys(saved());
    $("saved-layouts").innerHTML = names.length
      ? esc(_("Saved in this browser:")) + " " + names.map(function (n) {
        return '<a href="#" data-edit="' + esc(n) + '">' + esc(n) + "</a>";
      }).join(", ")
      : "";
  }
  $("saved-layouts").addEventListener("click", function (ev) {
    var a = ev.target.closest("[data-edit]");
    if (!a) return;
    ev.preventDefault();
    var l = saved()[a.getAttribute("data-edit")];
    if (l) { $("layout-name").value = l.name; load(l); }
  });
  $("layout-save").addEventListener("click", function () {
    var l = current();
    var all = saved();
    all[l.name] = l;
    localStorage.setItem(STORE, JSON.stringify(all));
    message(_("Saved “{name}”: choose it as a player's board above.", { name: l.name }));
    renderSaved();
    renderPlayers();
  });
  $("layout-download").addEventListener("click", function () {
    var l = current();
    var blob = new Blob([JSON.stringify(l, null, 2) + "\n"], { type: "application/json" });
    var a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = l.name.replace(/[^A-Za-z0-9_-]+/g, "-").toLowerCase() + ".json";
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  });
  $("layout-upload").addEventListener("change", function (ev) {
    var file = ev.target.files[0];
    if (!file) return;
    file.text().then(function (text) {
      var l = JSON.parse(text);
      if (!l || typeof l !== "object" || Array.isArray(l)) throw new Error(_("not a layout object"));
      ["rockets", "pink_stars", "blue_stars"].forEach(function (k) {
        (l[k] || []).forEach(function (sq) {
          if (COLUMNS.indexOf(String(sq.column)) < 0 || !(sq.row >= 1 && sq.row <= (l.top_row || 7))) {
            throw new Error(_("a square at column {column}, row {row} is not on the board", { column: COLUMN_WORDS[sq.column] || sq.column, row: sq.row }));
          }
        });
      });
      $("layout-name").value = l.name || file.name.replace(/\.json$/, "");
      load(l);
      message(_("Loaded {file}: check it, then save it.", { file: file.name }));
    }).catch(function (e) { message(_("Could not read {file}: {why}", { file: file.name, why: e.message }), true); });
    ev.target.value = "";
  });

  load(PRINTED[Object.keys(PRINTED)[0]]);
  renderSaved();
  renderPlayers();
})();
