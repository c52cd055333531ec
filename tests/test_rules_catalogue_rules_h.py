"""The ninth round's catalogue for processes, networks, the Hub and servers (rules-h).

Each rendering is quoted from a real log in tests/corpus/train (cited in SOURCES-holdout-r5a.md / -r5b.md) or has the
format the rule's comment cites from the emitting source: bash (jobs.c, siglist.c) and macOS strsignal(), Go's net
(DNSError, OpError) through Docker and Go CLIs, glibc's gai_strerror() through ping, wget, Rust std and .NET, BusyBox,
huggingface_hub's hf_raise_for_status and retry loop, Ray's LLM release-test harness, Rust's allocation-failure hook.
The near misses look alike but must not name that cause; the real logs check the rule and line that win. See
docs/accuracy.md, "Ninth round".
"""

from __future__ import annotations

from tests.support.catalogue import catalogue_tests

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE = [
    # killed-by-signal: the shell's notice wherever it lands
    (
        "process.killed-by-signal",
        "Loading checkpoint shards:  75%|█████▎  | 3/4 [01:34<00:31, 31.54s/it]Killed",
        "train holdout-r5/killed-by-signal/g-comfyui-wanvideo-shards-killed.log (tqdm bar, then bash's notice)",
    ),
    (
        "process.killed-by-signal",
        "1200/5000 [=====>........................] - ETA: 3:21 - loss: 0.3012Killed",
        "bash's notice after a Keras progress bar redrawn without a newline",
    ),
    (
        "process.killed-by-signal",
        "**Killed**",
        "train holdout-r5/killed-by-signal/h-fastmaskrcnn-train-bare-killed.log",
    ),
    ("process.killed-by-signal", "Killed: 9", "macOS strsignal() through bash/zsh (Libc siglist.c)"),
    ("process.killed-by-signal", "zsh: Killed: 9 python train.py", "zsh on macOS"),
    ("process.killed-by-signal", "Abort trap: 6", "macOS strsignal() for SIGABRT"),
    (
        "process.killed-by-signal",
        "./run_tests.sh: line 12: 48213 Killed: 9               python -m pytest tests/",
        "bash's 'line N: PID <signal>' on macOS",
    ),
    (
        "process.killed-by-signal",
        "[1]+  Killed                  python train.py --epochs 3",
        "bash jobs.c pretty_print_job (JLIST_STANDARD)",
    ),
    # host-oom: Rust's allocation failure hook
    (
        "machine.host-alloc-failed",
        "memory allocation of 34359738368 bytes failed",
        "Rust library/std/src/alloc.rs default_alloc_error_hook",
    ),
    # network-unreachable (DNS): Go's DNSError in all its resolver errors, the bare gai texts, BusyBox, wget
    (
        "network.dns-resolution-failed",
        "Get https://registry-1.docker.io/v2/: dial tcp: lookup registry-1.docker.io: Temporary failure in name"
        " resolution",
        "train holdout-r5/network-unreachable/h-gitlab-docker-registry-dns.log (Go cgo resolver, gai_strerror)",
    ),
    (
        "network.dns-resolution-failed",
        "    dockerhub-proxy.dockerhub-proxy-zone on 127.0.0.53:53: server misbehaving",
        "train holdout-r5/network-unreachable/h-praktika-image-pull-dns-misbehaving.log (DNSError wrapped after 'lookup')",
    ),
    (
        "network.dns-resolution-failed",
        'go: downloading golang.org/x/sys v0.20.0: Get "https://proxy.golang.org/golang.org/x/sys/@v/v0.20.0.mod":'
        " dial tcp: lookup proxy.golang.org on 8.8.8.8:53: read udp 172.17.0.2:40000->8.8.8.8:53: i/o timeout",
        "Go net/dnsclient_unix.go: a query that timed out",
    ),
    (
        "network.dns-resolution-failed",
        'time=2026-02-24T20:21:58.123Z level=ERROR msg="pull failed" error="dial tcp: lookup registry.ollama.ai on'
        ' 127.0.0.11:53: no answer from DNS server"',
        "Go net/dnsclient_unix.go errNoAnswerFromDNSServer under slog's text handler",
    ),
    (
        "network.dns-resolution-failed",
        "ping: github.com: Temporary failure in name resolution",
        "iputils ping over glibc gai_strerror (resolv/gai_strerror.c EAI_AGAIN)",
    ),
    (
        "network.dns-resolution-failed",
        "Resolving github.com (github.com)... failed: Name or service not known.",
        "wget src/host.c over gai_strerror (EAI_NONAME)",
    ),
    (
        "network.dns-resolution-failed",
        "wget: unable to resolve host address 'github.com'",
        "wget src/host.c",
    ),
    (
        "network.dns-resolution-failed",
        "wget: bad address 'dl-cdn.alpinelinux.org'",
        "BusyBox libbb/xconnect.c xhost2sockaddr",
    ),
    (
        "network.dns-resolution-failed",
        "Error: error sending request for url (https://api.github.com/repos/x/y): error trying to connect: dns error:"
        " failed to lookup address information: Temporary failure in name resolution",
        "Rust std sys/net lookup error inside reqwest/hyper",
    ),
    (
        "network.dns-resolution-failed",
        "System.Net.Http.HttpRequestException: Name or service not known (api.nuget.org:443)",
        ".NET on Linux (SocketException text from getaddrinfo)",
    ),
    (
        "network.dns-resolution-failed",
        "System.Net.Sockets.SocketException (11001): No such host is known.",
        ".NET on Windows (WSAHOST_NOT_FOUND)",
    ),
    (
        "network.dns-resolution-failed",
        "socket.gaierror: [Errno -4] Non-recoverable failure in name resolution",
        "CPython socket.gaierror over glibc EAI_FAIL",
    ),
    # connection-refused: the command-line clients' own renderings of ECONNREFUSED
    (
        "network.connection-refused",
        "Connecting to localhost (localhost)|127.0.0.1|:8000... failed: Connection refused.",
        "GNU wget src/connect.c",
    ),
    (
        "network.connection-refused",
        "nc: connect to localhost port 8000 (tcp) failed: Connection refused",
        "OpenBSD netcat",
    ),
    (
        "network.connection-refused",
        "ssh: connect to host 10.0.0.5 port 22: Connection refused",
        "OpenSSH ssh.c ssh_connect_direct",
    ),
    (
        "network.connection-refused",
        "wget: can't connect to remote host (127.0.0.1): Connection refused",
        "BusyBox networking/wget.c",
    ),
    (
        "network.connection-refused",
        "System.Net.Http.HttpRequestException: Connection refused (localhost:8000)",
        ".NET SocketsHttpHandler on Linux",
    ),
    # host-oom: ENOMEM's strerror in Go, C and torch, CPython's bare MemoryError
    (
        "machine.host-alloc-failed",
        "Error: fork/exec /usr/bin/python3: cannot allocate memory",
        "Go syscall.Errno(ENOMEM) through os/exec",
    ),
    (
        "machine.host-alloc-failed",
        "RuntimeError: unable to mmap 1073741824 bytes from file </torch_123_456_0>: Cannot allocate memory (12)",
        "torch aten/src/ATen/MapAllocator.cpp",
    ),
    (
        "machine.host-alloc-failed",
        "MemoryError",
        "CPython PyErr_NoMemory, the bare exception ending a traceback",
    ),
    # killed-by-signal: a container's exit status in docker ps
    (
        "process.signal-exit-status",
        '3f2a1b0c9d8e   vllm/vllm-openai:latest   "vllm serve Qwen/Qwe…"   2 minutes ago   Exited (137) 5 seconds ago'
        "             vllm",
        "moby container/state.go State.String",
    ),
    # ray-died: Ray's exception catalogue (python/ray/exceptions.py)
    (
        "ray.node-died",
        "ray.exceptions.LocalRayletDiedError: The task's local raylet died. Check raylet.out for more information.",
        "ray python/ray/exceptions.py LocalRayletDiedError",
    ),
    (
        "ray.node-died",
        "All copies of 00ffffffffffffffffffffffffffffffffffffff0100000001e1f505 have been lost due to node failure."
        " Check cluster logs (`/tmp/ray/session_latest/logs`) for more information about the failure.",
        "ray python/ray/exceptions.py ObjectLostError",
    ),
    (
        "ray.worker-died-system-error",
        "The object's owner has exited. This is the Python worker that first created the ObjectRef via `.remote()` or"
        " `ray.put()`.",
        "ray python/ray/exceptions.py OwnerDiedError",
    ),
    # hub-access: a plain 404 on a Hub file URL
    (
        "hf.missing-file",
        "huggingface_hub.errors.HfHubHTTPError: Client error '404 Not Found' for url"
        " 'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct/resolve/main/generation_config.json'",
        "httpx _models.py raise_for_status inside huggingface_hub >= 1.0",
    ),
    (
        "hf.missing-file",
        "Error: request error: https://huggingface.co/BAAI/bge-small-en-v1.5/resolve/main/1_Pooling/config.json:"
        " status code 404",
        "huggingface/hf-hub (Rust) over ureq 2.x",
    ),
    # port-in-use: Go's net.OpError through Docker
    (
        "network.address-in-use",
        "docker: Error response from daemon: driver failed programming external connectivity on endpoint vllm (3f2a):"
        " Error starting userland proxy: listen tcp4 0.0.0.0:8000: bind: address already in use.",
        "moby libnetwork userland proxy, Go net.OpError",
    ),
    (
        "network.address-in-use",
        "Error response from daemon: failed to set up container networking: driver failed programming external"
        " connectivity on endpoint tgi (9c1d): failed to bind host port for 0.0.0.0:8080:172.17.0.2:80/tcp: address"
        " already in use",
        "moby libnetwork portmapper (Docker >= 23)",
    ),
    # hub-access / hub-download: huggingface_hub's message lines and retry loop
    (
        "hf.missing-file",
        "[SERVER] Entry Not Found for url: https://huggingface.co/stabilityai/stable-diffusion-xl-base-1.0/resolve/"
        "main/config.yaml.",
        "train holdout-r5/hub-access/g-tt-inference-sdxl-entry-not-found.log",
    ),
    (
        "hf.rate-limited",
        "429 Too Many Requests for url: https://huggingface.co/api/models/gpt2/revision/main.",
        "huggingface_hub >= 1.0 utils/_http.py hf_raise_for_status (429 without RateLimit headers)",
    ),
    (
        "hf.retried-request",
        "WARNING  huggingface_hub.utils._http:_http.py:446 HTTP Error 429 thrown while requesting HEAD"
        " https://huggingface.co/gpt2/resolve/main/config.json",
        "train holdout-r5/hub-download/h-guidellm-ci-hf-429-retry.log (utils/_http.py _http_backoff_base)",
    ),
    (
        "hf.retried-request",
        "WARNING:huggingface_hub.utils._http:HTTP Error 502 thrown while requesting GET"
        " https://huggingface.co/api/models/Qwen/Qwen2.5-0.5B-Instruct/revision/main",
        "huggingface_hub utils/_http.py _http_backoff_base: a retried server error",
    ),
    # server-not-ready: a bare TimeoutError after the harness's wait line
    (
        "harness.server-wait-timeout",
        [
            "test_llm_serve_correctness.py:175: TimeoutError",
            "Waiting for RAY server at http://localhost:8000 to be ready...",
        ],
        "train holdout-r5/server-not-ready/g-ray-llm-serve-correctness-timeouterror.log",
    ),
    (
        "harness.server-wait-timeout",
        [
            "E       TimeoutError",
            "INFO:conftest:Waiting for inference server to become healthy (timeout 900 s)",
        ],
        "a harness's wait loop raising a bare TimeoutError (pytest's 'E' line)",
    ),
]

