// Placing a boat, on the game page and the series page: click (or Enter on) a numbered start
// cell on the board to choose it, as the form's radio buttons do; the boat then shows on the board
// where it would stand, pointing the chosen heading (games/board.py draws it hidden). The form
// works without this. The page's parts change in place on live events: the handlers are on the
// document and look the page up when they run.
(function () {
  "use strict";
  function preview() {
    const form = document.getElementById("place-form");
    const ghost = document.querySelector("svg.board .place-preview");
    if (!form || !ghost) return;
    const chosen = form.querySelector("[name=cell]:checked");
    const heading = form.querySelector("[name=heading]:checked");
    const [q, r] = chosen ? chosen.value.split(",") : [];
    const cell = chosen && document.querySelector(`svg.board .placeable[data-q="${q}"][data-r="${r}"]`);
    document.querySelectorAll("svg.board .placeable.selected").forEach((c) => c.classList.remove("selected"));
    if (!cell || !heading) { ghost.setAttribute("display", "none"); return; }
    cell.classList.add("selected");
    ghost.setAttribute("transform", `translate(${cell.dataset.x},${cell.dataset.y}) rotate(${-60 * Number(heading.value)})`);
    ghost.removeAttribute("display");
  }
  function pick(cell) {
    const form = document.getElementById("place-form");
    const radio = form && form.querySelector(`[name=cell][value="${cell.dataset.q},${cell.dataset.r}"]`);
    if (radio) radio.checked = true;
    preview();
  }
  function cellOf(e) {
    return e.target instanceof Element ? e.target.closest("svg.board .placeable") : null;
  }
  document.addEventListener("click", (e) => { const cell = cellOf(e); if (cell) pick(cell); });
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    const cell = cellOf(e);
    if (cell) { e.preventDefault(); pick(cell); }
  });
  document.addEventListener("change", (e) => {
    if (e.target instanceof Element && e.target.closest("#place-form")) preview();
  });
  document.addEventListener("live:applied", preview);
}());
