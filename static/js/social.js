// The game page's chat, rematch offer and "next game" link (issue 13). The page holds a slot
// (#social) with a link to the whole-page version; this fills it with the fragment, and sends
// chat lines without leaving the board. Other scripts (the live updates) call
// window.powerboatsSocial.refresh() or dispatch "powerboats:social" on document to reload it.
(function () {
  "use strict";
  const slot = document.getElementById("social");
  if (!slot || !slot.dataset.src) return;

  function refresh() {
    return fetch(slot.dataset.src, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => {
        const typing = document.activeElement && document.activeElement.id === "chat-text";
        slot.innerHTML = html;
        const lines = document.getElementById("chat-lines");
        if (lines) lines.scrollTop = lines.scrollHeight;
        if (typing) { const input = document.getElementById("chat-text"); if (input) input.focus(); }
      })
      .catch(() => { /* the link to the whole page stays */ });
  }

  slot.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.id !== "chat-form") return;
    event.preventDefault();
    const button = form.querySelector("button");
    if (button) button.disabled = true;
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin",
                        headers: { "X-Social-Part": "1" } })
      .then((r) => {
        if (!r.ok) return r.text().then((html) => { slot.innerHTML = html; });
        return refresh().then(() => { const input = document.getElementById("chat-text"); if (input) input.focus(); });
      })
      .catch(() => form.submit());
  });

  window.powerboatsSocial = { refresh: refresh };
  document.addEventListener("powerboats:social", refresh);
  refresh();
})();
