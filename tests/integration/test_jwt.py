"""auth/jwt (issue 22 item 1) on real daemons: `scontrol token` prints
SLURM_JWT=..., requests carrying X-SLURM-USER-NAME and X-SLURM-USER-TOKEN
are let in as that user over TCP, and expired, forged, re-signed, unsigned
and borrowed tokens are refused (401) and logged. Only root (or SlurmUser)
gets another user's token."""

import base64
import hashlib
import hmac
import json
import os
import time
import urllib.error
import urllib.request

import pytest

from helpers import cluster_fixture, read

KEY_LINE = "AuthAltParameters=jwt_key="


@pytest.fixture(scope="module")
def jc(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "jwt", ["--nodes", "1"])


def token(c, *args, user=None, check=True):
    cp = c.run(["scontrol", "token", *args], user=user, check=check)
    if not check:
        return cp
    assert cp.stdout.startswith("SLURM_JWT="), cp.stdout
    return cp.stdout.strip().split("=", 1)[1]


def call(c, tok, name, method="GET", path="/v1/jobs", body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{c.ctld_port()}{path}", method=method,
                                 data=json.dumps(body).encode() if body is not None else None)
    if tok is not None:
        req.add_header("X-SLURM-USER-TOKEN", tok)
    if name is not None:
        req.add_header("X-SLURM-USER-NAME", name)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(key, header, claims):
    head = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
    sig = hmac.new(key, head.encode(), hashlib.sha256).digest() if key else b""
    return head + "." + b64(sig)


def ctld_log(c):
    return read(os.path.join(c.dir, "log", "herdctld.log"))


def test_token_lets_its_user_in(jc):
    c = jc
    tok = token(c)
    assert tok.count(".") == 2
    st, body = call(c, tok, "root")
    assert st == 200 and "jobs" in body
    # without the name header the token's own user is taken
    assert call(c, tok, None)[0] == 200


def test_user_token_speaks_only_for_its_user(jc, tmp_path):
    c = jc
    os.chmod(tmp_path, 0o777)
    mine = token(c, user="herdtest1")
    assert call(c, mine, "herdtest1")[0] == 200
    assert call(c, mine, "root")[0] == 401
    assert "a token of herdtest1 cannot speak for root" in ctld_log(c)
    # the token acts as herdtest1: root's job cannot be cancelled with it
    job = c.sbatch(["--hold"], "#!/bin/sh\ntrue\n", cwd=str(tmp_path))
    st, _ = call(c, mine, "herdtest1", "POST", f"/v1/jobs/{job}/cancel", {})
    assert st == 403
    assert c.state(job) == "PENDING"
    theirs = token(c, "username=herdtest1")          # root may ask for anyone's
    assert call(c, theirs, "herdtest1")[0] == 200
    st, _ = call(c, theirs, "herdtest1", "POST", f"/v1/jobs/{job}/cancel", {})
    assert st == 403
    c.run(["scancel", str(job)])


def test_only_root_gets_another_users_token(jc):
    cp = token(jc, "username=root", user="herdtest1", check=False)
    assert cp.returncode != 0 and cp.stdout == ""
    assert "slurm_request_token error: Access/permission denied" in cp.stderr


def test_expired_forged_and_unsigned_tokens_refused(jc, tmp_path):
    c = jc
    short = token(c, "lifespan=5")
    assert call(c, short, "root")[0] == 200
    exp = json.loads(base64.urlsafe_b64decode(short.split(".")[1] + "=="))["exp"]
    time.sleep(max(0, exp - time.time()) + 1.5)
    assert call(c, short, "root")[0] == 401
    assert "expired" in ctld_log(c)

    good = token(c, user="herdtest1")
    head, claims, sig = good.split(".")
    forged_claims = b64(json.dumps({"sun": "root", "iat": int(time.time()),
                                    "exp": int(time.time()) + 600}).encode())
    assert call(c, f"{head}.{forged_claims}.{sig}", "root")[0] == 401

    now = int(time.time())
    claims = {"sun": "root", "iat": now, "exp": now + 600}
    assert call(c, sign(b"not the cluster's key, 32 bytes..", {"alg": "HS256", "typ": "JWT"},
                        claims), "root")[0] == 401
    assert call(c, sign(None, {"alg": "none", "typ": "JWT"}, claims), "root")[0] == 401
    assert call(c, "garbage", "root")[0] == 401
    assert call(c, "", "root")[0] == 401

    # the cluster's own key signs a token the controller takes: the check
    # above failed on the signature, not on the shape
    with open(next(l for l in c.conf_text().splitlines() if l.startswith(KEY_LINE))
              [len(KEY_LINE):], "rb") as f:
        key = f.read()
    assert call(c, sign(key, {"alg": "HS256", "typ": "JWT"}, claims), "root")[0] == 200


def test_bad_lifespan_and_no_jwt(jc, tmp_path):
    cp = token(jc, "lifespan=soon", check=False)
    assert cp.returncode != 0 and "Invalid parameter: lifespan=soon" in cp.stderr
    # a request with neither credential nor token is still refused
    assert call(jc, None, "root")[0] == 401
