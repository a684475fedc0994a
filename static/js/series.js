// The series page, while another player is to act: reload when the series has moved on.
// The live stream (static/js/live.js, docs/live.md) does this within a second; this polls the API's
// state of the series every 60 seconds (not while the tab is hidden) as a fallback only.
(function () {
  "use strict";
  var root = document.getElementById("series");
  if (!root) { return; }
  var id = root.dataset.series, ply = root.dataset.ply;
  function check() {
    if (document.hidden) { return; }
    fetch("/api/series/" + id + "/", {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (data && String(data.ply) !== ply) {
          window.location.reload();
        }
      })
      .catch(function () {});
  }
  if (root.dataset.active === "1") { window.setInterval(check, 60000); }
}());
