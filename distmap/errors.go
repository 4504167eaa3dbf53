package distmap

import (
	"errors"

	"github.com/gpumap/gpumap/gpumap"
	"github.com/gpumap/gpumap/mpirank/mpi"
)

// Kind says what an error of New or Map is about, so that a C caller
// (gpumap_map_dist) gets a status code and not only a message. The kind
// travels with the message when the ranks agree on an error: every rank
// returns the same kind.
type Kind int

const (
	KindOther        Kind = iota // not classified (a limit of the mapper on this graph, say)
	KindArgument                 // a missing or unreadable argument
	KindComm                     // no usable communicator
	KindInconsistent             // arguments that must agree differ between ranks
	KindOptions                  // invalid options or topology
	KindGraph                    // a malformed graph: arrays, symmetry, weights
	KindMPI                      // an MPI call failed
	KindInternal                 // a bug inside gpumap was caught
)

// Error is an error of a known kind.
type Error struct {
	Kind Kind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// kindError makes an error of kind k; a nil err stays nil.
func kindError(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: k, Msg: err.Error()}
}

// KindOf classifies err: the kind of an *Error in its chain, KindMPI for a
// failed MPI call, KindInternal for gpumap.ErrInternal, else KindOther.
func KindOf(err error) Kind {
	var e *Error
	var m *mpi.Error
	switch {
	case err == nil:
		return KindOther
	case errors.As(err, &e):
		return e.Kind
	case errors.As(err, &m):
		return KindMPI
	case errors.Is(err, gpumap.ErrInternal):
		return KindInternal
	}
	return KindOther
}

// notReady is the error of every collective entry point called before
// MPI_Init or after MPI_Finalize, where its first MPI call would abort
// the program; nil while MPI is up.
func notReady() error {
	if mpi.Ready() {
		return nil
	}
	return &Error{KindMPI, "MPI is not initialized (call MPI_Init first) or already finalized"}
}

// unusable is notReady, or the error of a collective entry point given
// MPI_COMM_NULL, a handle of no communicator or an inter-communicator:
// MPI would abort the job in the first call on it (ReadGraph on
// MPI_COMM_NULL did, exit 5). Local, before any collective.
func unusable(c mpi.Comm) error {
	if err := notReady(); err != nil {
		return err
	}
	if null, invalid, inter, _, _ := mpi.Inspect(c); null || invalid || inter {
		return &Error{KindComm, "the communicator is MPI_COMM_NULL, no communicator or an inter-communicator"}
	}
	return nil
}

// noGraph is notReady, or the error of an entry point given a graph
// that New or a reader did not build (nil, or a zero Graph, whose empty
// vtxdist the mapping indexed: a panic that aborted the job); found
// locally, before any collective.
func noGraph(g *Graph) error {
	if err := notReady(); err != nil {
		return err
	}
	if g != nil && g.VtxDist != nil {
		return nil
	}
	return &Error{KindArgument, "no graph (nil, or not built by New or ReadGraph)"}
}

// Agree is collective over c: it returns nil on every rank when err is
// nil on every rank, and otherwise the error of the lowest failing rank,
// with its kind, on every rank. A caller that validates its own input
// before New (the C call does: NULL or unreadable arrays) agrees on it
// first, so that no rank enters New while another gives up.
func Agree(c mpi.Comm, err error) error {
	if e, ok := err.(*Error); ok && e == nil {
		err = nil // a nil *Error in an error is no error
	}
	return agree(c, err)
}
