"""What the browser tests run on: prerequisites, seeded data, `mailsearch serve`, a server that
counts requests to a "remote" host, and headless Chromium driven by Selenium."""
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import corpus

CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
CHROMEDRIVER_CANDIDATES = ["/usr/bin/chromedriver"]
DEMO_ARGS = ["--count", "2000", "--seed", "42", "--end-date", "2026-11-01"]
WINDOW = (1280, 900)


class PrerequisiteError(Exception):
    pass


def default_model_dir():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.environ.get("MAILSEARCH_MODEL_DIR") or os.path.join(cache, "mailsearch", "models", "all-MiniLM-L6-v2")


def find_executable(env_name, candidates, names):
    explicit = os.environ.get(env_name)
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def check_prerequisites(binary, model_dir):
    """Everything the suite needs, or PrerequisiteError saying what is missing and how to get it."""
    problems = []
    if not binary or not os.access(binary, os.X_OK):
        problems.append(f"the mailsearch binary {binary!r} is missing or not executable (pass --binary PATH; `swift build` makes .build/debug/mailsearch)")
    chromium = find_executable("CHROMIUM", CHROMIUM_CANDIDATES, ["chromium", "chromium-browser", "google-chrome"])
    if not chromium:
        problems.append("Chromium is not installed (Debian: apt-get install chromium; or set $CHROMIUM); run scripts/install-deps.sh")
    chromedriver = find_executable("CHROMEDRIVER", CHROMEDRIVER_CANDIDATES, ["chromedriver"])
    if not chromedriver:
        problems.append("chromedriver is not installed (Debian: apt-get install chromium-driver; or set $CHROMEDRIVER); run scripts/install-deps.sh")
    try:
        import selenium  # noqa: F401
    except ImportError:
        problems.append(f"the Python package selenium is missing for {sys.executable} (pip install selenium); run scripts/install-deps.sh")
    needed = ["model.safetensors", "tokenizer.json", "config.json"]
    if not os.path.isdir(model_dir) or not all(os.path.exists(os.path.join(model_dir, n)) for n in needed):
        problems.append(f"the all-MiniLM-L6-v2 model is not at {model_dir} (set $MAILSEARCH_MODEL_DIR or run `make model`)")
    if problems:
        raise PrerequisiteError("; ".join(problems))
    return chromium, chromedriver


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def run(cmd, env, log, timeout=600):
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    started = time.perf_counter()
    result = subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed with status {result.returncode} (log: {log.name})")
    return time.perf_counter() - started


# MARK: The "remote" server

class HitServer:
    """An HTTP server on 127.0.0.2 standing for every remote host of the test mail: it counts each
    connection and each request (with its path), and answers images for .png/.gif paths."""

    def __init__(self):
        self.lock = threading.Lock()
        self.hits = []          # (time.time(), path or None for a connection that sent no valid request)
        self.connections = []   # time.time() of each accepted connection
        hits, connections, lock = self.hits, self.connections, self.lock
        banner = corpus.png(200, 50, (30, 120, 200))

        class Handler(http.server.BaseHTTPRequestHandler):
            def setup(self):
                with lock:
                    connections.append(time.time())
                super().setup()

            def handle_one_request(self):
                try:
                    super().handle_one_request()
                except Exception:
                    pass

            def send_error(self, code, message=None, explain=None):
                # A request that did not parse (a TLS hello on this plain port, say) still counts.
                with lock:
                    hits.append((time.time(), None))
                try:
                    super().send_error(code, message, explain)
                except Exception:
                    pass

            def _answer(self):
                with lock:
                    hits.append((time.time(), self.path))
                if self.path.endswith(".png"):
                    body, kind = banner, "image/png"
                elif self.path.endswith(".gif"):
                    body, kind = corpus.GIF_1X1, "image/gif"
                else:
                    body, kind = b"", "text/plain"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_POST = do_HEAD = do_OPTIONS = do_PUT = _answer

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Handler)
        self.server.daemon_threads = True
        self.host = f"127.0.0.2:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def snapshot(self):
        with self.lock:
            return list(self.hits), list(self.connections)

    def count(self, prefix=None, since=0.0):
        with self.lock:
            return sum(1 for t, p in self.hits if t >= since and (prefix is None or (p or "").startswith(prefix)))


# MARK: Seeded data

