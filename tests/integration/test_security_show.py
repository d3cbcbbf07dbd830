"""User strings shown safely where test_security_bytes.py does not look
(issue 24 item 3): control characters in every field a user sets, in
squeue's, scontrol's, sacct's and sprio's rows and the JSON API; markup in
a job name reaches the dashboard only as text (the page builds its DOM from
text nodes under a CSP that allows no inline script)."""

import os
import re

from test_security_bytes import bcluster, run_bytes, submit_bytes, write_script  # noqa: F401

UI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ui")


def test_control_characters_in_every_user_field(bcluster, workdir):  # noqa: F811
    """Name, comment, wckey, mail user, work dir, output path and a script
    argument with a newline, a carriage return, an escape sequence and a
    field separator: one row each, a `?` for each control character."""
    c = bcluster
    wd = os.path.join(os.fsencode(workdir), b"d\nx")
    os.mkdir(wd)
    os.chmod(wd, 0o777)
    script = write_script(workdir, "ctl.sh", b"#!/bin/sh\nsleep 30\n")
    job = submit_bytes(c, [b"--hold", b"-J", b"n\x1b]0;pwned\x07|x", b"--comment", b"c\rd",
                           b"--wckey", b"w\nk", b"--mail-user", b"m\n@x", b"--mail-type=END",
                           b"-D", wd, b"-o", b"o\nut", os.fsencode(script), b"arg\nv"],
                       workdir)
    jid = str(job).encode()
    for args in ([b"squeue", b"-h", b"-j", jid, b"-o", b"%i|%j|%k|%w|%Z"],
                 [b"squeue", b"-h", b"-j", jid, b"-O", b"JobID,Name,Comment,WorkDir"],
                 [b"scontrol", b"-o", b"show", b"job", jid],
                 [b"sprio", b"-h", b"-j", jid, b"-o", b"%i %u"]):
        cp = run_bytes(c, args)
        assert cp.returncode == 0, (args, cp.stderr)
        assert cp.stdout.count(b"\n") <= 1, (args, cp.stdout)
        assert not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", cp.stdout), (args, cp.stdout)
    cp = run_bytes(c, [b"scontrol", b"show", b"job", jid])
    assert b"JobName=n?]0;pwned?|x" in cp.stdout and b"Comment=c?d" in cp.stdout, cp.stdout
    assert not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", cp.stdout), cp.stdout
    run_bytes(c, [b"scancel", jid])
    cp = run_bytes(c, [b"sacct", b"-n", b"-P", b"-X", b"-j", jid, b"-o",
                       b"JobID,JobName,Comment,WorkDir"])
    assert cp.stdout.count(b"\n") == 1 and cp.stdout.startswith(jid + b"|"), cp.stdout
    # the JSON API carries the exact string, escaped as JSON
    st, j = c.api("GET", f"/v1/jobs/{job}")
    assert st == 200 and j["jobs"][0]["name"] == "n\x1b]0;pwned\x07|x", j


def test_dashboard_shows_markup_as_text(bcluster, workdir):  # noqa: F811
    """A name with markup is served as JSON, never HTML; the page's code
    sets no HTML from data and its CSP refuses inline script."""
    c = bcluster
    script = write_script(workdir, "xss.sh", b"#!/bin/sh\ntrue\n")
    name = b"<img src=x onerror=alert(1)><script>alert(2)</script>"
    job = submit_bytes(c, [b"--hold", b"-J", name, os.fsencode(script)], workdir)
    st, j = c.api("GET", f"/v1/jobs/{job}")
    assert j["jobs"][0]["name"] == name.decode()
    run_bytes(c, [b"scancel", str(job).encode()])
    with open(os.path.join(UI, "app.js")) as f:
        code = f.read()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function"):
        assert sink not in code, f"ui/app.js uses {sink}"
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", c.ctld_port(), timeout=10)
    try:
        conn.request("GET", "/ui/")
        r = conn.getresponse()
        r.read()
    finally:
        conn.close()
    csp = r.getheader("Content-Security-Policy") or ""
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp, csp
    assert r.getheader("X-Content-Type-Options") == "nosniff"
