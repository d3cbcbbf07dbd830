#!/usr/bin/python3
"""slurmdiff: runs the same command lines against real Slurm (slurm-ref, the
/usr/bin commands) and against a `herd up` cluster, after submitting the same
jobs to both, and prints where Herd's output, errors or exit codes differ.

What must differ between two clusters (job ids, times, dates, node and host
names, pids, paths, column widths) is normalized first; differences listed in
known.txt are counted apart. Standard library only: it runs with
/usr/bin/python3 on any machine that has slurm-ref. See docs/slurmdiff.md."""

import argparse
import difflib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
         "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE", ""}
# The shape of slurm-ref (/etc/slurm/slurm.conf), so that both answer alike.
HERD_UP = ["--nodes", "1", "--cpus-per-node", "64", "--mem-per-node", "256000",
           "--gpus-per-node", "8", "--set", "ClusterName=bench", "--set", "MinJobAge=30",
           "--set", "KillWait=30"]
HERD_GPU_PARTITION = "PartitionName=gpu Nodes=ALL Default=NO MaxTime=UNLIMITED State=UP"
CASE_TIMEOUT = 20
WAIT_TIMEOUT = 60


class CaseError(Exception):
    pass


# ---------------------------------------------------------------- case files

def parse_cases(text):
    """cases.txt: '# comment', '@job NAME CMD' (a setup job, its id becomes
    $NAME), '@wait NAME' (wait until that job ended), '@sleep SECONDS', or
    'ID CMD' (a case). Returns (setup, cases) as lists of tuples:
    setup ('job', name, cmd) | ('wait', name, None) | ('sleep', secs, None),
    cases (id, cmd, lineno)."""
    setup, cases, seen = [], [], {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, _, rest = line.partition(" ")
        rest = rest.strip()
        if head == "@job":
            name, _, cmd = rest.partition(" ")
            if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name) or not cmd.strip():
                raise CaseError(f"line {n}: '@job NAME CMD' with NAME in capitals")
            setup.append(("job", name, cmd.strip()))
        elif head == "@wait":
            if not re.fullmatch(r"[A-Z][A-Z0-9_]*", rest):
                raise CaseError(f"line {n}: '@wait NAME'")
            setup.append(("wait", rest, None))
        elif head == "@sleep":
            try:
                setup.append(("sleep", float(rest), None))
            except ValueError:
                raise CaseError(f"line {n}: '@sleep SECONDS'") from None
        elif head.startswith("@"):
            raise CaseError(f"line {n}: unknown directive {head}")
        else:
            if not re.fullmatch(r"[a-z][A-Za-z0-9_.-]*", head) or not rest:
                raise CaseError(f"line {n}: 'ID COMMAND' with an ID that starts with a lower-case letter")
            if head in seen:
                raise CaseError(f"line {n}: case {head} already on line {seen[head]}")
            seen[head] = n
            cases.append((head, rest, n))
    return setup, cases


def parse_known(text):
    """known.txt: 'ID reason...' per line; '#' comments. Returns {id: reason}."""
    known = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cid, _, reason = line.partition(" ")
        if not reason.strip():
            raise CaseError(f"known.txt line {n}: '{cid}' has no reason")
        known[cid] = reason.strip()
    return known


# ---------------------------------------------------------------- normalizer

