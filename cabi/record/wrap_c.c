/*
 * The C bindings the recorder wraps. Each wrapper calls the PMPI function
 * with the caller's arguments, counts what a successful call sent, and
 * returns the PMPI result unchanged.
 *
 *   point-to-point  MPI_{,B,S,R}send, MPI_I{,b,s,r}send
 *   persistent      MPI_{,B,S,R}send_init (counted at MPI_Start/Startall,
 *                   forgotten at MPI_Request_free)
 *   combined        MPI_Sendrecv, MPI_Sendrecv_replace (the send half)
 *   neighbourhood   MPI_{,I}neighbor_{allgather,allgatherv,alltoall,
 *                   alltoallv,alltoallw}
 *   MPI 4           the large-count _c variants of all of these,
 *                   MPI_Isendrecv{,_replace}, MPI_Psend_init and the
 *                   persistent MPI_Neighbor_*_init, where the MPI has
 *                   them (probe.sh)
 *   MPI_Finalize    gathers and writes the pattern first
 *
 * MPICH's Fortran bindings call these C functions (MPI_Send, not
 * PMPI_Send), so they are covered too; OpenMPI's call PMPI_ directly and
 * get their own wrappers (wrap_fortran.c).
 */
#include "record.h"

#define OK(call) ((rc = (call)) == MPI_SUCCESS)

#define SEND(NAME, CT)                                                                  \
    int MPI_##NAME(const void *buf, CT count, MPI_Datatype type, int dest, int tag,     \
                   MPI_Comm comm) {                                                     \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(buf, count, type, dest, tag, comm)))                         \
            rec_p2p(comm, dest, (MPI_Count)count, type);                                \
        return rc;                                                                      \
    }

#define ISEND(NAME, CT)                                                                 \
    int MPI_##NAME(const void *buf, CT count, MPI_Datatype type, int dest, int tag,     \
                   MPI_Comm comm, MPI_Request *req) {                                   \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(buf, count, type, dest, tag, comm, req)))                    \
            rec_p2p(comm, dest, (MPI_Count)count, type);                                \
        return rc;                                                                      \
    }

#define SEND_INIT(NAME, CT)                                                             \
    int MPI_##NAME(const void *buf, CT count, MPI_Datatype type, int dest, int tag,     \
                   MPI_Comm comm, MPI_Request *req) {                                   \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(buf, count, type, dest, tag, comm, req)))                    \
            rec_persist_p2p(*req, comm, dest, (MPI_Count)count, type);                  \
        return rc;                                                                      \
    }

#define SENDRECV(NAME, CT)                                                              \
    int MPI_##NAME(const void *sbuf, CT scount, MPI_Datatype stype, int dest, int stag, \
                   void *rbuf, CT rcount, MPI_Datatype rtype, int source, int rtag,     \
                   MPI_Comm comm, MPI_Status *status) {                                 \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, \
                           rtag, comm, status)))                                        \
            rec_p2p(comm, dest, (MPI_Count)scount, stype);                              \
        return rc;                                                                      \
    }

#define SENDRECV_REPLACE(NAME, CT)                                                      \
    int MPI_##NAME(void *buf, CT count, MPI_Datatype type, int dest, int stag,          \
                   int source, int rtag, MPI_Comm comm, MPI_Status *status) {           \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(buf, count, type, dest, stag, source, rtag, comm, status)))  \
            rec_p2p(comm, dest, (MPI_Count)count, type);                                \
        return rc;                                                                      \
    }

/* Neighbourhood collectives. TAILDECL() and TAIL() give the arguments
 * after comm (none, a request, or info and request for the persistent
 * ones; function-like so that their commas survive being passed on), REQ
 * what rec_neighbors registers (NULL: count now). */
#define NB_ALL(NAME, CT, TAILDECL, TAIL, REQ)                                           \
    int MPI_##NAME(const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf,         \
                   CT rcount, MPI_Datatype rtype, MPI_Comm comm TAILDECL()) {             \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(sbuf, scount, stype, rbuf, rcount, rtype, comm TAIL())))       \
            rec_neighbors(comm, (MPI_Count)scount, stype, NULL, 0, NULL, NULL, REQ);          \
        return rc;                                                                      \
    }

#define NB_ALLGATHERV(NAME, CT, DT, TAILDECL, TAIL, REQ)                                \
    int MPI_##NAME(const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf,         \
                   const CT rcounts[], const DT displs[], MPI_Datatype rtype,           \
                   MPI_Comm comm TAILDECL()) {                                            \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm TAIL()))) \
            rec_neighbors(comm, (MPI_Count)scount, stype, NULL, 0, NULL, NULL, REQ);          \
        return rc;                                                                      \
    }

#define NB_ALLTOALLV(NAME, CT, DT, WIDE, TAILDECL, TAIL, REQ)                           \
    int MPI_##NAME(const void *sbuf, const CT scounts[], const DT sdispls[],            \
                   MPI_Datatype stype, void *rbuf, const CT rcounts[], const DT rdispls[], \
                   MPI_Datatype rtype, MPI_Comm comm TAILDECL()) {                        \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, \
                           comm TAIL())))                                                 \
            rec_neighbors(comm, 0, stype, scounts, WIDE, NULL, NULL, REQ);                    \
        return rc;                                                                      \
    }

