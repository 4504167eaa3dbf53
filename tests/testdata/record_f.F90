! record_f: the recorder under Fortran callers. Built twice: with
! "use mpi" and, with -DF08, with "use mpi_f08". Like record_calls.c, it
! sends on a ring over MPI_COMM_WORLD in reverse order (point-to-point,
! persistent, sendrecv, and neighbourhood collectives on a Cartesian ring
! and a dist graph),
! frees that communicator and sends on a new one in world order, and rank 0
! prints what the recorder should have counted:
!   EXPECT <from> <to> <bytes> <messages>
#ifdef F08
#define COMM type(MPI_Comm)
#define REQUEST type(MPI_Request)
#define DTYPE type(MPI_Datatype)
#define GROUP type(MPI_Group)
#else
#define COMM integer
#define REQUEST integer
#define DTYPE integer
#define GROUP integer
#endif
module expectations
#ifdef F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: wsize, wrank
  integer(8), allocatable :: eb(:), em(:)
contains
  subroutine expect(c, dest, bytes)
    COMM, intent(in) :: c
    integer, intent(in) :: dest, bytes
    GROUP :: g, wg
    integer :: w(1), ierr
    call MPI_Comm_group(c, g, ierr)
    call MPI_Comm_group(MPI_COMM_WORLD, wg, ierr)
    call MPI_Group_translate_ranks(g, 1, [dest], wg, w, ierr)
    call MPI_Group_free(g, ierr)
    call MPI_Group_free(wg, ierr)
    eb(w(1) + 1) = eb(w(1) + 1) + bytes
    em(w(1) + 1) = em(w(1) + 1) + 1
  end subroutine

  subroutine check(ierr, what)
    integer, intent(in) :: ierr
    character(*), intent(in) :: what
    integer :: e
    if (ierr /= MPI_SUCCESS) then
      print '(a, i0, 3a)', 'rank ', wrank, ': ', what, ' failed'
      call MPI_Abort(MPI_COMM_WORLD, 3, e)
    end if
  end subroutine
end module

