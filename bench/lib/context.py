"""What every benchmark section gets: the sizes (full or --quick), the work
directory with the job scripts and the job mix, the figures found so far, a
fresh Herd cluster on demand and Slurm when it is up."""

import json
import os
import subprocess
import sys
import time

import targets
import util

FULL = dict(reps=3, serial=1000, par_total=10000, par=4, bulk=10000, bulk_per_req=1000,
            e2e=1000, array=1000, lat_reps=7, big1=10000, big2=100000, q_reps=5,
            start=10000, start_window=30, slurm_window=55, scancel=10000, sacct=100000,
            grow=200000)
QUICK = dict(reps=1, serial=20, par_total=40, par=4, bulk=200, bulk_per_req=100,
             e2e=20, array=20, lat_reps=2, big1=100, big2=400, q_reps=2,
             start=100, start_window=8, slurm_window=20, scancel=100, sacct=200, grow=400)


class Context:
    def __init__(self, root, bin_dir, prefix, quick, slurm):
        self.root, self.bin, self.prefix, self.quick = root, bin_dir, prefix, quick
        self.size = dict(QUICK if quick else FULL)
        self.slurm = slurm
        self.figs = {}
        self.order = []
        self.commands = []      # what was measured, for RESULTS.md
        self.clusters = []
        self.wd = prefix + "-wd"
        os.makedirs(self.wd, exist_ok=True)
        os.chmod(self.wd, 0o755)
        self.write_scripts()

    def log(self, msg):
        sys.stderr.write("[bench %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
        sys.stderr.flush()

    def fig(self, key, label, unit, higher_better, goal=None):
        if key not in self.figs:
            self.figs[key] = util.Figure(key, label, unit, higher_better, goal=goal)
            self.order.append(key)
        return self.figs[key]

    def note_cmd(self, what):
        if what not in self.commands:
            self.commands.append(what)

    def herd(self, name, min_job_age=300):
        """A fresh Herd cluster named name (stopped by close())."""
        h = targets.Herd(self.bin, self.prefix, name, min_job_age)
        self.clusters.append(h)
        h.up()
        return h

    def close(self):
        for h in self.clusters:
            try:
                h.down()
            except Exception as e:      # one cluster's trouble must not keep others up
                self.log("herd down -D %s: %s" % (h.dir, e))

    def sides(self):
        return ["herd"] + (["slurm"] if self.slurm else [])

    def write_scripts(self):
        wd = self.wd
        scripts = {
            "true.sh": "#!/bin/sh\ntrue\n",
            "stamp.sh": "#!/bin/sh\ndate +%%s.%%N > %s/lat.$SLURM_JOB_ID\n" % wd,
            "sleep.sh": "#!/bin/sh\nsleep 3600\n",
        }
        for name, text in scripts.items():
            p = os.path.join(wd, name)
            with open(p, "w") as f:
                f.write(text)
            os.chmod(p, 0o755)
        self.mix_file(self.size["big1"])

    def mix_file(self, n):
        """slurm-ref's job mix (same awk program, same seed): cpus 1..16,
        time 1..60 min, 30 % in partition gpu with gpu:1..8."""
        path = os.path.join(self.wd, "mix-%d.txt" % n)
        if not os.path.exists(path):
            prog = ('BEGIN{srand(42); for(i=0;i<n;i++){c=1+int(rand()*16); t=1+int(rand()*60);'
                    ' g=(rand()<0.3)?1+int(rand()*8):0;'
                    ' if (g) printf "-c %d -t %d -p gpu --gres=gpu:%d %s/sleep.sh\\n", c, t, g, wd;'
                    ' else printf "-c %d -t %d %s/sleep.sh\\n", c, t, wd}}')
            with open(path, "w") as f:
                subprocess.run(["awk", "-v", "n=%d" % n, "-v", "wd=" + self.wd, prog], stdout=f,
                               check=True)
        return path

    def mix_specs(self, herd, n, hold, name="benchE"):
        """The mix as job specs for the bulk API (what sbatch would send)."""
        base = herd.spec(os.path.join(self.wd, "sleep.sh"), self.wd)
        specs = []
        with open(self.mix_file(n)) as f:
            for line in f:
                w = line.split()
                s = dict(base, name=name, cpus_per_task=int(w[1]), cpus_per_task_set=True,
                         time_limit=int(w[3]), hold=hold)
                if "-p" in w:
                    s["partition"] = "gpu"
                    s["gpus_per_node"] = int(w[w.index("-p") + 2].split(":")[1])
                specs.append(s)
        return specs


def shared_keys(specs):
    """What every spec has the same: a bulk request's "defaults"."""
    first = specs[0] if specs else {}
    return {k: v for k, v in first.items() if all(s.get(k) == v for s in specs)}


def bulk_submit(herd, specs, per_req, shared=False):
    """Posts specs in requests of per_req on one connection; returns the
    seconds from the first send to the last answer (each answer comes after
    the commit: durable). shared: what the specs of a request have in common
    (script, environment...) goes once, as the request's "defaults". The
    bodies are encoded before the clock starts: the figure is the server's."""
    bodies = []
    for i in range(0, len(specs), per_req):
        part = specs[i:i + per_req]
        if shared:
            d = shared_keys(part)
            body = {"defaults": d, "jobs": [{k: v for k, v in s.items() if k not in d}
                                            for s in part]}
        else:
            body = {"jobs": part}
        bodies.append((len(part), json.dumps(body).encode()))
    conn = herd.connect()
    hdrs = {"Content-Type": "application/json"}
    t0 = time.perf_counter()
    try:
        for n, b in bodies:
            conn.request("POST", "/v1/jobs", body=b, headers=hdrs)
            r = conn.getresponse()
            raw = r.read()
            ans = json.loads(raw) if raw else {}
            if r.status != 200 or len(ans.get("job_ids", [])) != n:
                raise RuntimeError("bulk submit: %s %s" % (r.status, raw[:300]))
    finally:
        conn.close()
    return time.perf_counter() - t0


def populate(ctx, t, n, hold=True, script="sleep.sh"):
    """n pending jobs of the mix: Herd through the bulk API, Slurm with 4
    parallel sbatch streams (it has no bulk submission)."""
    if t.side == "herd":
        return bulk_submit(t, ctx.mix_specs(t, n, hold), ctx.size["bulk_per_req"])
    return util.timed_sh("xargs -P %d -L 1 %s -Q %s -J benchE -o /dev/null < %s 2>>%s/sbatch.err"
                         % (ctx.size["par"], t.cmd("sbatch"), "-H" if hold else "",
                            ctx.mix_file(n), ctx.wd), env=t.env, timeout=3600)
