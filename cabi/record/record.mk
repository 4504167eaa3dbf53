# libgpumap_record.so, the PMPI recorder (cabi/record), and the programs
# its tests preload it into. Included by the Makefile, after LIB, TESTBIN,
# MPICC and MPIFC are set for the selected MPI stack.

RECORD_SRC := $(wildcard cabi/record/*.c cabi/record/*.h)

lib: $(LIB)/libgpumap_record.so

# Plain C against the MPI library only: no Go runtime on the counting
# path. libgpumap.so (its soname, else the development link) is loaded
# from the same directory at MPI_Finalize.
$(LIB)/libgpumap_record.so: $(RECORD_SRC) $(GPUMAP_DL) $(BUILD)/record/have.h
	@mkdir -p $(LIB)
	$(MPICC) -O2 -Wall -fPIC -shared -DGPUMAP_SONAME='"libgpumap.so.$(SOMAJOR)"' -Icabi/dl \
		-include $(BUILD)/record/have.h -o $@ $(filter %.c,$^) -ldl -lpthread

# Which MPI 4 calls this MPI has (probe.sh): the wrappers follow the
# library, not MPI_VERSION.
$(BUILD)/record/have.h: cabi/record/probe.sh
	@mkdir -p $(@D)
	cabi/record/probe.sh $(MPICC) >$@.tmp && mv $@.tmp $@

# Programs that know nothing of gpumap (no -lgpumap): what the recorder is
# for. record_f is built from one source for "use mpi" and "use mpi_f08",
# as users compile (no -fno-backtrace: the Go runtime starts at
# MPI_Finalize, after gfortran's signal handlers).
RECORD_C := $(TESTBIN)/stencil_world $(TESTBIN)/record_calls $(TESTBIN)/msgrate
RECORD_F := $(TESTBIN)/record_f $(TESTBIN)/record_f08

testprogs: $(RECORD_C) $(RECORD_F) $(TESTBIN)/record_threads $(TESTBIN)/record_unit $(TESTBIN)/record_lockorder
ifeq ($(MPI),openmpi)
testprogs: $(TESTBIN)/record_fnames
endif

# The record-then-place demo (tests/demo_record.sh) runs gpumap place.
demo: build

$(RECORD_C): $(TESTBIN)/%: tests/testdata/%.c
	@mkdir -p $(TESTBIN)
	$(MPICC) -O2 -Wall $< -o $@

$(TESTBIN)/record_threads: tests/testdata/record_threads.c
	@mkdir -p $(TESTBIN)
	$(MPICC) -O2 -Wall -pthread $< -o $@

# OpenMPI's Fortran bindings called from C under each of their names.
$(TESTBIN)/record_fnames: tests/testdata/record_fnames.c
	@mkdir -p $(TESTBIN)
	$(MPICC) -O2 -Wall $< -o $@ -lmpi_mpifh

# The counting core called directly, its allocations failing on demand
# (cabi/record/testdata/unit.c).
$(TESTBIN)/record_unit: cabi/record/testdata/unit.c $(RECORD_SRC) $(GPUMAP_DL)
	@mkdir -p $(TESTBIN)
	$(MPICC) -O2 -Wall -pthread -Icabi/record -Icabi/dl -o $@ $< cabi/record/record.c cabi/dl/gpumap_dl.c \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=aligned_alloc -ldl

# ... and with an MPI lock of its own around the recorder's MPI calls
# (cabi/record/testdata/lockorder.c).
$(TESTBIN)/record_lockorder: cabi/record/testdata/lockorder.c $(RECORD_SRC) $(GPUMAP_DL)
	@mkdir -p $(TESTBIN)
	$(MPICC) -O2 -Wall -pthread -Icabi/record -Icabi/dl -o $@ $< cabi/record/record.c cabi/dl/gpumap_dl.c \
		-Wl,--wrap=PMPI_Comm_group -ldl

$(TESTBIN)/record_f: tests/testdata/record_f.F90
	@mkdir -p $(TESTBIN)/record_f.mod
	$(MPIFC) -O2 -J$(TESTBIN)/record_f.mod $< -o $@

$(TESTBIN)/record_f08: tests/testdata/record_f.F90
	@mkdir -p $(TESTBIN)/record_f08.mod
	$(MPIFC) -O2 -DF08 -J$(TESTBIN)/record_f08.mod $< -o $@

# What the recorder costs per message: message rates with and without it,
# and its counting path alone (cabi/record/bench.sh).
.PHONY: recbench
recbench:
	$(MAKE) testprogs MPI=openmpi
	$(MAKE) testprogs MPI=mpich
	cabi/record/bench.sh