program record_f
  use expectations
  implicit none
  COMM :: rev, cart, dg, id
  REQUEST :: rr, sr, ps, all(1)
  DTYPE :: types(2)
  integer :: ierr, n, me, left, right, k, c, i, start
  integer :: sbuf(4096), rbuf(4096), counts(2), rcounts(2)
  integer(kind=MPI_ADDRESS_KIND) :: displs(2), rdispls(2)
  integer(8), allocatable :: ab(:), am(:)

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, wsize, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  allocate(eb(wsize), em(wsize), ab(wsize * wsize), am(wsize * wsize))
  eb = 0
  em = 0
  sbuf = 1
  call MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - 1 - wrank, rev, ierr)
  call MPI_Comm_size(rev, n, ierr)
  call MPI_Comm_rank(rev, me, ierr)
  right = mod(me + 1, n)
  left = mod(me + n - 1, n)
  k = 0

  k = k + 1; c = k
  call MPI_Irecv(rbuf, c, MPI_INTEGER, left, k, rev, rr, ierr)
  call MPI_Send(sbuf, c, MPI_INTEGER, right, k, rev, ierr); call check(ierr, 'MPI_SEND')
  call MPI_Wait(rr, MPI_STATUS_IGNORE, ierr); call expect(rev, right, 4 * c)
  k = k + 1; c = k
  call MPI_Irecv(rbuf, c, MPI_INTEGER, left, k, rev, rr, ierr)
  call MPI_Ssend(sbuf, c, MPI_INTEGER, right, k, rev, ierr); call check(ierr, 'MPI_SSEND')
  call MPI_Wait(rr, MPI_STATUS_IGNORE, ierr); call expect(rev, right, 4 * c)
  k = k + 1; c = k
  call MPI_Irecv(rbuf, c, MPI_INTEGER, left, k, rev, rr, ierr)
  call MPI_Isend(sbuf, c, MPI_INTEGER, right, k, rev, sr, ierr); call check(ierr, 'MPI_ISEND')
  call MPI_Wait(sr, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(rr, MPI_STATUS_IGNORE, ierr); call expect(rev, right, 4 * c)
  k = k + 1; c = k
  call MPI_Sendrecv(sbuf, c, MPI_INTEGER, right, k, rbuf, c, MPI_INTEGER, left, k, rev, MPI_STATUS_IGNORE, ierr)
  call check(ierr, 'MPI_SENDRECV'); call expect(rev, right, 4 * c)
  k = k + 1; c = k
  call MPI_Sendrecv_replace(rbuf, c, MPI_INTEGER, right, k, left, k, rev, MPI_STATUS_IGNORE, ierr)
  call check(ierr, 'MPI_SENDRECV_REPLACE'); call expect(rev, right, 4 * c)
  call MPI_Send(sbuf, 3, MPI_INTEGER, MPI_PROC_NULL, 0, rev, ierr)
  ! persistent: MPI_START, then MPI_STARTALL, then MPI_REQUEST_FREE
  k = k + 1; c = k
  call MPI_Send_init(sbuf, c, MPI_INTEGER, right, k, rev, ps, ierr); call check(ierr, 'MPI_SEND_INIT')
  do start = 1, 2
    call MPI_Irecv(rbuf, c, MPI_INTEGER, left, k, rev, rr, ierr)
    if (start == 1) then
      call MPI_Start(ps, ierr)
    else
      all(1) = ps
      call MPI_Startall(1, all, ierr)
    end if
    call MPI_Wait(ps, MPI_STATUS_IGNORE, ierr)
    call MPI_Wait(rr, MPI_STATUS_IGNORE, ierr); call expect(rev, right, 4 * c)
  end do
  call MPI_Request_free(ps, ierr)

  ! neighbourhood collectives on a periodic Cartesian ring (out-neighbours left, right)
  call MPI_Cart_create(rev, 1, [n], [.true.], .false., cart, ierr)
  k = k + 1; c = k
  call MPI_Neighbor_alltoall(sbuf, c, MPI_INTEGER, rbuf, c, MPI_INTEGER, cart, ierr)
  call check(ierr, 'MPI_NEIGHBOR_ALLTOALL'); call expect(cart, left, 4 * c); call expect(cart, right, 4 * c)
  k = k + 1; c = k
  call MPI_Ineighbor_allgather(sbuf, c, MPI_INTEGER, rbuf, c, MPI_INTEGER, cart, sr, ierr)
  call check(ierr, 'MPI_INEIGHBOR_ALLGATHER'); call MPI_Wait(sr, MPI_STATUS_IGNORE, ierr)
  call expect(cart, left, 4 * c); call expect(cart, right, 4 * c)
  k = k + 1; c = k
  counts = [c, 2 * c]
  rcounts = [2 * c, c]
  call MPI_Neighbor_alltoallv(sbuf, counts, [0, 4 * c], MPI_INTEGER, rbuf, rcounts, [0, 4 * c], MPI_INTEGER, cart, ierr)
  call check(ierr, 'MPI_NEIGHBOR_ALLTOALLV'); call expect(cart, left, 4 * c); call expect(cart, right, 8 * c)
  ! alltoallw on a dist graph with the same neighbours: MPICH 4.0.2's
  ! mpi_f08 MPI_Neighbor_alltoallw asks for dist-graph neighbours and
  ! fails on a Cartesian communicator
  call MPI_Dist_graph_create_adjacent(rev, 2, [left, right], MPI_UNWEIGHTED, 2, [left, right], MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., dg, ierr)
  k = k + 1; c = k
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  counts = [c, c]
  displs = [0_MPI_ADDRESS_KIND, int(16 * c, MPI_ADDRESS_KIND)]
  rdispls = displs
  call MPI_Neighbor_alltoallw(sbuf, counts, displs, types, rbuf, counts, rdispls, [MPI_DOUBLE_PRECISION, MPI_INTEGER], &
                              dg, ierr)
  call check(ierr, 'MPI_NEIGHBOR_ALLTOALLW'); call expect(dg, left, 4 * c); call expect(dg, right, 8 * c)
  call MPI_Comm_free(dg, ierr)
  call MPI_Comm_free(cart, ierr)

  ! free the reversed ring; a new communicator in world order may get its handle
  call MPI_Comm_free(rev, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, 0, wrank, id, ierr)
  call MPI_Comm_rank(id, me, ierr)
  right = mod(me + 1, n)
  left = mod(me + n - 1, n)
  k = k + 1; c = 250
  call MPI_Irecv(rbuf, c, MPI_INTEGER, left, k, id, rr, ierr)
  call MPI_Send(sbuf, c, MPI_INTEGER, right, k, id, ierr); call check(ierr, 'MPI_SEND')
  call MPI_Wait(rr, MPI_STATUS_IGNORE, ierr); call expect(id, right, 4 * c)
  call MPI_Comm_free(id, ierr)

  call MPI_Gather(eb, wsize, MPI_INTEGER8, ab, wsize, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  call MPI_Gather(em, wsize, MPI_INTEGER8, am, wsize, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  if (wrank == 0) then
    do i = 0, wsize * wsize - 1
      if (am(i + 1) > 0) print '(a, i0, 1x, i0, 1x, i0, 1x, i0)', 'EXPECT ', i / wsize, mod(i, wsize), ab(i + 1), am(i + 1)
    end do
    print '(a, i0)', 'CALLS ', k
  end if
  call MPI_Finalize(ierr)
end program
