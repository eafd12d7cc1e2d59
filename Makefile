# Two targets a user needs: `make run` and `make test`. Both create .venv on
# first use and (re)install only when pyproject.toml changed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test fast check bench parser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,fast]'
	@touch $(STAMP)

# the engine's hottest modules compiled by mypyc into build/fast (runtime/compiled.py), rebuilt when a
# source of the runtime package changed; without a C compiler the engine runs as plain Python
fast: $(STAMP)
	$(PY) -m runtime.compile --if-stale

run: fast
	$(VENV)/bin/hexforge start games/smolensk

test: fast
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -n auto  # one worker a core (pytest-xdist)

check: $(STAMP)
	$(VENV)/bin/hexforge check games/smolensk
	$(VENV)/bin/hexforge check games/barbarossa-postcard

# dsl/hxr_parser.py is generated from dsl/hxr.lark: run this after editing the
# grammar (a test fails while they disagree).
parser: $(STAMP)
	$(PY) -m dsl.parser_gen

bench: fast
	$(PY) bench/run.py --json

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build
