#!/usr/bin/env python3
"""Runs a command under a CPU-time and address-space limit:
  run-limited.py SECONDS MIB command args...
Exits with the command's status; a command the limits stop fails, so a
pass that turns quadratic (or grows without bound) fails its test instead
of running for minutes."""
import resource
import subprocess
import sys

secs, mib = int(sys.argv[1]), int(sys.argv[2])


def limit():
    resource.setrlimit(resource.RLIMIT_CPU, (secs, secs))
    resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))


r = subprocess.run(sys.argv[3:], preexec_fn=limit)
if r.returncode < 0:
    sys.stderr.write("run-limited: '%s' was stopped by signal %d (limits: "
                     "%d s CPU, %d MiB)\n" % (sys.argv[3], -r.returncode,
                                              secs, mib))
    sys.exit(1)
sys.exit(r.returncode)