NEAR_MISSES = [
    ("process.killed-by-signal", ["[1]+  Done                    python train.py --epochs 3"]),
    (
        "process.killed-by-signal",
        ["[2]-  Terminated              python -m vllm.entrypoints.openai.api_server --port 8000"],
    ),
    ("process.killed-by-signal", ["Processes Killed: 0", "**Killed** processes are listed below."]),
    (
        "process.killed-by-signal",
        ["Loading checkpoint shards: 100%|██████████| 4/4 [00:05<00:00,  1.31s/it]"],
    ),
    ("network.dns-resolution-failed", ["Resolving github.com (github.com)... 140.82.112.3"]),
    (
        "network.dns-resolution-failed",
        ['level=debug msg="lookup registry-1.docker.io on 127.0.0.11:53 succeeded"', "Server:\t\t127.0.0.53"],
    ),
    ("network.address-in-use", ["listen tcp 0.0.0.0:8000: bind: permission denied"]),
    ("hf.retried-request", ["HTTP Error 503 thrown while requesting GET https://pypi.org/simple/torch/"]),
    ("hf.retried-request", ["Retrying in 1s [Retry 1/5]."]),
    ("hf.missing-file", ["Entry Not Found for url: https://artifactory.example.com/api/pypi/simple/torch/"]),
    ("harness.server-wait-timeout", ["tests/test_client.py:88: TimeoutError"]),
    (
        "harness.server-wait-timeout",
        [
            "Waiting for port 8000 to be ready (13s elapsed)",
            "tests/test_client.py:88: TimeoutError",
        ],
    ),
    ("machine.host-alloc-failed", ["INFO memory allocation of 4096 bytes succeeded after compaction"]),
    (
        "machine.host-alloc-failed",
        ["ImportError: /lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block"],
    ),
    (
        "machine.host-alloc-failed",
        ["node01:123:456 [0] NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory"],
    ),
    (
        "process.signal-exit-status",
        ['4a3b2c1d0e9f   nginx   "/docker-entrypoint.…"   2 minutes ago   Exited (143) 5 seconds ago'],
    ),
    ("network.connection-refused", ["Connecting to localhost (localhost)|127.0.0.1|:8000... connected."]),
    (
        "hf.missing-file",
        [
            "requests.exceptions.HTTPError: 404 Client Error: Not Found for url: https://huggingface.co/api/models/foo/bar"
        ],
    ),
]

