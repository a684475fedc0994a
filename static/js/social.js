// The game page's chat, rematch offer and "next game" link (issue 13). The page holds a slot
// (#social) with a link to the whole-page version; this fills it with the fragment, and sends
// chat lines without leaving the board. Other scripts (the live updates) call
// window.powerboatsSocial.refresh() or dispatch "powerboats:social" on document to reload it.
(function () {
  "use strict";
  const slot = document.getElementById("social");
  if (!slot || !slot.dataset.src) return;

  // the fragment last put in the slot: one that comes back the same is not put in again, so a
  // refresh that changes nothing (a live update's catch-up, a stream that came back) does not take
  // a button away under a click or a tap that is under way, nor the reader's place in the chat.
  // Its forms' CSRF tokens are masked anew each time (Django), so they are left out of the comparison.
  let shown = null;
  const same = (html) => html.replace(/name="csrfmiddlewaretoken" value="[^"]*"/g, "");

  function refresh() {
    return fetch(slot.dataset.src, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => {
        const key = same(html);
        if (key === shown) return;
        shown = key;
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
        if (!r.ok) return r.text().then((html) => { shown = null; slot.innerHTML = html; });
        return refresh().then(() => { const input = document.getElementById("chat-text"); if (input) input.focus(); });
      })
      .catch(() => form.submit());
  });

  window.powerboatsSocial = { refresh: refresh };
  document.addEventListener("powerboats:social", refresh);
  refresh();
})();
