! gpumap Fortran module: ISO_C_BINDING interfaces to libgpumap.
!
!   use gpumap
!   call gpumap_reorder(comm, degree, neighbors, volumes, newcomm, ierr [, options])
!
! comm/newcomm may be INTEGER handles (use mpi) or TYPE(MPI_Comm)
! (use mpi_f08): the generic name resolves to either. Neighbour ranks are
! 0-based, as everywhere in MPI. ierr is a gpumap status (GPUMAP_OK = 0);
! gpumap_error_message returns the detailed message of the calling
! thread's last failure. Called before MPI_Init or after MPI_Finalize,
! every routine returns GPUMAP_ERR_MPI without calling MPI.
module gpumap
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Comm
  implicit none
  private
  public :: gpumap_options, gpumap_options_init, gpumap_reorder, gpumap_cost, gpumap_error_message
  public :: gpumap_map_dist

  integer(c_int), parameter, public :: GPUMAP_OK = 0, GPUMAP_ERR_ARGUMENT = 1, &
       GPUMAP_ERR_NEIGHBOR = 2, GPUMAP_ERR_VOLUME = 3, GPUMAP_ERR_COMM = 4, &
       GPUMAP_ERR_INCONSISTENT = 5, GPUMAP_ERR_OPTIONS = 6, GPUMAP_ERR_GRAPH = 7, &
       GPUMAP_ERR_INFEASIBLE = 8, GPUMAP_ERR_NO_GPU = 9, GPUMAP_ERR_MPI = 10, &
       GPUMAP_ERR_INTERNAL = 11
  integer(c_int), parameter, public :: GPUMAP_PRESET_FAST = 0, GPUMAP_PRESET_DEFAULT = 1, &
       GPUMAP_PRESET_STRONG = 2
  integer(c_int), parameter, public :: GPUMAP_BACKEND_AUTO = 0, GPUMAP_BACKEND_CPU = 1, &
       GPUMAP_BACKEND_GPU = 2
  integer(c_int), parameter, public :: GPUMAP_PATTERN_SEND = 0, GPUMAP_PATTERN_EXCHANGE = 1
  integer(c_int), parameter, public :: GPUMAP_ALGORITHM_AUTO = 0, GPUMAP_ALGORITHM_IM = 1, &
       GPUMAP_ALGORITHM_HM = 2
  ! options%imbalance left at its default (0 for a reordering; see gpumap.h)
  real(c_double), parameter, public :: GPUMAP_IMBALANCE_DEFAULT = -1.0_c_double

  ! Mirrors gpumap_options in gpumap.h (initialise with gpumap_options_init).
  type, bind(C) :: gpumap_options
     integer(c_int) :: version, preset, backend, algorithm, pattern, verbosity, threads, reserved_int
     integer(c_int64_t) :: seed
     real(c_double) :: imbalance
     type(c_ptr) :: hierarchy, distance
     type(c_ptr) :: reserved(4)
  end type gpumap_options

  interface
     subroutine gpumap_options_init(options) bind(C, name="gpumap_options_init")
       import :: gpumap_options
       type(gpumap_options), intent(out) :: options
     end subroutine gpumap_options_init

     function c_reorder_f(comm, degree, neighbors, volumes, options, newcomm) &
          bind(C, name="gpumap_reorder_f") result(status)
       import :: c_int, c_double, c_ptr
       integer(c_int), value :: comm, degree
       integer(c_int), intent(in) :: neighbors(*)
       real(c_double), intent(in) :: volumes(*)
       type(c_ptr), value :: options
       integer(c_int), intent(out) :: newcomm
       integer(c_int) :: status
     end function c_reorder_f

     function c_map_dist_f(vtxdist, xadj, adjncy, vwgt, adjwgt, hierarchy, distance, options, pe, cost, comm) &
          bind(C, name="gpumap_map_dist_f") result(status)
       import :: c_int, c_int64_t, c_char, gpumap_options
       integer(c_int64_t), intent(in) :: vtxdist(*), xadj(*), adjncy(*)
       integer(c_int64_t), intent(in), optional :: vwgt(*), adjwgt(*)
       character(kind=c_char), intent(in) :: hierarchy(*), distance(*)
       type(gpumap_options), intent(in), optional :: options
       integer(c_int64_t), intent(inout) :: pe(*)
       integer(c_int64_t), intent(out), optional :: cost
       integer(c_int), value :: comm
       integer(c_int) :: status
     end function c_map_dist_f

     function c_last_error() bind(C, name="gpumap_last_error") result(p)
       import :: c_ptr
       type(c_ptr) :: p
     end function c_last_error
  end interface

  interface gpumap_reorder
     module procedure reorder_int, reorder_f08
  end interface gpumap_reorder

  ! gpumap_map_dist(vtxdist, xadj, adjncy, hierarchy, distance, pe, comm, ierr
  !                 [, vwgt, adjwgt, options, cost]): the distributed mapper
  ! (gpumap.h's gpumap_map_dist), collective over comm. Arrays are
  ! INTEGER(c_int64_t) and 0-based as in C: vtxdist(size+1) global ids,
  ! xadj(n+1) local offsets from 0, adjncy(xadj(n+1)) global ids (for
  ! 1-based arrays, subtract 1 from every entry and add 1 to pe). A rank
  ! without vertices passes xadj = [0] and empty adjncy and pe. Absent
  ! weights are all 1; cost receives J.
  interface gpumap_map_dist
     module procedure map_dist_int, map_dist_f08
  end interface gpumap_map_dist

contains

  subroutine map_dist_int(vtxdist, xadj, adjncy, hierarchy, distance, pe, comm, ierr, vwgt, adjwgt, options, cost)
    integer(c_int64_t), intent(in) :: vtxdist(*), xadj(*), adjncy(*)
    character(len=*), intent(in) :: hierarchy, distance
    integer(c_int64_t), intent(inout) :: pe(*)
    integer, intent(in) :: comm
    integer, intent(out) :: ierr
    integer(c_int64_t), intent(in), optional :: vwgt(*), adjwgt(*)
    type(gpumap_options), intent(in), optional :: options
    integer(c_int64_t), intent(out), optional :: cost
    ! Absent optionals reach C as NULL (Fortran 2018 interoperability).
    ierr = c_map_dist_f(vtxdist, xadj, adjncy, vwgt, adjwgt, trim(hierarchy)//c_null_char, &
         trim(distance)//c_null_char, options, pe, cost, int(comm, c_int))
  end subroutine map_dist_int

  subroutine map_dist_f08(vtxdist, xadj, adjncy, hierarchy, distance, pe, comm, ierr, vwgt, adjwgt, options, cost)
    integer(c_int64_t), intent(in) :: vtxdist(*), xadj(*), adjncy(*)
    character(len=*), intent(in) :: hierarchy, distance
    integer(c_int64_t), intent(inout) :: pe(*)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out) :: ierr
    integer(c_int64_t), intent(in), optional :: vwgt(*), adjwgt(*)
    type(gpumap_options), intent(in), optional :: options
    integer(c_int64_t), intent(out), optional :: cost
    call map_dist_int(vtxdist, xadj, adjncy, hierarchy, distance, pe, comm%MPI_VAL, ierr, vwgt, adjwgt, options, cost)
  end subroutine map_dist_f08

  subroutine reorder_int(comm, degree, neighbors, volumes, newcomm, ierr, options)
    integer, intent(in) :: comm, degree
    integer, intent(in) :: neighbors(*)
    double precision, intent(in) :: volumes(*)
    integer, intent(out) :: newcomm, ierr
    type(gpumap_options), intent(in), optional, target :: options
    integer(c_int) :: nf
    integer(c_int) :: dummy_n(1)
    real(c_double) :: dummy_v(1)
    type(c_ptr) :: op
    op = c_null_ptr
    if (present(options)) op = c_loc(options)
    if (degree > 0) then
       ierr = c_reorder_f(int(comm, c_int), int(degree, c_int), neighbors, volumes, op, nf)
    else
       ierr = c_reorder_f(int(comm, c_int), int(degree, c_int), dummy_n, dummy_v, op, nf)
    end if
    newcomm = nf
  end subroutine reorder_int

  subroutine reorder_f08(comm, degree, neighbors, volumes, newcomm, ierr, options)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: degree
    integer, intent(in) :: neighbors(*)
    double precision, intent(in) :: volumes(*)
    type(MPI_Comm), intent(out) :: newcomm
    integer, intent(out) :: ierr
    type(gpumap_options), intent(in), optional, target :: options
    call reorder_int(comm%MPI_VAL, degree, neighbors, volumes, newcomm%MPI_VAL, ierr, options)
  end subroutine reorder_f08

  ! gpumap_cost is provided for INTEGER handles; pass comm%MPI_VAL with mpi_f08.
  subroutine gpumap_cost(comm, degree, neighbors, volumes, cost, ierr)
    integer, intent(in) :: comm, degree
    integer, intent(in) :: neighbors(*)
    double precision, intent(in) :: volumes(*)
    double precision, intent(out) :: cost
    integer, intent(out) :: ierr
    interface
       function c_cost_f(comm, degree, neighbors, volumes, options, cost) &
            bind(C, name="gpumap_cost_f") result(status)
         import :: c_int, c_double, c_ptr
         integer(c_int), value :: comm, degree
         integer(c_int), intent(in) :: neighbors(*)
         real(c_double), intent(in) :: volumes(*)
         type(c_ptr), value :: options
         real(c_double), intent(out) :: cost
         integer(c_int) :: status
       end function c_cost_f
    end interface
    ierr = c_cost_f(int(comm, c_int), int(degree, c_int), neighbors, volumes, c_null_ptr, cost)
  end subroutine gpumap_cost

  ! The detailed message of the last failure on this process.
  function gpumap_error_message() result(msg)
    character(len=:), allocatable :: msg
    character(kind=c_char), pointer :: s(:)
    type(c_ptr) :: p
    integer :: n
    p = c_last_error()
    call c_f_pointer(p, s, [1024])
    n = 0
    do while (n < 1024)
       if (s(n + 1) == c_null_char) exit
       n = n + 1
    end do
    allocate(character(len=n) :: msg)
    msg = transfer(s(1:n), msg)
  end function gpumap_error_message

end module gpumap
