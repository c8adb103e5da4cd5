# sapfor: top-level entry points. Every target works from a clean clone with
# no standard input (CI runs `make test` through .ci/run).
#
#   make build   debug build of the whole workspace (binary: sapfor, with the GUI)
#   make demo    set-up, release build, analyze and parallelize the Jacobi sample
#   make gui     release build with the GUI, open `sapfor gui` on the Jacobi sample
#   make test    set-up, cargo test --workspace, GUI tests, end-to-end checks
#   make e2e     end-to-end checks only (scripts/e2e.sh)
#   make bench   sapfor analyze vs gfortran -fsyntax-only (bench/)
#   make bench-runtime  2-D Jacobi, 3-D heat: sapfor run vs gfortran -O2 and MPI
#   make bench-gpu      accelerator traffic of the samples against the minimum
#   make fuzz    10*N mutants of the samples through the pipeline (no panic), then the
#                differential fuzzer: N=1000 random programs from SEED=1 (scripts/fuzz.py)
#   make setup   install missing Debian packages (scripts/setup.sh)
#
# Build directory: an externally set CARGO_TARGET_DIR is respected. If it is
# unset and a writable directory /var/cache/sapfor-target exists, that one is
# used, so that a machine which keeps it between sessions rebuilds less. This
# is only an optimisation and is never relied upon: without it the build goes
# to ./target as usual.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PERSISTENT_TARGET := /var/cache/sapfor-target
ifeq ($(strip $(CARGO_TARGET_DIR)),)
  ifeq ($(shell test -d $(PERSISTENT_TARGET) && test -w $(PERSISTENT_TARGET) && echo yes),yes)
    CARGO_TARGET_DIR := $(PERSISTENT_TARGET)
  endif
endif
ifneq ($(strip $(CARGO_TARGET_DIR)),)
  CARGO_TARGET_DIR := $(abspath $(CARGO_TARGET_DIR))
  export CARGO_TARGET_DIR
endif
TARGET_DIR := $(if $(strip $(CARGO_TARGET_DIR)),$(CARGO_TARGET_DIR),$(CURDIR)/target)

# --locked when Cargo.lock is committed (it is: sapfor is an application).
LOCKED := $(if $(shell git -C $(CURDIR) ls-files --error-unmatch Cargo.lock 2>/dev/null),--locked,)

CARGO ?= cargo
RELEASE_BIN := $(TARGET_DIR)/release/sapfor
DEMO_FILE := samples/jacobi/jac.f
DEMO_OUT := $(or $(TMPDIR),/tmp)/sapfor-demo

.PHONY: help setup build build-release demo gui test e2e bench bench-runtime bench-gpu fuzz fuzz-ci

help:
	@sed -n '4,14p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'
	@echo "target dir: $(TARGET_DIR)"

setup:
	bash scripts/setup.sh </dev/null

# The CLI crates build without egui; the `gui` feature adds the desktop dialog to the same
# binary (target/debug/sapfor then has `sapfor gui`).
build:
	$(CARGO) build --workspace $(LOCKED)
	$(CARGO) build -p sapfor-rt $(LOCKED)
	$(CARGO) build -p shell-gui --features gui $(LOCKED)

build-release:
	$(CARGO) build --release -p shell-gui -p sapfor-rt $(LOCKED)

demo: setup build-release
	@echo "== sapfor analyze $(DEMO_FILE)"
	$(RELEASE_BIN) analyze $(DEMO_FILE)
	@echo "== sapfor analyze --dump cfg $(DEMO_FILE)"
	$(RELEASE_BIN) analyze --dump cfg $(DEMO_FILE)
	@echo "== sapfor --auto $(DEMO_FILE) --procs 100 (writes $(DEMO_OUT)/jac.fdv)"
	mkdir -p $(DEMO_OUT)
	$(RELEASE_BIN) --auto $(DEMO_FILE) --procs 100 --out-dir $(DEMO_OUT) --db $(DEMO_OUT)/sapfor.db
	@echo "== the directives in $(DEMO_OUT)/jac.fdv"
	grep -n 'DVM' $(DEMO_OUT)/jac.fdv
	@echo "== sapfor verify $(DEMO_OUT)/jac.fdv (GET_ACTUAL/ACTUAL/IN/OUT checked)"
	$(RELEASE_BIN) verify $(DEMO_OUT)/jac.fdv
	@echo "== sapfor run jac.fdv --np 2 in $(DEMO_OUT) (prints what the sequential program prints)"
	cd $(DEMO_OUT) && $(RELEASE_BIN) run jac.fdv --np 2 </dev/null
	@echo "== the same on the emulated accelerator (the regions' CUDA C kernels compiled for the CPU), with the traffic report"
	cd $(DEMO_OUT) && $(RELEASE_BIN) run jac.fdv --devices emu --profile accel.txt </dev/null
	grep -E 'accelerator|region|outside' $(DEMO_OUT)/accel.txt

gui: setup
	$(CARGO) build --release -p shell-gui --features gui -p sapfor-rt $(LOCKED)
	mkdir -p $(DEMO_OUT)
	$(RELEASE_BIN) --auto $(DEMO_FILE) --procs 4 --out-dir $(DEMO_OUT) --db $(DEMO_OUT)/sapfor.db
	$(RELEASE_BIN) gui --db $(DEMO_OUT)/sapfor.db

test: setup
	$(CARGO) build -p sapfor-rt $(LOCKED) </dev/null
	$(CARGO) test --workspace $(LOCKED) </dev/null
	XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} $(CARGO) test -p shell-gui --features gui-snapshots --lib --test gui --test snapshots $(LOCKED) </dev/null
	bash scripts/e2e.sh </dev/null
	$(MAKE) --no-print-directory fuzz-ci

# The differential fuzzer (scripts/fuzz.py): random programs through sapfor --auto and
# sapfor run in many configurations against gfortran's build; wrong or failed programs are
# reduced and kept in fuzz-out/.
N ?= 1000
SEED ?= 1
fuzz: setup
	$(CARGO) build -p shell-gui -p sapfor-rt $(LOCKED) </dev/null
	SAPFOR_MUTANTS=$$(( $(N) * 10 )) SAPFOR_MUTANTS_SEED=$(SEED) $(CARGO) test -p shell-gui --test mutants $(LOCKED) </dev/null
	python3 scripts/fuzz.py --count $(N) --seed $(SEED) --out fuzz-out </dev/null

# CI's fixed-seed batch: 100 programs, 4 configurations each (a few minutes on 2 cores)
fuzz-ci:
	$(CARGO) build -p shell-gui -p sapfor-rt $(LOCKED) </dev/null
	python3 scripts/fuzz.py --quick --count 100 --seed 1 --no-reduce --out $(or $(TMPDIR),/tmp)/sapfor-fuzz-ci </dev/null

e2e: setup
	bash scripts/e2e.sh </dev/null

bench: setup
	bash bench/analyze_bench.sh </dev/null

bench-runtime: setup
	bash bench/runtime_bench.sh </dev/null

bench-gpu: setup
	bash bench/gpu_traffic.sh </dev/null
