! hello_f: ring pattern through the Fortran module with INTEGER handles.
program hello_f
  use mpi
  use gpumap
  implicit none
  integer :: ierr, rank, size, newcomm, newrank, degree, status
  integer :: nb(2)
  double precision :: vol(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  nb = [mod(rank + 1, size), mod(rank + size - 1, size)]
  vol = [1048576d0, 1048576d0]
  degree = 2
  if (size == 2) degree = 1
  call gpumap_reorder(MPI_COMM_WORLD, degree, nb, vol, newcomm, status)
  if (status /= GPUMAP_OK) then
     print '(a,i0,a,i0,a,a)', 'rank ', rank, ': status ', status, ': ', gpumap_error_message()
     call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Comm_rank(newcomm, newrank, ierr)
  print '(a,i0,a,i0)', 'FORTRAN RANK ', rank, ' NEW ', newrank
  call MPI_Comm_free(newcomm, ierr)
  call MPI_Finalize(ierr)
end program hello_f
