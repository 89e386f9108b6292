"""`make lab`, the README's first command, starts JupyterLab on the notebooks (as root too), offline."""

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
def test_make_lab_serves_the_notebooks(root):
    port, token = free_port(), "ragkit-test"
    args = f"--no-browser --port={port} --ServerApp.token={token} --ServerApp.ip=127.0.0.1"
    server = subprocess.Popen(["make", "lab", f"LAB_ARGS={args}"], cwd=root, stdout=subprocess.PIPE,
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
        assert "00_rag_in_one_page.ipynb" in contents, "the lab must open on notebooks/"
        lab = urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=5)
        assert lab.status == 200
    finally:
        stop_process_group(server, grace=15)
