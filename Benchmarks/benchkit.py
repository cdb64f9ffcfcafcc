"""What the benchmark scripts (run, serve, fleet) share: messages, timing under GNU time,
byte-for-byte checks, free loopback ports and a private nginx on 127.0.0.1."""
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path


def die(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def note(message):
    print(f"== {message}", file=sys.stderr, flush=True)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


class Run:
    """One finished command: wall seconds, CPU seconds (user+sys), peak RSS in KiB."""

    def __init__(self, wall, cpu, rss_kib):
        self.wall, self.cpu, self.rss_kib = wall, cpu, rss_kib


def timed(cmd, log, timeout=900, env=None, check=True):
    """Runs cmd under GNU time; returns a Run. Dirty pages of earlier runs are flushed first."""
    os.sync()
    stats = log.with_suffix(".time")
    full = ["/usr/bin/time", "-f", "%U %S %M", "-o", str(stats)] + [str(c) for c in cmd]
    start = time.monotonic()
    with open(log.with_suffix(".out"), "wb") as out, open(log.with_suffix(".err"), "wb") as err:
        proc = subprocess.Popen(full, stdout=out, stderr=err, env=env, start_new_session=True)
        # A blocking wait, with a timer for the timeout: Popen.wait(timeout=) polls every
        # 50 ms, which rounded every wall time up to the next poll.
        expired = threading.Event()

        def expire():
            expired.set()
            os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, expire)
        timer.start()
        status = proc.wait()
        wall = time.monotonic() - start
        timer.cancel()
        if expired.is_set():
            die(f"{' '.join(map(str, cmd))} took longer than {timeout} s; logs in {log}.*")
    if check and status != 0:
        tail = log.with_suffix(".err").read_text(errors="replace")[-2000:]
        die(f"{' '.join(map(str, cmd))} exited with {status}:\n{tail}")
    fields = stats.read_text().split()[-3:]
    user, system, rss = float(fields[0]), float(fields[1]), int(fields[2])
    return Run(wall, user + system, rss)


def same_file(a, b, label):
    if not Path(a).is_file():
        die(f"{label}: {a} is missing")
    if subprocess.run(["cmp", "-s", str(a), str(b)]).returncode != 0:
        die(f"{label}: {a} differs from {b}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Nginx:
    """nginx on 127.0.0.1 in `work`, with `http_lines` (log format, maps) and `servers`
    (server blocks) in its http block; stopped by its pid."""

    def __init__(self, work, http_lines, servers, ports, connections=1024):
        self.work = work
        (work / "logs").mkdir(parents=True, exist_ok=True)
        (work / "tmp").mkdir(exist_ok=True)
        user = "user root;" if os.getuid() == 0 else ""
        conf = work / "nginx.conf"
        conf.write_text(f"""daemon off;
worker_processes 2;
{user}
pid {work}/nginx.pid;
error_log {work}/logs/error.log warn;
events {{ worker_connections {connections}; }}
http {{
    default_type application/octet-stream;
    client_body_temp_path {work}/tmp/body;
    proxy_temp_path {work}/tmp/proxy;
    fastcgi_temp_path {work}/tmp/fastcgi;
    uwsgi_temp_path {work}/tmp/uwsgi;
    scgi_temp_path {work}/tmp/scgi;
    sendfile on;
    keepalive_requests 1000000;
    {http_lines}
    {servers}
}}
""")
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.proc = subprocess.Popen([nginx, "-p", str(work), "-c", str(conf), "-e", str(work / "logs/error.log")],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                die(f"nginx exited at start; see {work}/logs/error.log")
            if all(port_open(p) for p in ports):
                return
            time.sleep(0.05)
        self.stop()
        die("nginx did not start listening within 10 s")

    @property
    def access_log(self):
        return self.work / "logs/access.log"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