# (log under tests/corpus/train, rule that wins, its line)
REAL_LOGS = [
    ("holdout-r5/killed-by-signal/g-comfyui-wanvideo-shards-killed.log", "process.killed-by-signal", 2),
    ("holdout-r5/killed-by-signal/h-fastmaskrcnn-train-bare-killed.log", "process.killed-by-signal", 10),
    ("holdout-r5/network-unreachable/h-gitlab-docker-registry-dns.log", "network.dns-resolution-failed", 2),
    (
        "holdout-r5/network-unreachable/h-praktika-image-pull-dns-misbehaving.log",
        "network.dns-resolution-failed",
        3,
    ),
    ("holdout-r5/hub-access/g-tt-inference-sdxl-entry-not-found.log", "hf.missing-file", 4),
    # the chained requests 404 (line 12) is not named: the wrapper that says which file is missing is
    ("huggingface/missing-file-config-json-autolabel-578.log", "hf.missing-file", 19),
    ("holdout-r5/hub-download/h-guidellm-ci-hf-429-retry.log", "hf.retried-request", 3),
    (
        "holdout-r5/server-not-ready/g-ray-llm-serve-correctness-timeouterror.log",
        "harness.server-wait-timeout",
        1,
    ),
]

test_reads, test_near_misses, test_real_logs = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)
