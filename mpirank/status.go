package mpirank

import (
	"errors"
	"fmt"

	"github.com/gpumap/gpumap/gpumap"
)

// Code is a status shared with the C ABI (gpumap.h's gpumap_status); the
// values must not change.
type Code int32

const (
	OK              Code = 0
	ErrArgument     Code = 1  // null pointer, negative degree, bad sizes
	ErrNeighbor     Code = 2  // neighbour out of range or equal to the rank
	ErrVolume       Code = 3  // negative, NaN or infinite volume
	ErrComm         Code = 4  // MPI_COMM_NULL or an inter-communicator
	ErrInconsistent Code = 5  // options or patterns differ across ranks
	ErrOptions      Code = 6  // invalid options, or options that do not fit the allocation
	ErrGraph        Code = 7  // malformed graph (graph mapping call)
	ErrInfeasible   Code = 8  // no mapping meets the balance constraint
	ErrNoGPU        Code = 9  // the GPU backend was required and none is usable
	ErrMPI          Code = 10 // MPI is not initialized, or an MPI call failed
	ErrInternal     Code = 11 // an internal error (a bug) was caught
)

var codeText = map[Code]string{
	OK:              "success",
	ErrArgument:     "invalid argument",
	ErrNeighbor:     "invalid neighbour rank",
	ErrVolume:       "invalid communication volume",
	ErrComm:         "invalid communicator",
	ErrInconsistent: "arguments differ across ranks",
	ErrOptions:      "invalid options",
	ErrGraph:        "invalid graph",
	ErrInfeasible:   "no feasible mapping",
	ErrNoGPU:        "no usable GPU",
	ErrMPI:          "MPI error",
	ErrInternal:     "internal error",
}

// String is the short description of a code (gpumap_error_string).
func (c Code) String() string {
	if s, ok := codeText[c]; ok {
		return s
	}
	return fmt.Sprintf("unknown status %d", int32(c))
}

// Error is a status with a message naming what was wrong.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Msg }

func errorf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Msg: fmt.Sprintf(format, args...)}
}

// MapCode is the status of an error of gpumap.Map: a missing GPU, a bug
// (gpumap.ErrInternal, however wrapped: a message is no classification),
// or else options that do not fit the graph. The C ABI and rank 0's
// mapping classify with it alike.
func MapCode(err error) Code {
	switch {
	case errors.Is(err, gpumap.ErrNoGPU):
		return ErrNoGPU
	case errors.Is(err, gpumap.ErrInternal):
		return ErrInternal
	}
	return ErrOptions
}
