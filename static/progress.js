// A progress bar on any form a person waits for over a second: a submission whose code runs,
// an upload whose reference code is checked. Sent through htmx or as a plain form alike. While
// the body uploads the bar shows how much is sent; then it runs until the answer comes.
// Its accessible name is the pressed button's own text, so it speaks the page's language.
(function () {
  "use strict";
  var DELAY_MS = 1000;

  function show(form, button) {
    var bar = document.createElement("progress");
    bar.className = "waiting";
    bar.setAttribute("aria-label", ((button && button.textContent) || "").trim() || "…");
    var anchor = button && form.contains(button) ? button : form.lastElementChild;
    if (anchor) anchor.insertAdjacentElement("afterend", bar); else form.appendChild(bar);
    return bar;
  }

  // Starts the clock for one request of `form`; the returned function ends it.
  function watch(form, button) {
    var state = { bar: null };
    var timer = setTimeout(function () { state.bar = show(form, button); }, DELAY_MS);
    form.setAttribute("aria-busy", "true");
    state.done = function () {
      clearTimeout(timer);
      if (state.bar) state.bar.remove();
      form.removeAttribute("aria-busy");
    };
    return state;
  }

  function formOf(element) {
    return element && element.closest ? element.closest("form") : null;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = formOf(event.detail.elt);
    if (!form || !event.detail.xhr) return;  // polling and links wait without a bar
    var button = document.activeElement && form.contains(document.activeElement) &&
      document.activeElement.matches("button") ? document.activeElement : form.querySelector("button[type=submit]");
    event.detail.xhr.codeclozeWait = watch(form, button);
  });
  document.addEventListener("htmx:xhr:progress", function (event) {
    var wait = event.detail.xhr && event.detail.xhr.codeclozeWait;
    var sent = event.detail;
    if (!wait || !wait.bar || !sent.lengthComputable || !sent.total) return;
    if (sent.loaded < sent.total) { wait.bar.max = sent.total; wait.bar.value = sent.loaded; }
    else wait.bar.removeAttribute("value");  // sent: now the server works
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var wait = event.detail.xhr && event.detail.xhr.codeclozeWait;
    if (wait) wait.done();
  });

  // A plain form: the page stays until the answer replaces it.
  var plain = [];
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || form.method === "dialog" || form.target ||
        form.hasAttribute("hx-post") || form.hasAttribute("hx-get")) return;  // no page to wait for
    plain.push(watch(form, event.submitter));
  });
  // Back to a page from the history cache: nothing is waiting any more.
  window.addEventListener("pageshow", function () {
    plain.splice(0).forEach(function (wait) { wait.done(); });
  });
})();
