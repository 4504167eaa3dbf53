/*
 * The Fortran bindings that bypass the C wrappers, wrapped.
 *
 * OpenMPI 4.1. Its Fortran bindings, wrapped. OpenMPI 4.1's mpif.h and `use mpi`
 * bindings (libmpi_mpifh: mpi_send_ and friends) call PMPI_Send and the
 * other PMPI_ functions directly, and its `use mpi_f08` bindings
 * (libmpi_usempif08: mpi_send_f08_) call the same C back ends through
 * the PLT (ompi_send_f), so the C wrappers never see a Fortran send. Each
 * call is therefore wrapped here under every name libmpi_mpifh exports
 * for it (mpi_send_, mpi_send, mpi_send__, MPI_SEND, MPI_Send_f,
 * MPI_Send_f08: one function under six names, which a program compiled
 * with another name mangling, or C calling the Fortran binding, reaches)
 * and as ompi_X_f (use mpi_f08), for the same set as the C wrappers: sends,
 * persistent sends with start/startall/request_free, sendrecv(_replace),
 * the neighbourhood collectives and MPI_FINALIZE. The wrapper converts the
 * handles (MPI_Comm_f2c, ...), forwards to the next definition of its own
 * name and counts what succeeded.
 *
 * MPICH 4.0. Its mpif.h and `use mpi` bindings (libmpifort, mpi_send_)
 * call MPI_Send and the other C entry points, which wrap_c.c already
 * wraps; so do the buffer-carrying `use mpi_f08` bindings (mpi_send_f08ts_
 * and every other send, sendrecv and neighbourhood collective). Four
 * mpi_f08 bindings call PMPI_ directly and are wrapped at the end:
 * mpi_start_f08_, mpi_startall_f08_, mpi_request_free_f08_ and
 * mpi_finalize_f08_ (their ierror may be absent: a NULL pointer). Wrapping
 * anything else would count twice.
 */
#include "record.h"

typedef MPI_Fint F;

/* real: the wrapped function, looked up once */
#define REAL(name, ...)                                                                 \
    static void *cache_;                                                                \
    void (*real)(__VA_ARGS__) = (void (*)(__VA_ARGS__))rec_next(name, &cache_)

#ifdef OPEN_MPI

#define COMM(c) PMPI_Comm_f2c(*(c))
#define TYPE(t) PMPI_Type_f2c(*(t))

