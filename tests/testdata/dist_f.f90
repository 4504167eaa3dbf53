! dist_f: gpumap_map_dist from Fortran (mpi_f08 and INTEGER handles). A
! ring of 4*size vertices, rank 0 owning none, onto 2:2 / 1:10. Rank 0
! gathers the mapping and recomputes J and the heaviest PE; every rank
! prints
!   FDIST rank <r> status <s> J=<cost> check=<ok, or what is wrong>
! then the same call with another hierarchy on the last rank:
!   FDIST-BAD rank <r> status <s> <message> (status 5 on every rank)
program dist_f
  use mpi_f08
  use gpumap
  use, intrinsic :: iso_c_binding, only: c_int64_t
  implicit none
  integer :: rank, size, status, status2, r, d, lvl
  integer(c_int64_t) :: ntot, lo, hi, n, v, u, e, j, heavy, lmax, cost, cost2
  integer(c_int64_t), allocatable :: vtxdist(:), xadj(:), adjncy(:), adjwgt(:), pe(:), pe2(:), all(:), load(:)
  integer, allocatable :: counts(:), displs(:)
  integer, parameter :: arity(2) = [2, 2]
  integer(c_int64_t), parameter :: dist(2) = [1_c_int64_t, 10_c_int64_t]
  type(gpumap_options) :: opt
  character(len=200) :: check
  character(len=8) :: h

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  ntot = 4 * size
  allocate(vtxdist(size + 1))
  vtxdist = 0
  do r = 2, size
     vtxdist(r + 1) = ntot * (r - 1) / (size - 1)
  end do
  vtxdist(size + 1) = ntot
  lo = vtxdist(rank + 1)
  hi = vtxdist(rank + 2)
  n = hi - lo
  allocate(xadj(n + 1), adjncy(2 * n), adjwgt(2 * n), pe(n), pe2(n))
  xadj(1) = 0
  do v = lo, hi - 1
     e = 2 * (v - lo)
     adjncy(e + 1) = mod(v + ntot - 1, ntot)
     adjncy(e + 2) = mod(v + 1, ntot)
     xadj(v - lo + 2) = e + 2
  end do
  adjwgt = 1

  call gpumap_options_init(opt)
  opt%seed = 5
  call gpumap_map_dist(vtxdist, xadj, adjncy, '2:2', '1:10', pe, MPI_COMM_WORLD, status, options=opt, cost=cost)
  ! INTEGER handle, explicit unit weights: the same mapping.
  call gpumap_map_dist(vtxdist, xadj, adjncy, '2:2', '1:10', pe2, MPI_COMM_WORLD%MPI_VAL, status2, &
       adjwgt=adjwgt, options=opt, cost=cost2)

  allocate(counts(size), displs(size), all(ntot), load(4))
  do r = 1, size
     counts(r) = int(vtxdist(r + 1) - vtxdist(r))
     displs(r) = int(vtxdist(r))
  end do
  call MPI_Gatherv(pe, int(n), MPI_INTEGER8, all, counts, displs, MPI_INTEGER8, 0, MPI_COMM_WORLD)
  check = 'ok'
  if (rank == 0) then
     j = 0
     load = 0
     do v = 0, ntot - 1
        load(all(v + 1) + 1) = load(all(v + 1) + 1) + 1
        u = mod(v + 1, ntot)
        if (all(v + 1) /= all(u + 1)) then
           ! the highest level at which the two PEs differ
           lvl = 1
           if (all(v + 1) / arity(1) /= all(u + 1) / arity(1)) lvl = 2
           j = j + dist(lvl)
        end if
     end do
     heavy = maxval(load)
     lmax = ceiling(1.03d0 * real(ntot, 8) / 4d0, c_int64_t)
     if (status /= GPUMAP_OK .or. status2 /= GPUMAP_OK) then
        write (check, '(a,i0,a,i0)') 'status ', status, ' ', status2
     else if (j /= cost) then
        write (check, '(a,i0,a,i0)') 'cost ', cost, ' but the mapping has J ', j
     else if (heavy > lmax) then
        write (check, '(a,i0,a,i0)') 'heaviest PE ', heavy, ' > Lmax ', lmax
     end if
  end if
  d = 0
  if (cost /= cost2 .or. any(pe /= pe2)) d = 1
  call MPI_Allreduce(MPI_IN_PLACE, d, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  if (d /= 0 .and. rank == 0) check = 'the INTEGER-handle call gave another mapping'
  print '(a,i0,a,i0,a,i0,a,a)', 'FDIST rank ', rank, ' status ', status, ' J=', cost, ' check=', trim(check)

  h = '2:2'
  if (rank == size - 1) h = '4:1'
  call gpumap_map_dist(vtxdist, xadj, adjncy, trim(h), '1:10', pe, MPI_COMM_WORLD, status)
  print '(a,i0,a,i0,a,a)', 'FDIST-BAD rank ', rank, ' status ', status, ' ', gpumap_error_message()
  call MPI_Barrier(MPI_COMM_WORLD) ! the caller's communicator still works
  call MPI_Finalize()
end program dist_f
