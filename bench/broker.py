"""The embedded broker under concurrent publishers and consumers: nothing lost, nothing twice.

    python bench/broker.py [--transport folder|filesystem] [--publishers 4] [--consumers 3]
                           [--messages 2000] [--kill 0] [--dir DIR]

Publisher processes put ``--messages`` messages in all (numbered) on one queue of a broker
folder, as the web processes and beat do; consumer processes take them with acknowledgement,
as Celery's worker does (prefetch 1), and record each number they were given. With
``--kill N`` a consumer is killed (SIGKILL) after every N messages it took, while it holds one
unacknowledged, and a new one started: that message must come back. At the end: messages per
second, messages lost, messages given twice (a kill may give one twice: it was taken, not
acknowledged), consumers that died of an error, and messages set aside in ``bad/``.

``--transport filesystem`` runs kombu's own filesystem transport (the embedded default before
issue 23) for comparison, ``--transport sqlalchemy`` kombu's SQLAlchemy transport on a SQLite
file (``pip install sqlalchemy`` first: the project does not depend on it). Figures in docs/broker.md; tests/site/test_broker.py runs it small.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def options(folder: Path) -> dict[str, object]:
    for sub in ("queue", "processed", "control"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {"data_folder_in": str(folder / "queue"), "data_folder_out": str(folder / "queue"),
            "processed_folder": str(folder / "processed"), "control_folder": str(folder / "control"),
            "store_processed": False, "polling_interval": 0.01}


def connection(transport: str, folder: Path):  # type: ignore[no-untyped-def]
    from kombu import Connection

    import powerboats_site.broker  # noqa: F401 - registers folder://

    if transport == "sqlalchemy":  # kombu's SQLAlchemy transport on a SQLite file (needs SQLAlchemy installed)
        return Connection(f"sqla+sqlite:///{folder / 'broker.sqlite3'}")
    return Connection(f"{transport}://", transport_options=options(folder))


def publish(transport: str, folder: Path, numbers: range) -> None:
    from kombu import Exchange, Queue

    queue = Queue("bench", Exchange("bench", type="direct"), routing_key="bench")
    with connection(transport, folder) as conn:
        producer = conn.Producer()
        for n in numbers:
            producer.publish({"n": n}, exchange=queue.exchange, routing_key="bench", declare=[queue],
                             serializer="json")


def consume(transport: str, folder: Path, log: Path, kill_after: int, stop: Path) -> None:
    """Record each message taken in ``log``; with ``kill_after``, die by SIGKILL holding the Nth."""
    from kombu import Exchange, Queue

    queue = Queue("bench", Exchange("bench", type="direct"), routing_key="bench")
    taken = 0
    with connection(transport, folder) as conn, open(log, "a", buffering=1) as out:

        def on_message(body: dict[str, int], message) -> None:  # type: ignore[no-untyped-def]
            nonlocal taken
            taken += 1
            out.write(f"{body['n']}\n")
            if kill_after and taken % kill_after == 0:
                os.kill(os.getpid(), signal.SIGKILL)  # taken, written down, not acknowledged
            message.ack()

        with conn.Consumer([queue], callbacks=[on_message], prefetch_count=1):
            while not stop.exists():
                try:
                    conn.drain_events(timeout=0.2)
                except TimeoutError:
                    pass


def run(transport: str = "folder", publishers: int = 4, consumers: int = 3, messages: int = 2000,
        kill: int = 0, folder: Path | None = None, quiet: bool = False) -> dict[str, object]:
    owned = folder is None
    folder = Path(tempfile.mkdtemp(prefix="broker-bench-")) if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    stop = folder / "stop"
    ctx = mp.get_context("spawn")
    logs = [folder / f"consumer-{i}.log" for i in range(consumers)]
    started = time.perf_counter()
    pubs = [ctx.Process(target=publish, args=(transport, folder, range(i, messages, publishers)))
            for i in range(publishers)]
    cons = [ctx.Process(target=consume, args=(transport, folder, logs[i], kill, stop)) for i in range(consumers)]
    for p in pubs + cons:
        p.start()
    crashed = restarted = 0
    deadline = time.time() + max(60, messages / 20)

    def seen() -> Counter[int]:
        return Counter(int(x) for log in logs if log.exists() for x in log.read_text().split())

    while time.time() < deadline:
        for i, c in enumerate(cons):
            if not c.is_alive():
                if c.exitcode == -signal.SIGKILL:
                    restarted += 1
                else:
                    crashed += 1  # died of an error
                cons[i] = ctx.Process(target=consume, args=(transport, folder, logs[i], kill, stop))
                cons[i].start()
        held = list(folder.glob("claimed/*/*.msg")) + list(folder.glob("queue/*.msg"))  # folder transports
        if all(not p.is_alive() for p in pubs) and len(seen()) >= messages and not held:
            break  # every message seen, none waiting to be delivered again
        time.sleep(0.05)
    elapsed = time.perf_counter() - started
    stop.touch()
    for p in pubs + cons:
        p.join(10)
        if p.is_alive():
            p.kill()
    counts = seen()
    bad = folder / "bad"
    result = {
        "transport": transport, "publishers": publishers, "consumers": consumers, "messages": messages,
        "seconds": round(elapsed, 2), "per_second": round(len(counts) / elapsed),
        "lost": messages - len(counts), "twice": sum(1 for c in counts.values() if c > 1),
        "consumers_killed": restarted, "consumers_crashed": crashed,
        "set_aside": len(list(bad.iterdir())) if bad.is_dir() else 0,
    }
    if not quiet:
        print(json.dumps(result))
    if owned:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", default="folder", choices=["folder", "filesystem", "sqlalchemy"])
    parser.add_argument("--publishers", type=int, default=4)
    parser.add_argument("--consumers", type=int, default=3)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--kill", type=int, default=0, help="kill a consumer after every N messages it took")
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    run(args.transport, args.publishers, args.consumers, args.messages, args.kill, args.dir)


if __name__ == "__main__":
    main()
