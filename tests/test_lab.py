"""`make lab`, the README's first command, starts JupyterLab (as root too), offline, on the learner's own copy of
the notebooks: copied when missing, never overwritten, with the exercise checks importable and no news prompt."""

import json
import os
import socket
import subprocess
import time
import urllib.request

import pytest
from helpers import stop_process_group


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.skipif(not os.path.exists(".venv/bin/jupyter") and not os.environ.get("CI"), reason="no .venv")
def test_make_lab_serves_a_working_copy_of_the_notebooks(root, tmp_path):
    workbook = tmp_path / "workbook"
    workbook.mkdir()
    learners = workbook / "00_rag_in_one_page.ipynb"
    learners.write_text('{"the learner": "was here"}')
    port, token = free_port(), "ragkit-test"
    args = f"--no-browser --port={port} --ServerApp.token={token} --ServerApp.ip=127.0.0.1"
    server = subprocess.Popen(["make", "lab", f"LAB_ARGS={args}", f"WORKBOOK={workbook}"], cwd=root,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        contents = None
        for _ in range(120):  # bounded: at most about 60 s (two test workers share the cores)
            time.sleep(0.5)
            try:
                url = f"http://127.0.0.1:{port}/api/contents?token={token}"
                contents = urllib.request.urlopen(url, timeout=2).read().decode()
                break
            except OSError:
                if server.poll() is not None:
                    break
        assert contents is not None, f"JupyterLab did not answer:\n{server.stdout.read() if server.poll() is not None else ''}"
        assert "00_rag_in_one_page.ipynb" in contents and "11_playground.ipynb" in contents, \
            "the lab must open on the working copy of every notebook"
        assert learners.read_text() == '{"the learner": "was here"}', "make lab overwrote a learner's notebook"
        copied = sorted(path.name for path in workbook.glob("*.ipynb"))
        assert copied == sorted(path.name for path in (root / "notebooks").glob("[0-9]*.ipynb"))
        overrides = json.loads((root / ".venv/share/jupyter/lab/settings/overrides.json").read_text())
        assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
        assert overrides["@jupyter-widgets/jupyterlab-manager:plugin"]["saveState"] is True, \
            "an autosaved notebook must keep its widgets' state, or it reopens with 'model not found'"
        kernel = subprocess.run(["make", "-n", "lab", f"WORKBOOK={workbook}"], cwd=root, capture_output=True,
                                text=True).stdout
        assert f'PYTHONPATH="{root}/notebooks"' in kernel, "the kernels must find notebooks/exercises/"
        lab = urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=5)
        assert lab.status == 200
    finally:
        stop_process_group(server, grace=15)
