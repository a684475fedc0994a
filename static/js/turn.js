// Keyboard and screen readers (issue 24): when it is your turn, the turn's form (the dice, the
// direction, placing the boat) has the focus, so that Tab goes into it and a screen reader names
// it: on arrival, and when a live update (static/js/live.js) makes it your turn. Focus is never
// taken from a field being typed in (the chat), nor moved while it is already in the form. The
// "Skip to your turn" link (outside the part a live update changes) shows while there is a turn to
// skip to, and leads to its form. An allowed direction's arrow or disc on the board, clicked or
// tapped (or Enter on it), moves that way: the direction form's button for it is pressed.
(function () {
  "use strict";
  const form = () => document.querySelector("[data-live-root] form.turn");
  const typing = () => {
    const a = document.activeElement;
    return !!a && a.matches("input:not([type=radio]):not([type=checkbox]):not([type=submit]):not([type=button]), textarea, select, [contenteditable]");
  };
  function take(f) {
    if (!f || typing() || f.contains(document.activeElement)) return;
    f.focus({ preventScroll: true });  // a phone has scrolled the board and the controls into view (game.js)
  }
  function skipLink(f) {
    const link = document.querySelector("[data-turn-skip]");
    if (!link) return;
    link.hidden = !f;
    if (f && f.id) link.setAttribute("href", `#${f.id}`);
  }
  function go(arrow) {
    const directionForm = document.getElementById("direction-form");
    const button = directionForm && directionForm.querySelector(`button[name=direction][value="${arrow.dataset.direction}"]`);
    if (button && !button.disabled) button.click();
  }
  function boardTarget(e) {
    const target = e.target instanceof Element ? e.target : null;
    const arrow = target && target.closest("svg.board .option.allowed");
    return arrow ? () => go(arrow) : null;
  }
  document.addEventListener("click", (e) => { const act = boardTarget(e); if (act) act(); });
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    const act = boardTarget(e);
    if (act) { e.preventDefault(); act(); }
  });

  let had = !!form();
  if (!location.search.includes("at=")) take(form());
  document.addEventListener("live:applied", () => {
    const f = form();
    skipLink(f);
    if (f && !had) take(f);  // the turn has just become yours
    had = !!f;
  });
})();
