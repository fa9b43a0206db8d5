"""The sandbox's keys (ramp/security/keys.py `dev_keys`) when several processes start
together on a new data dir, as the scale-out test starts two APIs and two dispatchers:
each may find no keys and generate its own. Seen: a dispatcher exited at start with
`FileExistsError` on keys.json, the file an API had created a moment before. All must
start, with one set of keys, and the file must never be read half written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROCESSES = 8
# Each process waits for the go file, then asks for the keys at once.
RACE = """
import json, os, sys, time
from pathlib import Path
from ramp.security.keys import dev_keys
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
print(json.dumps(dev_keys(Path(sys.argv[1]))))
"""


def test_processes_starting_together_share_one_set_of_keys(tmp_path: Path) -> None:
    data_dir, go = tmp_path / "data", tmp_path / "go"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(data_dir), str(go)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    go.touch()
    answers = [racer.communicate(timeout=120) for racer in racers]
    assert [racer.returncode for racer in racers] == [0] * PROCESSES, [e for _, e in answers]
    keys = {out for out, _ in answers}
    assert len(keys) == 1, keys
    stored = json.loads((data_dir / "keys.json").read_text())
    assert json.loads(keys.pop()) == stored
    assert sorted(p.name for p in data_dir.iterdir()) == ["keys.json"]  # nothing left aside
