// The colour theme: "light" or "dark" as chosen with the header's switch and remembered in
// localStorage, else the system's setting (static/app.css follows prefers-color-scheme by itself).
// Loaded without defer at the top of <head>, so a chosen theme is on <html> before the first paint.
(function () {
  "use strict";
  var KEY = "codecloze-theme", ORDER = ["system", "light", "dark"], root = document.documentElement;

  function stored() {
    try {
      var theme = window.localStorage.getItem(KEY);
      return theme === "light" || theme === "dark" ? theme : "system";
    } catch (e) {
      return "system";  // storage blocked: follow the system
    }
  }

  function save(theme) {
    try {
      if (theme === "system") window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, theme);
    } catch (e) { /* not remembered, still applied */ }
  }

  var current = stored();

  // The switch names the theme in force (its accessible name); the labels come translated
  // in its data-system / data-light / data-dark attributes.
  function label() {
    var button = document.getElementById("theme-switch");
    if (!button) return;
    button.textContent = button.dataset[current];
    button.dataset.state = current;
    button.hidden = false;  // without this script the switch could not work, so it stays hidden
  }

  function apply(theme) {
    current = theme;
    if (theme === "system") delete root.dataset.theme;
    else root.dataset.theme = theme;
    label();
  }

  apply(current);
  document.addEventListener("DOMContentLoaded", label);
  document.addEventListener("htmx:historyRestore", label);
  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest("#theme-switch")) return;
    var next = ORDER[(ORDER.indexOf(current) + 1) % ORDER.length];
    save(next);
    apply(next);
  });
  // another tab switched: follow it
  window.addEventListener("storage", function (event) { if (event.key === KEY) apply(stored()); });
})();
