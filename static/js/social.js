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

  // Something changed: the slot is changed in place (idiomorph, loaded by the live stream's tag),
  // so its forms and buttons stay the same nodes (a click or a tap under way is not lost) and the
  // line the player is typing stays, with its focus, whether they are typing it or set it aside.
  // Without idiomorph (a finished game's spectator: nothing live) the fragment is put in whole.
  function put(html) {
    if (!window.Idiomorph || !slot.firstElementChild) { slot.innerHTML = html; return; }
    window.Idiomorph.morph(slot, html, {
      morphStyle: "innerHTML",
      callbacks: { beforeNodeMorphed: (node) => node.id !== "chat-text" },
    });
  }

  // A refusal (too many lines a minute) stays shown beside the line kept in the box until a line is
  // taken: a refresh meanwhile (the opponent's line, a live event) puts it in again.
  // A line's own refusal stands just above the chat box; any other at the top of the part.
  let refusal = null;
  function withRefusal(html) {
    if (!refusal) return html;
    if (refusal.atBox) return html.replace(/<form[^>]*id="chat-form"/, (open) => refusal.html + open);
    return html.replace(/<div class="social-part"[^>]*>/, (open) => open + refusal.html);
  }
  const refusalShown = () => slot.querySelector(".social-part .error[role=alert]");

  // one fetch at a time: refreshes asked for meanwhile (a burst of live events) make one more after it
  let busy = null;
  let again = false;
  function refresh() {
    if (busy) { again = true; return busy; }
    busy = (async () => {
      try {
        do { again = false; await fill(); } while (again);
      } finally {
        busy = null;
      }
    })();
    return busy;
  }

  function fill() {
    return fetch(slot.dataset.src, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => {
        const key = same(html);
        if (key === shown) return;
        const first = shown === null;
        shown = key;
        const before = document.getElementById("chat-lines");
        const atEnd = !before || before.scrollTop + before.clientHeight >= before.scrollHeight - 8;
        put(withRefusal(html));
        const lines = document.getElementById("chat-lines");
        if (lines && (first || atEnd)) lines.scrollTop = lines.scrollHeight;
      })
      .catch(() => { /* the link to the whole page stays */ });
  }

  slot.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.id !== "chat-form") return;
    event.preventDefault();
    const button = form.querySelector("button");
    if (button) button.disabled = true;
    const body = new FormData(form);
    const sent = String(body.get("text") || "");
    fetch(form.action, { method: "POST", body: body, credentials: "same-origin",
                        headers: { "X-Social-Part": "1" } })
      .then((r) => {
        // refused (too many lines a minute): the fragment with its error, changed in place as any
        // other, so the line stays in the box to send again
        if (!r.ok) {
          return r.text().then((html) => {
            shown = null;
            put(html);
            const error = refusalShown();
            refusal = error ? { html: error.outerHTML, atBox: !!error.closest("#chat") } : null;
          });
        }
        refusal = null;
        const error = refusalShown();
        if (error) error.remove();
        // sent: the line leaves the box (the refresh leaves the box as it is). What was typed
        // after it, while it was on its way, stays.
        const input = document.getElementById("chat-text");
        if (input) input.value = input.value.startsWith(sent) ? input.value.slice(sent.length).trimStart() : input.value;
        return refresh().then(() => { const box = document.getElementById("chat-text"); if (box) box.focus(); });
      })
      .catch(() => form.submit());
  });

  window.powerboatsSocial = { refresh: refresh };
  document.addEventListener("powerboats:social", refresh);
  refresh();
})();
