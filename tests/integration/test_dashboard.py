"""The dashboard (issue 22 items 3-4, docs/dashboard.md) in a real browser:
Debian's chromium, headless, driven over the DevTools protocol (cdp.py),
loads /ui/ from a running cluster with running and pending jobs, signs in
with a token, and checks what a person would see: the GPU cells of a
running job show its user, a pending job its reason, a job page its
owner's output and not another user's. A screenshot of each view is kept
in the test's tmp dir. Accessibility basics: every control has a label,
Tab reaches the controls with a visible focus, main text contrast >= 4.5:1."""

import json
import os
import re
import shutil
import time
import urllib.request

import pytest

import helpers
from cdp import Browser, chromium_path
from helpers import cluster_fixture, nvml_cluster, open_dir, wait_for

pytestmark = pytest.mark.skipif(chromium_path() is None,
                                reason="chromium is not installed (apt-get install chromium): "
                                       "the dashboard test needs a real browser")

UP = ["--nodes", "1", "--gpus-per-node", "4", "--cpus-per-node", "8", "--mem-per-node", "8000",
      "--set", "MaxJobCount=20000"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, users):
    """GPUs through the NVML stub, sampled every 2 s: the job page plots them."""
    yield from nvml_cluster(tmp_path_factory, "dashboard",
                            UP + ["--set", "JobAcctGatherFrequency=2"], [90, 70, 40, 0])


@pytest.fixture(scope="module")
def jobs(cluster, tmp_path_factory):
    """herdtest1 runs on 2 GPUs, herdtest2 on 1; herdtest2's 4-GPU job waits."""
    dirs = {}
    for u in ("herdtest1", "herdtest2"):
        d = tmp_path_factory.mktemp("dash-" + u)
        open_dir(d, 0o755)
        shutil.chown(d, user=u)
        os.chmod(d, 0o700)      # the other user cannot read this user's output
        dirs[u] = str(d)
    run1 = cluster.sbatch(["--gres=gpu:2", "-J", "train1", "--wrap",
                           "echo hello-from-herdtest1; exec sleep 600"],
                          user="herdtest1", cwd=dirs["herdtest1"])
    run2 = cluster.sbatch(["--gres=gpu:1", "-J", "train2", "--wrap",
                           "echo secret-of-herdtest2; exec sleep 600"],
                          user="herdtest2", cwd=dirs["herdtest2"])
    for j in (run1, run2):
        cluster.wait_state(j, "RUNNING", timeout=60)
    pend = cluster.sbatch(["--gres=gpu:4", "-J", "big", "--wrap", "true"],
                          user="herdtest2", cwd=dirs["herdtest2"])
    # the reason in words comes with the next scheduling pass
    wait_for(lambda: cluster.api_job(pend).get("reason_text"), 30, "a reason for the pending job")
    for u, j in (("herdtest1", run1), ("herdtest2", run2)):
        out = os.path.join(dirs[u], f"slurm-{j}.out")
        wait_for(lambda: os.path.exists(out) and os.path.getsize(out) > 0, 30, out)
    return {"run1": run1, "run2": run2, "pend": pend}


def web_url(cluster, user):
    """What `herd web-url` prints for user (the link that signs them in)."""
    cp = cluster.run(["herd", "web-url"], user=user)
    m = re.search(r"(http://\S+/ui/#token=\S+)", cp.stdout)
    assert m, f"herd web-url printed {cp.stdout!r}"
    return m.group(1)


def token_line(cluster, user):
    cp = cluster.run(["scontrol", "token"], user=user)
    assert cp.stdout.startswith("SLURM_JWT="), cp.stdout
    return cp.stdout.strip()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser")
    b = Browser(d)
    b.artifacts = str(d)
    yield b
    b.close()


def base_url(cluster):
    return f"http://127.0.0.1:{cluster.ctld_port()}"


