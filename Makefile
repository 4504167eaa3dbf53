# gpumap build and test entry points. See README.md and DEVELOPERS.md.
#
#   make deps    install missing system packages (needs root; apt)
#   make build   the gpumap command (bin/gpumap, free of MPI), the distributed
#                gpumap-mpi (bin/gpumap-mpi; MPI=mpich: build/mpich/bin) and
#                every Go package
#   make lib     libgpumap.so/.a, gpumap.h, the Fortran module, gpumap.pc,
#                libgpumap_topo.so (the topology interposer)
#   make install PREFIX=/usr/local   (and make uninstall): cabi/install/install.sh
#   make test    everything above, then the unit tests and the mpirun tests
#   make fuzz    each fuzz target for FUZZTIME (30s); make test runs their seed corpora
#   make demo    the two-node reordering demo (needs root)
#   make bench   gpumap against Scotch on ../shared/graphs, and the one-to-one table
#   make bench-topo  MPI_Cart_create through the interposer at 16 ranks, first
#                call, cached repeat and MPI's own, both stacks
#   make ptx     regenerate the CUDA PTX (needs nvcc 11.8)
#   make cudaemu build/cudaemu/libcuda.so.1, the emulated CUDA driver (g++)
#   make emutest the GPU tests through the emulator (part of make test)
#   make racetest  the race detector on the concurrent packages (part of make test)
#   make gpucheck  build/gpu: the GPU tests, benchmarks and command, with
#                tests/gpu/run.sh, to copy to a GPU machine without Go
#
# MPI=openmpi (default) or MPI=mpich selects the MPI stack; MPICH builds
# land in build/mpich instead of build.

MPI ?= openmpi
GO ?= go
SHELL := /bin/bash

ifeq ($(MPI),mpich)
  MPICC := mpicc.mpich
  MPIFC := mpifort.mpich
  MPICXX := mpicxx.mpich
  MPIPC := mpich
  GOTAGS := -tags mpich
  BUILD := build/mpich
  MPIBIN := build/mpich/bin
else ifeq ($(MPI),openmpi)
  MPICC := mpicc.openmpi
  MPIFC := mpifort.openmpi
  MPICXX := mpicxx.openmpi
  MPIPC := ompi-c
  GOTAGS :=
  BUILD := build
  MPIBIN := bin
else
  $(error MPI must be openmpi or mpich, not $(MPI))
endif

# The version (gpumap.Version) names the shared library: libgpumap.so.VERSION
# with the soname libgpumap.so.MAJOR.
VERSION := $(shell sed -n 's/^const Version = "\(.*\)"$$/\1/p' gpumap/options.go)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
# The run-time loader of libgpumap.so and the rule for GPUMAP_* switches,
# shared by the C libraries (topo, record).
GPUMAP_DL := cabi/dl/gpumap_dl.c cabi/dl/gpumap_dl.h cabi/dl/gpumap_abi.h cabi/dl/gpumap_env.h

