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

  // A scored submission's outcome carries the marks of the blanks that are not right (the others
  // are); the inputs already hold the answers.
  function mark(input, m) {
    var next = input.nextElementSibling;
    if (next && next.matches("button.reveal")) next.remove();
    input.classList.remove("right", "wrong", "accepted", "revealed");
    var state = m ? m[0] : "";
    if (state) input.classList.add(state);
    input.dataset.state = state;
    if (m && m.length > 1) {
      input.dataset.answer = m[1];
      var button = document.createElement("button");
      button.type = "button";
      button.className = "reveal";
      button.dataset.for = input.id;
      button.setAttribute("aria-label", "?");
      button.textContent = "?";
      input.after(button);
    } else {
      delete input.dataset.answer;
    }
  }

  function paint(outcome, trainer) {
    if (!outcome.dataset.marks) return;
    var marks = JSON.parse(outcome.dataset.marks);
    trainer.querySelectorAll("input.blank").forEach(function (input) { mark(input, marks[input.name] || ["right"]); });
    trainer.querySelectorAll(".line.error-line").forEach(function (line) { line.classList.remove("error-line"); });
    var line = trainer.querySelectorAll("pre.trainer-code .line")[Number(outcome.dataset.errorLine) - 1];
    if (line) line.classList.add("error-line");
  }

  function prepare(root) {
    var trainer = root.closest && root.closest("#trainer") || root.querySelector && root.querySelector("#trainer");
    if (!trainer) return;
    if (root === trainer || root === document.body) shownAt = Date.now();
    var outcome = trainer.querySelector("#outcome");
    if (outcome) paint(outcome, trainer);
    var first = trainer.querySelector("input.blank.wrong") ||
      (trainer.querySelector(".result") ? null : trainer.querySelector("input.blank:not([value]), input.blank[value='']"));
    if (first) first.focus({ preventScroll: root === document.body });
  }

  // A new request from the trainer clears the message a failed one left.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var flash = document.getElementById("flash");
    if (flash && event.target.closest && event.target.closest("#trainer")) flash.innerHTML = "";
  });

  // What an attempt records besides the answers: time on task (from the mask being shown), the
  // blanks revealed before submitting, hint panels opened. The server bounds and checks them.
  var shownAt = Date.now(), hintsOpened = 0;
  document.addEventListener("toggle", function (event) {
    if (event.target.matches && event.target.matches("details.hints") && event.target.open) hintsOpened++;
  }, true);

  function hidden(form, name, value) {
    var input = form.querySelector("input[type=hidden][name=" + name + "]");
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.appendChild(input);
    }
    input.value = value;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form.drill")) return;
    hidden(form, "ms", String(Date.now() - shownAt));
    hidden(form, "hints", String(hintsOpened));
    if (!form.querySelector("input[name=revealed][value=all]")) {
      var keys = [];
      form.querySelectorAll("input.blank.revealed").forEach(function (input) { keys.push(input.name); });
      hidden(form, "revealed", keys.join(","));
    }
    shownAt = Date.now();
  }, true);

  document.addEventListener("DOMContentLoaded", function () { prepare(document.body); });
  document.addEventListener("htmx:load", function (event) {
    if (event.target !== document.body) prepare(event.target);
  });
})();
