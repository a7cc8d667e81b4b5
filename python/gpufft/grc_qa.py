# SPDX-License-Identifier: GPL-3.0-or-later
"""
What the block QA suites share to check a block as GRC makes it: a flowgraph
compiled by grcc from the block definitions in grc/ and run, and the Tune
parameter reaching the plans (seen in the wisdom file).
"""

import os
import shutil
import subprocess
import sys
import tempfile

import yaml

GRC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grc")
NAME = "qa_flowgraph"
_STATES = {"coordinate": [0, 0], "rotation": 0, "state": "enabled"}


def flowgraph(blocks, connections):
    """A no-GUI Python flowgraph of blocks (name, block id, parameters) and
    connections [source, port, sink, port]."""
    return {"options": {"parameters": {"id": NAME, "generate_options": "no_gui", "output_language": "python",
                                       "title": NAME, "run_options": "run"},
                        "states": _STATES},
            "blocks": [{"name": name, "id": block_id, "parameters": parameters, "states": _STATES}
                       for name, block_id, parameters in blocks],
            "connections": connections,
            "metadata": {"file_format": 1, "grc_version": "3.10"}}


def run_flowgraph(test, graph, folder, env=None):
    """graph compiled by grcc into folder and run there, with env added to the
    environment; the test fails with the output of either that fails."""
    path = os.path.join(folder, NAME + ".grc")
    with open(path, "w") as f:
        yaml.safe_dump(graph, f)
    r = subprocess.run([shutil.which("grcc") or "grcc", "-o", folder, path],
                       env=dict(os.environ, GRC_BLOCKS_PATH=GRC_DIR), capture_output=True, text=True, timeout=120)
    test.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    r = subprocess.run([sys.executable, os.path.join(folder, NAME + ".py")], cwd=folder,
                       env=dict(os.environ, **(env or {})), capture_output=True, text=True, timeout=120)
    test.assertEqual(r.returncode, 0, r.stdout + r.stderr)


def check_tune(test, graph_for, check_outputs, sizes):
    """Tune Yes and No reach the plans: graph_for(tune) ("True" or "False", its
    blocks on the simd backend, which every machine has) runs with a wisdom
    file of its own, check_outputs(folder, tune) checks what it wrote; tuned,
    the file holds simd wisdom for each forward size in sizes, untuned, none."""
    for tune in ("True", "False"):
        folder = tempfile.mkdtemp(prefix="gpufft_qa_grc_tune_")
        try:
            wisdom = os.path.join(folder, "wisdom")
            run_flowgraph(test, graph_for(tune), folder, {"GPUFFT_WISDOM": wisdom})
            check_outputs(folder, tune)
            lines = []
            if os.path.exists(wisdom):
                with open(wisdom) as f:
                    lines = f.read().splitlines()
            for n in sizes:
                tuned = [line for line in lines if line.startswith("simd ") and f" {n} forward" in line]
                if tune == "True":
                    test.assertTrue(tuned, f"no simd wisdom for {n} points after a tuned block: {lines}")
                else:
                    test.assertEqual(tuned, [], f"an untuned block wrote wisdom for {n} points")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
