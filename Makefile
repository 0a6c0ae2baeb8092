# Two commands do the whole set-up on a fresh machine: `make run` and `make test`.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
PIP     := $(BIN)/pip
PYTHON  := $(BIN)/python
HOST    ?= 127.0.0.1
PORT    ?= 8000
export DEBUG ?= 1

.PHONY: run worker test test-sqlite test-postgres lint install install-dev system-deps migrate demo bench clean

$(BIN)/activate:
	$(PY) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# Stamp files keep re-runs fast: pip only runs when a requirements file changed.
$(VENV)/.installed: requirements.txt | $(BIN)/activate
	$(PIP) install -q -r requirements.txt
	touch $@

# llama.cpp's server for the real-model tests is built for any x86-64 with AVX2, not for this CPU: a native build (the
# default) uses every instruction the CPU reports, and where the host does not let a process use one (AMX in a
# sandbox) the server dies with SIGILL on its first request. --no-cache-dir: never a wheel built natively before.
ifeq ($(shell uname -m),x86_64)
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
else
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF
endif

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/activate
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PIP) install -q --no-cache-dir "$$(grep -m1 '^llama-cpp-python' requirements-dev.txt)"
	$(PIP) install -q -r requirements-dev.txt
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

system-deps:
	bash scripts/system-deps.sh

# Local development settings for the README's commands (DEBUG and a random SECRET_KEY); never overwritten.
.env:
	$(PY) -c "import secrets; print('DEBUG=1'); print('SECRET_KEY=dev-' + secrets.token_urlsafe(40))" > $@

migrate: install .env
	$(PYTHON) manage.py migrate --noinput

demo: migrate
	$(PYTHON) manage.py loaddemo
	# vectors for chunks ingested while RAG_EMBEDDER was none (a no-op otherwise)
	$(PYTHON) manage.py rag_embed
	# tokens of a corpus indexed before the current index format (title and section path, initialisms
	# of names; a no-op otherwise)
	$(PYTHON) manage.py rag_reindex

# The web server and a Celery worker beside it (broker: a SQLite file under var/, no server needed);
# Ctrl-C stops both.
run: demo
	$(PYTHON) scripts/run_with_worker.py $(HOST):$(PORT)

# A worker alone, as a worker node runs it (docs/DEPLOYMENT.md).
worker: install .env
	$(PYTHON) -m celery -A config worker --loglevel INFO

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test-sqlite: install-dev system-deps
	RAG_TEST_DB=sqlite $(BIN)/pytest -q

test-postgres: install-dev
	RAG_TEST_DB=postgres $(BIN)/pytest -q -m "not browser"

test: lint test-sqlite test-postgres

bench: install-dev
	$(PYTHON) bench/run_all.py

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache .mypy_cache .ruff_cache
