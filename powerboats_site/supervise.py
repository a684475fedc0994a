"""Run the processes of the Procfile under supervisord, which restarts one that exits.

    python -m powerboats_site.supervise [--port 8000]

What ``bin/run`` starts. honcho, which it ran before, stopped every process when one exited
(a worker killed by the kernel took the web server down with it); supervisord restarts the one
that exited, logs it (``exited: worker (terminated by SIGKILL; not expected)``, then
``spawned: 'worker'``) and leaves the others alone. The Procfile stays the one list of
processes: each line becomes a ``[program:…]`` of a configuration written to
``$POWERBOATS_VAR_DIR/supervisord.conf``, whose processes print to this process's standard
output, as under honcho. Ctrl-C (or SIGTERM) stops them all. While it runs,
``.venv/bin/supervisorctl -c var/supervisord.conf status`` lists them (``restart worker``, …).

Each program is started through ``--program NAME``, which first kills what is left of the
program's previous run: uvicorn's worker processes outlive a master that was killed and keep
its port, so that a new master could never start (supervisord's ``killasgroup`` only acts when
it stops a program, not when one dies).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def var_dir() -> Path:
    """The settings' VAR_DIR, read without loading Django."""
    return Path(os.environ.get("POWERBOATS_VAR_DIR") or ROOT / "var").resolve()


def procfile(path: Path, port: int) -> list[tuple[str, str]]:
    """The Procfile's processes as (name, command), with ``$PORT`` filled in."""
    processes = []
    for line in path.read_text().splitlines():
        name, sep, command = line.partition(":")
        if sep and name.strip() and not name.lstrip().startswith("#"):
            processes.append((name.strip(), command.strip().replace("$PORT", str(port))))
    return processes


def config(processes: list[tuple[str, str]], var: Path) -> str:
    """supervisord's configuration: one program per process, restarted whenever it exits."""
    lines = [
        "[supervisord]",
        "nodaemon=true",  # in the foreground: Ctrl-C stops it and its programs
        f"logfile={var / 'supervisord.log'}",  # also printed: restarts show in bin/run's output
        "logfile_maxbytes=5MB",
        "logfile_backups=1",
        f"pidfile={var / 'supervisord.pid'}",
        f"childlogdir={var}",
        "",
        "[unix_http_server]",
        f"file={var / 'supervisor.sock'}",
        "chmod=0700",
        "",
        "[rpcinterface:supervisor]",
        "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface",
        "",
        "[supervisorctl]",
        f"serverurl=unix://{var / 'supervisor.sock'}",
    ]
    for name, command in processes:
        lines += [
            "",
            f"[program:{name}]",
            f"command={shlex.join([sys.executable, '-m', 'powerboats_site.supervise', '--program', name, '--', *shlex.split(command)]).replace('%', '%%')}",
            f"directory={ROOT}",
            "autorestart=true",  # whatever the exit status: each of them should run for ever
            "startsecs=3",  # one that exits sooner failed to start: tried again, at most startretries times
            "startretries=10",
            "stopasgroup=true",  # its own children too (uvicorn's and Celery's worker processes)
            "killasgroup=true",
            "stopwaitsecs=15",  # the worker finishes the tasks it runs, then is killed
            "redirect_stderr=true",
            "stdout_logfile=/dev/stdout",
            "stdout_logfile_maxbytes=0",
        ]
    return "\n".join(lines) + "\n"


def _group_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that run this checkout's Python (nothing else is killed)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            exe = os.readlink(entry / "exe")
        except (OSError, ValueError):
            continue
        if int(fields[2]) == pgid and exe == os.path.realpath(sys.executable):
            members.append(int(entry.name))
    return members


def launch(name: str, command: list[str], var: Path) -> None:
    """Kill what is left of ``name``'s previous run, then become ``command`` (same process)."""
    record = var / f"supervise-{name}.pgid"
    try:
        old = int(record.read_text())
    except (OSError, ValueError):
        old = 0
    if old and old != os.getpgid(0):
        left = _group_members(old)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if left:
            print(f"supervise: killed {len(left)} process(es) that {name}'s previous run left behind "
                  f"({', '.join(map(str, left))})", flush=True)
        deadline = time.monotonic() + 10
        while _group_members(old) and time.monotonic() < deadline:
            time.sleep(0.1)
    record.write_text(str(os.getpgid(0)))  # supervisord starts each program in a group of its own
    os.execvp(command[0], command)


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the Procfile's processes under supervisord.")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--procfile", type=Path, default=ROOT / "Procfile")
    parser.add_argument("--program", help="(used by supervisord) start one program of the Procfile")
    parser.add_argument("command", nargs="*", help="(with --program) its command")
    args = parser.parse_args()
    var = var_dir()
    if args.program:
        launch(args.program, args.command, var)
    var.mkdir(parents=True, exist_ok=True)
    conf = var / "supervisord.conf"
    conf.write_text(config(procfile(args.procfile, args.port), var))
    supervisord = Path(sys.executable).with_name("supervisord")
    os.execv(supervisord, [str(supervisord), "--configuration", str(conf)])


if __name__ == "__main__":
    main()
