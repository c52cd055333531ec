"""Secrets in logs never reach a report: every format, every text field."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from forensics.cli.main import main
from forensics.render import RENDERERS
from forensics.report.build import analyze
from forensics.report.redact import Redactor
from forensics.rules.model import RuleSet

SECRETS = {
    "github classic": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "github oauth": "gho_abcdefghijklmnopqrstuvwxyz0123",
    "github server": "ghs_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123",
    "github fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "hugging face": "hf_abcdefghijklmnopqrstuvwxyzABCD",
    "linear": "lin_api_abcdefghijklmnopqrstuvwxyz123456",
    "aws key id": "AKIAIOSFODNN7EXAMPLE",
    "aws secret": "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
    "bearer": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    "url password": "pa55w0rd-in-url",
    "signed url": "sig=AbCdEf%2BGhIj%3D",
    "env value": "plain-looking-value-9f8e7d",
}
LOG = f"""[BASH] + export HF_TOKEN={SECRETS["hugging face"]}
[BASH] git clone https://x-access-token:{SECRETS["github server"]}@github.com/acme/repo.git
[BASH] curl -H "Authorization: token {SECRETS["github oauth"]}" https://api.github.com/user
[BASH] DEBUG Authorization: Bearer {SECRETS["bearer"]}
[BASH] using {SECRETS["github classic"]} and {SECRETS["github fine-grained"]} and {SECRETS["linear"]}
[BASH] AWS_ACCESS_KEY_ID={SECRETS["aws key id"]} aws_secret_access_key = {SECRETS["aws secret"]}
[BASH] pip install --index-url https://ci:{SECRETS["url password"]}@pypi.internal/simple vllm
[BASH] GET https://productionresultssa1.blob.core.windows.net/actions-results/a.zip?sv=2021-08-06&se=2026-12-01&{SECRETS["signed url"]}&sp=r
[BASH] config loaded: {SECRETS["env value"]}
[BASH] max_tokens=8192
[BASH] ValueError: Free memory on device cuda:0 (19.5/22.03 GiB) on startup is less than desired GPU memory utilization (0.9, 19.83 GiB). {SECRETS["hugging face"]}
[BASH] RuntimeError: Engine core initialization failed. See root cause above. token={SECRETS["github classic"]}
"""


def _rendered(report) -> str:  # type: ignore[no-untyped-def]
    texts = []
    for name, renderer in RENDERERS.items():
        output = renderer(report)
        if not isinstance(output, str):
            console = Console(file=io.StringIO(), width=200, color_system=None)
            console.print(output)
            output = console.file.getvalue()  # type: ignore[attr-defined]
        texts.append(f"--- {name}\n{output}")
    return "\n".join(texts)


IN_CONTEXT = {
    "github classic": f"using {SECRETS['github classic']}",
    "github oauth": f'curl -H "Authorization: token {SECRETS["github oauth"]}"',
    "github server": f"git clone https://x-access-token:{SECRETS['github server']}@github.com/a/b.git",
    "github fine-grained": f"GH={SECRETS['github fine-grained']}",
    "hugging face": f"export HF_TOKEN={SECRETS['hugging face']}",
    "linear": f"key {SECRETS['linear']} loaded",
    "aws key id": f"AWS_ACCESS_KEY_ID={SECRETS['aws key id']}",
    "aws secret": f"aws_secret_access_key = {SECRETS['aws secret']}",
    "bearer": f"DEBUG Authorization: Bearer {SECRETS['bearer']}",
    "url password": f"pip install --index-url https://ci:{SECRETS['url password']}@pypi.internal/simple vllm",
    "signed url": f"GET https://x.blob.core.windows.net/r/a.zip?sv=2021&se=2026&{SECRETS['signed url']}&sp=r",
}


@pytest.mark.parametrize("kind", sorted(IN_CONTEXT))
def test_each_kind_of_secret_is_recognised_in_its_usual_context(kind: str) -> None:
    redacted = Redactor().text(IN_CONTEXT[kind])
    assert SECRETS[kind] not in redacted
    assert "[REDACTED]" in redacted


def test_no_format_shows_a_secret_from_evidence_excerpts_messages_or_fingerprints(
    tmp_path: Path, rule_pack: RuleSet
) -> None:
    log = tmp_path / "bash.log"
    log.write_text(LOG)
    unexplained = tmp_path / "other.log"
    unexplained.write_text(f"[BASH] RuntimeError: worker lost, token={SECRETS['github classic']}\n")
    report = analyze([str(log), str(unexplained)], rules=rule_pack)
    assert report.failing[0].root_cause is not None
    excerpt = [line.text for line in report.failing[0].root_cause.evidence.excerpt]
    assert any("[REDACTED]" in line for line in excerpt)
    output = _rendered(report)
    for kind in ("github classic", "hugging face", "signed url"):
        assert SECRETS[kind] not in output, kind
    assert "max_tokens=8192" in output


def test_values_of_secret_environment_variables_are_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "bash.log"
    log.write_text(LOG + f"[BASH] RuntimeError: cannot start {SECRETS['env value']}\n")
    monkeypatch.setenv("DEPLOY_SECRET", SECRETS["env value"])
    for output_format in ("text", "json", "markdown"):
        result = CliRunner().invoke(main, ["analyze", str(log), "--format", output_format])
        assert result.exit_code == 0
        assert SECRETS["env value"] not in result.output
        assert "19.5 GiB was free" in result.output or "19.5" in result.output


def test_ordinary_text_is_left_alone() -> None:
    redactor = Redactor()
    for text in (
        "max_tokens=8192 num_tokens: 4096 tokens/s: 12.3",
        "Free memory on device cuda:0 (19.5/22.03 GiB)",
        "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json",
        "key=value password-less login",
    ):
        assert redactor.text(text) == text


def test_short_environment_values_are_not_treated_as_secrets() -> None:
    redactor = Redactor.from_environment(
        {"CI_TOKEN_ENABLED": "1", "GITHUB_TOKEN": "ghs_" + "x" * 36, "PATH": "/bin"}
    )
    assert redactor.secrets == ("ghs_" + "x" * 36,)


def test_the_redactor_never_shows_the_secrets_it_holds() -> None:
    redactor = Redactor.from_environment(
        {"GITHUB_TOKEN": "ghp_" + "A" * 36, "DEPLOY_KEY": "s3cr3t-deploy-key"}
    )
    assert redactor.text("key=s3cr3t-deploy-key") == "key=[REDACTED]"  # *KEY* names count as secrets
    assert "ghp_" not in repr(redactor) and "s3cr3t" not in repr(redactor)


@pytest.mark.parametrize("name", ["SSHKEY", "SIGNINGKEY", "DEPLOY_KEY", "KEY_ID", "DB_PASSWD", "npm_token"])
def test_any_variable_whose_name_says_it_is_a_secret_is_redacted(name: str) -> None:
    redactor = Redactor.from_environment({name: "value-of-the-secret", "HOME": "/home/ci-runner"})
    assert redactor.text("x value-of-the-secret /home/ci-runner") == "x [REDACTED] /home/ci-runner"


def test_a_model_value_is_walked_once_by_each_redactor() -> None:
    """The redactor remembers what it made of each model value and takes its own results as done: a verdict
    redacted while the workers ran is not walked again by the report's redaction; another redactor walks it."""
    from forensics.model import Category, Evidence, Finding, RuleKind, Status, TestCase, Verdict
    from forensics.report.redact import REDACTED, redact_model

    line = f"RuntimeError: login with {SECRETS['hugging face']} refused for {SECRETS['env value']}"
    evidence = Evidence(attachment="bash.log", line=7, text=line, excerpt=())
    verdict = Verdict(
        test=TestCase(
            uuid="u1", name="test_login", full_name="t#test_login", status=Status.FAILED, input_label="a.zip"
        ),
        root_cause=Finding(
            rule_id="hf.login",
            title="login",
            category=Category.INFRASTRUCTURE,
            kind=RuleKind.CAUSE,
            summary="",
            advice="",
            fields=(("token", SECRETS["hugging face"]),),
            evidence=evidence,
        ),
    )
    redactor = Redactor()
    once = redact_model(verdict, redactor)
    assert SECRETS["hugging face"] not in repr(once) and REDACTED in repr(once)
    assert redact_model(verdict, redactor) is once and redact_model(once, redactor) is once
    assert redact_model(verdict, Redactor()) is not once and redact_model(verdict, Redactor()) == once
    other = Redactor.from_environment({"DEPLOY_SECRET": SECRETS["env value"]})
    again = redact_model(once, other)
    assert again != once and SECRETS["env value"] not in repr(again)
