// Drill page behaviour that HTML alone lacks: reveal answers, focus, and mark the failing line.
(function () {
  "use strict";

  function reveal(input) {
    if (!input || !input.dataset.answer) return;
    input.value = input.dataset.answer;
    input.classList.remove("wrong");
    input.classList.add("revealed");
    input.dataset.state = "revealed";
  }

  // A problem's "line N" link selects that line of the snippet text being edited.
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-line]");
    var source = document.getElementById("text");
    if (!link || !source) return;
    event.preventDefault();
    var lines = source.value.split("\n"), n = Number(link.dataset.line) - 1, start = 0;
    for (var i = 0; i < n && i < lines.length; i++) start += lines[i].length + 1;
    source.focus();
    source.setSelectionRange(start, start + (lines[n] || "").length);
    source.scrollTop = Math.max(0, (n - 3) * parseFloat(getComputedStyle(source).lineHeight || "20"));
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.reveal, button.reveal-all");
    if (!button) return;
    if (button.classList.contains("reveal")) {
      reveal(document.getElementById(button.dataset.for));
      button.remove();
    } else {
      var trainer = button.closest(".trainer");
      trainer.querySelectorAll("input.blank[data-answer]").forEach(function (input) {
        if (input.dataset.state === "wrong" || input.dataset.state === "") reveal(input);
      });
      trainer.querySelectorAll("button.reveal").forEach(function (b) { b.remove(); });
    }
  });

  function prepare(root) {
    root.querySelectorAll("pre[data-error-line]").forEach(function (pre) {
      var line = pre.querySelectorAll(".line")[Number(pre.dataset.errorLine) - 1];
      if (line) line.classList.add("error-line");
    });
    var trainer = root.id === "trainer" ? root : root.querySelector && root.querySelector("#trainer");
    if (!trainer) return;
    var first = trainer.querySelector("input.blank.wrong") ||
      (trainer.querySelector(".result") ? null : trainer.querySelector("input.blank:not([value]), input.blank[value='']"));
    if (first) first.focus({ preventScroll: root === document.body });
  }

  document.addEventListener("DOMContentLoaded", function () { prepare(document.body); });
  document.addEventListener("htmx:load", function (event) {
    if (event.target !== document.body) prepare(event.target);
  });
})();
