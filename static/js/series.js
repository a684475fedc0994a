// The series page, while another player is to act: bring the page up to date when the series has
// moved on. The live stream (static/js/live.js, docs/live.md) does this within a second, in place;
// this polls the API's state of the game every 60 seconds (not while the tab is hidden) as a
// fallback only.
(function () {
  "use strict";
  function check() {
    var root = document.getElementById("series");
    if (document.hidden || !root || root.dataset.active !== "1") { return; }
    fetch("/api/games/" + root.dataset.game + "/", {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (data && String(data.ply) !== root.dataset.ply) {
          if (window.powerboatsLive) { window.powerboatsLive.refresh(); } else { window.location.reload(); }
        }
      })
      .catch(function () {});
  }
  if (document.getElementById("series")) { window.setInterval(check, 60000); }
}());
