/* Turning web push on for this device (docs/notifications.md): the Settings page's devices
 * section, and the offer on a game page at the player's first "your turn" (#push-offer). The
 * browser subscribes with the site's VAPID key (data-push-key) and the subscription is handed
 * to the site (POST data-devices-url, the session's CSRF token). */
"use strict";
(function () {
  const DISMISSED = "powerboats-push-offer-dismissed";
  const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

  function keyBytes(base64url) {
    const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - base64url.length % 4) % 4));
    return Uint8Array.from(text, (c) => c.charCodeAt(0));
  }

  function csrf(box) {
    const input = box.querySelector("input[name=csrfmiddlewaretoken]") ||
      document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  async function current() {
    const registration = await navigator.serviceWorker.ready;
    return {registration, subscription: await registration.pushManager.getSubscription()};
  }

  async function turnOn(box) {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") throw new Error(box.dataset.denied || "not allowed");
    const {registration, subscription} = await current();
    const sub = subscription || await registration.pushManager.subscribe(
      {userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.pushKey)});
    const response = await fetch(box.dataset.devicesUrl, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf(box)},
      body: JSON.stringify(sub.toJSON ? sub.toJSON() : sub),
    });
    if (!response.ok) throw new Error((await response.json()).message || String(response.status));
  }

  function say(box, text) {
    const state = box.querySelector("[data-push-state]");
    if (state) {
      state.textContent = text;
      state.hidden = !text;
    }
  }

  async function settings(box) {
    const button = box.querySelector("#push-on");
    if (!supported) {
      say(box, box.dataset.unsupported || "");
      return;
    }
    const {subscription} = await current();
    const known = [...box.querySelectorAll("[data-endpoint]")].map((li) => li.dataset.endpoint);
    if (subscription && known.includes(subscription.endpoint)) {
      say(box, box.dataset.onHere || "");
      return;
    }
    button.hidden = false;
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await turnOn(box);
        window.location.reload();
      } catch (error) {
        say(box, String(error.message || error));
        button.disabled = false;
      }
    });
  }

  async function offer(box) {
    if (!supported || Notification.permission !== "default" || localStorage.getItem(DISMISSED)) return;
    const {subscription} = await current();
    if (subscription) return;
    box.hidden = false;
    box.querySelector("[data-push-yes]").addEventListener("click", async () => {
      try {
        await turnOn(box);
        say(box, box.dataset.done || "");
        for (const b of box.querySelectorAll("button")) b.hidden = true;
      } catch (error) {
        say(box, String(error.message || error));
      }
    });
    box.querySelector("[data-push-no]").addEventListener("click", () => {
      localStorage.setItem(DISMISSED, "1");
      box.hidden = true;
    });
  }

  const devices = document.getElementById("devices");
  if (devices) settings(devices).catch(() => undefined);
  const box = document.getElementById("push-offer");
  if (box) offer(box).catch(() => undefined);
})();