/* One wrapper per macro, N its exported name. */
#define F_SEND(N)                                                                       \
    void N(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr) {           \
        REAL(#N, char *, F *, F *, F *, F *, F *, F *);                                 \
        real(buf, count, type, dest, tag, comm, ierr);                                  \
        if (*ierr == MPI_SUCCESS) rec_p2p(COMM(comm), *dest, *count, TYPE(type));       \
    }

#define F_ISEND(N)                                                                      \
    void N(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr) {   \
        REAL(#N, char *, F *, F *, F *, F *, F *, F *, F *);                            \
        real(buf, count, type, dest, tag, comm, req, ierr);                             \
        if (*ierr == MPI_SUCCESS) rec_p2p(COMM(comm), *dest, *count, TYPE(type));       \
    }

#define F_SEND_INIT(N)                                                                  \
    void N(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr) {   \
        REAL(#N, char *, F *, F *, F *, F *, F *, F *, F *);                            \
        real(buf, count, type, dest, tag, comm, req, ierr);                             \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_persist_p2p(PMPI_Request_f2c(*req), COMM(comm), *dest, *count, TYPE(type)); \
    }

#define F_START(N)                                                                      \
    void N(F *req, F *ierr) {                                                           \
        REAL(#N, F *, F *);                                                             \
        MPI_Request r = PMPI_Request_f2c(*req);                                         \
        real(req, ierr);                                                                \
        if (*ierr == MPI_SUCCESS) rec_start(r);                                         \
    }

#define F_STARTALL(N)                                                                   \
    void N(F *n, F *reqs, F *ierr) {                                                    \
        REAL(#N, F *, F *, F *);                                                        \
        real(n, reqs, ierr);                                                            \
        for (int i = 0; *ierr == MPI_SUCCESS && i < *n; i++)                            \
            rec_start(PMPI_Request_f2c(reqs[i]));                                       \
    }

#define F_REQUEST_FREE(N)                                                               \
    void N(F *req, F *ierr) {                                                           \
        REAL(#N, F *, F *);                                                             \
        rec_request_free(PMPI_Request_f2c(*req));                                       \
        real(req, ierr);                                                                \
    }

#define F_FINALIZE(N)                                                                   \
    void N(F *ierr) {                                                                   \
        REAL(#N, F *);                                                                  \
        rec_finalize();                                                                 \
        real(ierr);                                                                     \
    }

#define F_SENDRECV(N)                                                                   \
    void N(char *sbuf, F *scount, F *stype, F *dest, F *stag, char *rbuf, F *rcount,    \
           F *rtype, F *source, F *rtag, F *comm, F *status, F *ierr) {                 \
        REAL(#N, char *, F *, F *, F *, F *, char *, F *, F *, F *, F *, F *, F *, F *); \
        real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,  \
             status, ierr);                                                             \
        if (*ierr == MPI_SUCCESS) rec_p2p(COMM(comm), *dest, *scount, TYPE(stype));     \
    }

#define F_SENDRECV_REPLACE(N)                                                           \
    void N(char *buf, F *count, F *type, F *dest, F *stag, F *source, F *rtag, F *comm, \
           F *status, F *ierr) {                                                        \
        REAL(#N, char *, F *, F *, F *, F *, F *, F *, F *, F *, F *);                  \
        real(buf, count, type, dest, stag, source, rtag, comm, status, ierr);           \
        if (*ierr == MPI_SUCCESS) rec_p2p(COMM(comm), *dest, *count, TYPE(type));       \
    }

/* Neighbourhood collectives: blocking (no request) and non-blocking (a
 * request before ierr). RD(), RA() and RT() are the request's
 * declaration, argument and type (function-like macros so that their
 * commas survive being passed on). */
#define NOREQ()
#define REQD() , F *req
#define REQA() , req
#define REQT() F *,
#define F_NB_ALL(N, RD, RA, RT)                                                         \
    void N(char *sb, F *sc, F *st, char *rb, F *rc, F *rt, F *comm RD(), F *ierr) {     \
        REAL(#N, char *, F *, F *, char *, F *, F *, F *, RT() F *);                    \
        real(sb, sc, st, rb, rc, rt, comm RA(), ierr);                                  \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), *sc, TYPE(st), NULL, 0, NULL, NULL, NULL);        \
    }
#define F_NB_ALLGATHERV(N, RD, RA, RT)                                                  \
    void N(char *sb, F *sc, F *st, char *rb, F *rcs, F *dis, F *rt, F *comm RD(),       \
           F *ierr) {                                                                   \
        REAL(#N, char *, F *, F *, char *, F *, F *, F *, F *, RT() F *);               \
        real(sb, sc, st, rb, rcs, dis, rt, comm RA(), ierr);                            \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), *sc, TYPE(st), NULL, 0, NULL, NULL, NULL);        \
    }
#define F_NB_ALLTOALLV(N, RD, RA, RT)                                                   \
    void N(char *sb, F *scs, F *sds, F *st, char *rb, F *rcs, F *rds, F *rt,            \
           F *comm RD(), F *ierr) {                                                     \
        REAL(#N, char *, F *, F *, F *, char *, F *, F *, F *, F *, RT() F *);          \
        real(sb, scs, sds, st, rb, rcs, rds, rt, comm RA(), ierr);                      \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), 0, TYPE(st), scs, 0, NULL, NULL, NULL);           \
    }
#define F_NB_ALLTOALLW(N, RD, RA, RT)                                                   \
    void N(char *sb, F *scs, MPI_Aint *sds, F *sts, char *rb, F *rcs, MPI_Aint *rds,    \
           F *rts, F *comm RD(), F *ierr) {                                             \
        REAL(#N, char *, F *, MPI_Aint *, F *, char *, F *, MPI_Aint *, F *, F *,       \
             RT() F *);                                                                 \
        real(sb, scs, sds, sts, rb, rcs, rds, rts, comm RA(), ierr);                    \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), 0, MPI_DATATYPE_NULL, scs, 0, NULL, sts, NULL);   \
    }

/* Every name libmpi_mpifh exports for a binding (the six the topology
 * interposer wraps, cabi/topo/fortran.c: mpif.h and use mpi compiled with
 * any of gfortran's manglings, or called from C), and ompi_X_f, which
 * use mpi_f08 calls: l, U and C are the name in lower, upper and
 * capitalised case. */
#define NAMES(M, l, U, C)                                                               \
    M(mpi_##l##_) M(mpi_##l) M(mpi_##l##__) M(MPI_##U) M(MPI_##C##_f) M(MPI_##C##_f08)  \
    M(ompi_##l##_f)
#define NB_NAMES(M, l, U, C, RD, RA, RT)                                                \
    M(mpi_##l##_, RD, RA, RT) M(mpi_##l, RD, RA, RT) M(mpi_##l##__, RD, RA, RT)         \
    M(MPI_##U, RD, RA, RT) M(MPI_##C##_f, RD, RA, RT) M(MPI_##C##_f08, RD, RA, RT)      \
    M(ompi_##l##_f, RD, RA, RT)

NAMES(F_SEND, send, SEND, Send)
NAMES(F_SEND, bsend, BSEND, Bsend)
NAMES(F_SEND, ssend, SSEND, Ssend)
NAMES(F_SEND, rsend, RSEND, Rsend)
NAMES(F_ISEND, isend, ISEND, Isend)
NAMES(F_ISEND, ibsend, IBSEND, Ibsend)
NAMES(F_ISEND, issend, ISSEND, Issend)
NAMES(F_ISEND, irsend, IRSEND, Irsend)
NAMES(F_SEND_INIT, send_init, SEND_INIT, Send_init)
NAMES(F_SEND_INIT, bsend_init, BSEND_INIT, Bsend_init)
NAMES(F_SEND_INIT, ssend_init, SSEND_INIT, Ssend_init)
NAMES(F_SEND_INIT, rsend_init, RSEND_INIT, Rsend_init)
NAMES(F_START, start, START, Start)
NAMES(F_STARTALL, startall, STARTALL, Startall)
NAMES(F_REQUEST_FREE, request_free, REQUEST_FREE, Request_free)
NAMES(F_FINALIZE, finalize, FINALIZE, Finalize)
NAMES(F_SENDRECV, sendrecv, SENDRECV, Sendrecv)
NAMES(F_SENDRECV_REPLACE, sendrecv_replace, SENDRECV_REPLACE, Sendrecv_replace)
NB_NAMES(F_NB_ALL, neighbor_allgather, NEIGHBOR_ALLGATHER, Neighbor_allgather, NOREQ, NOREQ, NOREQ)
NB_NAMES(F_NB_ALL, neighbor_alltoall, NEIGHBOR_ALLTOALL, Neighbor_alltoall, NOREQ, NOREQ, NOREQ)
NB_NAMES(F_NB_ALLGATHERV, neighbor_allgatherv, NEIGHBOR_ALLGATHERV, Neighbor_allgatherv, NOREQ, NOREQ, NOREQ)
NB_NAMES(F_NB_ALLTOALLV, neighbor_alltoallv, NEIGHBOR_ALLTOALLV, Neighbor_alltoallv, NOREQ, NOREQ, NOREQ)
NB_NAMES(F_NB_ALLTOALLW, neighbor_alltoallw, NEIGHBOR_ALLTOALLW, Neighbor_alltoallw, NOREQ, NOREQ, NOREQ)
NB_NAMES(F_NB_ALL, ineighbor_allgather, INEIGHBOR_ALLGATHER, Ineighbor_allgather, REQD, REQA, REQT)
NB_NAMES(F_NB_ALL, ineighbor_alltoall, INEIGHBOR_ALLTOALL, Ineighbor_alltoall, REQD, REQA, REQT)
NB_NAMES(F_NB_ALLGATHERV, ineighbor_allgatherv, INEIGHBOR_ALLGATHERV, Ineighbor_allgatherv, REQD, REQA, REQT)
NB_NAMES(F_NB_ALLTOALLV, ineighbor_alltoallv, INEIGHBOR_ALLTOALLV, Ineighbor_alltoallv, REQD, REQA, REQT)
NB_NAMES(F_NB_ALLTOALLW, ineighbor_alltoallw, INEIGHBOR_ALLTOALLW, Ineighbor_alltoallw, REQD, REQA, REQT)

#endif /* OPEN_MPI */

#ifdef MPICH

void mpi_start_f08_(F *req, F *ierr) {
    REAL("mpi_start_f08_", F *, F *);
    F local = MPI_SUCCESS;
    MPI_Request r = PMPI_Request_f2c(*req);
    real(req, &local);
    if (ierr) *ierr = local;
    if (local == MPI_SUCCESS) rec_start(r);
}

void mpi_startall_f08_(F *n, F *reqs, F *ierr) {
    REAL("mpi_startall_f08_", F *, F *, F *);
    F local = MPI_SUCCESS;
    real(n, reqs, &local);
    if (ierr) *ierr = local;
    for (int i = 0; local == MPI_SUCCESS && i < *n; i++) rec_start(PMPI_Request_f2c(reqs[i]));
}

void mpi_request_free_f08_(F *req, F *ierr) {
    REAL("mpi_request_free_f08_", F *, F *);
    rec_request_free(PMPI_Request_f2c(*req));
    real(req, ierr);
}

void mpi_finalize_f08_(F *ierr) {
    REAL("mpi_finalize_f08_", F *);
    rec_finalize();
    real(ierr);
}

#endif /* MPICH */
