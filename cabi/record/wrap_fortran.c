/*
 * The Fortran bindings that bypass the C wrappers, wrapped.
 *
 * OpenMPI 4.1. Its Fortran bindings, wrapped. OpenMPI 4.1's mpif.h and `use mpi`
 * bindings (libmpi_mpifh: mpi_send_ and friends) call PMPI_Send and the
 * other PMPI_ functions directly, and its `use mpi_f08` bindings
 * (libmpi_usempif08: mpi_send_f08_) call the same C back ends through
 * the PLT (ompi_send_f), so the C wrappers never see a Fortran send. Each
 * call is therefore wrapped twice here, as mpi_X_ (mpif.h, use mpi) and as
 * ompi_X_f (use mpi_f08), for the same set as the C wrappers: sends,
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

#define F_SEND(P, X, S)                                                                 \
    void P##X##S(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr) {     \
        REAL(#P #X #S, char *, F *, F *, F *, F *, F *, F *);                           \
        real(buf, count, type, dest, tag, comm, ierr);                                  \
        if (*ierr == MPI_SUCCESS) rec_p2p(COMM(comm), *dest, *count, TYPE(type));       \
    }

#define F_ISEND(P, X, S)                                                                \
    void P##X##S(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req,        \
                 F *ierr) {                                                             \
        REAL(#P #X #S, char *, F *, F *, F *, F *, F *, F *, F *);                      \
        real(buf, count, type, dest, tag, comm, req, ierr);                             \
        if (*ierr == MPI_SUCCESS) rec_p2p(COMM(comm), *dest, *count, TYPE(type));       \
    }

#define F_SEND_INIT(P, X, S)                                                            \
    void P##X##S(char *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req,        \
                 F *ierr) {                                                             \
        REAL(#P #X #S, char *, F *, F *, F *, F *, F *, F *, F *);                      \
        real(buf, count, type, dest, tag, comm, req, ierr);                             \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_persist_p2p(PMPI_Request_f2c(*req), COMM(comm), *dest, *count, TYPE(type)); \
    }

#define F_START(P, S)                                                                   \
    void P##start##S(F *req, F *ierr) {                                                 \
        REAL(#P "start" #S, F *, F *);                                                  \
        MPI_Request r = PMPI_Request_f2c(*req);                                         \
        real(req, ierr);                                                                \
        if (*ierr == MPI_SUCCESS) rec_start(r);                                         \
    }                                                                                   \
    void P##startall##S(F *n, F *reqs, F *ierr) {                                       \
        REAL(#P "startall" #S, F *, F *, F *);                                          \
        real(n, reqs, ierr);                                                            \
        for (int i = 0; *ierr == MPI_SUCCESS && i < *n; i++)                            \
            rec_start(PMPI_Request_f2c(reqs[i]));                                       \
    }                                                                                   \
    void P##request_free##S(F *req, F *ierr) {                                          \
        REAL(#P "request_free" #S, F *, F *);                                           \
        rec_request_free(PMPI_Request_f2c(*req));                                       \
        real(req, ierr);                                                                \
    }                                                                                   \
    void P##finalize##S(F *ierr) {                                                      \
        REAL(#P "finalize" #S, F *);                                                    \
        rec_finalize();                                                                 \
        real(ierr);                                                                     \
    }

#define F_SENDRECV(P, S)                                                                \
    void P##sendrecv##S(char *sbuf, F *scount, F *stype, F *dest, F *stag, char *rbuf,  \
                        F *rcount, F *rtype, F *source, F *rtag, F *comm, F *status,    \
                        F *ierr) {                                                      \
        REAL(#P "sendrecv" #S, char *, F *, F *, F *, F *, char *, F *, F *, F *, F *,  \
             F *, F *, F *);                                                            \
        real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,  \
             status, ierr);                                                             \
        if (*ierr == MPI_SUCCESS) rec_p2p(COMM(comm), *dest, *scount, TYPE(stype));     \
    }                                                                                   \
    void P##sendrecv_replace##S(char *buf, F *count, F *type, F *dest, F *stag,         \
                                F *source, F *rtag, F *comm, F *status, F *ierr) {      \
        REAL(#P "sendrecv_replace" #S, char *, F *, F *, F *, F *, F *, F *, F *, F *,  \
             F *);                                                                      \
        real(buf, count, type, dest, stag, source, rtag, comm, status, ierr);           \
        if (*ierr == MPI_SUCCESS) rec_p2p(COMM(comm), *dest, *count, TYPE(type));       \
    }

/* Neighbourhood collectives: blocking (I empty, no request) and
 * non-blocking (I = i, a request before ierr). RD(), RA() and RT() are
 * the request's declaration, argument and type (function-like macros so
 * that their commas survive being passed on). */
