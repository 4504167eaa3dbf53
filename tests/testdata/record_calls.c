/*
 * record_calls: every sending call libgpumap_record.so wraps, on
 * communicators other than MPI_COMM_WORLD, with the traffic each call
 * should add written down by the program itself (translated to world ranks
 * with MPI_Group_translate_ranks). Run it with the recorder preloaded and
 * compare:
 *   EXPECT <from> <to> <bytes> <messages>   (world ranks, printed by rank 0)
 *   EXPECT_SELF <bytes> <messages>          (all ranks' messages to themselves)
 * Each call sends a different size, on a ring over MPI_COMM_WORLD in
 * reverse order, its Cartesian, dist-graph and graph topologies, an
 * inter-communicator, MPI_COMM_SELF and MPI_COMM_WORLD; sends to
 * MPI_PROC_NULL add nothing. Freed communicators and requests are then
 * replaced (MPI may reuse their handles) to catch stale translations.
 * Needs at least 3 ranks, an even number.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenMPI's MPI_UNWEIGHTED is a zero-length array gcc warns about */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"

static int wsize, wrank;
static unsigned long long *eb, *em, self_b, self_m;
static char *sbuf, *rbuf;

/* world rank of rank r of c (of its remote group when remote) */
static int world_of(MPI_Comm c, int r, int remote) {
    MPI_Group g, wg;
    int w;
    if (remote)
        MPI_Comm_remote_group(c, &g);
    else
        MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &r, wg, &w);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    return w;
}

static void expect_to(MPI_Comm c, int dest, long long bytes, int remote) {
    if (dest == MPI_PROC_NULL) return;
    int w = world_of(c, dest, remote);
    if (w == wrank) {
        self_b += (unsigned long long)bytes;
        self_m++;
    } else {
        eb[w] += (unsigned long long)bytes;
        em[w]++;
    }
}
#define expect(c, dest, bytes) expect_to(c, dest, bytes, 0)