def test_static_files_served(cluster):
    base = base_url(cluster)
    with urllib.request.urlopen(base + "/ui/", timeout=10) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/html")
        assert "default-src 'none'" in r.headers["Content-Security-Policy"]
        etag = r.headers["ETag"]
        assert "<title>Herd dashboard</title>" in r.read().decode()
    for name, ctype in (("app.js", "text/javascript"), ("app.css", "text/css")):
        with urllib.request.urlopen(f"{base}/ui/{name}", timeout=10) as r:
            assert r.headers["Content-Type"].startswith(ctype)
    req = urllib.request.Request(base + "/ui/", headers={"If-None-Match": etag})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 304
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(base + "/ui/nothing.js", timeout=10)
    assert e.value.code == 404
    # the data calls are not anonymous
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(base + "/v1/jobs", timeout=10)
    assert e.value.code == 401


def test_output_route_is_owner_and_admin_only(cluster, jobs):
    """The controller's output route, through the real TCP token path."""
    tok = token_line(cluster, "herdtest1").split("=", 1)[1]
    base = base_url(cluster)

    def get(path):
        req = urllib.request.Request(base + path, headers={
            "X-SLURM-USER-NAME": "herdtest1", "X-SLURM-USER-TOKEN": tok})
        try:
            with urllib.request.urlopen(req, timeout=15) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.load(e)
    st, body = get(f"/v1/jobs/{jobs['run1']}/output")
    assert st == 200 and "hello-from-herdtest1" in body["data"], body
    st, body = get(f"/v1/jobs/{jobs['run2']}/output")
    assert st == 403 and "secret" not in json.dumps(body), body
    st, body = cluster.api("GET", f"/v1/jobs/{jobs['run2']}/output")    # root: an admin
    assert st == 200 and "secret-of-herdtest2" in body["data"], body


def test_output_is_read_as_the_user(cluster, jobs, tmp_path):
    """A job whose output is a symlink to a file only root may read gets
    nothing from it: the node agent opens it as the job's user."""
    d = tmp_path / "sym"
    d.mkdir()
    secret = tmp_path / "root-only.txt"
    secret.write_text("root-only-secret\n")
    os.chmod(secret, 0o600)
    open_dir(tmp_path, 0o755)
    shutil.chown(d, user="herdtest1")
    out = d / "out.txt"
    jid = cluster.sbatch(["-o", str(out), "--hold", "--wrap", "true"], user="herdtest1", cwd=str(d))
    os.symlink(secret, out)
    cluster.run(["scontrol", "release", str(jid)])
    wait_for(lambda: cluster.state(jid) in helpers.FINAL_STATES, 60, f"job {jid} to end")
    st, body = cluster.api("GET", f"/v1/jobs/{jid}/output")
    assert "root-only-secret" not in json.dumps(body), body
    assert st in (403, 404), (st, body)


