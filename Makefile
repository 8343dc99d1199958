# The two commands: `make plan` (offline plan of a stack, default dev) and `make test` (every check).
# Both create venv/ (the virtualenv Pulumi.yaml names) from the pinned requirements when needed.

PYTHON ?= python3
STACK ?= dev
# A cloud snapshot (make snapshot) that answers the plan's preflight; none: preflight skipped.
SNAPSHOT ?=
SNAPSHOT_ARG := $(if $(SNAPSHOT),--cloud-snapshot $(SNAPSHOT),)
# The base branch's plan document (gke-tpu-plan --json): the report compares with it.
BASELINE ?=
BASELINE_ARG := $(if $(BASELINE),--baseline $(BASELINE),)
VENV := venv
PY := $(VENV)/bin/python
# The offline plan's console script, installed with the package.
PLAN := $(VENV)/bin/gke-tpu-plan
# Repository upkeep (tools/gke_tpu_upkeep): goldens, generated docs and Args, scans, mutants.
UPKEEP := PYTHONPATH=tools $(PY) -m gke_tpu_upkeep

.DEFAULT_GOAL := help
.PHONY: help plan fleet plan-workloads report snapshot test lint typecheck pytest scan bench goldens schema docs kube-schemas catalog prices mutants package-check clean

help:
	@echo "make plan [STACK=dev]  offline plan of a stack (no cloud, no Pulumi CLI)"
	@echo "make fleet [STACKS=dev,prod] [SNAPSHOTS='a.json b.json']  every stack planned in one run:"
	@echo "                       build/fleet/fleet.json and build/fleet/fleet.md (cost, quota, conflicts)"
	@echo "make plan-workloads    the infra plan, then the app plan (examples/ml-workloads) from it"
	@echo "make report [STACK=dev] [BASELINE=base.json]  the plan as Markdown for a pull request:"
	@echo "                       build/reports/<stack>.md; BASELINE: what it changes against"
	@echo "                       the base branch's plan document (resources, cost)"
	@echo "make snapshot [STACK=dev] [GCLOUD=gcloud]  record the stack's project for preflight"
	@echo "                       with gcloud: build/snapshots/<stack>.json (then SNAPSHOT=<it>)"
	@echo "make test              lint, type check, tests and the security scan"
	@echo "make bench             scale figures of the offline plan, the fleet plan, the config checks"
	@echo "                       and a workload plan of 64 serving groups"
	@echo "make goldens           rewrite the golden plans after reviewing a change"
	@echo "make schema            rewrite the components' generated Args (src/gke_tpu/components/inputs.py),"
	@echo "                       components/schema.json and docs/api.md after reviewing an API change"
	@echo "make docs              rewrite the generated parts of README.md and docs/"
	@echo "make kube-schemas      rewrite the schemas the plan checks Kubernetes objects against"
	@echo "                       (src/gke_tpu/preview/objects/): the OpenAPI of each supported minor"
	@echo "                       from kubernetes-validate, the vendored CRDs compiled"
	@echo "make catalog           rewrite the catalog tables generated from vendored definitions"
	@echo "                       (gcsfuse's options, from tools/third_party/gcsfuse/params.yaml)"
	@echo "make mutants [MODULES=planning|<files>] [BASE=main] [SAMPLE=60] [SEED=<new each pass>] [BUDGET=900]"
	@echo "                       a sampled mutation pass over the modules changed against BASE;"
	@echo "                       RERUN=build/mutants-survivors.txt runs the last pass's survivors"
	@echo "make prices [WRITE=1]  (online, GCP_BILLING_API_KEY) the price tables from the Cloud"
	@echo "                       Billing Catalog API: the diff; WRITE=1 rewrites src/gke_tpu/catalog/*_prices.csv"

# The pinned closure, then gke-tpu itself as an app installs it, editable (src/ is live) and
# without dependencies (the pins above are them): the program, tests and tools import the package.
$(VENV)/.runtime: requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is required")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

CHECKOV_VENV := .tools/checkov

$(CHECKOV_VENV)/.installed: tools/security/requirements-checkov.txt
	test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r tools/security/requirements-checkov.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

