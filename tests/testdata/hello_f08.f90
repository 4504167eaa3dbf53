! hello_f08: the same through TYPE(MPI_Comm) handles of mpi_f08.
program hello_f08
  use mpi_f08
  use gpumap
  implicit none
  type(MPI_Comm) :: newcomm
  type(gpumap_options) :: opt
  integer :: rank, size, newrank, degree, status
  integer :: nb(2)
  double precision :: vol(2)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  nb = [mod(rank + 1, size), mod(rank + size - 1, size)]
  vol = [1048576d0, 1048576d0]
  degree = 2
  if (size == 2) degree = 1
  call gpumap_options_init(opt)
  opt%preset = GPUMAP_PRESET_FAST
  call gpumap_reorder(MPI_COMM_WORLD, degree, nb, vol, newcomm, status, opt)
  if (status /= GPUMAP_OK) then
     print '(a,i0,a,i0,a,a)', 'rank ', rank, ': status ', status, ': ', gpumap_error_message()
     call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Comm_rank(newcomm, newrank)
  print '(a,i0,a,i0)', 'FORTRAN08 RANK ', rank, ' NEW ', newrank
  call MPI_Comm_free(newcomm)
  call MPI_Finalize()
end program hello_f08
