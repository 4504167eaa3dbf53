! topo_stencil_f: the Fortran variant of topo_stencil (cart mode only):
! MPI_CART_CREATE with reorder = .true., MPI_CART_SHIFT, halo exchange
! with the sender checked, the same PLACE/EXCHANGE/DONE lines.
!   topo_stencil_f NX NY NZ [iterations] [halo-bytes]
program topo_stencil_f
  use mpi
  implicit none
  integer :: dims(3), coords(3), w, size, t, ierr, iterations, halo, d, k, i, it, errors, total
  integer :: lo, hi, nb(6), reqs(12), from, cpu, hlen
  logical :: periods(3)
  character(len=32) :: arg
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  integer, allocatable :: sendbuf(:), recvbuf(:, :)
  double precision :: t0, el, mx, total_time, derrors, dtotal
  integer :: cart

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, w, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  do i = 1, 3
     call get_command_argument(i, arg)
     read (arg, *) dims(i)
  end do
  iterations = 5
  halo = 1048576
  if (command_argument_count() > 3) then
     call get_command_argument(4, arg)
     read (arg, *) iterations
  end if
  if (command_argument_count() > 4) then
     call get_command_argument(5, arg)
     read (arg, *) halo
  end if
  if (product(dims) /= size) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  errors = 0
  periods = .false.
  call MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, .true., cart, ierr)
  call MPI_Comm_rank(cart, t, ierr)
  call MPI_Cart_coords(cart, t, 3, coords, ierr)
  if (coords(1) /= t / (dims(2) * dims(3)) .or. coords(2) /= mod(t / dims(3), dims(2)) .or. &
      coords(3) /= mod(t, dims(3))) call fail('coordinates')
  k = 0
  do d = 0, 2
     call MPI_Cart_shift(cart, d, 1, lo, hi, ierr)
     if (lo /= MPI_PROC_NULL) then
        k = k + 1
        nb(k) = lo
     end if
     if (hi /= MPI_PROC_NULL) then
        k = k + 1
        nb(k) = hi
     end if
  end do
  call MPI_Get_processor_name(host, hlen, ierr)
  cpu = bound_cpu()
  print '(a,i0,a,i0,a,a,a,i0)', 'PLACE t=', t, ' world=', w, ' host=', host(1:hlen), ' cpu=', cpu
  flush (6)

  allocate (sendbuf(halo / 4), recvbuf(halo / 4, 6))
  sendbuf = t
  total_time = 0
  do it = 0, iterations
     call MPI_Barrier(cart, ierr)
     t0 = MPI_Wtime()
     do i = 1, k
        call MPI_Irecv(recvbuf(1, i), halo / 4, MPI_INTEGER, nb(i), 7, cart, reqs(2 * i - 1), ierr)
        call MPI_Isend(sendbuf, halo / 4, MPI_INTEGER, nb(i), 7, cart, reqs(2 * i), ierr)
     end do
     call MPI_Waitall(2 * k, reqs, MPI_STATUSES_IGNORE, ierr)
     el = MPI_Wtime() - t0
     call MPI_Allreduce(el, mx, 1, MPI_DOUBLE_PRECISION, MPI_MAX, cart, ierr)
     if (it > 0) total_time = total_time + mx
     do i = 1, k
        from = recvbuf(1, i)
        if (from /= nb(i)) call fail('halo sender')
     end do
  end do
  if (t == 0) print '(a,f0.2)', 'EXCHANGE ms=', 1d3 * total_time / max(iterations, 1)
  derrors = errors ! one type per MPI routine: MPICH's "use mpi" checks across calls
  call MPI_Allreduce(derrors, dtotal, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
  total = nint(dtotal)
  if (t == 0) print '(a,i0)', 'DONE errors ', total
  call MPI_Comm_free(cart, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine fail(text)
    character(len=*), intent(in) :: text
    print '(a,i0,a,a)', 'FAIL ', t, ': ', text
    errors = errors + 1
  end subroutine fail

  ! The CPU this process is bound to, or -1 (Cpus_allowed_list of /proc/self/status).
  integer function bound_cpu()
    character(len=512) :: l
    integer :: u, ios, c, i
    bound_cpu = -1
    open (newunit=u, file='/proc/self/status', action='read', iostat=ios)
    do while (ios == 0)
       read (u, '(a)', iostat=ios) l
       if (ios == 0 .and. l(1:18) == 'Cpus_allowed_list:') then
          do i = 19, len(l)
             if (l(i:i) == achar(9)) l(i:i) = ' '
          end do
          if (verify(trim(adjustl(l(19:))), '0123456789') == 0) then
             read (l(19:), *) c
             bound_cpu = c
          end if
       end if
    end do
    close (u)
  end function bound_cpu
end program topo_stencil_f