#define NB_ALLTOALLW(NAME, CT, WIDE, TAILDECL, TAIL, REQ)                               \
    int MPI_##NAME(const void *sbuf, const CT scounts[], const MPI_Aint sdispls[],     \
                   const MPI_Datatype stypes[], void *rbuf, const CT rcounts[],        \
                   const MPI_Aint rdispls[], const MPI_Datatype rtypes[],              \
                   MPI_Comm comm TAILDECL()) {                                            \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,     \
                           rtypes, comm TAIL())))                                         \
            rec_neighbors(comm, 0, MPI_DATATYPE_NULL, scounts, WIDE, stypes, NULL, REQ);      \
        return rc;                                                                      \
    }

#define NONE()
#define REQDECL() , MPI_Request *req
#define REQARG() , req
#define INFODECL() , MPI_Info info, MPI_Request *req
#define INFOARG() , info, req

/* All the variants of one family for one count type. */
#define SENDS(CT, S)                                                                    \
    SEND(Send##S, CT) SEND(Bsend##S, CT) SEND(Ssend##S, CT) SEND(Rsend##S, CT)         \
    ISEND(Isend##S, CT) ISEND(Ibsend##S, CT) ISEND(Issend##S, CT) ISEND(Irsend##S, CT) \
    SEND_INIT(Send_init##S, CT) SEND_INIT(Bsend_init##S, CT)                            \
    SEND_INIT(Ssend_init##S, CT) SEND_INIT(Rsend_init##S, CT)                           \
    SENDRECV(Sendrecv##S, CT) SENDRECV_REPLACE(Sendrecv_replace##S, CT)

#define NEIGHBORS(CT, DT, WIDE, P, S, TAILDECL, TAIL, REQ)                              \
    NB_ALL(P##_allgather##S, CT, TAILDECL, TAIL, REQ)                           \
    NB_ALL(P##_alltoall##S, CT, TAILDECL, TAIL, REQ)                            \
    NB_ALLGATHERV(P##_allgatherv##S, CT, DT, TAILDECL, TAIL, REQ)               \
    NB_ALLTOALLV(P##_alltoallv##S, CT, DT, WIDE, TAILDECL, TAIL, REQ)           \
    NB_ALLTOALLW(P##_alltoallw##S, CT, WIDE, TAILDECL, TAIL, REQ)

SENDS(int, )
NEIGHBORS(int, int, 0, Neighbor, , NONE, NONE, NULL)
NEIGHBORS(int, int, 0, Ineighbor, , REQDECL, REQARG, NULL)

/* The MPI 4 calls, each family where this MPI has it (REC_HAVE_*, from
 * probe.sh): not by MPI_VERSION, which OpenMPI 5 gives as 3 while it
 * ships some of them. */
#ifdef REC_HAVE_large_count
SENDS(MPI_Count, _c)
NEIGHBORS(MPI_Count, MPI_Aint, 1, Neighbor, _c, NONE, NONE, NULL)
NEIGHBORS(MPI_Count, MPI_Aint, 1, Ineighbor, _c, REQDECL, REQARG, NULL)
#endif
#ifdef REC_HAVE_neighbor_init
NEIGHBORS(int, int, 0, Neighbor, _init, INFODECL, INFOARG, req)
#endif
#ifdef REC_HAVE_neighbor_init_c
NEIGHBORS(MPI_Count, MPI_Aint, 1, Neighbor, _init_c, INFODECL, INFOARG, req)
#endif

#define ISENDRECV(NAME, CT)                                                             \
    int MPI_##NAME(const void *sbuf, CT scount, MPI_Datatype stype, int dest, int stag, \
                   void *rbuf, CT rcount, MPI_Datatype rtype, int source, int rtag,     \
                   MPI_Comm comm, MPI_Request *req) {                                   \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, \
                           rtag, comm, req)))                                           \
            rec_p2p(comm, dest, (MPI_Count)scount, stype);                              \
        return rc;                                                                      \
    }
#define ISENDRECV_REPLACE(NAME, CT)                                                     \
    int MPI_##NAME(void *buf, CT count, MPI_Datatype type, int dest, int stag,          \
                   int source, int rtag, MPI_Comm comm, MPI_Request *req) {             \
        int rc;                                                                         \
        if (OK(PMPI_##NAME(buf, count, type, dest, stag, source, rtag, comm, req)))     \
            rec_p2p(comm, dest, (MPI_Count)count, type);                                \
        return rc;                                                                      \
    }
#ifdef REC_HAVE_isendrecv
ISENDRECV(Isendrecv, int)
ISENDRECV_REPLACE(Isendrecv_replace, int)
#endif
#ifdef REC_HAVE_isendrecv_c
ISENDRECV(Isendrecv_c, MPI_Count)
ISENDRECV_REPLACE(Isendrecv_replace_c, MPI_Count)
#endif

#ifdef REC_HAVE_psend_init
/* A partitioned send moves partitions x count elements per start. */
int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm, MPI_Info info, MPI_Request *req) {
    int rc;
    if (OK(PMPI_Psend_init(buf, partitions, count, type, dest, tag, comm, info, req)))
        rec_persist_p2p(*req, comm, dest, (MPI_Count)partitions * count, type);
    return rc;
}
#endif

int MPI_Start(MPI_Request *req) {
    MPI_Request r = *req;
    int rc;
    if (OK(PMPI_Start(req))) rec_start(r);
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[]) {
    int rc;
    if (OK(PMPI_Startall(n, reqs)))
        for (int i = 0; i < n; i++) rec_start(reqs[i]);
    return rc;
}

int MPI_Request_free(MPI_Request *req) {
    rec_request_free(*req); /* before: the handle may be reused at once */
    return PMPI_Request_free(req);
}

int MPI_Finalize(void) {
    rec_finalize();
    return PMPI_Finalize();
}
