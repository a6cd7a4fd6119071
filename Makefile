# The two entry points of the README. Everything else is CMake.
BUILD ?= build
MAKEFLAGS += --no-print-directory
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all setup build run test clean

all: build

setup:
	@sh scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/orrery render -o orrery.png
	@echo "wrote orrery.png"

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
