// Live pages (docs/live.md): the server pushes an event (Server-Sent Events) when a move, a game's
// start or end, a challenge or a series (issue 16) concerns this page; the page then refreshes what
// changed. The game and series pages reload (unless the player is replaying or typing); My games and
// the lobbies fetch themselves and swap their [data-live-region] parts. EventSource reconnects by itself with Last-Event-ID.
(function () {
  "use strict";
  const el = document.getElementById("live");
  if (!el || !window.EventSource) return;
  const mode = el.dataset.liveMode;
  const ply = el.dataset.livePly === "" ? -1 : Number(el.dataset.livePly);
  let pending = false;
  let timer = null;

  const typing = () => {
    const a = document.activeElement;
    return a && a.matches("textarea, input[type=text], input:not([type])") && a.value !== "";
  };

  function reloadGame() {
    if (location.search.includes("at=")) return; // replaying an earlier position: leave it
    if (typing()) { pending = true; return; } // a message being written is not lost
    location.reload();
  }
  document.addEventListener("focusout", () => { if (pending && !typing()) { pending = false; reloadGame(); } });

  async function refreshRegions() {
    try {
      const r = await fetch(location.href, { credentials: "same-origin" });
      if (!r.ok) return;
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      document.querySelectorAll("[data-live-region]").forEach((old) => {
        const fresh = doc.getElementById(old.id);
        if (fresh && !old.contains(document.activeElement)) old.replaceWith(document.importNode(fresh, true));
      });
      document.dispatchEvent(new CustomEvent("live:updated"));
    } catch (err) { /* offline: the next event or a reload brings it */ }
  }

  function onEvent(e) {
    let data = {};
    try { data = JSON.parse(e.data); } catch (err) { return; }
    if (mode === "series") {
      // a series not started shows ply -1 and the revision of its seats: it reloads on a newer seat
      // change or cancel, and on its start; a series in play on an action it does not show yet
      if (data.action === "cancel" && el.dataset.liveRev) { location.assign(el.dataset.liveGone); return; }
      const rev = Number(el.dataset.liveRev || 0);
      const played = ["start", "move", "finish"].includes(data.action);
      if ((played && typeof data.ply === "number" && data.ply > ply) ||
          (!played && typeof data.rev === "number" && rev > 0 && data.rev > rev)) reloadGame();
      return;
    }
    if (mode === "game") {
      if (data.type === "chat") { document.dispatchEvent(new CustomEvent("powerboats:social")); return; }
      if (data.type === "finish" || (typeof data.ply === "number" && data.ply > ply)) reloadGame();
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(refreshRegions, 100); // several events at once: one refresh
  }

  const source = new EventSource(`${el.dataset.liveUrl}?since=${el.dataset.liveSince}`);
  ["move", "start", "finish", "challenge", "chat", "series"].forEach((kind) => source.addEventListener(kind, onEvent));
  window.addEventListener("pagehide", () => source.close());
})();
