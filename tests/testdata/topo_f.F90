! topo_f: the constructors from Fortran, compiled twice: with "use mpi"
! (topo_f) and with -DF08 "use mpi_f08" (topo_f08). MPI_CART_CREATE with
! coordinates and shifts checked by a sendrecv, MPI_DIST_GRAPH_CREATE_ADJACENT
! weighted and with MPI_UNWEIGHTED, MPI_DIST_GRAPH_CREATE, MPI_GRAPH_CREATE.
! Output as in topocheck.h (R, PERM, FAIL, LOADED, DONE lines).
!   topo_f [reorder]      (1 or 0, default 1)
#ifdef F08
#define COMM type(MPI_Comm)
#define MPIMOD mpi_f08
#else
#define COMM integer
#define MPIMOD mpi
#endif
program topo_f
  use MPIMOD
  implicit none
  COMM :: cart, g
  integer :: rank, size, t, ierr, errors, total, i, k, in, out, n
  integer :: dims(2), coords(2), want(2), src, dst, got, disp, d
  logical :: periods(2), reorder, weighted
  integer :: s(8), sw(8), de(8), dw(8), es(8), esw(8), ed(8), edw(8)
  integer :: idx(6), edges(32)
  character(len=16) :: arg
  character(len=512) :: line

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  errors = 0
  reorder = .true.
  if (command_argument_count() > 0) then
     call get_command_argument(1, arg)
     reorder = trim(arg) /= '0'
  end if
  if (size /= 6) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)

  ! Cartesian 2x3, dimension 1 periodic
  dims = [2, 3]
  periods = [.false., .true.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, cart, ierr)
  call MPI_Comm_rank(cart, t, ierr)
  call perm('cart', t)
  call MPI_Cart_coords(cart, t, 2, coords, ierr)
  if (coords(1) /= t / 3 .or. coords(2) /= mod(t, 3)) call fail('cart coordinates')
  do d = 0, 1
     do disp = -1, 1, 2
        call MPI_Cart_shift(cart, d, disp, src, dst, ierr)
        want = coords
        want(d + 1) = want(d + 1) + disp
        if (d == 1) want(2) = modulo(want(2), 3)
        k = MPI_PROC_NULL
        if (want(1) >= 0 .and. want(1) < 2) call MPI_Cart_rank(cart, want, k, ierr)
        if (dst /= k) call fail('cart shift destination')
        got = -7
        call MPI_Sendrecv(t, 1, MPI_INTEGER, dst, 5, got, 1, MPI_INTEGER, src, 5, cart, &
             MPI_STATUS_IGNORE, ierr)
        if (src /= MPI_PROC_NULL .and. got /= src) call fail('cart sendrecv')
        write (line, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'cart rank ', t, ' dim ', d, ' disp ', disp, &
             ' src ', src, ' dst ', dst, ' got ', got
        call r(line)
     end do
  end do
  call MPI_Comm_free(cart, ierr)

  ! Dist graph, adjacent, weighted then unweighted: rank t sees the lists
  ! rank t of MPI_COMM_WORLD passed.
  do k = 0, 1
     in = graph_list(rank, .false., s, sw)
     out = graph_list(rank, .true., de, dw)
     if (k == 0) then
        call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, s, sw, out, de, dw, &
             MPI_INFO_NULL, reorder, g, ierr)
     else
        call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, s, MPI_UNWEIGHTED, out, de, &
             MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, g, ierr)
     end if
     call MPI_Comm_rank(g, t, ierr)
     call perm('adjacent', t)
     call check_dist(g, t, k == 0, .false., 'adjacent')
     call MPI_Comm_free(g, ierr)
  end do

  ! Dist graph, general: every rank names its out-edges.
  out = graph_list(rank, .true., de, dw)
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, [rank], [out], de, dw, MPI_INFO_NULL, reorder, g, ierr)
  call MPI_Comm_rank(g, t, ierr)
  call perm('general', t)
  call check_dist(g, t, .true., .true., 'general')
  call MPI_Comm_free(g, ierr)

  ! Graph: the 2x3 grid.
  n = 0
  do i = 0, 5
     do k = 0, 5
        if (i /= k .and. has_edge(i, k)) then
           n = n + 1
           edges(n) = k
        end if
     end do
     idx(i + 1) = n
  end do
  call MPI_Graph_create(MPI_COMM_WORLD, 6, idx, edges, reorder, g, ierr)
  call MPI_Comm_rank(g, t, ierr)
  call perm('graph', t)
  call MPI_Graph_neighbors_count(g, t, k, ierr)
  call MPI_Graph_neighbors(g, t, 8, s, ierr)
  i = 0
  if (t > 0) i = idx(t)
  if (k /= idx(t + 1) - i) call fail('graph neighbour count')
  write (line, '(a,i0,a,8(1x,i0))') 'graph rank ', t, ' neighbours', s(1:k)
  if (any(s(1:k) /= edges(i + 1:i + k))) call fail('graph neighbours')
  call r(line)
  call MPI_Comm_free(g, ierr)

  call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call loaded()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0)', 'DONE errors ', total
  call MPI_Finalize(ierr)