LIB := $(BUILD)/lib
INC := $(BUILD)/include
TESTBIN := $(BUILD)/tests
GOSRC := $(shell find . -name '*.go' -not -path './build/*') go.mod go.sum
CABI := $(wildcard cabi/*.go cabi/*.c cabi/*.h cabi/include/*.h) cabi/dl/gpumap_abi.h cabi/dl/gpumap_env.h # mpirank includes the rule

APT_PACKAGES := build-essential pkg-config gfortran openmpi-bin libopenmpi-dev mpich libmpich-dev \
	libhwloc-dev hwloc iproute2 util-linux procps scotch cmake time gdb

.PHONY: all deps build lib testprogs mpibin test racetest unit mpitest fuzz demo bench bench-topo ptx cudaemu emutest gpucheck clean

all: build lib

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "missing packages:$$missing (run make deps as root)"; exit 1; fi; \
	  echo "installing:$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get -o DPkg::Lock::Timeout=600 update -qq && \
	  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $$missing; \
	fi

build:
	$(GO) build ./...
	$(GO) build -o bin/gpumap ./cmd/gpumap
	$(GO) build $(GOTAGS) -o $(MPIBIN)/gpumap-mpi ./cmd/gpumap-mpi

lib: $(LIB)/libgpumap.so $(LIB)/libgpumap.a $(INC)/gpumap.h $(LIB)/libgpumapf.a $(LIB)/pkgconfig/gpumap.pc \
	$(LIB)/libgpumap_topo.so

$(LIB)/libgpumap.so.$(VERSION): $(GOSRC) $(CABI)
	@mkdir -p $(LIB)
	$(GO) build $(GOTAGS) -buildmode=c-shared -ldflags=-extldflags=-Wl,-soname,libgpumap.so.$(SOMAJOR) -o $@ ./cabi
	@rm -f $(LIB)/libgpumap.so.*.h # cgo's generated header is not the API; gpumap.h is

$(LIB)/libgpumap.so: $(LIB)/libgpumap.so.$(VERSION)
	ln -sfn libgpumap.so.$(VERSION) $(LIB)/libgpumap.so.$(SOMAJOR)
	ln -sfn libgpumap.so.$(SOMAJOR) $@

$(LIB)/libgpumap.a: $(GOSRC) $(CABI)
	@mkdir -p $(LIB)
	$(GO) build $(GOTAGS) -buildmode=c-archive -o $@ ./cabi
	@rm -f $(LIB)/libgpumap.h

$(INC)/gpumap.h: cabi/include/gpumap.h
	@mkdir -p $(INC)
	cp $< $@

# The Fortran module: gpumap.mod for compiling, libgpumapf.a for linking.
$(LIB)/libgpumapf.a: cabi/fortran/gpumap.f90
	@mkdir -p $(LIB) $(INC)
	$(MPIFC) -O2 -fPIC -J$(INC) -c $< -o $(LIB)/gpumap_f.o
	ar rcs $@ $(LIB)/gpumap_f.o
	@rm -f $(LIB)/gpumap_f.o

# The topology interposer: plain C against the MPI library, no Go; it
# loads libgpumap.so (next to it) only when a program asks to reorder.
TOPOSRC := $(wildcard cabi/topo/*.c)
TOPO_SO = $(MPICC) -O2 -Wall -Wextra -fPIC -shared -fvisibility=hidden -DGPUMAP_SONAME='"libgpumap.so.$(SOMAJOR)"' \
	-Icabi/include -Icabi/dl -o $@ $(TOPOSRC) cabi/dl/gpumap_dl.c -ldl -lpthread
$(LIB)/libgpumap_topo.so: $(TOPOSRC) cabi/topo/topo.h cabi/include/gpumap.h $(GPUMAP_DL)
	@mkdir -p $(LIB)
	$(TOPO_SO)
# For the loader's tests: a libgpumap.so of another gpumap version.
$(TESTBIN)/fake/libgpumap.so: tests/testdata/fake_libgpumap.c cabi/dl/gpumap_abi.h
	@mkdir -p $(TESTBIN)/fake
	$(MPICC) -O2 -Wall -fPIC -shared -Icabi/dl $< -o $@
# For the tests only: the same with failure injection (topo_fault in
# topo.h), so that they reach the paths of a failed malloc or MPI call.
$(TESTBIN)/fault/libgpumap_topo.so: $(TOPOSRC) cabi/topo/topo.h cabi/include/gpumap.h $(GPUMAP_DL)
	@mkdir -p $(TESTBIN)/fault
	$(TOPO_SO) -DGPUMAP_FAULT_INJECT

$(LIB)/pkgconfig/gpumap.pc: cabi/gpumap.pc.in gpumap/options.go
	@mkdir -p $(LIB)/pkgconfig
	sed -e "s|@PREFIX@|$(abspath $(BUILD))|" -e "s|@MPIPC@|$(MPIPC)|" -e "s|@VERSION@|$(VERSION)|" $< > $@

# Test programs (sources in tests/testdata so cgo leaves them alone). The
# rpath makes the remote node find libgpumap without any environment.
CFLAGS_T := -O2 -Wall -I$(INC)
LDFLAGS_T := -L$(LIB) -lgpumap -lm -Wl,-rpath,'$$ORIGIN/../lib'
TESTPROGS := $(TESTBIN)/hello $(TESTBIN)/stencil $(TESTBIN)/invalid $(TESTBIN)/attack $(TESTBIN)/threads $(TESTBIN)/hello_f $(TESTBIN)/hello_f08 \
	$(TESTBIN)/cost_f $(TESTBIN)/hello_cxx $(TESTBIN)/dist $(TESTBIN)/dist_f

# The topology programs know nothing of gpumap (tests/topo_test.go
# preloads the interposer); *_linked link it before the MPI library.
TOPOPROGS := $(addprefix $(TESTBIN)/,topo_cart topo_shift topo_sub topo_dgraph_adj topo_dgraph \
	topo_graph topo_neighbor topo_dup topo_errors topo_stencil topo_f topo_f08 topo_stencil_f \
	topo_stencil_linked topo_f_linked topo_nbctag topo_members topo_bench topo_cache \
	fault/libgpumap_topo.so fake/libgpumap.so)

testprogs: lib mpibin $(TESTPROGS) $(TOPOPROGS)

# gpumap-mpi of this MPI (the tests run MPICH's too: a lying launcher's
# environment under each).
mpibin:
	$(GO) build $(GOTAGS) -o $(MPIBIN)/gpumap-mpi ./cmd/gpumap-mpi

$(TESTBIN)/%: tests/testdata/%.c $(LIB)/libgpumap.so $(INC)/gpumap.h
	@mkdir -p $(TESTBIN)
	$(MPICC) $(CFLAGS_T) $< -o $@ $(LDFLAGS_T)

# -pedantic -Werror: gpumap.h must be clean C++ (extern "C").
$(TESTBIN)/%: tests/testdata/%.cc $(LIB)/libgpumap.so $(INC)/gpumap.h
	@mkdir -p $(TESTBIN)
	$(MPICXX) -O2 -Wall -Wextra -pedantic -Werror -I$(INC) $< -o $@ $(LDFLAGS_T)

# gfortran's runtime would replace Go's SIGSEGV handler: -fno-backtrace.
$(TESTBIN)/%: tests/testdata/%.f90 $(LIB)/libgpumapf.a $(LIB)/libgpumap.so
	@mkdir -p $(TESTBIN)
	$(MPIFC) -O2 -fno-backtrace -I$(INC) $< -o $@ -L$(LIB) -lgpumapf -lgpumap -Wl,-rpath,'$$ORIGIN/../lib'

TOPO_CFLAGS := -O2 -Wall -Wno-stringop-overread -Wno-stringop-overflow
# --no-as-needed: a "use mpi" program under MPICH references no symbol of
# the interposer itself (libmpifort calls the C MPI_Cart_create).
TOPO_LINK := -L$(LIB) -Wl,--no-as-needed -lgpumap_topo -Wl,--as-needed -Wl,-rpath,'$$ORIGIN/../lib'
$(TESTBIN)/stencil $(TESTBIN)/stencil_world: tests/testdata/halo.h
$(TESTBIN)/topo_%: tests/testdata/topo_%.c tests/testdata/topocheck.h tests/testdata/halo.h
	@mkdir -p $(TESTBIN)
	$(MPICC) $(TOPO_CFLAGS) $< -o $@
$(TESTBIN)/topo_stencil_linked: tests/testdata/topo_stencil.c $(LIB)/libgpumap_topo.so
	@mkdir -p $(TESTBIN)
	$(MPICC) $(TOPO_CFLAGS) $< -o $@ $(TOPO_LINK)
# Compiled as users compile (no -fno-backtrace): the Go runtime starts
# only when a reordering is asked for, after gfortran's handlers.
$(TESTBIN)/topo_f: tests/testdata/topo_f.F90
	@mkdir -p $(TESTBIN)
	$(MPIFC) -O2 -cpp $< -o $@
$(TESTBIN)/topo_f08: tests/testdata/topo_f.F90
	@mkdir -p $(TESTBIN)
	$(MPIFC) -O2 -cpp -DF08 $< -o $@
$(TESTBIN)/topo_f_linked: tests/testdata/topo_f.F90 $(LIB)/libgpumap_topo.so
	@mkdir -p $(TESTBIN)
	$(MPIFC) -O2 -cpp $< -o $@ $(TOPO_LINK)
$(TESTBIN)/topo_stencil_f: tests/testdata/topo_stencil_f.f90
	@mkdir -p $(TESTBIN)
	$(MPIFC) -O2 $< -o $@

test: deps build
	$(MAKE) testprogs MPI=openmpi
	$(MAKE) testprogs MPI=mpich
	$(GO) vet ./...
	GPUMAP_MPI_TESTS=1 $(GO) test -count=1 -timeout 25m ./...
	$(MAKE) racetest
	$(MAKE) emutest

# The race detector on the concurrent packages, on their tests that run
# them on two or more threads (graphs shrunk under -race: race_on_test.go).
racetest:
	$(GO) test -race -count=1 -short ./gpumap/internal/par ./mpirank
	$(GO) test -race -count=1 -run 'Parallel|BoundaryAfterARound|SearcherStamp|WorkerScratch|GrowsMidRun' ./gpumap/refinement
	$(GO) test -race -count=1 -run 'AcrossThreads|LinePrivate' ./gpumap/coarsening
	$(GO) test -race -count=1 -run 'AnyWorkerCount' ./gpumap/multisection
	$(GO) test -race -count=1 -run 'Turns|Paus' ./gpumap/partition
	$(GO) test -race -count=1 -run 'TestStrongPortfolio|TestSameMappingForAnyThreadCount|TestWideDefaultThreads' ./gpumap

FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzReadMETIS$$' -fuzztime $(FUZZTIME) ./gpumap/graph
	$(GO) test -run '^$$' -fuzz '^FuzzFromCSR$$' -fuzztime $(FUZZTIME) ./gpumap/graph
	$(GO) test -run '^$$' -fuzz '^FuzzDecodePayload$$' -fuzztime $(FUZZTIME) ./mpirank

demo: deps
	$(MAKE) testprogs MPI=openmpi
	tests/demo.sh
	tests/demo_topo.sh
	tests/demo_record.sh

bench: build
	$(GO) run ./bench -gpumap bin/gpumap -presets fast,default,strong
	$(GO) run ./bench -gpumap bin/gpumap -onetoone ../shared/one-to-one -presets default,strong -t 1 -reps 3

bench-topo:
	$(MAKE) testprogs MPI=openmpi
	$(MAKE) testprogs MPI=mpich
	$(GO) test -run '^$$' -bench '^BenchmarkTopoCartCreate$$' -benchtime 1x ./tests

ptx:
	$(MAKE) -C gpumap/backend/cuda/kernels ptx

# The emulated CUDA driver (tests/cudaemu): never on the default library
# path; tests reach it through GPUMAP_CUDA_LIB only.
CUDAEMU := $(CURDIR)/build/cudaemu/libcuda.so.1
cudaemu:
	$(MAKE) -C tests/cudaemu OUT=$(CURDIR)/build/cudaemu

# Every CUDA backend test, the GPU fallbacks and the command on the GPU
# path, through the emulator: they must run, not skip.
emutest: cudaemu
	set -o pipefail; GPUMAP_CUDA_LIB=$(CUDAEMU) $(GO) test -v -count=1 -timeout 20m ./gpumap/backend/cuda/... | grep -E '^(--- |    |ok|FAIL|panic|cudaemu counters)'
	# uploads under -race: checkptr once rejected the page-aligned start of a locked range
	GPUMAP_CUDA_LIB=$(CUDAEMU) $(GO) test -race -count=1 -run 'TestStaged' ./gpumap/backend/cuda
	set -o pipefail; GPUMAP_CUDA_LIB=$(CUDAEMU) $(GO) test -v -count=1 -timeout 10m -run GPU ./gpumap/ ./cmd/gpumap/ | grep -E '^(--- |    |ok|FAIL|panic)'

GRAPHS ?= ../shared/graphs
gpucheck:
	mkdir -p build/gpu/graphs
	$(GO) test -c -o build/gpu/cuda.test ./gpumap/backend/cuda
	$(GO) build -o build/gpu/gpumap ./cmd/gpumap
	cp tests/gpu/run.sh build/gpu/
	-cp $(GRAPHS)/*.graph build/gpu/graphs/ 2>/dev/null

clean:
	rm -rf build bin

include cabi/install/install.mk
include cabi/record/record.mk
