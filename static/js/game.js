// Small progressive enhancements for the game page; everything works without them.
(function () {
  "use strict";
  const game = document.getElementById("game");
  if (!game) return;

  // Dice: the exact chance of each total for the current choice (each face 1/3).
  const diceForm = document.getElementById("dice-form");
  const chances = document.getElementById("chances");
  function distribution(kept, rolled) {
    let dist = new Map([[kept, 1]]);
    for (let i = 0; i < rolled; i++) {
      const next = new Map();
      for (const [total, p] of dist) for (const f of [1, 2, 3]) next.set(total + f, (next.get(total + f) || 0) + p / 3);
      dist = next;
    }
    return [...dist.entries()].sort((a, b) => a[0] - b[0]);
  }
  function updateChances() {
    const dice = JSON.parse(diceForm.dataset.dice || "[]");
    const change = (diceForm.querySelector("[name=change]:checked") || diceForm.querySelector("[name=change]")).value;
    const removed = change.startsWith("remove-") ? Number(change.slice(7)) : -1;
    const reroll = new Set([...diceForm.querySelectorAll("[name=reroll]:checked")].map((el) => Number(el.value)));
    diceForm.querySelectorAll("[name=reroll]").forEach((el) => { el.disabled = Number(el.value) === removed; if (el.disabled) el.checked = false; });
    let kept = 0, rolled = change === "add" ? 1 : 0;
    dice.forEach((v, i) => { if (i === removed) return; if (reroll.has(i)) rolled += 1; else kept += v; });
    const parts = distribution(kept, rolled).map(([t, p]) => `${t}: ${Math.round(p * 100)}%`);
    // the sentences come translated from the page (data-rolled, data-kept; docs/i18n.md)
    chances.textContent = rolled ? chances.dataset.rolled.replace("{chances}", parts.join(", "))
      : chances.dataset.kept.replace("{total}", String(kept));
  }
  if (diceForm && chances) { diceForm.addEventListener("change", updateChances); updateChances(); }

  // Placing: click a marked start cell on the board to choose it.
  const placeForm = document.getElementById("place-form");
  if (placeForm) {
    document.querySelectorAll("svg.board .placeable").forEach((cell) => {
      const pick = () => {
        const value = `${cell.dataset.q},${cell.dataset.r}`;
        const radio = placeForm.querySelector(`[name=cell][value="${value}"]`);
        if (radio) radio.checked = true;
        document.querySelectorAll("svg.board .placeable.selected").forEach((c) => c.classList.remove("selected"));
        cell.classList.add("selected");
      };
      cell.addEventListener("click", pick);
      cell.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
    });
  }

  // Directions: click or tap an allowed arrow or its disc on the board to move that way.
  const directionForm = document.getElementById("direction-form");
  if (directionForm) {
    document.querySelectorAll("svg.board .option.allowed").forEach((arrow) => {
      const go = () => {
        const button = directionForm.querySelector(`button[name=direction][value="${arrow.dataset.direction}"]`);
        if (button && !button.disabled) button.click();
      };
      arrow.addEventListener("click", go);
      arrow.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
    });
  }

  // Zoom: the button doubles the board inside a scrolling frame, centred on your boat (pinching works too).
  const wrap = document.getElementById("board");
  const zoom = document.getElementById("zoom");
  const scroller = document.getElementById("board-scroll");
  if (wrap && zoom && scroller) {
    zoom.addEventListener("click", () => {
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
  }

  // A portrait phone: when it is your turn, show the board and the turn's controls together.
  const turn = document.querySelector(".turn");
  if (scroller && turn && window.matchMedia("(orientation: portrait) and (max-width: 760px)").matches) {
    const show = () => scroller.scrollIntoView({ block: "start" });
    show();
    // again once everything has loaded: a late layout shift above the board must not hide its top
    if (document.readyState !== "complete") window.addEventListener("load", show, { once: true });
  }

  // The move list keeps its latest move in view.
  const moves = document.getElementById("moves");
  if (moves && !location.search.includes("at=")) moves.scrollTop = moves.scrollHeight;

  // Replay: arrow keys step through the game.
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, select")) return;
    const link = e.key === "ArrowLeft" ? "prev" : e.key === "ArrowRight" ? "next" : null;
    const a = link && document.querySelector(`.replay a[data-at="${link}"]`);
    if (a) window.location = a.href;
  });

  // Waiting for the opponent: look for a new move now and then.
  if (game.dataset.active === "1" && game.dataset.yourTurn === "0" && !location.search.includes("at=")) {
    const ply = game.dataset.ply;
    setInterval(async () => {
      try {
        const r = await fetch(`/api/games/${game.dataset.game}/`, { credentials: "same-origin" });
        if (r.ok && String((await r.json()).ply) !== ply) location.reload();
      } catch (err) { /* offline: try again later */ }
    }, 15000);
  }
})();

// The clock of the player to move, counting down.
(function () {
  "use strict";
  const clock = document.getElementById("clock");
  const out = document.getElementById("countdown");
  if (!clock || !out || !clock.dataset.deadline) return;
  const moveEnd = Date.parse(clock.dataset.moveDeadline);
  const end = Date.parse(clock.dataset.deadline);
  const fmt = (ms) => {
    const s = Math.max(0, Math.floor(ms / 1000));
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    return (d ? `${d} ${out.dataset.day} ` : "") + `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
  };
  const tick = () => {
    const now = Date.now();
    const left = (text, ms) => text.replace("{time}", fmt(ms));
    out.textContent = now < moveEnd ? left(out.dataset.move, moveEnd - now) :
      now < end ? left(out.dataset.grace, end - now) : out.dataset.over;
  };
  tick();
  setInterval(tick, 1000);
})();
