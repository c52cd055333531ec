"""Provoke, on a real GPU machine, the failures a CI job of an LLM-serving project meets.

Each failing test starts one small program from programs/ the way serving tests start servers, attaches
the program's output as `bash.log.txt` and fails with a generic wrapper error; the cause is only in the
log. A few tests fail for ordinary reasons (no infrastructure cause: their label is `unexplained`) and a
few pass. Needs a CUDA GPU, torch, triton, cupy, transformers, huggingface_hub and grpcio; see README.md.
The results of one run are kept, as produced, in tests/corpus/gpu/ (never in the normal test suite).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import PYTHON, free_port, launch_server, program, serve

HUB_REPO = "Qwen/Qwen2.5-0.5B-Instruct"
CGROUP_ROOT = Path("/sys/fs/cgroup")


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """Where the program's stdout and stderr go."""
    return tmp_path / "server.log"


@pytest.fixture
def hub_cache(tmp_path: Path) -> dict[str, str]:
    """An empty Hugging Face cache and no token: nothing is cached, nothing is authenticated."""
    return {"HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_DISABLE_TELEMETRY": "1"}


def torchrun(nproc: int, script: str) -> list[str]:
    """The torchrun command line for `nproc` workers of one program on a fresh port."""
    return [
        PYTHON,
        "-m",
        "torch.distributed.run",
        f"--nproc_per_node={nproc}",
        f"--master_port={free_port()}",
        script,
    ]


# --- CUDA and Triton -------------------------------------------------------------------------------


def test_cuda_oom(log: Path) -> None:
    launch_server([PYTHON, program("cuda_oom.py")], log)


def test_illegal_memory_access_triton(log: Path) -> None:
    launch_server([PYTHON, program("illegal_address_triton.py")], log)


def test_illegal_memory_access_cupy(log: Path) -> None:
    launch_server([PYTHON, program("illegal_address_cupy.py")], log)


def test_device_side_assert_embedding(log: Path) -> None:
    launch_server([PYTHON, program("device_assert.py")], log)


def test_triton_out_of_shared_memory(log: Path) -> None:
    launch_server([PYTHON, program("triton_out_of_resources.py")], log)


def test_triton_compilation_error(log: Path) -> None:
    launch_server([PYTHON, program("triton_compile_error.py")], log)


def test_inductor_no_cxx_compiler(log: Path) -> None:
    launch_server([PYTHON, program("inductor_no_compiler.py")], log, env={"CXX": "/opt/toolchain/bin/g++"})


def test_invalid_device_ordinal(log: Path) -> None:
    launch_server([PYTHON, program("invalid_device.py")], log, env={"LOCAL_RANK": "3"})


def test_no_kernel_image_for_device(log: Path) -> None:
    launch_server([PYTHON, program("no_kernel_image.py")], log)


def test_cuda_reinit_in_forked_worker(log: Path) -> None:
    launch_server([PYTHON, program("fork_reinit.py")], log)


def test_no_visible_gpu(log: Path) -> None:
    launch_server([PYTHON, program("no_gpu.py")], log, env={"CUDA_VISIBLE_DEVICES": ""})


# --- NCCL and torch.distributed --------------------------------------------------------------------


def test_nccl_duplicate_gpu(log: Path) -> None:
    launch_server(torchrun(2, program("nccl_all_reduce.py")), log, env={"NCCL_DEBUG": "WARN"})


def test_nccl_bad_socket_interface(log: Path) -> None:
    launch_server(
        torchrun(1, program("nccl_all_reduce.py")),
        log,
        env={"NCCL_DEBUG": "WARN", "NCCL_SOCKET_IFNAME": "doesnotexist"},
    )


def test_nccl_watchdog_timeout(log: Path) -> None:
    launch_server(torchrun(1, program("nccl_watchdog_timeout.py")), log, timeout=120)


def test_gloo_collective_timeout(log: Path) -> None:
    launch_server(torchrun(2, program("gloo_timeout.py")), log)


