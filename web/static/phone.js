/* Phone page: forms that become commands, and confirmations. */
(function () {
  "use strict";
  var TP = window.TablePi;

  // Sets key on obj as plain data: a player called "__proto__" or
  // "constructor" is a name like any other, never the object's machinery.
  function setOwn(obj, key, value) {
    Object.defineProperty(obj, key, { value: value, enumerable: true, writable: true, configurable: true });
  }

  // A form's named fields fill in its base command: "kind.x" sets command.kind.x
  // (names written by the page only). A field with data-map="votes" and
  // data-key="<player name>" sets command.votes[<player name>]: player names
  // are data, never split into paths. data-int fields are whole numbers;
  // empty fields are left out.
  function formCommand(form) {
    var cmd = JSON.parse(form.getAttribute("data-form-command"));
    var fields = form.querySelectorAll("[name], [data-map]");
    for (var i = 0; i < fields.length; i++) {
      var el = fields[i];
      if ((el.type === "checkbox" || el.type === "radio") && !el.checked) continue;
      var value = el.value;
      if (value === "") continue;
      if (el.hasAttribute("data-int")) value = parseInt(value, 10);
      if (el.hasAttribute("data-json")) value = JSON.parse(value);
      if (el.hasAttribute("data-map")) {
        var field = el.getAttribute("data-map");
        if (!Object.prototype.hasOwnProperty.call(cmd, field)) setOwn(cmd, field, Object.create(null));
        setOwn(cmd[field], el.getAttribute("data-key"), value);
        continue;
      }
      var path = el.name.split(".");
      var target = cmd;
      for (var j = 0; j < path.length - 1; j++) {
        target = target[path[j]] = target[path[j]] || {};
      }
      var key = path[path.length - 1];
      if (el.hasAttribute("data-list")) (target[key] = target[key] || []).push(value);
      else target[key] = value;
    }
    return cmd;
  }
  TP.formCommand = formCommand;

  document.addEventListener("submit", function (ev) {
    var form = ev.target.closest("form.cmd-form");
    if (!form) return;
    ev.preventDefault();
    TP.command(formCommand(form)).catch(function () { /* shown already */ });
  });

  // After an undo in a turn the table plays, it waits until a person lets it play on.
  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("#table-continue");
    if (!el || el.disabled) return;
    el.disabled = true;
    TP.post("/api/table-player/continue", {})
      .then(function () { TP.refresh(); })
      .catch(function (e) { TP.showError(e.message); el.disabled = false; });
  });

  // Buttons with data-confirm ask first (capture phase: before live.js sends).
  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("[data-confirm]");
    if (el && !window.confirm(el.getAttribute("data-confirm"))) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
    }
  }, true);

})();
