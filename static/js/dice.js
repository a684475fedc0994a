// Danger before the dice (issue 24), on the game and series pages: for the dice choice the player
// is making (the turn's dice form, or the plan panel of a turn to come: any form[data-dice]), each
// total's chance (each face 1/3), the totals it cannot give hidden in the table of outcomes
// (templates/games/_danger.html), and one line that tells safe from deadly (the form's .chances):
// the chance that every allowed direction crashes (R9), or sinks the boat (R12). The sentences
// come translated from the page (data-*; docs/i18n.md). The page's parts may be replaced in place
// (static/js/live.js): everything is looked up when it runs.
(function () {
  "use strict";
  function distribution(kept, rolled) {
    let dist = new Map([[kept, 1]]);
    for (let i = 0; i < rolled; i++) {
      const next = new Map();
      for (const [total, p] of dist) for (const f of [1, 2, 3]) next.set(total + f, (next.get(total + f) || 0) + p / 3);
      dist = next;
    }
    return dist;
  }
  const percent = (p) => `${Math.round(p * 100)}%`;

  function update() {
    document.querySelectorAll("form[data-dice]").forEach(updateForm);  // the dice form; the plan panel (issue 27)
  }

  function updateForm(form) {
    const chances = form.querySelector(".chances");
    if (!chances) return;
    const dice = JSON.parse(form.dataset.dice || "[]");
    const picked = form.querySelector("[name=change]:checked") || form.querySelector("[name=change]");
    const change = picked ? picked.value : "add";
    const removed = change.startsWith("remove-") ? Number(change.slice(7)) : -1;
    const reroll = new Set([...form.querySelectorAll("[name=reroll]:checked")].map((el) => Number(el.value)));
    form.querySelectorAll("[name=reroll]").forEach((el) => {
      el.disabled = Number(el.value) === removed;
      if (el.disabled) el.checked = false;
    });
    let kept = 0, rolled = change === "add" ? 1 : 0;
    dice.forEach((v, i) => { if (i === removed) return; if (reroll.has(i)) rolled += 1; else kept += v; });
    const dist = distribution(kept, rolled);
    let crash = 0, sinks = 0;
    form.querySelectorAll(".danger tr[data-total]").forEach((row) => {
      const p = dist.get(Number(row.dataset.total)) || 0;
      row.hidden = p === 0;
      row.querySelector(".chance").textContent = percent(p);
      if (row.dataset.forced) crash += p;
      if (row.dataset.forced === "sinks") sinks += p;
    });
    const parts = [];
    if (!rolled) parts.push(chances.dataset.kept.replace("{total}", String(kept)));
    if (sinks > 0) parts.push(chances.dataset.sinks.replace("{p}", percent(sinks)));
    if (crash - sinks > 1e-9) parts.push(chances.dataset.crash.replace("{p}", percent(crash - sinks)));
    if (crash === 0) parts.push(chances.dataset.safe);
    chances.textContent = parts.join(" ");
    chances.classList.toggle("risk-sinks", sinks > 0);
    chances.classList.toggle("risk-crash", sinks === 0 && crash > 0);
    chances.classList.toggle("risk-safe", crash === 0);
  }
  document.addEventListener("change", (e) => { if (e.target instanceof Element && e.target.closest("form[data-dice]")) update(); });
  document.addEventListener("live:applied", update);
  update();
})();
