"""A stand-in verifier run as a real process by the queue tests.

Usage: python fake_verifier.py PLAN.json CALLS.log

It reads the prompt on stdin, logs the item id it was asked about, echoes the
prompt back (as agent transcripts do), thinks aloud, and prints the verdict
the plan gives for the first title keyword found in the prompt ("*" is the
default). A plan entry may also say {"sleep": S} or {"exit": N} or
{"raw": "text printed instead of a verdict"} or {"run": "a shell command"}
(run first, its output going to the same pipe), {"echo_after": true} (the
prompt is echoed after the verdict rather than before), or
{"kill_runner": true} (the `git coop` process that ran this verifier is
killed, as a closed laptop would).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import time

plan = json.loads(pathlib.Path(sys.argv[1]).read_text())
prompt = sys.stdin.read()
item = re.search(r"^Item: (it-\w+)$", prompt, re.M)
title = re.search(r"^Title: (.*)$", prompt, re.M)
with open(sys.argv[2], "a") as log:
    log.write((item.group(1) if item else "?") + "\n")
entry = next((v for k, v in plan.items() if k != "*" and title and k in title.group(1)), None)
entry = entry or plan.get("*", {"verdict": "unclear"})
with open(sys.argv[2] + "." + (item.group(1) if item else "none") + ".prompt", "w") as saved:
    saved.write(prompt)
if "run" in entry:  # another writer moves the item while the verifier works
    subprocess.run(entry["run"].replace("$SELF", item.group(1) if item else ""), shell=True)
if entry.get("kill_runner"):  # this process's parent is `sh -c`; its parent runs git coop
    shell = os.getppid()
    runner = int(pathlib.Path(f"/proc/{shell}/stat").read_text().rsplit(")", 1)[1].split()[1])
    os.kill(runner, 9)
if not entry.get("echo_after"):
    print(prompt)
print("Checking the code now...")
sys.stdout.flush()
if "sleep" in entry:
    time.sleep(entry["sleep"])
if "raw" in entry:
    print(entry["raw"])
else:
    extra = ("exit", "sleep", "run", "echo_after", "kill_runner")
    body = {k: v for k, v in entry.items() if k not in extra}
    print(json.dumps(body).replace("$SELF", item.group(1) if item else ""))
    print("That is my verdict.")
if entry.get("echo_after"):
    print(prompt)
sys.exit(entry.get("exit", 0))