contains

  logical function has_edge(u, v)
    integer, intent(in) :: u, v
    integer :: dx, dy
    dx = u / 3 - v / 3
    dy = mod(u, 3) - mod(v, 3)
    has_edge = dx * dx + dy * dy == 1 .or. (u == 0 .and. v == 0) .or. (u == 5 .and. v == 1)
  end function has_edge

  ! The test graph of topocheck.h: out- or in-neighbours of v, increasing.
  integer function graph_list(v, outgoing, nb, w)
    integer, intent(in) :: v
    logical, intent(in) :: outgoing
    integer, intent(out) :: nb(8), w(8)
    integer :: u
    graph_list = 0
    do u = 0, 5
       if (outgoing .and. has_edge(v, u)) then
          graph_list = graph_list + 1
          nb(graph_list) = u
          w(graph_list) = 1 + mod(3 * v + u, 7)
       else if (.not. outgoing .and. has_edge(u, v)) then
          graph_list = graph_list + 1
          nb(graph_list) = u
          w(graph_list) = 1 + mod(3 * u + v, 7)
       end if
    end do
  end function graph_list

  subroutine check_dist(g, t, withweights, sorted, name)
    COMM, intent(in) :: g
    integer, intent(in) :: t
    logical, intent(in) :: withweights, sorted
    character(len=*), intent(in) :: name
    integer :: ein, eout, gin, gout, j
    logical :: wt
    ein = graph_list(t, .false., es, esw)
    eout = graph_list(t, .true., ed, edw)
    call MPI_Dist_graph_neighbors_count(g, gin, gout, wt, ierr)
    if (gin /= ein .or. gout /= eout .or. (wt .neqv. withweights)) then
       call fail(name // ' neighbour counts')
       return
    end if
    call MPI_Dist_graph_neighbors(g, gin, s, sw, gout, de, dw, ierr)
    if (.not. withweights) then
       sw = 0
       dw = 0
       esw = 0
       edw = 0
    end if
    if (sorted) then
       call sort2(gin, s, sw)
       call sort2(gout, de, dw)
    end if
    if (any(s(1:gin) /= es(1:ein)) .or. any(sw(1:gin) /= esw(1:ein))) call fail(name // ' sources')
    if (any(de(1:gout) /= ed(1:eout)) .or. any(dw(1:gout) /= edw(1:eout))) call fail(name // ' destinations')
    write (line, '(a,a,i0,a,l1,a)') name, ' rank ', t, ' weighted ', wt, ' in'
    do j = 1, gin
       write (line, '(a,1x,i0,a,i0)') trim(line), s(j), ':', sw(j)
    end do
    line = trim(line) // ' out'
    do j = 1, gout
       write (line, '(a,1x,i0,a,i0)') trim(line), de(j), ':', dw(j)
    end do
    call r(line)
  end subroutine check_dist

  subroutine sort2(n, a, b)
    integer, intent(in) :: n
    integer, intent(inout) :: a(:), b(:)
    integer :: i, j, x
    do i = 2, n
       do j = i, 2, -1
          if (a(j - 1) < a(j) .or. (a(j - 1) == a(j) .and. b(j - 1) <= b(j))) exit
          x = a(j); a(j) = a(j - 1); a(j - 1) = x
          x = b(j); b(j) = b(j - 1); b(j - 1) = x
       end do
    end do
  end subroutine sort2

  subroutine r(text)
    character(len=*), intent(in) :: text
    print '(a,a)', 'R ', trim(text)
    flush (6)
  end subroutine r

  subroutine perm(what, t)
    character(len=*), intent(in) :: what
    integer, intent(in) :: t
    print '(a,a,1x,i0,1x,i0)', 'PERM ', what, rank, t
  end subroutine perm

  subroutine fail(text)
    character(len=*), intent(in) :: text
    print '(a,i0,a,a)', 'FAIL ', rank, ': ', text
    errors = errors + 1
  end subroutine fail

  subroutine loaded()
    character(len=4096) :: l
    integer :: u, ios
    logical :: yes
    yes = .false.
    open (newunit=u, file='/proc/self/maps', action='read', iostat=ios)
    do while (ios == 0)
       read (u, '(a)', iostat=ios) l
       if (ios == 0 .and. index(l, '/libgpumap.so') > 0) yes = .true.
    end do
    close (u)
    if (yes) then
       print '(a,i0,a)', 'LOADED ', rank, ' yes'
    else
       print '(a,i0,a)', 'LOADED ', rank, ' no'
    end if
  end subroutine loaded
end program topo_f
