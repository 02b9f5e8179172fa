/* The page's words in the reader's language: the server puts this language's
 * catalog of the scripts' messages in #i18n-words ({English: translation});
 * _("Saved “{name}”", {name: n}) looks a message up and fills in its fields. */
(function () {
  "use strict";
  var TP = (window.TablePi = window.TablePi || {});
  var words = {};
  var el = document.getElementById("i18n-words");
  try { words = el ? JSON.parse(el.textContent) || {} : {}; } catch (e) { words = {}; }
  TP._ = function (message, fields) {
    var text = Object.prototype.hasOwnProperty.call(words, message) ? words[message] : message;
    return text.replace(/\{(\w+)\}/g, function (all, name) {
      return fields && Object.prototype.hasOwnProperty.call(fields, name) ? String(fields[name]) : all;
    });
  };
  TP.lang = document.documentElement.getAttribute("lang") || "en";
})();