def test_dashboard_in_a_browser(cluster, jobs, browser):
    b = browser
    url = web_url(cluster, "herdtest1")
    assert f":{cluster.ctld_port()}/ui/#token=" in url and "&user=herdtest1" in url, url
    b.navigate(url)
    # the token left the address bar and sits in session storage
    b.wait_for("location.hash === '#/cluster'", what="the fragment to be cleared")
    assert b.eval("sessionStorage.getItem('herd.user')") == "herdtest1"
    assert "token=" not in b.eval("location.href")

    # Cluster: the GPU cells of each running job show its user; the rest are idle.
    b.wait_for(f"document.querySelectorAll('.gpu.busy[data-job=\"{jobs['run1']}\"]').length === 2",
               what="herdtest1's two GPU cells")
    cells = b.eval("[...document.querySelectorAll('#nodes .gpu')].map(e => e.innerText.replace(/\\s+/g, ' '))")
    assert sum("herdtest1" in t for t in cells) == 2, cells
    assert sum("herdtest2" in t for t in cells) == 1, cells
    assert sum("idle" in t for t in cells) == 1, cells
    b.screenshot(os.path.join(b.artifacts, "cluster.png"))

    # Queue: the pending job's reason, in the words the controller gives.
    want = cluster.api_job(jobs["pend"])["reason_text"]
    b.eval("location.hash = '#/queue'")
    row = f"document.querySelector('tr[data-job=\"{jobs['pend']}\"]')"
    text = b.wait_for(f"{row} && {row}.querySelector('td.reason').innerText", what="the pending row")
    assert text.strip() == want.strip()
    assert "PENDING" in b.eval(f"{row}.innerText")
    b.screenshot(os.path.join(b.artifacts, "queue.png"))
    # the filters narrow the table without a reload
    b.eval("document.getElementById('f-user').value = 'herdtest1';"
           "document.getElementById('f-user').dispatchEvent(new Event('change'))")
    users = b.eval("[...document.querySelectorAll('#queue-rows tr td:nth-child(2)')].map(e => e.innerText)")
    assert users and set(users) == {"herdtest1"}, users

    # Job pages: the owner's output is shown, another user's is not.
    b.eval(f"location.hash = '#/job/{jobs['run1']}'")
    out = b.wait_for("document.getElementById('job-output').dataset.shown === '1' && "
                     "document.getElementById('job-output').innerText", what="herdtest1's output")
    assert "hello-from-herdtest1" in out
    # the GPU plot: the job's GPUs (0 and 1: 90 % and 70 % in the stub) and a line once
    # the page has refreshed with new samples
    gpu = b.wait_for("document.querySelector('#job-gpu path') && "
                     "document.getElementById('job-gpu').innerText", timeout=40,
                     what="the GPU utilization plot")
    assert "GPU node1:0" in gpu and "90%" in gpu and "70%" in gpu, gpu
    b.screenshot(os.path.join(b.artifacts, "job.png"))
    b.eval(f"location.hash = '#/job/{jobs['run2']}'")
    b.wait_for(f"document.getElementById('job-h').innerText.includes('{jobs['run2']}') && "
               "document.getElementById('job-output').dataset.shown === '0'",
               what="herdtest2's job page")
    page = b.eval("document.body.innerText")
    assert "secret-of-herdtest2" not in page
    assert "Output not available" in page
    assert "herdtest2" in page, page    # the job itself is visible to all

    # Usage: the chart draws from the records.
    b.eval("location.hash = '#/usage'")
    b.wait_for("!!document.querySelector('#usage-users svg')", what="the usage chart")
    assert "herdtest1" in b.eval("document.getElementById('usage-users').innerText")
    b.screenshot(os.path.join(b.artifacts, "usage.png"))


def test_login_with_a_pasted_token(cluster, browser):
    b = browser
    line = token_line(cluster, "herdtest2")
    b.eval("document.getElementById('logout').click()")
    b.wait_for("!document.getElementById('view-login').hidden", what="the login form")
    b.eval(f"document.getElementById('login-user').value = 'herdtest2';"
           f"document.getElementById('login-token').value = {json.dumps(line)};"
           "document.querySelector('#login-form button[type=submit]').click()")
    b.wait_for("document.getElementById('who-name').innerText === 'herdtest2' && "
               "document.querySelectorAll('#nodes .gpu').length === 4", what="herdtest2 signed in")
    # a bad token goes back to the form with the reason
    b.eval("sessionStorage.setItem('herd.token', 'x.y.z'); location.hash = '#/queue'")
    b.wait_for("!document.getElementById('view-login').hidden && "
               "document.getElementById('login-error').innerText", what="a refused token")


def contrast(fg, bg):
    def lum(c):
        def ch(v):
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        r, g, b = c
        return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)
    a, b2 = sorted((lum(fg), lum(bg)), reverse=True)
    return (a + 0.05) / (b2 + 0.05)


