// Drill page behaviour that HTML alone lacks: keyboard, reveal answers, confirm empty blanks,
// marks from a scored outcome, and the failing line.
(function () {
  "use strict";

  function blanks(trainer) { return Array.prototype.slice.call(trainer.querySelectorAll("input.blank")); }
  function isEmpty(input) { return input.value.trim() === ""; }

  // A blank grows with what is typed (never below the width it was given).
  function fit(input) {
    if (!input.dataset.w) input.dataset.w = input.style.getPropertyValue("--w") || "3";
    input.style.setProperty("--w", Math.max(Number(input.dataset.w), input.value.length + 1));
  }

  // A blank shows its answer once the server gave it (the page holds none).
  function show(input, answer) {
    input.value = answer;
    input.classList.remove("wrong", "unproven", "empty", "accepted");
    input.classList.add("revealed");
    input.dataset.state = "revealed";
    input.removeAttribute("aria-invalid");
    fit(input);
    var button = input.nextElementSibling;
    if (button && button.matches("span.mark")) button = button.nextElementSibling;
    if (button && button.matches("button.reveal")) button.remove();
    setMark(input, "revealed");
  }

  // Revealing asks the server, with the form's mask, which keeps that these blanks were revealed
  // (a later submission counts them so whatever the page says) and answers their text.
  function reveal(inputs) {
    inputs = inputs.filter(function (input) {
      return input && !input.classList.contains("right") && input.dataset.state !== "revealed";
    });
    if (!inputs.length) return;
    var form = inputs[0].form, body = new URLSearchParams(new FormData(form));
    body.set("reveal", inputs.map(function (input) { return input.name; }).join(","));
    fetch(form.getAttribute("action"), { method: "POST", body: body, credentials: "same-origin",
                                         headers: { "Accept": "application/json" } })
      .then(function (response) { return response.json().then(function (data) { return [response.ok, data]; }); })
      .then(function (reply) {
        if (!reply[0]) throw new Error(reply[1].error || "");
        inputs.forEach(function (input) {
          var answer = reply[1].revealed[input.name];
          if (answer !== undefined) show(input, answer);
        });
      })
      .catch(function (error) {
        var flash = document.getElementById("flash");
        if (flash) flash.textContent = error.message || "";
      });
  }

  // The mark after a scored blank (✓ ✗ …), so its state never shows by colour alone; names
  // and marks come from the server (data-mark-names on the trainer), in the page's language.
  function setMark(input, state) {
    var next = input.nextElementSibling, trainer = input.closest(".trainer");
    if (next && next.matches("span.mark")) next.remove();
    var names = JSON.parse(trainer && trainer.dataset.markNames || "{}"), known = names[state];
    if (!known) return;
    var mark = document.createElement("span");
    mark.className = "mark " + state;
    mark.setAttribute("role", "img");
    mark.setAttribute("aria-label", known[1]);
    mark.textContent = known[0];
    input.after(mark);
    keepTogether(input, mark);
  }

  // A blank and its mark in one unbreakable slot, so a wrapped row never leaves the mark behind.
  function keepTogether(input, mark) {
    if (input.parentElement.matches("span.slot")) return;
    var slot = document.createElement("span"), focused = document.activeElement === input;
    slot.className = "slot";
    input.before(slot);
    slot.append(input, mark);
    if (focused) input.focus();
  }

  function move(input, step) {
    var all = blanks(input.closest(".trainer")), next = all[all.indexOf(input) + step];
    if (next) { next.focus(); next.select(); return; }
    if (step > 0) pastLast(input, all);
  }

  // Enter on the last blank never reaches Submit (a second Enter would submit): it goes back to
  // the first blank still empty, or stays and says how to submit.
  function pastLast(input, all) {
    var empty = all.filter(function (b) { return b !== input && isEmpty(b) && !b.readOnly; })[0];
    if (empty) { empty.focus(); empty.select(); return; }
    var announcer = document.getElementById("announcer"), hint = input.form && input.form.querySelector(".enter-hint");
    if (announcer) announcer.textContent = announcer.dataset.lastBlank || "";
    if (hint && announcer) { hint.textContent = announcer.dataset.lastBlank || ""; hint.hidden = false; }
  }

  function newMask() {
    var refresh = document.querySelector("#trainer a.refresh");
    if (refresh) refresh.click();
  }

  function openShortcuts() {
    var dialog = document.getElementById("shortcuts");
    if (dialog && !dialog.open) dialog.showModal();
  }

  // The first blank takes focus only when the learner starts: a key typed on the page, or a tap
  // on the code (on a phone, focus on load would raise the keyboard over the prose).
  function startAt(trainer, line) {
    var open = blanks(trainer).filter(function (b) { return !b.readOnly; });
    var there = line ? open.filter(function (b) { return line.contains(b); }) : [];
    var first = there.filter(isEmpty)[0] || there[0] || open.filter(isEmpty)[0] || open[0];
    if (first) first.focus();
    return first;
  }

  function typing(event) {
    var active = document.activeElement;
    var idle = !active || active === document.body || active.matches("pre, code, .trainer, form.drill");
    return idle && !event.ctrlKey && !event.metaKey && !event.altKey && event.key.length === 1 && event.key !== "?";
  }

  document.addEventListener("keydown", function (event) {
    var trainer = document.getElementById("trainer");
    if (trainer && typing(event)) startAt(trainer);  // the key itself then types into that blank
  }, true);

  document.addEventListener("click", function (event) {
    var line = event.target.closest && event.target.closest("pre.trainer-code .line");
    if (!line || event.target.closest("input, button, a") || window.getSelection().toString()) return;
    startAt(line.closest("#trainer"), line);
  });

  document.addEventListener("input", function (event) {
    var hint = event.target.form && event.target.form.querySelector(".enter-hint");
    if (hint) hint.hidden = true;  // the hint was for the last Enter, not for what is typed now
  });

  // Esc answers the "blanks still empty" question with "go back", like its button.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var box = document.querySelector("form.drill .confirm-empty:not([hidden])");
    if (!box) return;
    event.preventDefault();
    box.querySelector(".confirm-back").click();
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target, inBlank = target.matches && target.matches("input.blank");
    var inForm = target.closest && target.closest("form.drill");
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && inForm) {
      event.preventDefault();
      inForm.requestSubmit();
    } else if (event.key === "Enter" && inBlank && !event.altKey) {
      event.preventDefault();  // Enter moves on; it never submits the whole exercise
      move(target, event.shiftKey ? -1 : 1);
    } else if (event.altKey && !event.ctrlKey && !event.metaKey && event.code === "KeyR" && inBlank) {
      event.preventDefault();
      reveal([target]);
    } else if (event.altKey && !event.ctrlKey && !event.metaKey && event.code === "KeyN" && document.getElementById("trainer")) {
      event.preventDefault();
      newMask();
    } else if (event.key === "?" && !target.matches("input, textarea, select, [contenteditable]")) {
      event.preventDefault();
      openShortcuts();
    }
  });

  document.addEventListener("input", function (event) {
    if (event.target.matches("input.blank")) fit(event.target);
  });

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
    var button = event.target.closest("button.reveal, button.reveal-all, button.shortcuts-open");
    if (!button) return;
    event.preventDefault();  // reveal buttons are the form's submit buttons for pages without script
    if (button.classList.contains("shortcuts-open")) {
      openShortcuts();
    } else if (button.classList.contains("reveal")) {
      var input = document.getElementById(button.dataset.for);
      reveal([input]);
      if (input) input.focus();  // the button goes: focus stays with its blank
    } else {
      reveal(blanks(button.closest(".trainer")).filter(function (input) {
        return input.dataset.state !== "right" && input.dataset.state !== "accepted";
      }));
    }
  });

  // Submitting: which blanks were revealed goes with the answers (they are never scored right);
  // empty blanks ask first, since code with a gap is not run.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form.drill")) return;
    var all = blanks(form), empty = all.filter(isEmpty), revealed = form.querySelector("input[name=revealed]");
    if (revealed.value !== "all") {  // "all": the page was opened with every answer shown (practice)
      revealed.value = all.filter(function (input) {
        return input.dataset.state === "revealed";
      }).map(function (input) { return input.name; }).join(",");
    }
    var box = form.querySelector(".confirm-empty");
    if (empty.length && form.dataset.confirmed !== "1" && box) {
      event.preventDefault();
      event.stopImmediatePropagation();  // before htmx sees it
      var text = box.querySelector("p");
      text.textContent = text.dataset.template.replace("{n}", empty.length);
      box.hidden = false;
      box.querySelector(".confirm-submit").focus();
      return;
    }
    delete form.dataset.confirmed;
    if (box) box.hidden = true;
  }, true);

  document.addEventListener("click", function (event) {
    var button = event.target.closest(".confirm-submit, .confirm-back");
    if (!button) return;
    var form = button.closest("form"), box = button.closest(".confirm-empty");
    box.hidden = true;
    if (button.classList.contains("confirm-submit")) {
      form.dataset.confirmed = "1";
      form.requestSubmit();
    } else {
      var first = blanks(form).filter(isEmpty)[0];
      if (first) first.focus();
    }
  });

  // A scored submission's outcome carries the marks of the blanks that are not right (the others
  // are); the inputs already hold the answers.
  function mark(input, m, label) {
    var next = input.nextElementSibling;
    if (next && next.matches("span.mark")) next = next.nextElementSibling;
    if (next && next.matches("button.reveal")) next.remove();
    input.classList.remove("right", "wrong", "unproven", "accepted", "revealed", "empty");
    var state = m ? m[0] : "";
    if (state) input.classList.add(state);
    input.dataset.state = state;
    setMark(input, state);
    if (state === "wrong" || state === "unproven" || state === "empty") input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    if (state === "wrong" || state === "unproven" || state === "empty") {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "reveal";
      button.dataset.for = input.id;
      var name = label.replace("{label}", input.getAttribute("aria-label"));
      button.setAttribute("aria-label", name);
      button.title = name;
      button.textContent = "?";
      (input.nextElementSibling && input.nextElementSibling.matches("span.mark") ? input.nextElementSibling : input).after(button);
    }
  }

  function paint(outcome, trainer) {
    if (!outcome.dataset.marks) return;
    var marks = JSON.parse(outcome.dataset.marks), label = trainer.dataset.revealLabel || "{label}";
    blanks(trainer).forEach(function (input) { mark(input, marks[input.name] || ["right"], label); });
    trainer.querySelectorAll(".line.error-line").forEach(function (line) { line.classList.remove("error-line"); });
    var line = trainer.querySelectorAll("pre.trainer-code .line")[Number(outcome.dataset.errorLine) - 1];
    if (line) line.classList.add("error-line");
  }

  // What a screen reader would say of an element: its text without the parts hidden from it (marks).
  function spoken(el) {
    var copy = el.cloneNode(true);
    copy.querySelectorAll("[aria-hidden=true]").forEach(function (hidden) { hidden.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  // A scored outcome swapped in is read out: score, then verdict (the live region stays put).
  function announce(outcome) {
    var announcer = document.getElementById("announcer"), parts = [];
    outcome.querySelectorAll(".result .notice, .result .score, .result .empty-note, .result .verdict strong")
      .forEach(function (el) { parts.push(spoken(el)); });
    if (announcer && parts.length) announcer.textContent = parts.join(" ");
  }

  function prepare(root) {
    var trainer = root.closest && root.closest("#trainer") || root.querySelector && root.querySelector("#trainer");
    if (!trainer) return;
    if (root === trainer || root === document.body) shownAt = Date.now();
    var outcome = trainer.querySelector("#outcome");
    if (outcome) paint(outcome, trainer);
    if (outcome && root === outcome) announce(outcome);
    blanks(trainer).forEach(fit);
    var opener = trainer.querySelector(".shortcuts-open");
    if (opener) opener.hidden = false;
    if (root === document.body) return;  // on load, focus waits for the learner to start
    var first = trainer.querySelector("input.blank.wrong, input.blank.empty") ||
      (trainer.querySelector(".result") ? null : blanks(trainer).filter(isEmpty)[0]);
    if (first) first.focus();
  }

  // A new request from the trainer clears the message a failed one left.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var flash = document.getElementById("flash");
    if (flash && event.target.closest && event.target.closest("#trainer")) flash.innerHTML = "";
  });

  // What an attempt records besides the answers and the revealed blanks: time on task (from the
  // mask being shown) and hint panels opened. The server bounds and checks them.
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
    shownAt = Date.now();
  }, true);

  // The language switch keeps the page's own query (its mask, rate, unit): only `lang` changes.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(".lang-switch a[data-lang]");
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    var url = new URL(window.location.href);
    url.searchParams.set("lang", link.dataset.lang);
    event.preventDefault();
    window.location.assign(url.toString());
  });

  document.addEventListener("DOMContentLoaded", function () { prepare(document.body); });
  document.addEventListener("htmx:load", function (event) {
    if (event.target !== document.body) prepare(event.target);
  });
})();
