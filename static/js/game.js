// Small progressive enhancements for the game page; everything works without them. The page's
// parts change in place when a live event arrives (static/js/live.js), so the handlers here are
// on the document and look the page up when they run; "live:applied" says the page changed.
(function () {
  "use strict";
  const game = document.getElementById("game");
  if (!game) return;
  const replaying = () => location.search.includes("at=");

  // Dice: static/js/dice.js (the chances and the danger of each total).

  // Placing: static/js/place.js (a start cell chosen on the board, the boat previewed there).
  // Directions tapped on the board: static/js/turn.js (every game's page).

  // Zoom: the button doubles the board inside a scrolling frame, centred on your boat (pinching works too).
  document.addEventListener("click", (e) => {
    const zoom = e.target instanceof Element && e.target.closest("#zoom");
    const wrap = document.getElementById("board");
    const scroller = document.getElementById("board-scroll");
    if (!zoom || !wrap || !scroller) return;
    const on = !wrap.classList.contains("zoomed");
    wrap.classList.toggle("zoomed", on);
    zoom.setAttribute("aria-pressed", on ? "true" : "false");
    if (!on) return;
    const focus = document.querySelector("svg.board .option.allowed .option-end") ||
      document.querySelector("svg.board .boat:not(.sunk)");
    if (focus) {
      const box = focus.getBoundingClientRect(), frame = scroller.getBoundingClientRect();
      scroller.scrollLeft += box.left + box.width / 2 - frame.left - frame.width / 2;
      scroller.scrollTop += box.top + box.height / 2 - frame.top - frame.height / 2;
    }
  });

  // A portrait phone: when it is your turn on arrival, show the board and the turn's controls together.
  const scroller = document.getElementById("board-scroll");
  if (scroller && document.querySelector(".turn") && window.matchMedia("(orientation: portrait) and (max-width: 760px)").matches) {
    const show = () => scroller.scrollIntoView({ block: "start" });
    show();
    // again once everything has loaded: a late layout shift above the board must not hide its top
    if (document.readyState !== "complete") window.addEventListener("load", show, { once: true });
  }

  // The move list keeps its latest move in view (live.js keeps it there as moves come in).
  const moves = document.getElementById("moves");
  if (moves && !replaying()) moves.scrollTop = moves.scrollHeight;

  // Replay: arrow keys step through the game.
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, select")) return;
    const link = e.key === "ArrowLeft" ? "prev" : e.key === "ArrowRight" ? "next" : null;
    const a = link && document.querySelector(`.replay a[data-at="${link}"]`);
    if (a) window.location = a.href;
  });

  // Waiting for the opponent: look for a new move now and then (the live stream's fallback).
  setInterval(async () => {
    const now = document.getElementById("game");
    if (!now || now.dataset.active !== "1" || now.dataset.yourTurn !== "0" || replaying()) return;
    try {
      const r = await fetch(`/api/games/${now.dataset.game}/`, { credentials: "same-origin" });
      if (!r.ok || String((await r.json()).ply) === now.dataset.ply) return;
      if (window.powerboatsLive) window.powerboatsLive.refresh(); else location.reload();
    } catch (err) { /* offline: try again later */ }
  }, 15000);
})();

// The clock of the player to move, counting down (its deadlines change in place with each move).
(function () {
  "use strict";
  const fmt = (ms, day) => {
    const s = Math.max(0, Math.floor(ms / 1000));
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    return (d ? `${d} ${day} ` : "") + `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
  };
  const tick = () => {
    const clock = document.getElementById("clock");
    const out = document.getElementById("countdown");
    if (!clock || !out || !clock.dataset.deadline) return;
    const moveEnd = Date.parse(clock.dataset.moveDeadline);
    const end = Date.parse(clock.dataset.deadline);
    const now = Date.now();
    const left = (text, ms) => text.replace("{time}", fmt(ms, out.dataset.day));
    out.textContent = now < moveEnd ? left(out.dataset.move, moveEnd - now) :
      now < end ? left(out.dataset.grace, end - now) : out.dataset.over;
  };
  tick();
  setInterval(tick, 1000);
  document.addEventListener("live:applied", tick);
})();