static void check(int rc, const char *what) {
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s failed\n", wrank, what);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* One message of each point-to-point kind from every rank to its right
 * neighbour on comm (a ring), received from the left. */
static void point_to_point(MPI_Comm comm, int *k) {
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MPI_Request rr, sr, ps;
    MPI_Datatype d3;
    MPI_Type_contiguous(3, MPI_DOUBLE, &d3);
    MPI_Type_commit(&d3);
#define RECV(count, type) check(MPI_Irecv(rbuf, count, type, left, *k, comm, &rr), "MPI_Irecv")
#define DONE() MPI_Wait(&rr, MPI_STATUS_IGNORE)
    int c;
    c = ++*k * 8 + 1, RECV(c, MPI_BYTE), check(MPI_Send(sbuf, c, MPI_BYTE, right, *k, comm), "MPI_Send"), DONE(), expect(comm, right, c);
    c = ++*k * 8 + 1, RECV(c, MPI_BYTE), check(MPI_Bsend(sbuf, c, MPI_BYTE, right, *k, comm), "MPI_Bsend"), DONE(), expect(comm, right, c);
    c = ++*k * 8 + 1, RECV(c, MPI_BYTE), check(MPI_Ssend(sbuf, c, MPI_BYTE, right, *k, comm), "MPI_Ssend"), DONE(), expect(comm, right, c);
    c = ++*k, RECV(c, MPI_INT), MPI_Barrier(comm), check(MPI_Rsend(sbuf, c, MPI_INT, right, *k, comm), "MPI_Rsend"), DONE(), expect(comm, right, 4 * c);
    c = ++*k, RECV(c, d3), check(MPI_Isend(sbuf, c, d3, right, *k, comm, &sr), "MPI_Isend"), MPI_Wait(&sr, MPI_STATUS_IGNORE), DONE(), expect(comm, right, 24 * c);
    c = ++*k, RECV(c, MPI_INT), check(MPI_Ibsend(sbuf, c, MPI_INT, right, *k, comm, &sr), "MPI_Ibsend"), MPI_Wait(&sr, MPI_STATUS_IGNORE), DONE(), expect(comm, right, 4 * c);
    c = ++*k, RECV(c, MPI_INT), check(MPI_Issend(sbuf, c, MPI_INT, right, *k, comm, &sr), "MPI_Issend"), MPI_Wait(&sr, MPI_STATUS_IGNORE), DONE(), expect(comm, right, 4 * c);
    c = ++*k, RECV(c, MPI_INT), MPI_Barrier(comm), check(MPI_Irsend(sbuf, c, MPI_INT, right, *k, comm, &sr), "MPI_Irsend"), MPI_Wait(&sr, MPI_STATUS_IGNORE), DONE(), expect(comm, right, 4 * c);

    /* persistent: counted at every start */
    int (*inits[4])(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) = {
        MPI_Send_init, MPI_Bsend_init, MPI_Ssend_init, MPI_Rsend_init};
    for (int i = 0; i < 4; i++) {
        c = ++*k;
        check(inits[i](sbuf, c, MPI_INT, right, *k, comm, &ps), "MPI_*send_init");
        for (int start = 0; start < 2; start++) {
            RECV(c, MPI_INT);
            MPI_Barrier(comm); /* ready mode needs the receive posted */
            check(start == 0 ? MPI_Start(&ps) : MPI_Startall(1, &ps), "MPI_Start");
            MPI_Wait(&ps, MPI_STATUS_IGNORE);
            DONE();
            expect(comm, right, 4 * c);
        }
        MPI_Request_free(&ps);
    }

    c = ++*k * 8 + 1;
    check(MPI_Sendrecv(sbuf, c, MPI_BYTE, right, *k, rbuf, c, MPI_BYTE, left, *k, comm, MPI_STATUS_IGNORE), "MPI_Sendrecv");
    expect(comm, right, c);
    c = ++*k * 8 + 1;
    memset(rbuf, 0, (size_t)c);
    check(MPI_Sendrecv_replace(rbuf, c, MPI_BYTE, right, *k, left, *k, comm, MPI_STATUS_IGNORE), "MPI_Sendrecv_replace");
    expect(comm, right, c);
    check(MPI_Send(sbuf, 5, MPI_BYTE, MPI_PROC_NULL, 0, comm), "MPI_Send to MPI_PROC_NULL");

#if MPI_VERSION >= 4
    c = ++*k * 8 + 1;
    check(MPI_Isendrecv(sbuf, c, MPI_BYTE, right, *k, rbuf, c, MPI_BYTE, left, *k, comm, &sr), "MPI_Isendrecv");
    MPI_Wait(&sr, MPI_STATUS_IGNORE), expect(comm, right, c);
    c = ++*k * 8 + 1;
    check(MPI_Isendrecv_replace(rbuf, c, MPI_BYTE, right, *k, left, *k, comm, &sr), "MPI_Isendrecv_replace");
    MPI_Wait(&sr, MPI_STATUS_IGNORE), expect(comm, right, c);
    c = ++*k * 8 + 1, RECV(c, MPI_BYTE), check(MPI_Send_c(sbuf, (MPI_Count)c, MPI_BYTE, right, *k, comm), "MPI_Send_c"), DONE(), expect(comm, right, c);
    c = ++*k * 8 + 1, RECV(c, MPI_BYTE), check(MPI_Isend_c(sbuf, (MPI_Count)c, MPI_BYTE, right, *k, comm, &sr), "MPI_Isend_c"), MPI_Wait(&sr, MPI_STATUS_IGNORE), DONE(), expect(comm, right, c);
    /* partitioned: 3 partitions of c bytes, one message per start */
    c = ++*k * 8 + 1;
    check(MPI_Precv_init(rbuf, 3, c, MPI_BYTE, left, *k, comm, MPI_INFO_NULL, &rr), "MPI_Precv_init");
    check(MPI_Psend_init(sbuf, 3, c, MPI_BYTE, right, *k, comm, MPI_INFO_NULL, &ps), "MPI_Psend_init");
    MPI_Start(&rr);
    MPI_Start(&ps);
    for (int p = 0; p < 3; p++) MPI_Pready(p, ps);
    MPI_Wait(&ps, MPI_STATUS_IGNORE);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    expect(comm, right, 3 * c);
    MPI_Request_free(&ps);
    MPI_Request_free(&rr);
#endif
#undef RECV
#undef DONE
    MPI_Type_free(&d3);
}

/* The neighbourhood collectives on a 1-D periodic Cartesian ring over
 * comm (out-neighbours: left, right), a dist graph (right only) and a
 * graph (left, right). */
static void neighbourhood(MPI_Comm comm, int *k) {
    int n, me, dims[1], periods[1] = {1};
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    dims[0] = n;
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MPI_Comm cart, dg, gr;
    check(MPI_Cart_create(comm, 1, dims, periods, 0, &cart), "MPI_Cart_create");
    check(MPI_Dist_graph_create_adjacent(comm, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
          "MPI_Dist_graph_create_adjacent");
    int *index = malloc(sizeof(int) * (size_t)n), *edges = malloc(sizeof(int) * 2 * (size_t)n);
    for (int i = 0; i < n; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + n - 1) % n;
        edges[2 * i + 1] = (i + 1) % n;
    }
    check(MPI_Graph_create(comm, n, index, edges, 0, &gr), "MPI_Graph_create");
    free(index);
    free(edges);
    MPI_Datatype d3;
    MPI_Type_contiguous(3, MPI_DOUBLE, &d3);
    MPI_Type_commit(&d3);
    MPI_Request r;
    int c, counts[2], displs[2] = {0, 0}, rcounts[2];
    MPI_Aint wdispls[2] = {0, 0};
    MPI_Datatype types[2] = {MPI_INT, d3};

    for (int nonblocking = 0; nonblocking < 2; nonblocking++) {
#define WAIT() (nonblocking ? MPI_Wait(&r, MPI_STATUS_IGNORE) : 0)
        c = ++*k;
        check(nonblocking ? MPI_Ineighbor_allgather(sbuf, c, MPI_INT, rbuf, c, MPI_INT, cart, &r)
                          : MPI_Neighbor_allgather(sbuf, c, MPI_INT, rbuf, c, MPI_INT, cart), "allgather");
        WAIT(), expect(cart, left, 4 * c), expect(cart, right, 4 * c);
        c = ++*k, rcounts[0] = rcounts[1] = c, displs[1] = 4 * c;
        check(nonblocking ? MPI_Ineighbor_allgatherv(sbuf, c, MPI_BYTE, rbuf, rcounts, displs, MPI_BYTE, cart, &r)
                          : MPI_Neighbor_allgatherv(sbuf, c, MPI_BYTE, rbuf, rcounts, displs, MPI_BYTE, cart), "allgatherv");
        WAIT(), expect(cart, left, c), expect(cart, right, c);
        c = ++*k;
        check(nonblocking ? MPI_Ineighbor_alltoall(sbuf, c, MPI_INT, rbuf, c, MPI_INT, dg, &r)
                          : MPI_Neighbor_alltoall(sbuf, c, MPI_INT, rbuf, c, MPI_INT, dg), "alltoall");
        WAIT(), expect(dg, right, 4 * c);
        c = ++*k, counts[0] = c, counts[1] = 2 * c, displs[1] = 4 * c, rcounts[0] = 2 * c, rcounts[1] = c;
        check(nonblocking ? MPI_Ineighbor_alltoallv(sbuf, counts, displs, MPI_INT, rbuf, rcounts, displs, MPI_INT, gr, &r)
                          : MPI_Neighbor_alltoallv(sbuf, counts, displs, MPI_INT, rbuf, rcounts, displs, MPI_INT, gr), "alltoallv");
        WAIT(), expect(gr, left, 4 * c), expect(gr, right, 8 * c);
        /* alltoallw: 4c bytes left as ints, 2c x 24 bytes right; what
         * arrives from the left is 2c of d3, from the right c ints. */
        c = ++*k, counts[0] = c, counts[1] = 2 * c, wdispls[1] = 4 * c;
        MPI_Aint rd[2] = {0, 48 * c};
        int rc2[2] = {2 * c, c};
        MPI_Datatype rt[2] = {d3, MPI_INT};
        check(nonblocking ? MPI_Ineighbor_alltoallw(sbuf, counts, wdispls, types, rbuf, rc2, rd, rt, gr, &r)
                          : MPI_Neighbor_alltoallw(sbuf, counts, wdispls, types, rbuf, rc2, rd, rt, gr), "alltoallw");
        WAIT(), expect(gr, left, 4 * c), expect(gr, right, 48 * c);
#undef WAIT
    }
#if MPI_VERSION >= 4
    c = ++*k;
    check(MPI_Neighbor_alltoall_init(sbuf, c, MPI_INT, rbuf, c, MPI_INT, cart, MPI_INFO_NULL, &r), "alltoall_init");
    for (int start = 0; start < 2; start++) {
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        expect(cart, left, 4 * c), expect(cart, right, 4 * c);
    }
    MPI_Request_free(&r);
    c = ++*k;
    MPI_Count cc = c;
    check(MPI_Neighbor_allgather_c(sbuf, cc, MPI_INT, rbuf, cc, MPI_INT, cart), "allgather_c");
    expect(cart, left, 4 * c), expect(cart, right, 4 * c);
#endif
    MPI_Type_free(&d3);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&dg);
    MPI_Comm_free(&gr);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wsize < 3 || wsize % 2) {
        if (wrank == 0) fprintf(stderr, "record_calls: needs an even number of ranks, at least 4\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    eb = calloc((size_t)wsize, sizeof *eb);
    em = calloc((size_t)wsize, sizeof *em);
    sbuf = calloc(1, 1 << 16);
    rbuf = calloc(1, 1 << 16);
    int bsize = 1 << 20;
    MPI_Buffer_attach(malloc((size_t)bsize), bsize);
    int k = 0;

    /* a ring over the world in reverse order */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - 1 - wrank, &rev);
    point_to_point(rev, &k);
    neighbourhood(rev, &k);
    /* MPI_COMM_WORLD itself, MPI_COMM_SELF (to oneself) */
    point_to_point(MPI_COMM_WORLD, &k);
    MPI_Request r1, r2;
    MPI_Irecv(rbuf, 77, MPI_BYTE, 0, 5, MPI_COMM_SELF, &r1);
    MPI_Isend(sbuf, 77, MPI_BYTE, 0, 5, MPI_COMM_SELF, &r2);
    MPI_Wait(&r2, MPI_STATUS_IGNORE), MPI_Wait(&r1, MPI_STATUS_IGNORE), expect(MPI_COMM_SELF, 0, 77);
    /* an inter-communicator between even and odd world ranks: send to the
     * remote rank with my local rank */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - wrank % 2, 99, &inter);
    int lr;
    MPI_Comm_rank(half, &lr);
    MPI_Irecv(rbuf, 333, MPI_BYTE, lr, 6, inter, &r1);
    check(MPI_Send(sbuf, 333, MPI_BYTE, lr, 6, inter), "MPI_Send on an inter-communicator");
    MPI_Wait(&r1, MPI_STATUS_IGNORE), expect_to(inter, lr, 333, 1);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    /* Free, then build communicators and requests that may get the old
     * handles back: the identity order this time. */
    MPI_Comm_free(&rev);
    for (int round = 0; round < 3; round++) {
        MPI_Comm id;
        MPI_Comm_split(MPI_COMM_WORLD, 0, round == 1 ? wsize - 1 - wrank : wrank, &id);
        int n, me;
        MPI_Comm_size(id, &n);
        MPI_Comm_rank(id, &me);
        int right = (me + 1) % n, left = (me + n - 1) % n, c = 1000 + round;
        MPI_Request ps, pr;
        MPI_Send_init(sbuf, c, MPI_BYTE, right, 8, id, &ps);
        MPI_Request_free(&ps);
        /* a persistent receive that may reuse the freed send's handle */
        MPI_Recv_init(rbuf, c, MPI_BYTE, left, 9, id, &pr);
        MPI_Start(&pr);
        check(MPI_Send(sbuf, c, MPI_BYTE, right, 9, id), "MPI_Send");
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        MPI_Request_free(&pr);
        expect(id, right, c);
        MPI_Comm_free(&id);
    }

    unsigned long long *ab = NULL, *am = NULL, sb[2] = {self_b, self_m}, st[2];
    if (wrank == 0) {
        ab = malloc(sizeof *ab * (size_t)wsize * (size_t)wsize);
        am = malloc(sizeof *am * (size_t)wsize * (size_t)wsize);
    }
    MPI_Gather(eb, wsize, MPI_UNSIGNED_LONG_LONG, ab, wsize, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Gather(em, wsize, MPI_UNSIGNED_LONG_LONG, am, wsize, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Reduce(sb, st, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0) {
        for (int a = 0; a < wsize; a++)
            for (int b = 0; b < wsize; b++)
                if (am[a * wsize + b]) printf("EXPECT %d %d %llu %llu\n", a, b, ab[a * wsize + b], am[a * wsize + b]);
        printf("EXPECT_SELF %llu %llu\nCALLS %d\n", st[0], st[1], k);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
