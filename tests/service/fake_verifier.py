"""A stand-in verifier run as a real process by the queue tests.

Usage: python fake_verifier.py PLAN.json CALLS.log

It reads the prompt on stdin, logs the item id it was asked about, echoes the
prompt back (as agent transcripts do), thinks aloud, and prints the verdict
the plan gives for the first title keyword found in the prompt ("*" is the
default). A plan entry may also say {"sleep": S} or {"exit": N} or
{"raw": "text printed instead of a verdict"} or {"run": "a shell command"}.
"""

from __future__ import annotations

import json
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
print(prompt)
print("Checking the code now...")
sys.stdout.flush()
if "sleep" in entry:
    time.sleep(entry["sleep"])
if "raw" in entry:
    print(entry["raw"])
else:
    body = {k: v for k, v in entry.items() if k not in ("exit", "sleep", "run")}
    print(json.dumps(body).replace("$SELF", item.group(1) if item else ""))
    print("That is my verdict.")
sys.exit(entry.get("exit", 0))