# Places where a number is a job id, whatever it is.
STRONG_IDS = [
    r"Submitted batch job (\d+)", r"\bJobId=(\d+)", r"\bArrayJobId=(\d+)",
    r"\b[Jj]ob (\d+)", r"\bjobs? ?[Ii][Dd][ =:]+(\d+)", r"allocation (\d+)",
    r"\bSLURM_JOB_?ID=(\d+)", r"\bSLURM_ARRAY_JOB_ID=(\d+)", r"\bStepId=(\d+)",
    r"\bslurm-(\d+)", r"\bstep (\d+)\.", r"\bJobID=(\d+)",
]
STRONG_RE = [re.compile(p) for p in STRONG_IDS]
# A line that starts with a number (squeue, sacct, sprio, --parsable): a job
# id only if it is one this run has seen.
LEAD_RE = re.compile(r"(?m)^(\s*)(\d+)(?=[_.;+\s]|$)")
TIMESTAMP_RE = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\b")
# The clock of `squeue -l`'s first line; the layout of the date stays.
CLOCK_RE = re.compile(r"\b\d\d:\d\d:\d\d (?=\d{4}\b)")
# Elapsed times under an hour (0:03, 12:41): never equal on two clusters.
# Limits written as H:MM:SS are left as they are.
ELAPSED_RE = re.compile(r"(?<![:\d.-])\d{1,2}:\d\d(?![:\d])")
EPOCH_RE = re.compile(r"\b1[6-9]\d{8}\b")
PID_RE = re.compile(r"(?i)\b(pid[ =:]+|SLURM_TASK_PID=|SLURM_SRUN_COMM_PORT=|"
                    r"SLURM_STEP_LAUNCHER_PORT=|SLURM_SRUN_COMM_HOST=)\S+")


class Side:
    """One cluster: how to run its commands and what to erase from its output."""

    def __init__(self, name, bindir, env, cwd, nodes, paths):
        self.name = name
        self.bindir = bindir
        self.env = env
        self.cwd = cwd
        self.nodes = list(nodes)
        self.paths = dict(paths)      # path -> placeholder
        self.ids = {}                 # job id (str) -> placeholder
        self.lock = threading.Lock()

    def learn(self, jobid, name=None):
        if jobid not in self.ids or name:
            self.ids[jobid] = f"<{name}>" if name else "<JOBID>"


# The commands whose output lines may start with a job id.
LISTS_IDS = re.compile(r"\b(squeue|sacct|sprio|scontrol)\b|--parsable")


def normalize(text, side, lead=True):
    """Erases from one command's output what differs between two clusters
    by nature. Learns the job ids it finds in strong places. lead: numbers
    that start a line may be job ids (the command lists jobs)."""
    for rx in STRONG_RE:
        for m in rx.finditer(text):
            side.learn(m.group(1))
    for path, ph in sorted(side.paths.items(), key=lambda kv: -len(kv[0])):
        if path:
            text = text.replace(path, ph)

    def strong(m):
        whole, jid = m.group(0), m.group(1)
        s, e = m.start(1) - m.start(0), m.end(1) - m.start(0)
        return whole[:s] + side.ids.get(jid, "<JOBID>") + whole[e:]
    for rx in STRONG_RE:
        text = rx.sub(strong, text)

    def lead_id(m):
        jid = m.group(2)
        return m.group(1) + side.ids[jid] if jid in side.ids else m.group(0)
    if lead:
        text = LEAD_RE.sub(lead_id, text)
    text = TIMESTAMP_RE.sub("<DATE>", text)
    text = CLOCK_RE.sub("<CLOCK> ", text)
    text = ELAPSED_RE.sub("<ELAPSED>", text)
    text = EPOCH_RE.sub("<EPOCH>", text)
    text = PID_RE.sub(lambda m: m.group(1) + "<PID>", text)
    for node in side.nodes:
        text = re.sub(r"\b" + re.escape(node) + r"\b", "<NODE>", text)
    return text


def squeeze(text):
    """The text with runs of blanks made one: what stays when only column
    widths differ."""
    return "\n".join(" ".join(l.split()) for l in text.splitlines()).strip()


def compare(a, b):
    """'same', 'widths' (only the widths of blank runs differ) or 'differ'."""
    if a == b:
        return "same"
    if squeeze(a) == squeeze(b):
        return "widths"
    return "differ"


# ---------------------------------------------------------------- running