def test_tcpstore_port_in_use(log: Path) -> None:
    launch_server([PYTHON, program("tcpstore_port_in_use.py")], log, env={"MASTER_PORT": str(free_port())})


def test_rendezvous_timeout(log: Path) -> None:
    launch_server([PYTHON, program("rendezvous_timeout.py")], log, env={"MASTER_PORT": str(free_port())})


def test_grpc_port_in_use(log: Path) -> None:
    launch_server([PYTHON, program("grpc_port_in_use.py")], log, env={"SERVER_PORT": str(free_port())})


def test_http_port_in_use(log: Path) -> None:
    launch_server([PYTHON, program("http_port_in_use.py")], log, env={"SERVER_PORT": str(free_port())})


# --- Hugging Face Hub, transformers, model files ---------------------------------------------------


def test_hub_offline_snapshot(log: Path, hub_cache: dict[str, str]) -> None:
    launch_server(
        [PYTHON, program("hub_snapshot.py"), HUB_REPO], log, env={**hub_cache, "HF_HUB_OFFLINE": "1"}
    )


def test_hub_offline_transformers(log: Path, hub_cache: dict[str, str]) -> None:
    launch_server(
        [PYTHON, program("transformers_from_hub.py"), HUB_REPO], log, env={**hub_cache, "HF_HUB_OFFLINE": "1"}
    )


def test_hub_endpoint_unreachable(log: Path, hub_cache: dict[str, str]) -> None:
    launch_server(
        [PYTHON, program("hub_file.py"), HUB_REPO, "config.json"],
        log,
        env={**hub_cache, "HF_ENDPOINT": "http://127.0.0.1:9"},
        timeout=90,
    )


def test_hub_no_network(log: Path, hub_cache: dict[str, str]) -> None:
    launch_server(
        [PYTHON, program("transformers_from_hub.py"), HUB_REPO],
        log,
        env={**hub_cache, "HF_HUB_ETAG_TIMEOUT": "5", "HF_HUB_DOWNLOAD_TIMEOUT": "5"},
        remove_env=("HF_ENDPOINT", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"),
        timeout=120,
    )


def write_json(path: Path, content: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content, indent=2), encoding="utf-8")


TINY_LLAMA = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "num_hidden_layers": 2,
    "vocab_size": 128,
    "max_position_embeddings": 256,
}


def test_unknown_model_type(log: Path, tmp_path: Path) -> None:
    model = tmp_path / "Qwen9-MoE-A3B"
    write_json(
        model / "config.json",
        {**TINY_LLAMA, "model_type": "qwen9_moe", "architectures": ["Qwen9MoeForCausalLM"]},
    )
    launch_server([PYTHON, program("model_dir.py"), "config", str(model)], log)


def test_remote_code_not_trusted(log: Path, tmp_path: Path) -> None:
    model = tmp_path / "acme-lm-7b"
    write_json(
        model / "config.json",
        {
            **TINY_LLAMA,
            "model_type": "acme_lm",
            "architectures": ["AcmeForCausalLM"],
            "auto_map": {
                "AutoConfig": "configuration_acme.AcmeConfig",
                "AutoModelForCausalLM": "modeling_acme.AcmeForCausalLM",
            },
        },
    )
    (model / "configuration_acme.py").write_text(
        "from transformers import PretrainedConfig\n\n\nclass AcmeConfig(PretrainedConfig):\n    model_type = 'acme_lm'\n",
        encoding="utf-8",
    )
    launch_server([PYTHON, program("model_dir.py"), "remote-code", str(model)], log)


