/* The service worker of the site (served at /sw.js, scope /: docs/notifications.md).
 *
 * - push: shows the notification the site sent (title, a line, the game it is about), one per
 *   game: a newer one replaces it (its tag);
 * - a tap on a notification opens that page, or brings forward a window that shows it already;
 * - offline: a page asked for while the network is down is served as it was last seen (My games
 *   and the game pages are kept each time they are seen online); the player's games ("My games")
 *   stand in for a page never seen, and a short page says the site is offline when nothing was
 *   seen yet. The site's styles, scripts and icons are kept as last fetched, for those pages.
 */
"use strict";

const CACHE = "powerboats-pages-v1";
const MY_GAMES = "/games/";
const OFFLINE = "/offline/";
const KEPT = /^\/games\/(\d+\/)?$/;  // My games, a game's page: kept as last seen
const SHELL = [OFFLINE, "/static/css/site.css", "/static/js/pwa.js", "/static/img/icon-192.png"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL.map(
    (url) => new Request(url, {credentials: "same-origin"})))).catch(() => undefined).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((names) => Promise.all(
    names.filter((name) => name.startsWith("powerboats-") && name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

function keep(key, response) {
  const copy = response.clone();
  caches.open(CACHE).then((cache) => cache.put(key, copy));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/")) {  // from the network; offline, as last fetched
    event.respondWith(fetch(request).then((response) => {
      if (response.ok) keep(url.pathname, response);
      return response;
    }).catch(() => caches.open(CACHE).then((cache) => cache.match(url.pathname))
      .then((kept) => kept || Response.error())));
    return;
  }
  if (request.mode !== "navigate") return;  // the API and the live streams as usual
  event.respondWith(fetch(request).then((response) => {
    if (response.ok && KEPT.test(url.pathname) && !url.search && !response.redirected) keep(url.pathname, response);
    return response;
  }).catch(() => caches.open(CACHE).then((cache) => cache.match(url.pathname)
    .then((seen) => seen || cache.match(MY_GAMES))
    .then((games) => games || cache.match(OFFLINE))
    .then((page) => page ? asSeen(page) : new Response("offline", {status: 503, headers: {"Content-Type": "text/plain"}})))));
});

// a page served from the cache says so: its offline note is shown (templates/base.html)
function asSeen(page) {
  return page.text().then((html) => new Response(html.replace('id="offline-note" role="status" hidden',
    'id="offline-note" role="status"'), {status: 200, headers: {"Content-Type": "text/html; charset=utf-8"}}));
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = {title: event.data ? event.data.text() : "Powerboats"};
  }
  const title = data.title || "Powerboats";
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || "",
    tag: data.tag || undefined,
    renotify: Boolean(data.tag),
    icon: data.icon || "/static/img/icon-192.png",
    badge: "/static/img/icon-192.png",
    data: {url: data.url || MY_GAMES, kind: data.kind || ""},
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || MY_GAMES, self.location.origin);
  event.waitUntil(self.clients.matchAll({type: "window", includeUncontrolled: true}).then((windows) => {
    for (const client of windows) {
      if (new URL(client.url).pathname === target.pathname && "focus" in client) return client.focus();
    }
    return self.clients.openWindow(target.href);
  }));
});