def run_cmd(side, cmd, timeout=CASE_TIMEOUT, cwd=None):
    """stdout, stderr and exit status of one bash line. Past its time the
    line's process group gets SIGTERM first: a waiting srun or salloc then
    gives its pending allocation back instead of leaving it queued."""
    env = dict(side.env)
    env.update(side.vars)
    p = subprocess.Popen(["/bin/bash", "-c", cmd], cwd=cwd or side.cwd, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            try:
                os.killpg(p.pid, sig)
                out, err = p.communicate(timeout=wait)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                out, err = b"", b""
        err = (err or b"") + f"<timed out after {timeout}s>".encode()
        rc = 124
    return (out.decode(errors="replace"), err.decode(errors="replace"), rc)


# What srun and salloc say only when the job had to wait: a matter of
# timing on a shared slurm-ref, not of behaviour.
QUEUED_RE = re.compile(r"^(srun|salloc): (job \d+ queued and waiting for resources|"
                       r"job \d+ has been allocated resources|Pending job allocation \d+)\n",
                       re.M)


def render(side, out, err, rc, lead=True):
    err = QUEUED_RE.sub("", err)
    text = out
    if err:
        text += ("" if not out or out.endswith("\n") else "\n") + "[stderr]\n" + err
    text += f"\n[exit {rc}]"
    return normalize(text, side, lead)


def job_state(side, jobid):
    out, _, _ = run_cmd(side, f"squeue -h -t all -j {jobid} -o %T", 15)
    return out.strip()


def run_setup(side, setup, log):
    """Submits the setup jobs; their ids become $NAME in later commands."""
    for kind, name, cmd in setup:
        if kind == "sleep":
            time.sleep(name)
        elif kind == "job":
            out, err, rc = run_cmd(side, cmd)
            m = re.search(r"(\d+)", out)
            if rc != 0 or not m:
                log(f"{side.name}: setup job {name} failed (exit {rc}): {out}{err}")
                side.vars[name] = "0"
                continue
            side.vars[name] = m.group(1)
            side.learn(m.group(1), name)
        else:
            jid = side.vars.get(name, "0")
            deadline = time.monotonic() + WAIT_TIMEOUT
            while job_state(side, jid) not in FINAL and time.monotonic() < deadline:
                time.sleep(0.5)


def run_side(side, setup, cases, results):
    run_setup(side, setup, lambda m: print(m, file=sys.stderr))
    for cid, cmd, _ in cases:
        # each case in a directory of its own, so that `ls` shows its files
        cwd = os.path.join(side.cwd, "c", cid)
        os.makedirs(cwd)
        out, err, rc = run_cmd(side, cmd, cwd=cwd)
        if "--parsable" in cmd:
            for m in re.finditer(r"(?m)^(\d+)(?:;\S+)?$", out):
                side.learn(m.group(1))
        results[cid] = render(side, out, err, rc, bool(LISTS_IDS.search(cmd)))


def cleanup_jobs(side):
    """Cancels every job this run submitted or saw an id of; only those:
    other people's jobs may be in slurm-ref's queue."""
    ids = sorted({v for v in side.vars.values() if v != "0"} | set(side.ids))
    for i in range(0, len(ids), 50):
        run_cmd(side, "scancel " + " ".join(ids[i:i + 50]), 15)
    # the jobs whose ids went to a file: the cases name them sda..sdz
    out, _, _ = run_cmd(side, "squeue -h -o '%i %j'", 15)
    named = [l.split()[0] for l in out.splitlines()
             if re.fullmatch(r"\S+ sd[a-z]", l.strip())]
    if named:
        run_cmd(side, "scancel " + " ".join(named), 15)


# ---------------------------------------------------------------- clusters

def slurm_side(work):
    env = clean_env()
    env["PATH"] = "/usr/bin:/bin:/usr/sbin:/sbin"
    cwd = os.path.join(work, "slurm")
    os.makedirs(cwd)
    os.chmod(cwd, 0o777)
    s = Side("slurm", "/usr/bin", env, cwd, ["vm", socket.gethostname().split(".")[0]],
             {cwd: "<CWD>", "/etc/slurm/slurm.conf": "<CONF>", "/etc/slurm": "<CONFDIR>"})
    s.vars = {}
    return s


def clean_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_", "SQUEUE_",
                                "SINFO_", "SACCT_", "SCONTROL_"))}
    env.update(LC_ALL="C", TZ="UTC", ASAN_OPTIONS="detect_leaks=0")
    return env


