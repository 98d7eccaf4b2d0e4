# One command serves, one command tests; each sets up its own virtual environment.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: serve test test-cluster test-docker bench install-dev clean

$(VENV)/.serve: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[server,client]"
	touch $@

$(VENV)/.dev: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[server,client,dev,ray]"
	@# PyTorch is an optional oracle for the tests: installed only from a local wheel, never downloaded
	@if ls /opt/wheels/torch-2.13.0* >/dev/null 2>&1; then $(PY) -m pip install -q torch==2.13.0 || true; fi
	touch $@

serve: $(VENV)/.serve
	$(VENV)/bin/gradserve serve --host $(HOST) --port $(PORT)

test: $(VENV)/.dev $(VENV)/.serve
	$(PY) -m pytest -q -n 2 -m "not cluster and not docker" tests
	$(MAKE) --no-print-directory test-cluster

# The Ray cluster tests, in a network namespace of their own with only loopback (needs root, as CI).
test-cluster: $(VENV)/.dev
	unshare --net sh -c 'ip link set lo up && $(PY) -m pytest -q -p no:cacheprovider -m cluster tests/cluster'

# The image and the compose topology, built and run with Docker engines of the test's own (root, as CI).
test-docker: $(VENV)/.dev
	GRADSERVE_DOCKER_TESTS=1 $(PY) -m pytest -q -m docker tests/docker

bench: $(VENV)/.dev
	$(PY) benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