plan: $(VENV)/.runtime
	$(PLAN) --stack $(STACK) $(SNAPSHOT_ARG)

# The stacks of the fleet plan (default: every Pulumi.<stack>.yaml) and its cloud snapshots.
STACKS ?=
SNAPSHOTS ?=
FLEET_ARGS := $(if $(STACKS),--stacks $(STACKS),) $(foreach s,$(SNAPSHOTS),--cloud-snapshot $(s))

fleet: $(VENV)/.runtime
	$(PLAN) --fleet $(FLEET_ARGS) --json build/fleet/fleet.json --markdown build/fleet/fleet.md

APP := examples/ml-workloads

plan-workloads: $(VENV)/.runtime
	mkdir -p build/plans
	$(PLAN) --stack $(STACK) --json build/plans/$(STACK).json --manifests build/manifests/$(STACK)
	$(PLAN) --project-dir $(APP) --stack $(STACK) \
		--stack-reference build/plans/$(STACK).json \
		--json build/plans/ml-workloads-$(STACK).json --manifests build/manifests/ml-workloads-$(STACK)

report: $(VENV)/.runtime
	$(PLAN) --stack $(STACK) $(SNAPSHOT_ARG) $(BASELINE_ARG) --markdown build/reports/$(STACK).md > /dev/null
	@echo "wrote build/reports/$(STACK).md"

# The snapshot's project and region default to the stack's own (the only ones it accepts).
GCLOUD ?= gcloud
SNAPSHOT_WHERE := $(if $(PROJECT),--project $(PROJECT),) $(if $(REGION),--region $(REGION),)

snapshot: $(VENV)/.runtime
	$(PY) -m gke_tpu.preview.snapshot.record --stack $(STACK) $(SNAPSHOT_WHERE) --gcloud $(GCLOUD)

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.dev
	$(VENV)/bin/pyright

scan: $(VENV)/.runtime $(CHECKOV_VENV)/.installed
	$(UPKEEP).security_scan --checkov $(CHECKOV_VENV)/bin/checkov

pytest: $(VENV)/.dev
	$(PY) -m pytest -n auto

# gke-tpu installed outside the repository as an app installs it; both examples planned from
# copies (tools/gke_tpu_upkeep/package_check.py).
package-check: $(VENV)/.runtime
	$(UPKEEP).package_check

test: lint typecheck scan pytest package-check

goldens: $(VENV)/.runtime
	$(UPKEEP).goldens

schema: $(VENV)/.runtime
	$(UPKEEP).component_args
	$(UPKEEP).schema

docs: $(VENV)/.runtime
	$(UPKEEP).generated_docs

kube-schemas: $(VENV)/.dev
	$(UPKEEP).kubernetes_schemas
catalog: $(VENV)/.runtime
	$(UPKEEP).gcsfuse_params

# Files or folders to mutate (planning: the planning code); default the files changed since BASE.
MODULES ?=
BASE ?= main
MUTANTS_ARGS := $(if $(MODULES),--modules $(MODULES),--base $(BASE)) $(if $(SAMPLE),--sample $(SAMPLE),) \
	$(if $(SEED),--seed $(SEED),) $(if $(BUDGET),--budget $(BUDGET),) $(if $(RERUN),--rerun $(RERUN),)

mutants: $(VENV)/.dev
	$(UPKEEP).mutants $(MUTANTS_ARGS)

prices: $(VENV)/.runtime
	$(UPKEEP).prices $(if $(WRITE),--write,)

bench: $(VENV)/.runtime
	$(PY) tools/bench/validation_scale.py
	$(PY) tools/bench/plan_scale.py
	$(PY) tools/bench/package_overhead.py
	$(PY) tools/bench/fleet_scale.py
	$(PY) tools/bench/goodput_overhead.py
	$(PY) tools/bench/object_check_overhead.py
	$(PY) tools/bench/capacity_scale.py
	$(PY) tools/bench/sub_block_scale.py
	$(PY) tools/bench/multi_host_scale.py

clean:
	rm -rf $(VENV) .tools build .pytest_cache .ruff_cache
