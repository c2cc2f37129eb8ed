# coil: a plain Makefile.  `make`, `make check`, `make bench`, `make asan`.
CC      ?= cc
OPT     ?= -O2 -g
SAN     ?=
CFLAGS  = $(OPT) $(SAN) -Isrc -std=c11 -Wall -Wextra -Wpedantic -Wno-unused-parameter -fPIC -fopenmp
LDLIBS  = -lcrypto -ldl -lm
BUILD   ?= build

# The compiler's stages are flat in src/; each target, the executor and the
# commands are a folder (docs/architecture.md).  Sources name headers from
# src/ ("cpu/cpu.h"), so every file builds with -Isrc.
LIBSRC  = $(filter-out src/cmd/main.c,$(wildcard src/*.c src/*/*.c))
LIBOBJ  = $(LIBSRC:src/%.c=$(BUILD)/obj/%.o)
HDRS    = $(wildcard src/*.h src/*/*.h)
TESTSRC = $(wildcard tests/unit/*.c)
TESTBIN = $(TESTSRC:tests/unit/%.c=$(BUILD)/test/%)
# Programs of the public API (include/coil.h) see only that header, as a
# user's program does: built without -Isrc.
APICFLAGS = $(OPT) $(SAN) -Iinclude -std=c11 -Wall -Wextra -Wpedantic -pthread
APIBIN  = $(BUILD)/test/api_test $(BUILD)/examples/rms_grad
# The Python package, importable from $(BUILD)/python for the tests (`pip
# install .` builds the same extension through setup.py).  Built where a
# python3 with its headers is found.
PYTHON  ?= python3
PYINC   := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_paths()['include'])" 2>/dev/null)
PYEXT   := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))" 2>/dev/null)
PYSRC   = $(wildcard python/coil/*.py)
PYPKG   = $(if $(and $(PYEXT),$(wildcard $(PYINC)/Python.h)),$(BUILD)/python/coil/_C$(PYEXT) $(PYSRC:python/%=$(BUILD)/python/%) $(BUILD)/python/.metadata-stamp)

all: $(BUILD)/coil $(BUILD)/libcoil.a $(BUILD)/libcoil.so $(TESTBIN) $(APIBIN) $(PYPKG)

$(BUILD)/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libcoil.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/libcoil.so: $(LIBOBJ)
	$(CC) $(CFLAGS) -shared -o $@ $^ $(LDLIBS)

$(BUILD)/coil: $(BUILD)/obj/cmd/main.o $(BUILD)/libcoil.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/test/%: tests/unit/%.c $(BUILD)/libcoil.a $(HDRS) tests/unit/unit.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libcoil.a $(LDLIBS)

$(BUILD)/test/api_test: tests/api/api_test.c include/coil.h $(BUILD)/libcoil.a
	@mkdir -p $(dir $@)
	$(CC) $(APICFLAGS) -o $@ $< $(BUILD)/libcoil.a -fopenmp $(LDLIBS)

$(BUILD)/examples/%: examples/api/%.c include/coil.h $(BUILD)/libcoil.a
	@mkdir -p $(dir $@)
	$(CC) $(APICFLAGS) -o $@ $< $(BUILD)/libcoil.a -fopenmp $(LDLIBS)

$(BUILD)/python/coil/_C$(PYEXT): python/coil/_C.c include/coil.h $(BUILD)/libcoil.a
	@mkdir -p $(dir $@)
	$(CC) $(APICFLAGS) -Wno-unused-parameter -I$(PYINC) -fPIC -shared -o $@ $< $(BUILD)/libcoil.a -fopenmp $(LDLIBS)

$(BUILD)/python/coil/%.py: python/coil/%.py
	@mkdir -p $(dir $@)
	cp $< $@

# The entry points of pyproject.toml beside the package, as `pip install`
# registers them: backend="coil" with no import, from the build tree too.
$(BUILD)/python/.metadata-stamp: pyproject.toml tools/dist_info.py
	$(PYTHON) tools/dist_info.py pyproject.toml $(BUILD)/python
	@touch $@

check: all
	@SKIP_SUITES="$(SKIP_SUITES)" sh tests/run.sh $(BUILD)

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
# The Python suite runs in `make check` only: an extension built with ASan
# cannot load into a Python that was not started with its runtime.  The
# Triton modules are emitted by the sanitized coil but not run under
# Triton's interpreter again (COIL_EMIT_ONLY: tests/suites/triton_emit.sh).
check-asan:
	COIL_EMIT_ONLY=1 $(MAKE) BUILD=build/asan OPT="-O1 -g" SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" PYPKG= SKIP_SUITES=python check

# libFuzzer targets (clang): the front end and the Triton executor's parser.
# `make fuzz` runs each for FUZZ_SECONDS with AddressSanitizer and UBSan,
# seeded from the repository's own Python files (new finds go to a temp dir).
FUZZCC      ?= clang
FUZZ_SECONDS ?= 60
# -DTX_NO_SIMD: the executor asks for no vectorization that UBSan's checks
# would make impossible (src/tx/tx.h); the targets fuzz parsers, not speed.
FUZZFLAGS   = -g -O1 -std=c11 -fopenmp -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DTX_NO_SIMD
FUZZTARGETS = $(BUILD)/fuzz/fuzz_frontend $(BUILD)/fuzz/fuzz_triton

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIBSRC) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZCC) $(FUZZFLAGS) -Isrc -o $@ $< $(LIBSRC) $(LDLIBS)

# A 64 MB stack: lowering recurses once per node of a chain, and under ASan
# a chain near the front end's 10000-op limit (a mutated tests/errors/
# too_many_ops.py, CI on 2026-12-02) needs more than 8 MB; a plain build lowers a 9990-op chain
# within 8 MB.
fuzz: $(FUZZTARGETS)
	@ulimit -s 65536; for t in frontend triton; do \
	  work=$$(mktemp -d); \
	  case $$t in frontend) seeds="examples tests/run tests/errors tests/golden";; *) seeds=tests/triton;; esac; \
	  echo "== fuzz_$$t for $(FUZZ_SECONDS) s (seed corpus: $$seeds)"; \
	  $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
	    -print_final_stats=1 $$work $$seeds >$$work.log 2>&1; \
	  rc=$$?; tail -n 12 $$work.log; rm -rf $$work $$work.log; \
	  [ $$rc -eq 0 ] || { echo "fuzz_$$t FAILED"; exit 1; }; \
	done

# make bench BENCH_ARGS=--huge-pages: the same table on transparent huge pages.
bench: all
	@sh bench/run.sh $(BUILD) $(BENCH_ARGS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(BUILD)/coil $(DESTDIR)$(PREFIX)/bin/coil
	install -m 644 $(BUILD)/libcoil.a $(BUILD)/libcoil.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/coil.h $(DESTDIR)$(PREFIX)/include/coil.h

clean:
	rm -rf build

PREFIX ?= /usr/local
.PHONY: all check check-asan bench install clean fuzz