def slurm_up():
    try:
        cp = subprocess.run(["/usr/bin/sinfo", "-h", "-o", "%P"], capture_output=True,
                            timeout=15, env=clean_env())
    except (OSError, subprocess.TimeoutExpired):
        return False
    return cp.returncode == 0


def herd_start(bindir, work):
    d = os.path.join(work, "herd-cluster")
    herd = os.path.join(bindir, "herd")
    cp = subprocess.run([herd, "up", "-D", d] + HERD_UP, capture_output=True, text=True,
                        timeout=120, env=clean_env())
    if cp.returncode != 0:
        raise RuntimeError(f"herd up failed:\n{cp.stdout}{cp.stderr}")
    conf = os.path.join(d, "slurm.conf")
    with open(conf) as f:
        text = f.read()
    if "PartitionName=gpu" not in text:
        # herd up knows one partition; slurm-ref has debug and gpu
        subprocess.run([herd, "down", "-D", d], capture_output=True, timeout=120, env=clean_env())
        with open(conf, "a") as f:
            f.write(HERD_GPU_PARTITION + "\n")
        cp = subprocess.run([herd, "up", "-D", d], capture_output=True, text=True,
                            timeout=120, env=clean_env())
        if cp.returncode != 0:
            raise RuntimeError(f"herd up (2) failed:\n{cp.stdout}{cp.stderr}")
    pad_job_ids(bindir, conf)
    return d, conf


def pad_job_ids(bindir, conf):
    """A fresh Herd cluster numbers its jobs from 1: ids that look like the
    counts in the outputs (nodes, CPUs). Slurm-ref's are in the hundreds;
    so are Herd's after this."""
    env = clean_env()
    env.update(PATH=bindir + ":/usr/bin:/bin", SLURM_CONF=conf)
    subprocess.run(["/bin/bash", "-c", "for i in $(seq 100); do sbatch -Q --hold -J sdpad "
                    "--wrap true; done; scancel -n sdpad"], env=env, capture_output=True,
                   timeout=300, cwd="/tmp")


def herd_side(bindir, work, conf, cdir):
    env = clean_env()
    env["PATH"] = bindir + ":/usr/bin:/bin:/usr/sbin:/sbin"
    env["SLURM_CONF"] = conf
    cwd = os.path.join(work, "herd")
    os.makedirs(cwd)
    os.chmod(cwd, 0o777)
    paths = {cwd: "<CWD>", conf: "<CONF>", bindir: "<BIN>"}
    if cdir:
        paths[cdir] = "<CLUSTERDIR>"
    s = Side("herd", bindir, env, cwd, ["node1", socket.gethostname().split(".")[0]], paths)
    s.vars = {}
    return s


# ---------------------------------------------------------------- report

def report(cases, res_s, res_h, known, only_differ, stream):
    counts = {"same": 0, "widths": 0, "differ": 0, "known": 0}
    for cid, cmd, _ in cases:
        a, b = res_s.get(cid, "<not run>"), res_h.get(cid, "<not run>")
        verdict = compare(a, b)
        if verdict == "differ" and cid in known:
            verdict = "known"
        counts[verdict] += 1
        if verdict == "same" or (only_differ and verdict != "differ"):
            continue
        print(f"=== {cid} [{verdict}] $ {cmd}", file=stream)
        if verdict == "known":
            print(f"    known: {known[cid]}", file=stream)
        if verdict in ("differ", "known"):
            for line in difflib.unified_diff(a.splitlines(), b.splitlines(), "slurm", "herd",
                                             lineterm="", n=2):
                print("    " + line, file=stream)
    stale = sorted(set(known) - {c[0] for c in cases})
    total = len(cases)
    print(f"\nsummary: {total} cases: {counts['same'] + counts['widths']} same "
          f"({counts['widths']} of them only in column widths), {counts['differ']} differ, "
          f"{counts['known']} known", file=stream)
    if stale:
        print(f"known.txt names cases that are gone: {' '.join(stale)}", file=stream)
    return counts


