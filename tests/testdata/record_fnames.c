/*
 * record_fnames (OpenMPI): the Fortran bindings of libmpi_mpifh called
 * from C under every name the library exports for them, as a program
 * compiled with another name mangling reaches them. Rank 0 sends rank 1 a
 * different size through each name; the C wrappers never see these
 * (libmpi_mpifh calls PMPI_ directly), so only the recorder's Fortran
 * wrappers can count them. Prints what the recorder should record:
 *   EXPECT 0 1 <bytes> <messages>
 * and "CALLS <n>". Run with 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>

typedef MPI_Fint F;
typedef void send_fn(void *, F *, F *, F *, F *, F *, F *);
#define SEND(name) void name(void *, F *, F *, F *, F *, F *, F *);
SEND(mpi_send_) SEND(mpi_send) SEND(mpi_send__) SEND(MPI_SEND) SEND(MPI_Send_f) SEND(MPI_Send_f08) SEND(ompi_send_f)
void MPI_ISEND(void *, F *, F *, F *, F *, F *, F *, F *);
void mpi_send_init(void *, F *, F *, F *, F *, F *, F *, F *);
void MPI_Start_f08(F *, F *);
void mpi_request_free__(F *, F *);
void MPI_SENDRECV(void *, F *, F *, F *, F *, void *, F *, F *, F *, F *, F *, F *, F *);

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char buf[64] = {0}, rbuf[64];
    F byte = MPI_Type_c2f(MPI_BYTE), comm = MPI_Comm_c2f(MPI_COMM_WORLD), tag = 7, err;
    F one = 1, peer = 1 - rank;
    send_fn *sends[] = {mpi_send_, mpi_send, mpi_send__, MPI_SEND, MPI_Send_f, MPI_Send_f08, ompi_send_f};
    const int nsends = sizeof sends / sizeof *sends;
    long long bytes = 0, msgs = 0;
    for (int i = 0; i < nsends; i++) {
        F count = i + 1;
        if (rank == 0)
            sends[i](buf, &count, &byte, &one, &tag, &comm, &err);
        else
            MPI_Recv(rbuf, 64, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bytes += count, msgs++;
    }
    F count = 20, req;
    if (rank == 0) {
        MPI_ISEND(buf, &count, &byte, &one, &tag, &comm, &req, &err);
        MPI_Request r = MPI_Request_f2c(req);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        count = 30;
        mpi_send_init(buf, &count, &byte, &one, &tag, &comm, &req, &err);
        MPI_Start_f08(&req, &err);
        r = MPI_Request_f2c(req);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        mpi_request_free__(&req, &err);
    } else {
        MPI_Recv(rbuf, 64, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(rbuf, 64, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    bytes += 20 + 30, msgs += 2;
    /* both ways: 40 bytes each */
    F scount = 40, rcount = 64, status[8]; /* MPI_STATUS_SIZE is Fortran's (6 in OpenMPI 4.1) */
    MPI_SENDRECV(buf, &scount, &byte, &peer, &tag, rbuf, &rcount, &byte, &peer, &tag, &comm, status, &err);
    if (rank == 0) {
        printf("EXPECT 0 1 %lld %lld\nEXPECT 1 0 40 1\nCALLS %d\n", bytes + 40, msgs + 1, nsends + 4);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