def test_accessibility_basics(cluster, jobs, browser):
    b = browser
    b.navigate(web_url(cluster, "herdtest1"))
    b.wait_for("document.querySelectorAll('.gpu.busy').length === 3", what="the cluster view")
    b.eval("location.hash = '#/queue'; document.getElementById('f-user').value = '';"
           "document.getElementById('f-user').dispatchEvent(new Event('change'))")
    b.wait_for("document.querySelectorAll('#queue-rows tr').length >= 3", what="the queue")

    # every control has a name a screen reader can say
    unnamed = b.eval("""[...document.querySelectorAll('input, select, textarea, button')]
      .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                   && !e.innerText.trim())
      .map(e => e.outerHTML)""")
    assert unnamed == [], unnamed
    # images (charts, GPU cells) carry text
    bare = b.eval("""[...document.querySelectorAll('[role=img]')]
      .filter(e => !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby'))
      .map(e => e.outerHTML.slice(0, 120))""")
    assert bare == [], bare

    # keyboard: Tab walks through the page's controls, each focus visible
    b.eval("document.activeElement.blur(); window.scrollTo(0, 0)")
    seen = []
    for _ in range(12):
        b.key("Tab", "Tab", 9)
        f = b.eval("""(() => { const e = document.activeElement, s = getComputedStyle(e);
            return {tag: e.tagName, id: e.id, text: (e.innerText || '').slice(0, 30),
                    outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2}; })()""")
        seen.append(f)
        assert f["outline"], f"focus not visible on {f}"
    names = [f["id"] or f["text"] for f in seen]
    for want in ("Skip to content", "Cluster", "Queue", "Usage", "logout", "f-user", "f-part",
                 "f-state", "f-text"):
        assert want in names, f"Tab never reached {want}: {names}"
    assert names.index("Cluster") < names.index("Queue") < names.index("f-user")

    # contrast of the main text colours against what they sit on
    pairs = b.eval("""(() => {
      const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
      const bgOf = (e) => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor;
          if (!/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') return rgb(c); } return [255, 255, 255]; };
      const sel = ['body', 'td', 'th', 'nav a', '#queue-count', '.status', 'label', 'button',
                   '.gpu.busy', '.node .state'];
      return sel.flatMap((q) => [...document.querySelectorAll(q)].slice(0, 5).map((e) =>
        ({q, fg: rgb(getComputedStyle(e).color), bg: bgOf(e)})));
    })()""")
    assert pairs
    low = [(p["q"], p["fg"], p["bg"], round(contrast(p["fg"], p["bg"]), 2)) for p in pairs
           if contrast(p["fg"], p["bg"]) < 4.5]
    assert low == [], low
    # the idle cells (a pattern of white and light grey) and the cluster view's cells
    b.eval("location.hash = '#/cluster'")
    b.wait_for("!!document.querySelector('#nodes .gpu.idle')", what="an idle cell")
    fg = b.eval("getComputedStyle(document.querySelector('#nodes .gpu.idle')).color.match(/\\d+/g).slice(0,3).map(Number)")
    assert contrast(fg, (0xee, 0xf1, 0xf4)) >= 4.5
    busy = b.eval("""[...document.querySelectorAll('.gpu.busy')].map((e) => [
        getComputedStyle(e).color.match(/\\d+/g).slice(0,3).map(Number),
        getComputedStyle(e).backgroundColor.match(/\\d+/g).slice(0,3).map(Number)])""")
    assert busy and all(contrast(f, bg) >= 4.5 for f, bg in busy), busy