def interrupted(signum, frame):
    """SIGTERM (timeout, make's ^C) ends the run the way ^C does, so that its
    jobs are cancelled and its Herd cluster stopped."""
    raise KeyboardInterrupt(f"signal {signum}")


def run_and_report(a, sides, setup, cases, known, bindir):
    results = [{}, {}]
    # daemon threads: an interrupted run does not wait for the cases in flight
    threads = [threading.Thread(target=run_side, args=(s, setup, cases, r), daemon=True)
               for s, r in zip(sides, results)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.5)
    with open(a.record, "w") if a.record else open(os.devnull, "w") as rec:
        print(f"slurmdiff {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())} "
              f"({time.monotonic() - started:.0f} s): Slurm /usr/bin vs Herd's build", file=rec)
        counts = report(cases, results[0], results[1], known, a.differ_only, sys.stdout)
        report(cases, results[0], results[1], known, False, rec)
    return counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.txt"))
    ap.add_argument("--known", default=os.path.join(HERE, "known.txt"))
    ap.add_argument("--herd-bin", default=None,
                    help="Herd's commands (default build/asan/bin, else build/bin)")
    ap.add_argument("--herd-conf", default=None,
                    help="an already running Herd cluster's slurm.conf (default: herd up one)")
    ap.add_argument("--only", default=None, help="regular expression on case ids")
    ap.add_argument("--differ-only", action="store_true", help="print only unknown differences")
    ap.add_argument("--record", default=None, help="also write the report to this file")
    ap.add_argument("--keep", action="store_true", help="keep the work directory and cluster")
    a = ap.parse_args(argv)

    with open(a.cases) as f:
        setup, cases = parse_cases(f.read())
    known = {}
    if os.path.exists(a.known):
        with open(a.known) as f:
            known = parse_known(f.read())
    if a.only:
        cases = [c for c in cases if re.search(a.only, c[0])]
    if not slurm_up():
        print("slurmdiff: slurm-ref does not answer (/usr/bin/sinfo failed); start it with "
              "/work/shared/slurm-ref/up.sh. Nothing compared.", file=sys.stderr)
        return 2
    found = a.herd_bin or next((os.path.join(ROOT, p) for p in ("build/asan/bin", "build/bin")
                                if os.path.exists(os.path.join(ROOT, p, "herd"))), None)
    if not found:
        print("slurmdiff: no Herd build (make all)", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="slurmdiff-")
    os.chmod(work, 0o755)
    # a copy, so that a rebuild while the cases run cannot change Herd under them
    bindir = os.path.join(work, "bin")
    shutil.copytree(os.path.abspath(a.herd_bin or found), bindir, symlinks=True)
    cdir, sides, counts = None, [], {"differ": 0}
    signal.signal(signal.SIGTERM, interrupted)
    try:
        conf = a.herd_conf
        if not conf:
            cdir, conf = herd_start(bindir, work)
        sides = [slurm_side(work), herd_side(bindir, work, conf, cdir)]
        counts = run_and_report(a, sides, setup, cases, known, bindir)
    finally:
        for s in sides:
            cleanup_jobs(s)
        if cdir and not a.keep:
            subprocess.run([os.path.join(bindir, "herd"), "down", "-D", cdir],
                           capture_output=True, timeout=120, env=clean_env())
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
