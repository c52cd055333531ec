"""Every secret shape the redactor knows, in one table, each with a real-format example that proves it.

A shape is a pattern whose whole match is the secret (lookarounds hold the context that must stay, such
as `Authorization: Bearer`). `hints` are lower-case words one of which a text must contain before the
pattern runs at all: most text holds none, so redaction costs a few substring checks per string. The
test suite redacts every example through every output format and checks that ordinary log text (hex
digests, UUIDs, commit ids, long paths) survives; add a shape here and its example is tested with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from forensics.lazy_regex import LazyRegex

_NOT_REDACTED = r"(?!\[REDACTED\])"


@dataclass(frozen=True, slots=True)
class SecretShape:
    """One kind of secret: how it looks, when to look, and a line as a log would print it."""

    name: str
    pattern: LazyRegex  # compiled the first time a text holds one of the hints
    hints: tuple[str, ...]  # lower-case; the pattern only runs on text holding one of them
    example: str  # a log line holding `secret`, in the format the issuer really uses
    secret: str  # the part of `example` that must never survive

    def applies(self, lowered: str) -> bool:
        """Whether the text (lower-cased) may hold this shape at all."""
        return any(hint in lowered for hint in self.hints)


def _shape(name: str, pattern: str, hints: tuple[str, ...], example: str, secret: str) -> SecretShape:
    return SecretShape(name, LazyRegex(pattern), hints, example, secret)


# The example values are made up but keep each issuer's real prefix, alphabet and length.
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkNJIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
_PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
_PEM = f"-----BEGIN PRIVATE KEY-----\n{_PEM_BODY}\nMkHBfvGpXRqJSHeY+kv9a3Vw==\n-----END PRIVATE KEY-----"

SHAPES: tuple[SecretShape, ...] = (
    # Multi-line first: a PEM block (a key cut off before its END line is redacted to the end of the text)
    _shape(
        "pem private key",
        r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY-----(?s:.{0,20000}?-----END[A-Z0-9 ]{0,40} PRIVATE KEY-----|.*)",
        ("private key",),
        f"writing key file:\n{_PEM}\ndone",
        _PEM_BODY,
    ),
    _shape(
        "url credentials",
        r"(?<=[a-zA-Z][\w+.-]{0,20}://)[^/\s:@'\"]{1,200}:[^/\s@'\"]{1,200}(?=@)",
        ("@",),
        "pip install --index-url https://ci:Pa55w0rd-in-url@pypi.internal/simple vllm",
        "Pa55w0rd-in-url",
    ),
    # Signed URLs (S3, Azure blob as GitHub artifact downloads use): the whole query string goes
    _shape(
        "signed url query",
        r"(?i)(?<=https?://[^\s?'\"]{1,500})\?[^\s'\"]{0,2000}?(?:sig|signature|X-Amz-Signature|X-Amz-Credential|"
        r"token|se|sv|st)=[^\s'\"]{0,2000}",
        ("?",),
        "GET https://results.blob.core.windows.net/r/a.zip?sv=2021-08-06&se=2026-12-01&sig=AbCdEf%2BGhIj%3D&sp=r",
        "sig=AbCdEf%2BGhIj%3D",
    ),
    _shape(
        "authorization header",
        r"(?i)(?<=\bauthorization\s{0,4}[:=]\s{0,4})" + _NOT_REDACTED + r"(?:(?:bearer|basic|token)\s{1,4})?"
        r"[^\s'\",]{4,}",
        ("authorization",),
        'curl -H "Authorization: Basic Y2ktYm90OnMzY3IzdC1wYXNzd29yZA==" https://repo.internal/',
        "Y2ktYm90OnMzY3IzdC1wYXNzd29yZA==",
    ),
    _shape(
        "bearer token",
        r"(?i)(?<=\bbearer\s{1,4})" + _NOT_REDACTED + r"[A-Za-z0-9._~+/=-]{8,}",
        ("bearer",),
        "DEBUG sending header Bearer 8f14e45fceea167a5a36dedd4bea2543-x0Yz",
        "8f14e45fceea167a5a36dedd4bea2543-x0Yz",
    ),
    _shape(
        "json web token",
        r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
        ("eyj",),
        f"session cookie id_token={_JWT}; Path=/",
        _JWT,
    ),
    _shape(
        "github token",
        r"\bgh[pousr]_[A-Za-z0-9]{20,255}\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        "RuntimeError: bad credentials ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
        "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    ),
    _shape(
        "github fine-grained token",
        r"\bgithub_pat_[A-Za-z0-9_]{20,255}\b",
        ("github_pat_",),
        "using github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU for the API",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU",
    ),
    _shape(
        "gitlab token",
        r"\bglpat-[A-Za-z0-9_-]{20,}",
        ("glpat-",),
        "git clone with glpat-xYz12AbC34dEf56GhI78jK",
        "glpat-xYz12AbC34dEf56GhI78jK",
    ),
    _shape(
        "hugging face token",
        r"\bhf_[A-Za-z0-9]{20,}\b",
        ("hf_",),
        "login with hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 failed",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    ),
    _shape(
        "linear key",
        r"\blin_(?:api|oauth)_[A-Za-z0-9]{20,}\b",
        ("lin_",),
        "key lin_api_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd loaded",
        "lin_api_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
    ),
    _shape(
        "slack token",
        r"\bxox[abeprs]-[A-Za-z0-9-]{10,}",
        ("xox",),
        "posting with xoxb-2468013579-1357924680-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-2468013579-1357924680-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    _shape(
        "openai key",
        r"\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}",
        ("sk-",),
        "openai.AuthenticationError: Incorrect API key provided: sk-proj-AbC123dEf456GhI789jKl012MnO345pQr678",
        "sk-proj-AbC123dEf456GhI789jKl012MnO345pQr678",
    ),
    _shape(
        "ngc key",
        r"\bnvapi-[A-Za-z0-9_-]{20,}",
        ("nvapi-",),
        "docker login nvcr.io -u '$oauthtoken' -p nvapi-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34Yz56-AbCdEf",
        "nvapi-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34Yz56-AbCdEf",
    ),
    _shape(
        "pypi token",
        r"\bpypi-AgE[A-Za-z0-9_-]{20,}",
        ("pypi-age",),
        "twine upload -p pypi-AgEIcHlwaS5vcmcCJGQ0YjE5ZjFhLTk0ZDEtNGJlZC1iZWE3LWU5YjRmZmY4ZWM1NAACKlsz",
        "pypi-AgEIcHlwaS5vcmcCJGQ0YjE5ZjFhLTk0ZDEtNGJlZC1iZWE3LWU5YjRmZmY4ZWM1NAACKlsz",
    ),
    _shape(
        "google api key",
        r"\bAIza[0-9A-Za-z_-]{35}\b",
        ("aiza",),
        "GET https://maps.googleapis.com/maps/api/geocode/json key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    ),
    _shape(
        "stripe key",
        r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
        ("sk_live_", "rk_live_", "sk_test_", "rk_test_"),
        "stripe.error.AuthenticationError: Invalid API Key provided: sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    ),
    _shape(
        "npm token",
        r"\bnpm_[A-Za-z0-9]{36}\b",
        ("npm_",),
        "//registry.npmjs.org/:_authToken npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    ),
    # A bare AWS secret access key: 40 characters of base64 right after an access key id (before the
    # key id's own shape replaces it), mixed case so a 40-character commit id is never taken for one
    _shape(
        "aws secret access key",
        r"(?<=\b(?:AKIA|ASIA)[A-Z0-9]{16}['\"]?[\s,;:=|'\"]{1,8})(?=[A-Za-z0-9/+]{0,39}[A-Z])"
        r"(?=[A-Za-z0-9/+]{0,39}[a-z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        ("akia", "asia"),
        "aws configure import: AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    _shape(
        "aws access key id",
        r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b",
        ("akia", "asia"),
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
    ),
    # `--password x`, `--token=x`, `--api-key x` (not `--token-file`, `--max-tokens`)
    _shape(
        "secret command-line option",
        r"(?i)(?<=(?:^|[\s'\"])--?[a-z0-9-]{0,30}(?:password|passwd|token|api[-_]?key|secret|access[-_]key|"
        r"private[-_]key)(?:=|\s{1,3})['\"]?)" + _NOT_REDACTED + r"[^\s'\"]+",
        ("--",),
        "mysql --user ci --password hunter2-db-pass --host db.internal",
        "hunter2-db-pass",
    ),
    # NAME=value / NAME: value where the name says it is a secret (env dumps, config echoes, JSON)
    _shape(
        "secret assignment",
        r"(?i)(?<=\b[A-Z0-9_]{0,40}(?:TOKEN|SECRET(?:_?KEY)?|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|"
        r"PRIVATE_?KEY|(?<![A-Za-z])PASS)\b['\"]?\s{0,3}[=:]\s{0,3}['\"]?)"
        + _NOT_REDACTED
        + r"[^\s'\",;]{4,}",
        ("token", "secret", "pass", "key"),
        "+ export DB_PASS=correct-horse-battery",
        "correct-horse-battery",
    ),
)
"""Every secret shape, in the order they are applied (a shape that needs another's context goes first)."""

PEM_BLOCK_START = LazyRegex(r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY-----")
PEM_BLOCK_END = LazyRegex(r"-----END[A-Z0-9 ]{0,40} PRIVATE KEY-----")
# A line of a PEM body on its own (an excerpt that starts inside a key): 64 base64 characters, mixed
PEM_BODY_LINE = LazyRegex(
    r"^\s*(?=[A-Za-z0-9+/]{0,63}[A-Z])(?=[A-Za-z0-9+/]{0,63}[a-z])[A-Za-z0-9+/]{64}\s*$"
)
