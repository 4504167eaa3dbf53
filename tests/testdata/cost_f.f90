! cost_f: gpumap_cost and gpumap_reorder through the Fortran module in a
! program that takes MPI from mpif.h (INTEGER handles, no module). Rank r
! sends 1000*(r+1) bytes to rank r+1; the second gpumap_cost names a rank
! out of range on rank 1 only, which every rank must report.
program cost_f
  use gpumap
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, status, degree, newcomm, newrank
  integer :: nb(1)
  double precision :: vol(1), cost
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  degree = 1
  if (rank == size - 1) degree = 0
  nb(1) = rank + 1
  vol(1) = 1000d0 * (rank + 1)
  cost = -1
  call gpumap_cost(MPI_COMM_WORLD, degree, nb, vol, cost, status)
  print '(a,i0,a,i0,a,f0.1)', 'COST_F RANK ', rank, ' STATUS ', status, ' COST ', cost
  if (rank == 1) nb(1) = size
  call gpumap_cost(MPI_COMM_WORLD, degree, nb, vol, cost, status)
  print '(a,i0,a,i0,a,a)', 'COST_F RANK ', rank, ' BAD STATUS ', status, ' ', gpumap_error_message()
  nb(1) = rank + 1
  call gpumap_reorder(MPI_COMM_WORLD, degree, nb, vol, newcomm, status)
  if (status /= GPUMAP_OK) then
     print '(a,i0,a,i0,a,a)', 'rank ', rank, ': status ', status, ': ', gpumap_error_message()
     call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Comm_rank(newcomm, newrank, ierr)
  print '(a,i0,a,i0)', 'MPIFH RANK ', rank, ' NEW ', newrank
  call MPI_Comm_free(newcomm, ierr)
  call MPI_Finalize(ierr)
end program cost_f
