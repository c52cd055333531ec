"""The seventh round's catalogue of CI-infrastructure, harness and packaging renderings: each rule reads every one.

Every rendering is quoted from the cited public thread, upstream source or real log (tests/corpus/train, cited in
SOURCES-holdout-r3a.md / -r3b.md) and is the format the rule's comment cites; the near misses are lines that look
alike but must not name that cause. The real logs check the rule and line that win. See docs/accuracy.md, "Seventh
round".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forensics.rules.model import RuleSet
from tests.support.catalogue import catalogue_tests
from tests.support.rulebook import root_cause_of, write_log

# (rule that must answer, rendering, where it is quoted from)
CATALOGUE = [
    # container-image: the registry's error codes through moby, Knative's revision condition, the kubelet's reasons
    (
        "container.image-pull-failed",
        "  Error response from daemon: manifest unknown",
        "EspressoSystems/cape#606",
    ),
    (
        "container.image-pull-failed",
        'Error response from daemon: Head "https://ghcr.io/v2/beeper/registration-relay/manifests/latest":'
        " unauthorized",
        "beeper/registration-relay#3",
    ),
    (
        "container.image-pull-failed",
        'Error response from daemon: Head "https://ghcr.io/v2/dexidp/dex/manifests/v2.30.2": denied: denied',
        "dexidp/dex#2672",
    ),
    (
        "container.image-pull-failed",
        "Error response from daemon: Head https://ghcr.io/v2/shaurya-sethi/circuitron-kicad/manifests/latest:"
        " unauthorized",
        "Shaurya-Sethi/circuitron#174 (older docker, URL unquoted)",
    ),
    (
        "container.image-pull-failed",
        "Error response from daemon: error from registry: unauthorized",
        "ogham-mcp#5",
    ),
    (
        "container.image-pull-failed",
        "  Error response from daemon: received unexpected HTTP status: 503 Service Unavailable",
        "a GitHub Pages job log (jekyll-build-pages pull)",
    ),
    (
        "container.image-pull-failed",
        '    Message:               Revision "torchserve-predictor-00001" failed with message: Unable to fetch image'
        ' "pytorch/torchserve-kfs:0.8.2": failed to resolve image to digest: Get "https://index.docker.io/v2/":'
        " context deadline exceeded.",
        "kubeflow/kubeflow#7560 (KServe, Knative's RevisionContainerMissingMessage)",
    ),
    (
        "container.image-pull-failed",
        "  Warning  Failed         10s (x3 over 24s)  kubelet, minikube  Error: InvalidImageName",
        "cloudfoundry-incubator/kubecf#63",
    ),
    (
        "container.image-pull-failed",
        'time="2025-02-04T15:52:57-05:00" level=warning msg="Failed, retrying in 2s ... (3/3). Error: copying system'
        " image from manifest list: determining manifest MIME type for docker://debian:bookworm: reading manifest"
        " sha256:f6008b2d1c096556ec301a0c76fe0b40657594ffcfa43aaf63ca9d40767f9a63 in docker.io/library/debian:"
        ' toomanyrequests: You have reached your pull rate limit."',
        "bitcoin/bitcoin#31797 (containers/common's last retry)",
    ),
    (
        "container.image-pull-backoff",
        "  Error: Docker pull failed with exit code 1",
        "EspressoSystems/cape#606 (actions/runner's ContainerOperationProvider)",
    ),
    # runner-infrastructure: the container engine the job needs is not there
    (
        "runner.docker-daemon-unreachable",
        "ERROR: Job failed (system failure): Cannot connect to the Docker daemon at tcp://172.31.7.97:2376. Is the"
        " docker daemon running? (executor_docker.go:967:60s)",
        "vgteam/vg#2067 (GitLab's docker executor)",
    ),
    (
        "runner.docker-daemon-unreachable",
        "Cannot connect to the Docker daemon. Is the docker daemon running on this host?",
        "moby client/errors.go (no host)",
    ),
    (
        "runner.docker-daemon-unreachable",
        "error during connect: this error may indicate that the docker daemon is not running: Get"
        ' "http://%2F%2F.%2Fpipe%2Fdocker_engine/v1.45/containers/json": open //./pipe/docker_engine: The system'
        " cannot find the file specified.",
        "a Windows docker ps (Docker 26)",
    ),
    (
        "runner.docker-daemon-unreachable",
        "docker.errors.DockerException: Error while fetching server API version: ('Connection aborted.',"
        " PermissionError(13, 'Permission denied'))",
        "docker-py _retrieve_server_version",
    ),
    (
        "runner.docker-daemon-unreachable",
        "Got permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock:"
        ' Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.24/containers/json": dial unix /var/run/docker.sock: connect:'
        " permission denied",
        "docker/cli, the runner user outside the docker group",
    ),
    (
        "runner.docker-daemon-unreachable",
        "Cannot connect to Podman. Please verify your connection to the Linux system using `podman system connection"
        " list`, or try `podman machine init` and `podman machine start` to manage a new Linux VM",
        "podman cmd/podman/main.go",
    ),
    # runner-infrastructure: a cancelled Buildkite job
    ("runner.cancelled", "# Received cancellation signal, interrupting", "buildkite/agent job_runner.go"),
    # test-timeout: the CI systems' time limits and the test runners' own
    (
        "runner.step-timeout",
        "##[error]The job running on agent Hosted Agent ran longer than the maximum time of 60 minutes. For more"
        " information, see https://go.microsoft.com/fwlink/?linkid=2077134",
        "Azure Pipelines",
    ),
    (
        "runner.step-timeout",
        "Build timed out (after 10 minutes). Marking the build as aborted.",
        "Jenkins Build Timeout plugin",
    ),
    (
        "runner.step-timeout",
        "17:06:07  Cancelling nested steps due to timeout",
        "Jenkins Pipeline timeout step",
    ),
    (
        "runner.step-timeout",
        "Too long with no output (exceeded 10m0s): context deadline exceeded",
        "CircleCI's no-output timeout",
    ),
    (
        "pytest.timeout",
        "   7/200 Test    #7: T ...............................................................***Timeout 60.00 sec",
        "CTest's result line",
    ),
    ("pytest.timeout", "panic: test timed out after 1m0s", "Go's testing package"),
    # python-environment: the loader's words on three systems, the resolvers, NumPy's ABI check, BentoML
    (
        "python.shared-library-missing",
        "ImportError: DLL load failed while importing _C: The specified module could not be found.",
        "CPython Python/dynload_win.c (>= 3.8)",
    ),
    (
        "python.shared-library-missing",
        'OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Users\\DELL\\Downloads'
        '\\SPORTS\\anaconda\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
        "pytorch/pytorch#133076",
    ),
    (
        "python.shared-library-missing",
        "ImportError: dlopen(/opt/local/Library/Frameworks/Python.framework/Versions/3.10/lib/python3.10/"
        "site-packages/xgboost/lib/libxgboost.dylib, 0x0006): Library not loaded: @rpath/libomp.dylib",
        "dmlc/xgboost#10946",
    ),
    (
        "python.bitsandbytes-native-library",
        "Could not load bitsandbytes native library: /data1/prd/bitsandbytes/bitsandbytes/libbitsandbytes_cpu.so:"
        " cannot open shared object file: No such file or directory",
        "bitsandbytes-foundation/bitsandbytes#1614",
    ),
    (
        "python.numpy-abi-mismatch",
        "RuntimeError: module compiled against API version 0xe but this version of numpy is 0xd",
        "fundamentalvision/BEVFormer#252",
    ),
    (
        "python.numpy-abi-mismatch",
        "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88"
        " from PyObject",
        "seung-lab/igneous#203",
    ),
    (
        "python.numpy-abi-mismatch",
        "A module that was compiled using NumPy 1.x cannot be run in",
        "numpy/core/_multiarray_umath.py (NumPy 2.0)",
    ),
    (
        "python.version-conflict",
        "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/"
        "#dealing-with-dependency-conflicts",
        "pip resolvelib/factory.py",
    ),
    (
        "python.version-conflict",
        "ERROR: Package 'click' requires a different Python: 3.9.19 not in '>=3.10'",
        "AkaliKong/MiniOneRec#5",
    ),
    (
        "python.version-conflict",
        "  Unable to find installation candidates for torch (2.5.1)",
        "drmingler/docling-api#10 (Poetry)",
    ),
    (
        "python.version-conflict",
        "error: Distribution `torch==2.5.1 @ registry+https://pypi.org/simple` can't be installed because it doesn't"
        " have a source distribution or wheel for the current platform",
        "astral-sh/uv#8930",
    ),
    (
        "python.version-conflict",
        "error    libmamba Could not solve for environment specs",
        "mamba-org/mamba#3828",
    ),
    (
        "python.version-conflict",
        "PackagesNotFoundError: The following packages are not available from current channels:",
        "conda/exceptions.py",
    ),
    (
        "python.module-not-found",
        "bentoml.exceptions.MissingDependencyException: None (reason: No module named 'tensorflow')",
        "bentoml/OpenLLM#104",
    ),
    ("python.module-not-found", "ImportError: No module named yaml", "CPython 2.7's import error"),
    # no-gpu / cuda-setup: the container side of the GPU stack
    ("cuda.no-gpus", "Failed to initialize NVML: Unknown Error", "NVIDIA/nvidia-container-toolkit#48"),
    (
        "cuda.no-gpus",
        "docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
        "nv-tlabs/3dgrut#71",
    ),
    (
        "cuda.no-gpus",
        "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: No visible GPU devices.",
        "jax-ml/jax#28376",
    ),
    ("cuda.driver-mismatch", "pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded", "wookayin/gpustat#110"),
    (
        "cuda.no-gpus",
        "E   RuntimeError: 0 active drivers ([]). There should only be one.",
        "huggingface/sentence-transformers#3557 (Triton's driver lookup)",
    ),
    (
        "cuda.no-gpus",
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: starting container"
        " process caused: process_linux.go:495: container init caused: Running hook #1:: error running hook: exit"
        " status 1, stdout: , stderr: nvidia-container-cli: device error: 1: unknown device: unknown.",
        "DeepLabCut/Docker4DeepLabCut2.0#39",
    ),
    # test-setup: a node id that names no test any more
    (
        "pytest.collection-error",
        "ERROR: not found: /home/runner/work/repo/tests/test_api.py::test_generate[llama]",
        "pytest src/_pytest/main.py perform_collect",
    ),
]

# (rule that must NOT answer, lines): retries that may still succeed, warnings a run goes on from, prose
NEAR_MISSES = [
    pytest.param(
        "container.image-pull-failed",
        [
            'time="2025-02-04T15:51:23-05:00" level=warning msg="Failed, retrying in 2s ... (1/3). Error: initializing'
            " source docker://debian:bookworm: reading manifest bookworm in docker.io/library/debian:"
            ' toomanyrequests: You have reached your pull rate limit."'
        ],
        id="podman-first-retry",
    ),
    pytest.param(
        "container.image-pull-backoff",
        ["  Warning: Docker pull failed with exit code 1, back off 8.549 seconds before retry."],
        id="actions-runner-retry-warning",
    ),
    pytest.param(
        "container.image-pull-failed",
        ['W0412 10:00:00.000000   12345 dump.go:120] unable to fetch image "ami-0abcdef": not found'],
        id="kops-machine-image-warning",
    ),
    pytest.param(
        "python.numpy-abi-mismatch",
        [
            "<frozen importlib._bootstrap>:219: RuntimeWarning: numpy.ndarray size changed, may indicate binary"
            " incompatibility. Expected 80 from C header, got 88 from PyObject"
        ],
        id="cython-size-warning",
    ),
    pytest.param(
        "python.bitsandbytes-native-library",
        [
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda117_nocublaslt.so. Maybe you need to"
            " compile it from source?",
            "CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...",
        ],
        id="bitsandbytes-cpu-fallback",
    ),
    pytest.param(
        "python.version-conflict",
        ["Solving environment: failed with initial frozen solve. Retrying with flexible solve."],
        id="conda-retried-solve",
    ),
    pytest.param(
        "cuda.no-gpus",
        [
            "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Unable to load CUDA. (Set"
            " TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)"
        ],
        id="jax-cpu-fallback-warning",
    ),
    pytest.param(
        "cuda.no-gpus",
        [
            "WARNING 10-12 10:00:00 [__init__.py:47] Triton is installed but 0 active driver(s) found (expected 1)."
            " Disabling Triton to prevent runtime errors."
        ],
        id="vllm-disables-triton",
    ),
    pytest.param(
        "runner.docker-daemon-unreachable",
        [
            "+ docker info >/dev/null 2>&1 || sudo systemctl start docker",
            "Waiting for the Docker daemon to start...",
        ],
        id="a-script-starting-docker",
    ),
    pytest.param(
        "pytest.timeout",
        ["+ go test -timeout 10m0s ./...", "ok  \texample.com/pkg\t12.345s"],
        id="go-test-timeout-flag",
    ),
]

# the fixed misses of the third holdout: (log, rule, line)
REAL_LOGS = [
    (
        "holdout-r3/container-image/c-kserve-torchserve-revision-unable-to-fetch-image.log",
        "container.image-pull-failed",
        12,
    ),
    # containers/common retries three times: the last attempt (3/3) is the evidence, not the first
    (
        "holdout-r3/container-image/d-bitcoin-podman-dockerhub-rate-limit.log",
        "container.image-pull-failed",
        5,
    ),
    # the daemon's first "manifest unknown", not the runner's later "Docker pull failed"
    (
        "holdout-r3/container-image/d-cape-selfhosted-ghcr-manifest-unknown.log",
        "container.image-pull-failed",
        8,
    ),
    (
        "holdout-r3/runner-infrastructure/d-vg-gitlab-runner-docker-daemon-unreachable.log",
        "runner.docker-daemon-unreachable",
        8,
    ),
    (
        "holdout-r3/python-environment/c-bentoml-runner-missing-tensorflow-dependency.log",
        "python.module-not-found",
        9,
    ),
    # bitsandbytes' own line outranks the OSError of the traceback it logs under it
    (
        "holdout-r3/python-environment/d-bitsandbytes-0-42-missing-native-cpu-so.log",
        "python.bitsandbytes-native-library",
        3,
    ),
    (
        "holdout-r3/python-environment/d-framepack-uv-add-torch-cu126-unsatisfiable.log",
        "python.version-conflict",
        3,
    ),
]


(
    test_the_family_rule_reads_each_catalogue_rendering,
    test_look_alike_lines_are_not_that_cause,
    test_the_rule_and_line_win_in_real_logs,
) = catalogue_tests(CATALOGUE, NEAR_MISSES, REAL_LOGS)


def test_a_docker_daemon_behind_a_gitlab_system_failure_is_the_runners(
    rule_pack: RuleSet, tmp_path: Path
) -> None:
    """The daemon line names the cause even when a Python test was running: the job's machine, not the test."""
    log = write_log(
        tmp_path,
        [
            "tests/test_serve.py::test_completion FAILED",
            "E   ConnectionRefusedError: [Errno 111] Connection refused",
            "ERROR: Job failed (system failure): Cannot connect to the Docker daemon at unix:///var/run/docker.sock."
            " Is the docker daemon running?",
        ],
    )
    assert root_cause_of(log, rule_pack) == ("runner.docker-daemon-unreachable", 3)
