# coil: a plain Makefile.  `make`, `make check`, `make bench`, `make asan`.
CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Wpedantic -Wno-unused-parameter -fPIC -fopenmp
LDLIBS  = -lcrypto -ldl -lm
BUILD   ?= build

LIBSRC  = $(filter-out src/main.c,$(wildcard src/*.c))
LIBOBJ  = $(LIBSRC:src/%.c=$(BUILD)/obj/%.o)
HDRS    = $(wildcard src/*.h)
TESTSRC = $(wildcard tests/unit/*.c)
TESTBIN = $(TESTSRC:tests/unit/%.c=$(BUILD)/test/%)

all: $(BUILD)/coil $(BUILD)/libcoil.a $(BUILD)/libcoil.so $(TESTBIN)

$(BUILD)/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libcoil.a: $(LIBOBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/libcoil.so: $(LIBOBJ)
	$(CC) $(CFLAGS) -shared -o $@ $^ $(LDLIBS)

$(BUILD)/coil: $(BUILD)/obj/main.o $(BUILD)/libcoil.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/test/%: tests/unit/%.c $(BUILD)/libcoil.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(BUILD)/libcoil.a $(LDLIBS)

check: all
	@sh tests/run.sh $(BUILD)

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
check-asan:
	$(MAKE) BUILD=build/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" check

bench: all
	@sh bench/run.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(BUILD)/coil $(DESTDIR)$(PREFIX)/bin/coil
	install -m 644 $(BUILD)/libcoil.a $(BUILD)/libcoil.so $(DESTDIR)$(PREFIX)/lib/

clean:
	rm -rf build

PREFIX ?= /usr/local
.PHONY: all check check-asan bench install clean