def seed(binary, model_dir, work, hit_host, log, reuse_dir=None):
    """A data directory with the demo account (2,000 messages) and the xss account, fully
    embedded. reuse_dir (development): keep the embedded demo account there and copy it."""
    env = dict(os.environ, MAILSEARCH_MODEL_DIR=model_dir)
    data = os.path.join(work, "data")
    timings = {}
    stamp = None
    if reuse_dir:
        st = os.stat(binary)
        stamp = json.dumps({"binary": os.path.realpath(binary), "size": st.st_size, "mtime": int(st.st_mtime), "demo": DEMO_ARGS})
    stamp_path = os.path.join(reuse_dir, "stamp.json") if reuse_dir else None
    if reuse_dir and os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
        shutil.copytree(os.path.join(reuse_dir, "data"), data)
        timings["demo (reused)"] = 0.0
    else:
        mbox = os.path.join(work, "demo.mbox")
        timings["demo"] = run([binary, "demo", "--output", mbox, "--force", *DEMO_ARGS], env, log)
        env_data = dict(env, MAILSEARCH_DATA_DIR=data)
        timings["import demo"] = run([binary, "import", mbox, "--account", "demo", "--quiet"], env_data, log)
        timings["embed demo"] = run([binary, "index", "embed", "--quiet"], env_data, log)
        if reuse_dir:
            shutil.rmtree(reuse_dir, ignore_errors=True)
            os.makedirs(reuse_dir)
            shutil.copytree(data, os.path.join(reuse_dir, "data"))
            with open(stamp_path, "w") as f:
                f.write(stamp)
    env_data = dict(env, MAILSEARCH_DATA_DIR=data)
    xss_mbox = os.path.join(work, "xss.mbox")
    manifest = corpus.CorpusBuilder(hit_host).build(xss_mbox)
    timings["import xss"] = run([binary, "import", xss_mbox, "--account", "xss", "--quiet"], env_data, log)
    timings["embed xss"] = run([binary, "index", "embed", "--quiet"], env_data, log)
    return data, manifest, timings


# MARK: mailsearch serve

class Server:
    def __init__(self, binary, data_dir, model_dir, log_path, web_dir=None, extra_args=(), background_embedding=False, env=None):
        """env: variables added to serve's environment (MAILSEARCH_SECRET_STORE=file, say)."""
        self.binary, self.data_dir, self.model_dir = binary, data_dir, model_dir
        self.extra_env = dict(env or {})
        self.background_embedding = background_embedding
        self.log_path, self.web_dir, self.extra_args = log_path, web_dir, list(extra_args)
        self.process = None
        self.base = None

    def start(self, timeout=60):
        env = dict(os.environ, MAILSEARCH_DATA_DIR=self.data_dir, MAILSEARCH_MODEL_DIR=self.model_dir)
        env.pop("MAILSEARCH_TOKEN", None)
        env.update(self.extra_env)
        cmd = [self.binary, "serve", "--port", "0"] + ([] if self.background_embedding else ["--no-background-embedding"])
        if self.web_dir:
            cmd += ["--web-dir", self.web_dir]
        cmd += self.extra_args
        self.log = open(self.log_path, "w")
        out_path = self.log_path + ".stdout"
        self.out = open(out_path, "w")
        self.process = subprocess.Popen(cmd, env=env, stdout=self.out, stderr=self.log, start_new_session=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mailsearch serve exited with status {self.process.returncode}: {open(self.log_path).read()[-2000:]}")
            text = open(out_path).read()
            marker = "MailSearch is serving "
            if marker in text:
                self.base = text.split(marker, 1)[1].split()[0].rstrip("/")
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("mailsearch serve did not say where it listens within %d s" % timeout)
        while time.time() < deadline:
            try:
                self.status = self.get_json("/api/status")
                return self
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        raise RuntimeError("/api/status did not answer")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for f in (getattr(self, "log", None), getattr(self, "out", None)):
            if f:
                f.close()

    def get_json(self, path):
        with urllib.request.urlopen(self.base + path, timeout=30) as response:
            return json.loads(response.read())

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"} if data else {})
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, (json.loads(raw) if raw else None)

    def search(self, q, **params):
        """The API's answer for a query, never recorded in the recent searches."""
        query = {"q": q, "record": "0"}
        query.update({k: str(v) for k, v in params.items() if v is not None})
        return self.get_json("/api/search?" + urllib.parse.urlencode(query))


# MARK: Chromium

def start_browser(chromium, chromedriver, profile_dir, log_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    args = ["--headless=new", f"--user-data-dir={profile_dir}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-proxy-server", "--disable-dev-shm-usage",
            "--force-device-scale-factor=1", "--lang=en-US"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox
    for a in args:
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(chromedriver, log_output=log_path))
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    # The viewport itself must be 1280×900 (screenshots): a headless window's outer size is not it.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WINDOW[0], "height": WINDOW[1], "deviceScaleFactor": 1, "mobile": False})
    return driver


def quit_browser(driver):
    """Closes the browser if it started; a browser already gone is not an error at teardown."""
    if driver:
        try:
            driver.quit()
        except Exception:
            pass
