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
    chances.textContent = rolled ? `Total after the roll — ${parts.join(", ")}` : `Total: ${kept} (nothing is rolled)`;
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

  // Directions: click an allowed arrow on the board to move that way.
  const directionForm = document.getElementById("direction-form");
  if (directionForm) {
    document.querySelectorAll("svg.board .option.allowed").forEach((arrow) => {
      arrow.addEventListener("click", () => {
        const button = directionForm.querySelector(`button[name=direction][value="${arrow.dataset.direction}"]`);
        if (button) button.click();
      });
    });
  }

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
    return (d ? `${d} d ` : "") + `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
  };
  const tick = () => {
    const now = Date.now();
    out.textContent = now < moveEnd ? `— ${fmt(moveEnd - now)} left for this move` :
      now < end ? `— in the grace bank: ${fmt(end - now)} left` : "— out of time";
  };
  tick();
  setInterval(tick, 1000);
})();
