// The learner's time zone for the server (app/web/zone.py): due times, dates and "today" on the
// pages are shown in it. Without script the server shows UTC and says so.
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (e) {
    return;
  }
  if (!zone || !/^[A-Za-z0-9_+\-\/]{1,64}$/.test(zone)) return;
  var current = document.cookie.split("; ").filter(function (c) { return c.indexOf("cc_tz=") === 0; })[0];
  if (current !== "cc_tz=" + zone) {
    document.cookie = "cc_tz=" + zone + "; Path=/; Max-Age=31536000; SameSite=Lax";
  }
})();
