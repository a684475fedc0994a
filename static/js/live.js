// Live pages (docs/live.md). The server pushes an event (Server-Sent Events) when a move, a game's
// start or end, an open series' seats or a challenge concern this page.
// * A game's page (a two-player game's, a series') applies it in place: it fetches its changing part
//   alone (data-live-src: a spectator's is rendered once per move for all spectators) and morphs it
//   into the page (idiomorph, static/js/vendor/): the boat moves, the move
//   list grows, the turn panel, the clock, the scores and the result change, and the reader keeps
//   their scroll position, the position they replay (?at=), what they type or have chosen in a form
//   of this turn, the zoom, what they opened and the chat. A screen reader hears the new move and
//   whose turn it is (#live-announce). What cannot be applied so (a new race, a series that starts)
//   reloads the page.
// * My games and the lobbies fetch themselves and swap their [data-live-region] parts; a player
//   waiting in the lobby for their own challenge goes to the game when it is accepted.
// * A finished game's page, for its players, follows their rematch offers (the chat slot).
// EventSource reconnects by itself with Last-Event-ID (heartbeats carry the position to resume
// from); a stream that was refused (too many open: 429) or lost is tried again later, with growing
// pauses, and the page catches up then; one that resumed too far back is told to ("reset").
(function () {
  "use strict";
  const el = document.getElementById("live");
  if (!el || !window.EventSource) return;
  const mode = el.dataset.liveMode; // game | list | rematch
  const kinds = (el.dataset.liveKinds || "").split(" ").filter(Boolean);
  const busyPause = 1000 * Number(el.dataset.liveBusy || 30);
  const announce = document.getElementById("live-announce");
  let source = null;
  let pause = 0;
  let retryTimer = null;

  // --- a game's page: in place -----------------------------------------------------------------------
  const root = () => document.querySelector("[data-live-root]");
  const shownPly = () => { const r = root(); return r ? Number(r.dataset.ply) : -1; };
  const kept = (node) => node.nodeType === 1 && node.hasAttribute("data-live-keep");
  const keptAttribute = (name, node) => {
    const names = node.getAttribute && node.getAttribute("data-live-keep-attrs");
    return !!names && names.split(" ").includes(name);
  };
  const plyOf = (form) => { const input = form.querySelector("input[name=ply]"); return input ? input.value : ""; };
  // a form of this turn the reader has begun to fill in stays as they left it
  const touched = (from, to) => from.nodeType === 1 && from.tagName === "FORM" && from.dataset.liveTouched === "1" &&
    to.nodeType === 1 && to.tagName === "FORM" && from.id === to.id && plyOf(from) === plyOf(to);
  document.addEventListener("input", (e) => {
    const form = e.target instanceof Element && e.target.closest("[data-live-root] form");
    if (form) form.dataset.liveTouched = "1";
  });

  async function fetchDocument(url) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 10000); // a fetch that hangs must not stop the updates
    try {
      const r = await fetch(url, { credentials: "same-origin", cache: "no-store", signal: abort.signal,
                                   headers: { "X-Live-Refresh": "1" } });
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return new DOMParser().parseFromString(await r.text(), "text/html");
    } finally {
      clearTimeout(timer);
    }
  }

  function partUrl(ply) {
    const r = root();
    if (!r || !r.dataset.liveSrc) return location.href;
    const query = new URLSearchParams(location.search);
    query.set("ply", String(ply));
    return `${r.dataset.liveSrc}?${query}`;
  }

  function say() {
    if (!announce) return;
    const r = root();
    if (!r) return;
    // the game's list grows down; a series' is newest first; each item's words (.long) if it has them
    const longs = r.querySelectorAll("#moves li .long");
    const first = r.querySelector("#moves li:first-child");
    const newestFirst = !!r.querySelector("#moves[reversed]");
    const last = newestFirst ? (first && (first.querySelector(".long") || first)) : longs[longs.length - 1];
    const turn = r.querySelector(".turn h2, .status, #result h2");
    announce.textContent = [last, turn].filter(Boolean).map((n) => n.textContent.trim()).join(". ");
  }

  function apply(doc) {
    const old = root();
    const fresh = doc.querySelector("[data-live-root]");
    if (!old || !fresh || !window.Idiomorph || old.id !== fresh.id ||
        (old.dataset.liveReload || "") !== (fresh.dataset.liveReload || "")) return false;
    const moves = document.getElementById("moves");
    const replaying = location.search.includes("at=");
    const newestFirst = !!moves && moves.hasAttribute("reversed"); // a series' list: the newest on top
    const atEnd = moves && moves.scrollTop + moves.clientHeight >= moves.scrollHeight - 8;
    const atTop = moves && moves.scrollTop <= 8;
    const before = shownPly();
    const y = window.scrollY;
    window.Idiomorph.morph(old, fresh, {
      ignoreActiveValue: true,
      callbacks: {
        beforeNodeMorphed: (from, to) => !kept(from) && !touched(from, to),
        beforeNodeRemoved: (node) => !kept(node),
        beforeAttributeUpdated: (name, node) => !keptAttribute(name, node),
      },
    });
    const list = document.getElementById("moves");
    if (list && !replaying) {
      // the reader who saw the newest action sees the new one: the game's list at its end, a series' at its top
      if (newestFirst && atTop) list.scrollTop = 0;
      else if (!newestFirst && atEnd) list.scrollTop = list.scrollHeight;
    }
    if (doc.title) document.title = doc.title; // a whole page (the series'); a part has none
    document.dispatchEvent(new CustomEvent("live:applied"));
    // the reader's place in the page, as it was: the browser's own scroll anchoring follows one node
    // through the morph and, when that node was replaced or the page was briefly shorter (the clock's
    // countdown is filled in by game.js only now), leaves them elsewhere; a page that got shorter
    // leaves them at its end
    if (window.scrollY !== y) window.scrollTo(0, y);
    if (shownPly() !== before) say();
    const now = root();
    if (now && now.hasAttribute("data-live-over")) stop();
    return true;
  }

  let busy = null;
  let again = 0;
  function refresh(ply) {
    const wanted = Math.max(ply || 0, shownPly() + 1);
    if (busy) { again = Math.max(again, wanted); return busy; } // events in a burst: one fetch more after this one
    busy = (async () => {
      try {
        let next = wanted;
        do {
          again = 0;
          if (!apply(await fetchDocument(partUrl(next)))) { location.reload(); return; }
          next = again;
        } while (again);
      } catch (err) {
        // offline, or the server is away: the next event or the page's own check tries again
      } finally {
        busy = null;
      }
    })();
    return busy;
  }

  // --- My games and the lobbies: their regions --------------------------------------------------------
  // the reader's own open challenges, as the page has shown them: a refresh that ran after one was
  // accepted (its event still on the way) takes it off the list, and the accept must still lead to
  // the game
  const mine = new Set();
  const noteMine = () => document.querySelectorAll("[data-my-challenge]").forEach((n) => mine.add(n.dataset.myChallenge));
  noteMine();
  async function refreshRegions() {
    try {
      const doc = await fetchDocument(location.href);
      document.querySelectorAll("[data-live-region]").forEach((old) => {
        const fresh = doc.getElementById(old.id);
        if (fresh && !old.contains(document.activeElement)) old.replaceWith(document.importNode(fresh, true));
      });
      noteMine();
      document.dispatchEvent(new CustomEvent("live:updated"));
    } catch (err) { /* offline: the next event or a reload brings it */ }
  }

  const catchUp = () => {
    if (mode === "list") return refreshRegions();
    if (mode === "rematch") { document.dispatchEvent(new CustomEvent("powerboats:social")); return null; }
    return refresh(shownPly());
  };

  let timer = null;
  function onEvent(e) {
    if (/^\d+$/.test(e.lastEventId || "")) lastId = Math.max(lastId, Number(e.lastEventId));
    if (e.type === "reset") { catchUp(); return; } // resumed too far back: read the state afresh
    let data = {};
    try { data = JSON.parse(e.data); } catch (err) { return; }
    if (mode === "game") {
      if (data.type === "chat") { document.dispatchEvent(new CustomEvent("powerboats:social")); return; }
      // an open series (it shows ply -1): its seats changed, or its creator cancelled it
      if (data.action === "cancel" && el.dataset.liveGone) { location.assign(el.dataset.liveGone); return; }
      if (data.type === "seats") {
        const r = root();
        if (typeof data.rev === "number" && r && data.rev > Number(r.dataset.liveRev || 0)) refresh(shownPly() + 1);
        return;
      }
      if (data.type === "finish" || (typeof data.ply === "number" && data.ply > shownPly())) refresh(data.ply);
      return;
    }
    if (mode === "rematch") { // a finished game's page: a rematch offered or answered
      document.dispatchEvent(new CustomEvent("powerboats:social"));
      return;
    }
    if (data.type === "challenge" && data.status === "accepted" && data.game && mine.has(String(data.challenge))) {
      // the lobby, waiting for its own challenge: it was accepted, the game is on
      location.assign(`/games/${data.game}/`);
      return;
    }
    if (kinds.length && !kinds.includes(e.type)) return; // not something this list shows
    clearTimeout(timer);
    timer = setTimeout(refreshRegions, 100); // several events at once: one refresh
  }

  function stop() {
    clearTimeout(retryTimer);
    retryTimer = null;
    if (source) { source.close(); source = null; }
  }

  // where a new stream starts: after the last event this page was given, or else the page's render
  // time (an event seen twice is harmless; one lost while the stream was closed — refused, or the
  // page kept in the back/forward cache — would leave the page behind)
  let lastId = 0;
  const resume = () => (lastId ? `after=${lastId}` : `since=${el.dataset.liveSince}`);

  function connect() {
    stop();
    const stream = new EventSource(`${el.dataset.liveUrl}?${resume()}`);
    source = stream;
    ["move", "start", "finish", "seats", "challenge", "chat", "reset"].forEach((kind) => stream.addEventListener(kind, onEvent));
    stream.addEventListener("open", () => { pause = 0; });
    stream.addEventListener("error", () => {
      // while CONNECTING the browser tries again by itself; CLOSED: refused (429) or failed for good
      if (stream !== source || stream.readyState !== EventSource.CLOSED) return;
      stop();
      pause = Math.min(pause ? pause * 2 : busyPause, 10 * busyPause);
      retryTimer = setTimeout(() => { connect(); catchUp(); }, pause * (0.75 + Math.random() / 2));
    });
  }

  connect();
  window.addEventListener("pagehide", stop);
  window.addEventListener("pageshow", (e) => {
    const r = root();
    if (e.persisted && !source && !(r && r.hasAttribute("data-live-over"))) { connect(); catchUp(); }
  });
  window.powerboatsLive = { refresh: catchUp };
})();
