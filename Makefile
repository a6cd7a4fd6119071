# The two entry points of the README. Everything else is CMake.
BUILD ?= build
MAKEFLAGS += --no-print-directory
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all setup build run test install docs clean

all: build

setup:
	@sh scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/orrery render -o orrery.png --views 4 --size 1280x360
	@echo "wrote orrery.png"

# After the run, one line per CTest entry with skipped tests, naming them and why (tests/testutil.c).
test: build
	@rm -f $(BUILD)/Testing/skipped/*.txt
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS); status=$$?; \
	  cmake -DDIR=Testing/skipped -P $(CURDIR)/cmake/skipped.cmake; exit $$status

# The API reference from the headers (build/docs/html); doxygen is installed by scripts/setup.sh.
docs:
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) --target docs

# Installs the library, headers, CMake package and pkg-config files: make install PREFIX=/opt/orrery
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
