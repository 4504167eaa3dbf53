package tests

// The attack rows of the invalid-input table (tests/testdata/attack.c):
// hostile input to every C entry point, run by TestInvalidInputTable on
// both stacks. "attack" marks rows that failed before the fix next to
// them (a crash, a status 10 from a caller's attribute, a silent
// overflow); "held" rows held already and guard against regressions.

var attackMode = invalidMode{"attack", nil, nil, []invalidCase{
	// Uninitialised options and garbage pointers: a crash of the whole
	// job (Go's "unexpected fault address") before.
	{"options-uninitialised", 6, "options are not initialised (their reserved fields are not zero): start from gpumap_options_init", "attack"},
	{"options-reserved-not-zero", 6, "options are not initialised", "attack"},
	{"options-pointer-garbage", 1, "options points to memory that cannot be read", "attack"},
	{"hierarchy-pointer-garbage", 1, "options.hierarchy points to memory that cannot be read", "attack"},
	{"hierarchy-without-nul", 1, "not a NUL-terminated string", "attack"},
	{"distance-without-nul-on-one-rank", 1, "rank 2: options.distance points to memory that cannot be read", "attack"},
	// Counts larger than their arrays: out of memory or a fault before.
	{"degree-int-max", 1, "neighbors (degree 2147483647): 2147483647 entries cannot be read", "attack"},
	{"degree-beyond-array-on-one-rank", 1, "rank 1: neighbors (degree 16777216)", "attack"},
	{"neighbors-pointer-garbage", 1, "neighbors (degree 2): 2 entries cannot be read", "attack"},
	{"cost-volumes-pointer-garbage", 1, "volumes (degree 2): 2 entries cannot be read", "attack"},
	{"cost-out-pointer-garbage-on-one-rank", 1, "rank 1: cost: 1 entries cannot be read", "attack"},
	{"newcomm-pointer-garbage-on-one-rank", 1, "rank 1: newcomm points to memory that cannot be written", "attack"},
	// Every enum out of range, odd numbers.
	{"preset-int-min", 6, "unknown preset -2147483648", "held"},
	{"backend-negative", 6, "unknown backend -1", "held"},
	{"algorithm-3", 6, "unknown algorithm 3", "held"},
	{"pattern-2", 6, "unknown pattern kind 2", "held"},
	{"threads-4097", 6, "thread count 4097 exceeds 4096", "held"},
	{"imbalance-nan", 6, "imbalance NaN", "held"},
	{"verbosity-negative", 0, "", "held"},
	{"seed-max", 0, "", "held"},
	// Strange strings.
	{"hierarchy-blank", 6, "options.hierarchy: hierarchy is empty", "held"},
	{"hierarchy-fullwidth-digit", 6, `field 1 ("４") is not an integer`, "held"},
	{"hierarchy-invalid-utf8", 6, `is not an integer`, "held"},
	{"hierarchy-comma", 6, `field 1 ("2,2") is not an integer`, "held"},
	{"hierarchy-embedded-nul", 0, "", "held"},
	{"hierarchy-65-levels", 6, "has 65 levels; at most 64 are supported", "held"},
	{"hierarchy-64-levels", 0, "", "held"},
	{"distance-beyond-2^40", 6, "field 3 (1099511627777) exceeds 1099511627776", "held"},
	{"distance-exponent", 6, `field 1 ("1e3") is not an integer`, "held"},
	// Volumes and neighbours.
	{"volumes-subnormal", 0, "", "held"},
	{"volumes-zero", 0, "", "held"},
	{"volumes-dbl-max-both-ways", 3, "volume between ranks 0 and 1 overflows", "held"},
	{"duplicate-neighbours-overflow", 3, "overflows", "held"},
	{"duplicate-neighbours", 0, "", "held"},
	{"neighbour-int-min", 2, "neighbour -2147483648 (entry 0) is out of range [0,4)", "held"},
	{"volume-negative-nan", 3, "rank 3: volume to neighbour 2 is NaN", "held"},
	// Communicators.
	{"self-neighbour-1", 2, "neighbour 1 (entry 0) is out of range [0,1)", "held"},
	{"self-cost", 0, "", "held"},
	{"split-undefined-members", 0, "", "held"},
	{"split-undefined-null", 4, "the communicator is MPI_COMM_NULL", "held"},
	{"cartesian-input", 0, "", "attack"}, // the kept order was a Cartesian dup
	{"graph-input", 0, "", "held"},
	{"errors-are-fatal-bad-neighbour", 2, "neighbour 4 (entry 1) is out of range [0,4)", "held"},
	// A failing attribute copy callback: status 10 from MPI_Comm_dup
	// before (and an abort under MPI_ERRORS_ARE_FATAL).
	{"attribute-copy-fails-reorder", 0, "", "attack"},
	{"attribute-copy-fails-cost", 0, "", "attack"},
	{"attribute-copy-fails-disabled", 0, "", "attack"},
	{"fortran-handle-of-a-datatype", 4, "is not a communicator", "held"},
	// Environment.
	{"distance-env-differs", 5, "rank 1: distances 1:10:1000 (GPUMAP_DISTANCE) differ from rank 0's 1:10:100", "held"},
	{"distance-env-malformed", 6, `GPUMAP_DISTANCE: distance "1:x": field 2 ("x") is not an integer`, "held"},
	{"hierarchy-env-blank", 6, "GPUMAP_HIERARCHY: hierarchy is empty", "held"},
	{"disable-env-spelled-differently", 0, "", "held"},
	{"report-env-unwritable", 0, "", "held"},
	// gpumap_map_graph and the helpers.
	{"map-graph-pattern-9", 6, "unknown pattern kind 9", "attack"},
	{"map-graph-xadj-n-2^40", 1, "xadj[n] = 1099511627776", "attack"},
	{"map-graph-adjncy-shorter", 1, "adjncy (xadj[n] = 268435456): 268435456 entries cannot be read", "attack"},
	{"map-graph-pe-read-only", 1, "pe (n = 4): 4 entries cannot be written", "attack"},
	{"map-graph-hierarchy-garbage", 1, "hierarchy points to memory that cannot be read", "attack"},
	{"map-graph-n-int-max", 1, "(n = 2147483647): 2147483647 entries cannot be read", "attack"},
	{"map-graph-cost-pointer-garbage", 1, "cost cannot be written at 0x10", "attack"},
	{"last-result-size-1MiB", 1, "size 1048576 is not the size of a gpumap_result", "attack"},
	{"last-result-pointer-garbage", 1, "result points to memory that cannot be written", "attack"},
	{"last-result-size-0", 0, "", "held"},
	{"error-strings", 0, "unknown gpumap status|unknown gpumap status|unknown gpumap status", "held"},
}, map[string]int{"split-undefined-members": 3, "split-undefined-null": 1}}

// Threads calling at once (MPI_THREAD_MULTIPLE), each reading its own
// outcome and message.
var attackThreads = invalidMode{"attack", []string{"threads"}, nil, []invalidCase{
	{"threads-at-once", 0, ", 0 wrong outcomes", "held"},
}, nil}

// Repeated calls keep no communicator: the next handle MPI gives out is
// the same before and after (RSS is printed, not checked).
var attackRepeat = invalidMode{"attack", []string{"repeat", "200"}, []string{"repeat", "20"}, []invalidCase{
	{"repeated-calls", 0, "rounds, next communicator handle", "held"},
}, nil}
