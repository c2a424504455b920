#!/usr/bin/env python3
"""san-sweep.py - every GPU test of a build tree (ctest's own list: label gpu, its command and
environment, variants included) under compute-sanitizer with TETRA_TEST_QUICK=1, a few at a time.

  python3 docs/notes/san-sweep.py BUILD_DIR OUT_DIR SECONDS [--tool memcheck] [--jobs 6] [--skip REGEX]

Each test's log goes to OUT_DIR/san-TOOL-NAME.log; a summary line per test (passed: the test's exit
status 0 and the sanitizer's "ERROR SUMMARY: 0 errors"; skipped: exit 77; timeout: still running
when SECONDS ran out, killed) to stdout and OUT_DIR/san-TOOL-summary.txt. Exit status 0 only if
every test that finished passed or skipped and none timed out."""
import json, os, re, subprocess, sys, time

def main():
    build, out, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
    args = sys.argv[4:]
    opt = lambda name, dflt: args[args.index(name) + 1] if name in args else dflt
    tool, jobs, skip = opt("--tool", "memcheck"), int(opt("--jobs", "6")), opt("--skip", "^gpu_bench")
    t0 = time.time()
    listing = json.loads(subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True,
                                        text=True, check=True).stdout)
    todo = []
    for t in listing["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        if "gpu" not in (props.get("LABELS") or []) or re.search(skip, t["name"]):
            continue
        env = dict(os.environ, TETRA_TEST_QUICK="1")
        for kv in props.get("ENVIRONMENT") or []:
            k, v = kv.split("=", 1)
            env[k] = v
        todo.append((t["name"], t["command"], env))
    os.makedirs(out, exist_ok=True)
    running, lines, ok = [], [], True
    def finish(name, p, f, start, status):
        nonlocal ok
        f.close()
        log = open(f.name, errors="replace").read()
        errs = re.findall(r"ERROR SUMMARY: (\d+) error", log)
        if status == "timeout":
            verdict = "timeout"
        elif p.returncode == 77:
            verdict = "skipped"
        elif p.returncode == 0 and errs and errs[-1] == "0":
            verdict = "passed"
        else:
            verdict = "FAILED (exit %d, errors %s)" % (p.returncode, errs[-1] if errs else "?")
        ok = ok and verdict in ("passed", "skipped")
        line = "%-28s %-9s %-40s %6.0f s" % (name, tool, verdict, time.time() - start)
        print(line, flush=True)
        lines.append(line)
    while todo or running:
        while todo and len(running) < jobs:
            name, cmd, env = todo.pop(0)
            f = open(os.path.join(out, "san-%s-%s.log" % (tool, name)), "w")
            p = subprocess.Popen(["compute-sanitizer", "--tool", tool, "--error-exitcode", "99"] + cmd, env=env,
                                 stdout=f, stderr=subprocess.STDOUT)
            running.append((name, p, f, time.time()))
        time.sleep(1)
        for r in list(running):
            if r[1].poll() is not None:
                running.remove(r)
                finish(*r, "done")
        if time.time() - t0 > budget:
            for r in running:
                r[1].kill()
                r[1].wait()
                finish(*r, "timeout")
            running = []
            for name, _, _ in todo:
                line = "%-28s %-9s %-40s" % (name, tool, "not started (time)")
                print(line)
                lines.append(line)
                ok = False
            todo = []
    open(os.path.join(out, "san-%s-summary.txt" % tool), "w").write("\n".join(lines) + "\n")
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()
