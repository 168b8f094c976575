# Two commands on a fresh machine: `make plan` (the offline plan of research-a100) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STACK ?= research-a100
FORMAT ?= text
ARGS ?=
EXIT_MEANING := 1 = mandatory findings or blocking readiness gaps, 2 = bad input, 3 = the program failed

.PHONY: plan test fmt install schema bench fuzz clean

# `make plan` needs only what the program and the packs run on (requirements.txt); the tests add their toolchain
# and the independent data they check facts against (requirements-dev.txt, which includes the sizing advisor's
# forecasting library, requirements-advisor.txt). Silent and on standard error: `make plan FORMAT=json > plan.json`
# may build the venv first.
$(VENV)/.runtime: requirements.txt
	@echo "installing $(VENV) (requirements.txt)" >&2
	@$(PYTHON) -m venv $(VENV) >&2
	@$(PY) -m pip install --quiet --upgrade pip >&2
	@$(PY) -m pip install --quiet -r requirements.txt >&2
	@touch $@

$(VENV)/.installed: $(VENV)/.runtime requirements-dev.txt requirements-advisor.txt
	@echo "installing the test toolchain into $(VENV) (requirements-dev.txt)" >&2
	@$(PY) -m pip install --quiet -r requirements-dev.txt >&2
	@touch $@

# promtool checks and unit-tests the GPU alert rules. Only the binary is taken from Debian's prometheus package
# (bookworm's 2.42.0): nothing is installed system-wide and no service starts.
PROMTOOL := tools/bin/promtool
$(PROMTOOL):
	rm -rf tools/.deb && mkdir -p tools/bin tools/.deb
	cd tools/.deb && (apt-get download prometheus || (apt-get update -qq && apt-get download prometheus))
	dpkg-deb -x tools/.deb/prometheus_*.deb tools/.deb/root
	cp tools/.deb/root/usr/bin/promtool $@
	rm -rf tools/.deb

# amtool checks the rendered Alertmanager configuration and tests its routes; only the binary is taken from
# Debian's prometheus-alertmanager package (bookworm's 0.25.0), as for promtool.
AMTOOL := tools/bin/amtool
$(AMTOOL):
	rm -rf tools/.amdeb && mkdir -p tools/bin tools/.amdeb
	cd tools/.amdeb && (apt-get download prometheus-alertmanager || \
		(apt-get update -qq && apt-get download prometheus-alertmanager))
	dpkg-deb -x tools/.amdeb/prometheus-alertmanager_*.deb tools/.amdeb/root
	cp tools/.amdeb/root/usr/bin/amtool $@
	rm -rf tools/.amdeb

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(VENV)/.installed node_modules/.installed $(PROMTOOL) $(AMTOOL)

# `@`: make must not echo the command into the plan (FORMAT=json must be JSON alone on stdout).
# GNU make exits 2 whenever a recipe fails, whatever its status (tested: exit 1 and exit 3 both give
# 2), so make cannot pass 1 (findings) and 2 (bad input) through. The recipe says on standard error
# which it was; scripts that branch on the code run `.venv/bin/python -m blueprints plan` directly.
plan: $(VENV)/.runtime
	@$(PY) -m blueprints plan --stack $(STACK) --format $(FORMAT) $(ARGS) || { code=$$?; \
	  echo "make plan: blueprints plan exited $$code ($(EXIT_MEANING)); make itself exits 2" >&2; exit $$code; }

# Lint and format check first (ruff, pinned in requirements-dev.txt, configured in pyproject.toml): a dev
# dependency only, so `make plan` does not install it.
# The tests run in TEST_WORKERS processes (pytest-xdist, pinned in requirements-dev.txt), a test file per worker
# (`--dist loadfile`: a file's module fixtures are set up once), handed out in collection order
# (`--no-loadscope-reorder`: tests/conftest.py puts the files with long tests first). On the 2-core machine two
# workers were faster than one (docs/benchmarks.md, issue #42); TEST_WORKERS=0 runs them in this one process.
TEST_WORKERS ?= 2
test: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -q $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder)

# Applies what `make test` checks: the linter's fixes (import order, ...), then the formatter over them.
fmt: $(VENV)/.installed
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

schema: install
	$(PY) -m blueprints schema --output stack-config.schema.json

# The CLI's property-based tests (tests/hostile/cli_fuzz.py) for FUZZ_SECONDS (default 600) under a memory limit:
# generated stack files, argument vectors and plan JSON; the seed is printed first (rerun one with SEED=<seed>).
# `make test` runs a short, derandomized pass of the same properties (tests/test_fuzz.py).
FUZZ_SECONDS ?= 600
SEED ?=
fuzz: install
	$(PY) tests/hostile/cli_fuzz.py --seconds $(FUZZ_SECONDS) $(if $(SEED),--seed $(SEED))

bench: install
	$(PY) benchmarks/plan_time.py
	$(PY) benchmarks/policy_rate.py
	$(PY) benchmarks/size_time.py
	$(PY) benchmarks/versus_checkov.py
	$(PY) benchmarks/models_scaling.py
	$(PY) benchmarks/plan_profile.py

clean:
	rm -rf $(VENV) node_modules .pytest_cache tools
