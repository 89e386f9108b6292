"""Test environment for every test path, `tests/` and `notebooks/` alike: a notebook run alone
(`python -m pytest notebooks/02_embeddings_and_pooling.ipynb`) needs it as much as the full run, and
`tests/conftest.py`, which holds the fixtures, is not loaded for a notebook path."""

import os

os.environ.setdefault("RAGKIT_PROGRESS", "0")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
# pytest-xdist runs one file per worker; each worker (and the notebook kernels it starts, which inherit this)
# would otherwise use every core for torch and numpy, and the workers would fight over them
_workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _workers > 1:
    for _pool in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_pool, str(max(1, (os.cpu_count() or 1) // _workers)))
