/* Phone page: forms that become commands, and confirmations. */
(function () {
  "use strict";
  var TP = window.TablePi;

  // A form's named fields fill in its base command: "votes.Ann" sets
  // command.votes.Ann; data-int fields are whole numbers; empty fields are left out.
  function formCommand(form) {
    var cmd = JSON.parse(form.getAttribute("data-form-command"));
    var fields = form.querySelectorAll("[name]");
    for (var i = 0; i < fields.length; i++) {
      var el = fields[i];
      if ((el.type === "checkbox" || el.type === "radio") && !el.checked) continue;
      var value = el.value;
      if (value === "") continue;
      if (el.hasAttribute("data-int")) value = parseInt(value, 10);
      if (el.hasAttribute("data-json")) value = JSON.parse(value);
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

  // Buttons with data-confirm ask first (capture phase: before live.js sends).
  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("[data-confirm]");
    if (el && !window.confirm(el.getAttribute("data-confirm"))) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
    }
  }, true);

})();