#define NOREQ()
#define REQD() , F *req
#define REQA() , req
#define REQT() F *,
#define F_NEIGHBORS(P, I, S, RD, RA, RT)                                               \
    void P##I##neighbor_allgather##S(char *sb, F *sc, F *st, char *rb, F *rc, F *rt,    \
                                     F *comm RD(), F *ierr) {                             \
        REAL(#P #I "neighbor_allgather" #S, char *, F *, F *, char *, F *, F *, F *,    \
             RT() F *);                                                          \
        real(sb, sc, st, rb, rc, rt, comm RA(), ierr);                                    \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), *sc, TYPE(st), NULL, 0, NULL, NULL, NULL);        \
    }                                                                                   \
    void P##I##neighbor_alltoall##S(char *sb, F *sc, F *st, char *rb, F *rc, F *rt,     \
                                    F *comm RD(), F *ierr) {                              \
        REAL(#P #I "neighbor_alltoall" #S, char *, F *, F *, char *, F *, F *, F *,     \
             RT() F *);                                                          \
        real(sb, sc, st, rb, rc, rt, comm RA(), ierr);                                    \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), *sc, TYPE(st), NULL, 0, NULL, NULL, NULL);        \
    }                                                                                   \
    void P##I##neighbor_allgatherv##S(char *sb, F *sc, F *st, char *rb, F *rcs, F *dis, \
                                      F *rt, F *comm RD(), F *ierr) {                     \
        REAL(#P #I "neighbor_allgatherv" #S, char *, F *, F *, char *, F *, F *, F *,   \
             F *, RT() F *);                                                     \
        real(sb, sc, st, rb, rcs, dis, rt, comm RA(), ierr);                              \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), *sc, TYPE(st), NULL, 0, NULL, NULL, NULL);        \
    }                                                                                   \
    void P##I##neighbor_alltoallv##S(char *sb, F *scs, F *sds, F *st, char *rb, F *rcs, \
                                     F *rds, F *rt, F *comm RD(), F *ierr) {              \
        REAL(#P #I "neighbor_alltoallv" #S, char *, F *, F *, F *, char *, F *, F *,    \
             F *, F *, RT() F *);                                                \
        real(sb, scs, sds, st, rb, rcs, rds, rt, comm RA(), ierr);                        \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), 0, TYPE(st), scs, 0, NULL, NULL, NULL);           \
    }                                                                                   \
    void P##I##neighbor_alltoallw##S(char *sb, F *scs, MPI_Aint *sds, F *sts, char *rb, \
                                     F *rcs, MPI_Aint *rds, F *rts, F *comm RD(),         \
                                     F *ierr) {                                         \
        REAL(#P #I "neighbor_alltoallw" #S, char *, F *, MPI_Aint *, F *, char *, F *,  \
             MPI_Aint *, F *, F *, RT() F *);                                    \
        real(sb, scs, sds, sts, rb, rcs, rds, rts, comm RA(), ierr);                      \
        if (*ierr == MPI_SUCCESS)                                                       \
            rec_neighbors(COMM(comm), 0, MPI_DATATYPE_NULL, scs, 0, NULL, sts, NULL);   \
    }

/* Every wrapper under both names: mpi_X_ and ompi_X_f. */
#define BOTH(M, X) M(mpi_, X, _) M(ompi_, X, _f)
BOTH(F_SEND, send) BOTH(F_SEND, bsend) BOTH(F_SEND, ssend) BOTH(F_SEND, rsend)
BOTH(F_ISEND, isend) BOTH(F_ISEND, ibsend) BOTH(F_ISEND, issend) BOTH(F_ISEND, irsend)
BOTH(F_SEND_INIT, send_init) BOTH(F_SEND_INIT, bsend_init)
BOTH(F_SEND_INIT, ssend_init) BOTH(F_SEND_INIT, rsend_init)
F_START(mpi_, _) F_START(ompi_, _f)
F_SENDRECV(mpi_, _) F_SENDRECV(ompi_, _f)
F_NEIGHBORS(mpi_, , _, NOREQ, NOREQ, NOREQ)
F_NEIGHBORS(ompi_, , _f, NOREQ, NOREQ, NOREQ)
F_NEIGHBORS(mpi_, i, _, REQD, REQA, REQT)
F_NEIGHBORS(ompi_, i, _f, REQD, REQA, REQT)

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