def test_tokenizer_without_chat_template(log: Path, tmp_path: Path) -> None:
    model = tmp_path / "base-model"
    vocabulary = {"<unk>": 0, "What": 1, "is": 2, "the": 3, "capital": 4, "of": 5, "France": 6, "?": 7}
    write_json(
        model / "tokenizer.json",
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [
                {
                    "id": 0,
                    "content": "<unk>",
                    "single_word": False,
                    "lstrip": False,
                    "rstrip": False,
                    "normalized": False,
                    "special": True,
                }
            ],
            "normalizer": None,
            "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocabulary, "unk_token": "<unk>"},
        },
    )
    write_json(
        model / "tokenizer_config.json", {"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "<unk>"}
    )
    launch_server([PYTHON, program("model_dir.py"), "tokenizer-chat", str(model)], log)


def test_weights_are_lfs_pointer(log: Path, tmp_path: Path) -> None:
    model = tmp_path / "tiny-llama"
    write_json(model / "config.json", TINY_LLAMA)
    (model / "model.safetensors").write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d1f9b5a0c7e2f3b8a6d9e0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a\n"
        "size 988097824\n",
        encoding="utf-8",
    )
    launch_server([PYTHON, program("model_dir.py"), "weights", str(model)], log)


# --- Python environment ----------------------------------------------------------------------------


def test_missing_module_server_entrypoint(log: Path) -> None:
    launch_server([PYTHON, "-m", "vllm.entrypoints.openai.api_server", "--model", HUB_REPO], log)


def test_missing_module_import(log: Path) -> None:
    launch_server([PYTHON, program("missing_module.py")], log)


def test_cannot_import_name(log: Path) -> None:
    launch_server([PYTHON, program("cannot_import_name.py")], log)


# --- Processes, signals, machine -------------------------------------------------------------------


def test_sigkill_shell(log: Path) -> None:
    launch_server([PYTHON, program("self_kill.py"), "SIGKILL"], log, shell_script=True)


def test_sigkill_direct_child(log: Path) -> None:
    launch_server([PYTHON, program("self_kill.py"), "SIGKILL"], log)


def test_sigabrt_shell(log: Path) -> None:
    launch_server([PYTHON, program("self_kill.py"), "SIGABRT"], log, shell_script=True)


def test_sigkill_torch_spawn(log: Path) -> None:
    launch_server([PYTHON, program("spawn_sigkill.py")], log)


def test_sigkill_torchrun_worker(log: Path) -> None:
    launch_server(torchrun(2, program("torchrun_sigkill.py")), log)


