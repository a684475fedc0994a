"""The embedded default's task broker: a folder (``folder://``, ``var/broker``) that cannot be
corrupted by a reader racing a writer, and whose unreadable messages never stop a worker.

kombu's ``filesystem://`` transport, which this replaces, created a message file and wrote
into it afterwards: a worker that listed the folder in between read an empty file and died
(``Unrecoverable error: JSONDecodeError``). Here (docs/broker.md):

- a message is written under ``tmp/`` and renamed into ``queue/`` when complete, so a reader
  sees a whole message or none (a rename within one file system is atomic);
- a consumer takes a message by renaming it into its own folder ``claimed/<owner>/`` (one
  consumer wins the rename), and deletes it there when the task is acknowledged; a message it
  rejects or still holds when it closes goes back to the queue. A consumer that dies (killed,
  out of memory) leaves its folder behind with its lock released, and the next consumer to
  look moves those messages back into the queue: a task is run again, never lost, as on Redis;
- a message that cannot be read or decoded is moved to ``bad/`` and logged, and the worker
  goes on with the next one;
- the exchange tables of fanout (Celery's remote control) are written the same way.

It is a subclass of kombu's transport: the file names, the folder options and the message
format are the same, so messages already queued by the old transport are read too.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.transport.virtual import Empty
from kombu.utils.json import dumps, loads

logger = logging.getLogger("powerboats.broker")

TRANSPORT_ALIASES["folder"] = "powerboats_site.broker:Transport"

RECOVER_EVERY_SECONDS = 5.0  # how often a consumer looks for the folders of consumers that died
TMP_MAX_AGE_SECONDS = 3600.0  # a half-written message older than this was left by a publisher that died


def _broker_dir(options: dict[str, Any]) -> Path:
    """The broker folder: the parent of the queue folder (``var/broker``)."""
    return Path(options.get("data_folder_in", "data_in")).resolve().parent


def write_atomically(path: Path, data: bytes, tmp_dir: Path) -> None:
    """Write ``data`` to ``path`` so that no reader ever sees part of it."""
    tmp = tmp_dir / f"{uuid.uuid4().hex}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class _Owner:
    """This process's claimed folder, locked for as long as the process lives.

    The lock is a POSIX record lock (``lockf``): it belongs to the process, is not inherited
    by the processes it forks (Celery's pool), and the kernel releases it when the process
    dies, however it dies."""

    def __init__(self, claimed: Path) -> None:
        self.pid = os.getpid()
        name = f"{self.pid}-{uuid.uuid4().hex[:8]}"
        staging = claimed.parent / "tmp" / name
        staging.mkdir(parents=True)
        self.lock_file = open(staging / ".lock", "wb")  # held open for the life of the process
        fcntl.lockf(self.lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.path = claimed / name
        os.rename(staging, self.path)  # appears in claimed/ already locked
        # the lock file's path changed with the rename; the lock is on the file, not the name


_owner: _Owner | None = None
_owner_lock = threading.Lock()
_claimed_files: dict[str, Path] = {}  # delivery tag -> the claimed file, of this process


def _this_owner(claimed: Path) -> _Owner:
    global _owner
    with _owner_lock:
        if _owner is None or _owner.pid != os.getpid():  # none yet, or a forked child
            if _owner is not None:
                _claimed_files.clear()  # the parent's, not ours
            _owner = _Owner(claimed)
        return _owner


def recover(broker: Path) -> int:
    """Move the messages of consumers that died back into the queue; returns how many.

    Also removes half-written messages that publishers which died left in ``tmp/``."""
    claimed, queue, tmp = broker / "claimed", broker / "queue", broker / "tmp"
    restored = 0
    mine = _owner.path if _owner is not None and _owner.pid == os.getpid() else None
    for folder in claimed.iterdir() if claimed.is_dir() else ():
        if folder == mine or not folder.is_dir():
            continue
        try:
            lock = open(folder / ".lock", "rb+")
        except FileNotFoundError:
            continue  # another consumer is recovering it
        try:
            try:
                fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # its owner is alive
            for message in sorted(folder.glob("*.msg")):
                try:
                    os.rename(message, queue / message.name)
                    restored += 1
                except FileNotFoundError:
                    pass
            (folder / ".lock").unlink(missing_ok=True)
            try:
                folder.rmdir()
            except OSError:
                pass
        finally:
            lock.close()
    if restored:
        logger.warning("Broker: put %d message(s) back in the queue that a consumer which died had taken", restored)
    now = time.time()
    for leftover in tmp.glob("*.tmp") if tmp.is_dir() else ():
        try:
            if now - leftover.stat().st_mtime > TMP_MAX_AGE_SECONDS:
                leftover.unlink()
        except FileNotFoundError:
            pass
    return restored


class Channel(filesystem.Channel):
    """kombu's filesystem channel with atomic writes, claimed messages and a ``bad/`` folder."""

    _last_recovery = 0.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._no_ack_queues: set[str] = set()
        broker = _broker_dir(self.transport_options)
        self.broker_dir = broker
        self.tmp_folder = broker / "tmp"
        self.claimed_folder = broker / "claimed"
        self.bad_folder = broker / "bad"
        for folder in (Path(self.data_folder_in), Path(self.data_folder_out), self.tmp_folder,
                       self.claimed_folder, self.bad_folder, self.control_folder):
            folder.mkdir(parents=True, exist_ok=True)

    # --- publishing -----------------------------------------------------------------
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]  # as kombu's filesystem Channel (its AbstractChannel names it message)
        """Put a message on ``queue``: written whole under tmp/, then renamed into the queue."""
        name = f"{time.time_ns()}_{uuid.uuid4()}.{queue}.msg"  # sorted by time: first in, first out
        try:
            write_atomically(Path(self.data_folder_out) / name, dumps(payload).encode(), self.tmp_folder)
        except OSError as exc:
            raise ChannelError(f"Cannot add message {name!r} to the queue") from exc

    # --- consuming ------------------------------------------------------------------
    def _get(self, queue: str, timeout: float | None = None) -> Any:
        """Take the oldest message of ``queue``: rename it into this consumer's folder, read it.

        A message that cannot be read or decoded is set aside in bad/ and the next one taken."""
        owner = _this_owner(self.claimed_folder)
        now = time.monotonic()
        if now - Channel._last_recovery > RECOVER_EVERY_SECONDS:
            Channel._last_recovery = now
            recover(self.broker_dir)
        suffix = f".{queue}.msg"
        folder = Path(self.data_folder_in)
        for name in sorted(n for n in os.listdir(folder) if n.partition(".")[2] == suffix[1:]):
            taken = owner.path / name
            try:
                os.rename(folder / name, taken)
            except FileNotFoundError:
                continue  # another consumer took it
            try:
                payload = loads(taken.read_bytes())
                tag = payload["properties"]["delivery_tag"]
            except (OSError, ValueError, TypeError, KeyError) as exc:
                self._set_aside(taken, exc)
                continue
            if queue in self._no_ack_queues:
                taken.unlink(missing_ok=True)
            else:
                _claimed_files[tag] = taken
            return payload
        raise Empty()

    def _set_aside(self, path: Path, exc: BaseException) -> None:
        target = self.bad_folder / path.name
        try:
            os.rename(path, target)
        except OSError:
            target = path
        logger.error("Broker: set aside a message that cannot be read, %s (%s: %s); the worker goes on",
                     target, type(exc).__name__, exc)

    def _done(self, delivery_tag: Any) -> None:
        path = _claimed_files.pop(delivery_tag, None)
        if path is not None:
            path.unlink(missing_ok=True)

    def basic_consume(self, queue: str, no_ack: bool, *args: Any, **kwargs: Any) -> Any:
        if no_ack:
            self._no_ack_queues.add(queue)
        return super().basic_consume(queue, no_ack, *args, **kwargs)

    def basic_get(self, queue: str, no_ack: bool = False, **kwargs: Any) -> Any:
        message = super().basic_get(queue, no_ack=no_ack, **kwargs)
        if message is not None and no_ack:
            self._done(message.delivery_tag)
        return message

    def basic_ack(self, delivery_tag: Any, multiple: bool = False) -> None:
        super().basic_ack(delivery_tag, multiple)
        self._done(delivery_tag)

    def basic_reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        super().basic_reject(delivery_tag, requeue)
        self._done(delivery_tag)

    def _restore(self, message: Any) -> None:
        """Back to the queue (a rejected message, or one held when the channel closes)."""
        super()._restore(message)
        self._done(message.delivery_tag)

    # --- exchange tables (fanout) -----------------------------------------------------
    def get_table(self, exchange: str) -> Any:
        try:
            return super().get_table(exchange)
        except ValueError as exc:  # written by the old transport while being read: start again
            logger.error("Broker: the exchange table of %r cannot be read (%s); it is reset", exchange, exc)
            return []

    def _edit_table(self, exchange: str, change: Any) -> None:
        file = self._exchange_file(exchange)
        with open(file.with_name(file.name + ".lock"), "wb") as lock:
            fcntl.lockf(lock, fcntl.LOCK_EX)
            try:
                table = [filesystem.exchange_queue_t(*q) for q in json.loads(file.read_bytes())]
            except (FileNotFoundError, ValueError):
                table = []
            new = change(list(table))
            if new != table:
                write_atomically(file, dumps(new).encode(), self.tmp_folder)

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str, queue: str) -> None:
        row = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._edit_table(exchange, lambda table: table if row in table else [row, *table])

    def _delete(self, queue: str, exchange: str, routing_key: str, pattern: str, *args: Any, **kwargs: Any) -> None:
        super(filesystem.Channel, self)._delete(queue, exchange, routing_key, pattern, *args, **kwargs)
        row = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._edit_table(exchange, lambda table: [r for r in table if r != row])


class Transport(filesystem.Transport):
    Channel = Channel
    driver_type = "folder"
    driver_name = "folder"
