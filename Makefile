# mlsopt: the two commands are `make demo` and `make check`. Both install what is
# missing and build first, so each works on a fresh machine.

BUILD_DIR   ?= build
BUILD_TYPE  ?= Release
LLVM_PREFIX ?= /usr/lib/llvm-22
PYTHON      ?= python3
# The Python extension is built for the interpreter that runs the tests (its
# real path: pyenv's python3 on PATH is a shim script).
PYTHON_EXE  := $(shell $(PYTHON) -c 'import sys; print(sys.executable)' 2>/dev/null)
JOBS        ?= $(shell nproc)

CMAKE_FLAGS := -G Ninja \
  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
  -DMLIR_LINK_MLIR_DYLIB=ON \
  -DLLVM_USE_LINKER=lld \
  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DPython_EXECUTABLE=$(PYTHON_EXE)

.PHONY: all deps configure build check check-docs check-lit check-unit check-python check-asan fuzz demo bench bench-gpu docs clean

all: build

deps:
	@PYTHON=$(PYTHON) bash scripts/install-deps.sh

# Reconfigures when this file changes, so that new flags reach old build dirs.
$(BUILD_DIR)/build.ninja: Makefile
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

check: build
	$(MAKE) --no-print-directory check-docs check-lit check-unit check-python

check-lit:
	cmake --build $(BUILD_DIR) --target check-mlsopt

check-unit:
	ctest --test-dir $(BUILD_DIR) --output-on-failure

check-python:
	MLSOPT_BUILD_DIR=$(abspath $(BUILD_DIR)) PYTHONPATH=$(abspath $(BUILD_DIR))/python \
	  $(PYTHON) -m pytest -q python/tests

# The lit and unit suites again, in $(ASAN_BUILD_DIR), built with AddressSanitizer
# and UndefinedBehaviorSanitizer (a second full build; docs/reliability.md).
# The Python extension is left out: it would have to be loaded into an
# unsanitized interpreter.
ASAN_BUILD_DIR ?= build-asan
check-asan: deps
	cmake -S . -B $(ASAN_BUILD_DIR) $(CMAKE_FLAGS) -DMLSOPT_ENABLE_SANITIZERS=ON \
	  -DMLSOPT_BUILD_PYTHON=OFF
	cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)
	cmake --build $(ASAN_BUILD_DIR) --target check-mlsopt
	ctest --test-dir $(ASAN_BUILD_DIR) --output-on-failure

# libFuzzer runs of the fuzz targets (fuzz/, docs/reliability.md): build-fuzz
# is built with Debian's clang-22, coverage instrumentation, ASan and UBSan;
# each target then runs for FUZZ_SECONDS. `make check` only replays the seed
# corpora (test/Fuzz).
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS   ?= 300
fuzz:
	@PYTHON=$(PYTHON) MLSOPT_FUZZ_DEPS=1 bash scripts/install-deps.sh
	cmake -S . -B $(FUZZ_BUILD_DIR) $(CMAKE_FLAGS) \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DMLSOPT_ENABLE_SANITIZERS=ON -DLLVM_USE_SANITIZE_COVERAGE=ON \
	  -DMLSOPT_BUILD_PYTHON=OFF -DMLSOPT_BUILD_UNITTESTS=OFF
	cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target mlsopt-fuzzers
	bash scripts/fuzz.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS)

demo: build
	@bash scripts/demo.sh $(BUILD_DIR)

# Searches, verifies and lowers the twelve benchmark cases on the CPU; writes
# $(BUILD_DIR)/bench/search.json and search.md (bench/README.md).
bench: build
	$(PYTHON) bench/search.py --build-dir $(BUILD_DIR)

# Prepares the GPU benchmark (PTX and launch plans of every case, searched
# and unfused) and checks it without a GPU; bench/gpu/run.sh runs it on one.
bench-gpu: build
	bash bench/gpu/prepare.sh $(BUILD_DIR)
	$(PYTHON) bench/gpu/prepare_checks.py --build-dir $(BUILD_DIR)
	MLSOPT_GPU_ARTIFACTS=$(BUILD_DIR)/bench/gpu bash bench/gpu/run.sh --dry-run
	$(PYTHON) bench/gpu/check.py --checks $(BUILD_DIR)/bench/gpu-checks --dry-run

# Regenerates the dialect and pass reference in docs/ from the ODS definitions.
docs: build
	cmake --build $(BUILD_DIR) --target mlir-doc
	mkdir -p docs/dialects docs/passes
	cp $(BUILD_DIR)/docs/Dialects/*.md docs/dialects/
	cp $(BUILD_DIR)/docs/Passes/*.md docs/passes/

# Fails when docs/ is older than the ODS it is generated from.
check-docs:
	cmake --build $(BUILD_DIR) --target mlir-doc
	diff -r $(BUILD_DIR)/docs/Dialects docs/dialects
	diff -r $(BUILD_DIR)/docs/Passes docs/passes

clean:
	rm -rf $(BUILD_DIR)
