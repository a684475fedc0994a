/* Every page: the service worker (static/js/sw.js, served at /sw.js: pushes, offline pages), a
 * note when a page is shown offline as it was last seen, and no page of this player left in the
 * cache once they log out (docs/notifications.md). */
"use strict";
(function () {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", {scope: "/"}).catch(() => undefined);

  // a page from the cache comes with its note shown (sw.js); one open when the network goes says so too
  const note = document.getElementById("offline-note");
  window.addEventListener("offline", () => { if (note) note.hidden = false; });

  for (const form of document.querySelectorAll("form[data-logout]")) {
    form.addEventListener("submit", () => {
      if (window.caches) caches.keys().then((names) => names.filter((n) => n.startsWith("powerboats-"))
        .forEach((n) => caches.delete(n)));
    });
  }
})();
