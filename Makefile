# Two commands on a fresh machine: `make plan` (the offline plan of research-a100) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STACK ?= research-a100
FORMAT ?= text

.PHONY: plan test install schema bench clean

# `make plan` needs only what the program and the packs run on (requirements.txt); the tests add their toolchain
# and the independent data they check facts against (requirements-dev.txt, which includes the sizing advisor's
# forecasting library, requirements-advisor.txt).
$(VENV)/.runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed: $(VENV)/.runtime requirements-dev.txt requirements-advisor.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

# promtool checks and unit-tests the GPU alert rules. Only the binary is taken from Debian's prometheus package
# (bookworm's 2.42.0): nothing is installed system-wide and no service starts.
PROMTOOL := tools/bin/promtool
$(PROMTOOL):
	rm -rf tools/.deb && mkdir -p tools/bin tools/.deb
	cd tools/.deb && (apt-get download prometheus || (apt-get update -qq && apt-get download prometheus))
	dpkg-deb -x tools/.deb/prometheus_*.deb tools/.deb/root
	cp tools/.deb/root/usr/bin/promtool $@
	rm -rf tools/.deb

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(VENV)/.installed node_modules/.installed $(PROMTOOL)

plan: $(VENV)/.runtime
	$(PY) -m blueprints plan --stack $(STACK) --format $(FORMAT)

test: install
	$(PY) -m pytest -q

schema: install
	$(PY) -m blueprints schema --output stack-config.schema.json

bench: install
	$(PY) benchmarks/plan_time.py
	$(PY) benchmarks/policy_rate.py
	$(PY) benchmarks/size_time.py
	$(PY) benchmarks/versus_checkov.py

clean:
	rm -rf $(VENV) node_modules .pytest_cache tools