@pytest.fixture
def tiny_filesystem(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs (as root), or else a folder whose files are /dev/full."""
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        for name in ("shard-00001.bin", "model.pt"):
            (folder / name).symlink_to("/dev/full")
    yield folder
    if mounted.returncode == 0:
        subprocess.run(["umount", str(folder)], check=False)


def test_disk_full_write(log: Path, tiny_filesystem: Path) -> None:
    launch_server([PYTHON, program("write_checkpoint.py"), str(tiny_filesystem)], log)


def test_disk_full_torch_save(log: Path, tiny_filesystem: Path) -> None:
    launch_server([PYTHON, program("torch_save.py"), str(tiny_filesystem)], log)


def test_timeout_killed(log: Path) -> None:
    sleeper = "import time; print('capturing CUDA graphs', flush=True); time.sleep(60)"
    launch_server(["timeout", "2", PYTHON, "-c", sleeper], log, shell_script=True)


def test_segfault_shell(log: Path) -> None:
    launch_server([PYTHON, program("segfault.py")], log, shell_script=True)


def test_segfault_faulthandler(log: Path) -> None:
    launch_server([PYTHON, "-X", "faulthandler", program("segfault.py")], log)


def test_host_oom_ulimit(log: Path) -> None:
    launch_server([PYTHON, program("host_alloc.py")], log, shell_script=True, prelude=["ulimit -v 16000000"])


@pytest.fixture
def memory_cgroup() -> Iterator[Path]:
    """A cgroup v2 group limited to 256 MiB without swap (root only), or skip."""
    controllers = CGROUP_ROOT / "cgroup.controllers"
    if not controllers.exists() or "memory" not in controllers.read_text(encoding="utf-8").split():
        pytest.skip("no cgroup v2 memory controller on this machine")
    group = CGROUP_ROOT / f"gpu-suite-{os.getpid()}"
    try:
        (CGROUP_ROOT / "cgroup.subtree_control").write_text("+memory", encoding="utf-8")
        group.mkdir()
        (group / "memory.max").write_text(str(256 << 20), encoding="utf-8")
        if (group / "memory.swap.max").exists():
            (group / "memory.swap.max").write_text("0", encoding="utf-8")
    except OSError as error:
        pytest.skip(f"cannot make a memory cgroup: {error}")
    yield group
    for _ in range(20):
        try:
            group.rmdir()
            break
        except OSError:
            time.sleep(0.2)


def test_host_oom_killed_in_cgroup(log: Path, memory_cgroup: Path) -> None:
    launch_server(
        [PYTHON, program("host_fill.py")],
        log,
        shell_script=True,
        prelude=[f"echo $$ > {memory_cgroup / 'cgroup.procs'}"],
    )


# --- Servers ---------------------------------------------------------------------------------------


def test_server_not_ready(log: Path) -> None:
    with serve([PYTHON, program("slow_server.py")], log, port=free_port(), timeout=8):
        pass


def test_connection_refused() -> None:
    import requests

    port = free_port()
    answer = requests.post(
        f"http://127.0.0.1:{port}/v1/completions", json={"prompt": "Hello", "max_tokens": 8}, timeout=5
    )
    answer.raise_for_status()


# --- Ordinary failures: no infrastructure cause (labelled `unexplained`) ---------------------------


def test_greedy_decode_matches_reference(log: Path) -> None:
    finished = launch_server([PYTHON, program("greedy_decode.py")], log)
    generated = [int(token) for token in finished.log.read_text(encoding="utf-8").split("\n")[-2].split()]
    assert generated == [17, 17, 17, 17, 17, 17, 17, 17]


def test_completion_has_choices(log: Path) -> None:
    import requests

    port = free_port()
    with serve([PYTHON, program("health_server.py")], log, port=port, timeout=30):
        answer = requests.post(
            f"http://127.0.0.1:{port}/v1/completions", json={"prompt": "Hello"}, timeout=5
        ).json()
        text = answer["choices"][0]["text"]
    assert text


def test_nccl_all_reduce_two_ranks_sum(log: Path) -> None:
    finished = launch_server(torchrun(1, program("nccl_single_rank.py")), log, env={"NCCL_DEBUG": "INFO"})
    result = next(
        line for line in finished.log.read_text(encoding="utf-8").splitlines() if "all_reduce result" in line
    )
    assert result.endswith("[4.0, 4.0, 4.0, 4.0]"), "expected the sum over two ranks"


def test_server_silent_exit(log: Path) -> None:
    launch_server([PYTHON, program("silent_exit.py")], log)


def test_bf16_logits_match_fp32() -> None:
    import torch

    torch.manual_seed(0)
    hidden = torch.randn(64, 4096, device="cuda")
    weight = torch.randn(4096, 4096, device="cuda")
    torch.testing.assert_close((hidden.bfloat16() @ weight.bfloat16()).float(), hidden @ weight)


def test_matmul_throughput() -> None:
    import torch

    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(10):
        a @ b
    torch.cuda.synchronize()
    tflops = 10 * 2 * 8192**3 / (time.perf_counter() - start) / 1e12
    assert tflops >= 2000, f"bf16 matmul reached {tflops:.0f} TFLOP/s"


# --- Passing tests ---------------------------------------------------------------------------------


def test_gpu_matmul_matches_cpu() -> None:
    import torch

    torch.manual_seed(0)
    a = torch.randn(256, 256)
    b = torch.randn(256, 256)
    torch.testing.assert_close((a.cuda() @ b.cuda()).cpu(), a @ b, rtol=1e-3, atol=1e-3)


def test_server_answers_health(log: Path) -> None:
    import requests

    port = free_port()
    with serve([PYTHON, program("health_server.py")], log, port=port, timeout=30):
        assert requests.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200


def test_nccl_single_rank_all_reduce(log: Path) -> None:
    finished = launch_server(torchrun(1, program("nccl_single_rank.py")), log)
    assert "all_reduce result [2.0, 2.0, 2.0, 2.0]" in finished.log.read_text(encoding="utf-8")