def test_queue_with_10000_pending_jobs(cluster, jobs, browser):
    """The queue stays usable with 10,000 pending jobs: 200 rows a page in
    the DOM, filters and paging answered at once (no refetch)."""
    b = browser
    spec = {"script": "#!/bin/sh\ntrue\n", "work_dir": "/tmp", "hold": True, "name": "many"}
    st, r = cluster.api("POST", "/v1/jobs", {"defaults": spec, "jobs": [{}] * 10000}, timeout=120)
    assert st == 200 and len(r["job_ids"]) == 10000, (st, str(r)[:300])
    b.navigate(web_url(cluster, "herdtest1"))
    b.eval("location.hash = '#/queue'")
    t0 = time.monotonic()
    b.wait_for("/ of 100\\d\\d jobs/.test(document.getElementById('queue-count').innerText)",
               timeout=120, what="10,000 jobs in the queue view")
    loaded = time.monotonic() - t0
    assert b.eval("document.querySelectorAll('#queue-rows tr').length") == 200
    ms = b.eval("""(() => { const t = performance.now(), f = document.getElementById('f-state');
        f.value = 'PENDING'; f.dispatchEvent(new Event('change'));
        document.getElementById('page-next').click();
        return performance.now() - t; })()""")
    assert b.eval("document.getElementById('page-info').innerText").startswith("Page 2 of ")
    held = b.eval("[...document.querySelectorAll('#queue-rows td.reason')].map(e => e.innerText)")
    assert len(held) == 200 and all(held), held[:3]
    print(f"10,000 pending: first view in {loaded:.1f} s (ASan controller), "
          f"filter + page in {ms:.0f} ms")
    assert ms < 1000, f"filter and page took {ms:.0f} ms"
    b.screenshot(os.path.join(b.artifacts, "queue-10000.png"))


@pytest.fixture(scope="module")
def private_cluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "dash-private",
                               UP + ["--set", "PrivateData=jobs"])


def test_private_data_jobs(private_cluster, browser, tmp_path):
    """PrivateData=jobs: a user sees only their own jobs, in the API, in
    squeue and so on the dashboard; root sees all."""
    c = private_cluster
    open_dir(tmp_path, 0o777)
    mine = c.sbatch(["--hold", "--wrap", "true"], user="herdtest1", cwd=str(tmp_path))
    theirs = c.sbatch(["--hold", "--wrap", "true"], user="herdtest2", cwd=str(tmp_path))
    cp = c.run(["squeue", "-h", "-o", "%i"], user="herdtest1")
    assert cp.stdout.split() == [str(mine)], cp.stdout
    cp = c.run(["scontrol", "show", "job", str(theirs)], user="herdtest1", check=False)
    assert cp.returncode != 0 and "Invalid job id" in cp.stderr, cp
    cp = c.run(["squeue", "-h", "-o", "%i"])
    assert sorted(cp.stdout.split()) == sorted([str(mine), str(theirs)]), cp.stdout
    b = browser
    b.navigate(web_url(c, "herdtest1"))
    b.wait_for("location.hash === '#/cluster' && !!document.getElementById('f-user')",
               what="the page on the second cluster")
    b.eval("location.hash = '#/queue'; document.getElementById('f-user').value = '';"
           "document.getElementById('f-state').value = '';"
           "document.getElementById('f-user').dispatchEvent(new Event('change'))")
    b.wait_for(f"!!document.querySelector('tr[data-job=\"{mine}\"]')", what="herdtest1's job")
    assert not b.eval(f"!!document.querySelector('tr[data-job=\"{theirs}\"]')")


def test_drained_node_shows_its_reason(private_cluster, browser):
    """A drained node is marked, with the reason an admin gave."""
    c = private_cluster
    c.run(["scontrol", "update", "nodename=node1", "state=drain", "reason=fan broken"])
    b = browser
    b.navigate(web_url(c, "herdtest1"))
    b.wait_for("location.hash === '#/cluster'", what="the page")
    text = b.wait_for("document.querySelector('.node.down .node-reason') && "
                      "document.querySelector('.node.down .node-reason').innerText",
                      what="the drained node's reason")
    assert "DRAIN" in text and "fan broken" in text, text
    cells = b.eval("[...document.querySelectorAll('#nodes .gpu')].map(e => e.innerText)")
    assert not any("idle" in t for t in cells), cells
    b.screenshot(os.path.join(b.artifacts, "drained.png"))
    c.run(["scontrol", "update", "nodename=node1", "state=resume"])
