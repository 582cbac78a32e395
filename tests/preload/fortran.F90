! A plain Fortran MPI program (no patcoll in sight) for the shim tests:
! MPI_REDUCE, MPI_ALLREDUCE, MPI_SCATTER, MPI_GATHER (blocking, and
! non-blocking with MPI_WAIT, MPI_TEST, MPI_WAITALL), MPI_BCAST, MPI_ALLGATHER(V), MPI_ALLTOALL and
! MPI_REDUCE_SCATTER(_BLOCK) (and MPI_IREDUCE_SCATTER_BLOCK) with Fortran
! datatypes (INTEGER, DOUBLE PRECISION, LOGICAL), predefined and user ops,
! MPI_IN_PLACE at the root, several roots, MPI_COMM_WORLD and a split
! communicator. Built three times: BINDING 1 = include 'mpif.h',
! 2 = use mpi, 3 = use mpi_f08. Each rank prints "digest <rank> <value>"
! (a checksum of every result it holds) and "<n> passed, <m> failed"
! (every ierror MPI_SUCCESS); run_tests.sh compares the digests of a run
! under the shim with a run without it.
program shim_fortran
#if BINDING == 3
  use mpi_f08
#elif BINDING == 2
  use mpi
#endif
  implicit none
#if BINDING == 1
  include 'mpif.h'
#endif
#if BINDING == 3
  type(MPI_Comm) :: comms(2), split
  type(MPI_Op) :: user_op
  type(MPI_Request) :: reqs(2)
#else
  integer :: comms(2), split
  integer :: user_op
  integer :: reqs(2)
#endif
  logical :: done
  integer, parameter :: n = 37
  integer :: rank, size, ierr, c, crank, csize, root, k, failed, passed
  integer :: ibuf(n), iout(n), iall(n * 16), iblock(n), ipairs(n * 16), vcounts(16), displs(16)
  double precision :: dbuf(n), dout(n)
  logical :: lbuf(n), lout(n)
  integer(kind=8) :: digest
#if BINDING != 3
  external :: wrapping_sum
#endif

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), rank, split, ierr)
  comms(1) = MPI_COMM_WORLD
  comms(2) = split
#if BINDING != 3
  call MPI_OP_CREATE(wrapping_sum, .true., user_op, ierr)
#endif
  digest = 0
  failed = 0
  passed = 0

  do c = 1, 2
    call MPI_COMM_RANK(comms(c), crank, ierr)
    call MPI_COMM_SIZE(comms(c), csize, ierr)
    do root = 0, csize - 1, max(1, csize - 1)
      ! MPI_REDUCE, INTEGER, MPI_SUM
      do k = 1, n
        ibuf(k) = mod(crank * 31 + k * 7, 13) - 6
      end do
      iout = -99
      call MPI_REDUCE(ibuf, iout, n, MPI_INTEGER, MPI_SUM, root, comms(c), ierr)
      call verdict(ierr)
      if (crank == root) call add_ints(iout, n)
      ! the same with MPI_IN_PLACE at the root
      iout = ibuf
      if (crank == root) then
        call MPI_REDUCE(MPI_IN_PLACE, iout, n, MPI_INTEGER, MPI_SUM, root, comms(c), ierr)
      else
        call MPI_REDUCE(ibuf, iout, n, MPI_INTEGER, MPI_SUM, root, comms(c), ierr)
      end if
      call verdict(ierr)
      if (crank == root) call add_ints(iout, n)
      ! MPI_REDUCE, DOUBLE PRECISION, MPI_MAX
      do k = 1, n
        dbuf(k) = dble(mod(crank * 5 + k * 3, 17))
      end do
      dout = -1d0
      call MPI_REDUCE(dbuf, dout, n, MPI_DOUBLE_PRECISION, MPI_MAX, root, comms(c), ierr)
      call verdict(ierr)
      if (crank == root) call add_ints(int(dout), n)

      ! MPI_SCATTER / MPI_GATHER, INTEGER blocks of n
      do k = 1, n * csize
        iall(k) = 1000 * crank + k
      end do
      iblock = -1
      call MPI_SCATTER(iall, n, MPI_INTEGER, iblock, n, MPI_INTEGER, root, comms(c), ierr)
      call verdict(ierr)
      call add_ints(iblock, n)
      if (crank == root) then  ! the root keeps its block in place
        call MPI_SCATTER(iall, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, comms(c), ierr)
      else
        call MPI_SCATTER(iall, n, MPI_INTEGER, iblock, n, MPI_INTEGER, root, comms(c), ierr)
      end if
      call verdict(ierr)
      call add_ints(iblock, n)
      iall = -7
      do k = 1, n
        iblock(k) = crank * 100 + k
      end do
      call MPI_GATHER(iblock, n, MPI_INTEGER, iall, n, MPI_INTEGER, root, comms(c), ierr)
      call verdict(ierr)
      if (crank == root) call add_ints(iall, n * csize)
      if (crank == root) then
        iall(root * n + 1 : root * n + n) = iblock
        call MPI_GATHER(MPI_IN_PLACE, n, MPI_INTEGER, iall, n, MPI_INTEGER, root, comms(c), ierr)
      else
        call MPI_GATHER(iblock, n, MPI_INTEGER, iall, n, MPI_INTEGER, root, comms(c), ierr)
      end if
      call verdict(ierr)
      if (crank == root) call add_ints(iall, n * csize)

      ! MPI_BCAST: INTEGER and DOUBLE PRECISION buffers of n from the root
      iblock = -1
      if (crank == root) then
        do k = 1, n
          iblock(k) = 500 + 3 * k
        end do
      end if
      call MPI_BCAST(iblock, n, MPI_INTEGER, root, comms(c), ierr)
      call verdict(ierr)
      call add_ints(iblock, n)
      dbuf = -1d0
      if (crank == root) then
        do k = 1, n
          dbuf(k) = dble(mod(k * 7, 23))
        end do
      end if
      call MPI_BCAST(dbuf, n, MPI_DOUBLE_PRECISION, root, comms(c), ierr)
      call verdict(ierr)
      call add_ints(int(dbuf), n)
    end do

    ! MPI_ALLTOALL, INTEGER pairs of n, then in place
    do k = 1, n * csize
      iall(k) = 1000 * crank + k
    end do
    ipairs = -3
    call MPI_ALLTOALL(iall, n, MPI_INTEGER, ipairs, n, MPI_INTEGER, comms(c), ierr)
    call verdict(ierr)
    call add_ints(ipairs, n * csize)
    ipairs(1 : n * csize) = iall(1 : n * csize)
    call MPI_ALLTOALL(MPI_IN_PLACE, n, MPI_INTEGER, ipairs, n, MPI_INTEGER, comms(c), ierr)
    call verdict(ierr)
    call add_ints(ipairs, n * csize)

    ! MPI_REDUCE_SCATTER_BLOCK, INTEGER blocks of n, then in place;
    ! MPI_REDUCE_SCATTER with unequal counts (every third rank's block empty)
    do k = 1, n * csize
      iall(k) = mod(crank * 31 + k * 7, 13) - 6
    end do
    iblock = -5
    call MPI_REDUCE_SCATTER_BLOCK(iall, iblock, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call verdict(ierr)
    call add_ints(iblock, n)
    ipairs(1 : n * csize) = iall(1 : n * csize)
    call MPI_REDUCE_SCATTER_BLOCK(MPI_IN_PLACE, ipairs, n, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call verdict(ierr)
    call add_ints(ipairs, n)
    do k = 1, csize
      vcounts(k) = n - mod(k - 1, 4)
      if (mod(k - 1, 3) == 1) vcounts(k) = 0
    end do
    iblock = -5
    call MPI_REDUCE_SCATTER(iall, iblock, vcounts, MPI_INTEGER, MPI_SUM, comms(c), ierr)
    call verdict(ierr)
    call add_ints(iblock, vcounts(crank + 1))

    ! MPI_ALLGATHER plain and in place; MPI_ALLGATHERV with unequal counts
    ! (every third rank sends nothing) in reverse rank order
    do k = 1, n
      iblock(k) = crank * 100 + k
    end do
    iall = -7
    call MPI_ALLGATHER(iblock, n, MPI_INTEGER, iall, n, MPI_INTEGER, comms(c), ierr)
    call verdict(ierr)
    call add_ints(iall, n * csize)
    iall = -7
    iall(crank * n + 1 : crank * n + n) = iblock
    call MPI_ALLGATHER(MPI_IN_PLACE, n, MPI_INTEGER, iall, n, MPI_INTEGER, comms(c), ierr)
    call verdict(ierr)
    call add_ints(iall, n * csize)
    k = 0
    do root = csize - 1, 0, -1
      vcounts(root + 1) = n - mod(root, 4)
      if (mod(root, 3) == 1) vcounts(root + 1) = 0
      displs(root + 1) = k
      k = k + vcounts(root + 1)
    end do
    iall = -7
    call MPI_ALLGATHERV(iblock, vcounts(crank + 1), MPI_INTEGER, iall, vcounts, displs, MPI_INTEGER, comms(c), ierr)
    call verdict(ierr)
    call add_ints(iall, n * csize)
    iall = -7
    iall(displs(crank + 1) + 1 : displs(crank + 1) + vcounts(crank + 1)) = iblock(1 : vcounts(crank + 1))
    call MPI_ALLGATHERV(MPI_IN_PLACE, 0, MPI_INTEGER, iall, vcounts, displs, MPI_INTEGER, comms(c), ierr)
    call verdict(ierr)
    call add_ints(iall, n * csize)

    ! MPI_ALLREDUCE: DOUBLE PRECISION sum, in place; INTEGER max; LOGICAL and
    do k = 1, n
      dbuf(k) = dble(mod(crank + k, 9))
    end do
    dout = 0d0
    call MPI_ALLREDUCE(dbuf, dout, n, MPI_DOUBLE_PRECISION, MPI_SUM, comms(c), ierr)
    call verdict(ierr)
    call add_ints(int(dout), n)
    call MPI_ALLREDUCE(MPI_IN_PLACE, dbuf, n, MPI_DOUBLE_PRECISION, MPI_SUM, comms(c), ierr)
    call verdict(ierr)
    call add_ints(int(dbuf), n)
    do k = 1, n
      ibuf(k) = mod(crank * 13 + k, 29)
    end do
    call MPI_ALLREDUCE(ibuf, iout, n, MPI_INTEGER, MPI_MAX, comms(c), ierr)
    call verdict(ierr)
    call add_ints(iout, n)
    do k = 1, n
      lbuf(k) = mod(crank + k, 5) /= 0
    end do
    call MPI_ALLREDUCE(lbuf, lout, n, MPI_LOGICAL, MPI_LAND, comms(c), ierr)
    call verdict(ierr)
    do k = 1, n
      if (lout(k)) digest = mod(digest * 3 + k, 1000000007_8)
    end do
#if BINDING != 3
    ! a Fortran user op (commutative wrapping sum)
    call MPI_ALLREDUCE(ibuf, iout, n, MPI_INTEGER, user_op, comms(c), ierr)
    call verdict(ierr)
    call add_ints(iout, n)
#endif
  end do

  ! Non-blocking: MPI_IALLREDUCE + MPI_WAIT, MPI_IREDUCE + MPI_TEST,
  ! MPI_ISCATTER + MPI_WAITALL, MPI_IGATHER and MPI_IALLREDUCE in place +
  ! MPI_WAITALL, MPI_IALLTOALL + MPI_WAIT (under the shim, a request completed before patcoll's run
  ! shows as a different digest)
  do k = 1, n
    ibuf(k) = mod(rank * 11 + k, 23)
  end do
  iout = 0
  call MPI_IALLREDUCE(ibuf, iout, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
  call verdict(ierr)
  call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
  call verdict(ierr)
  call add_ints(iout, n)
  iout = 0
  call MPI_IREDUCE(ibuf, iout, n, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, reqs(1), ierr)
  call verdict(ierr)
  done = .false.
  do while (.not. done)
    call MPI_TEST(reqs(1), done, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) then
      failed = failed + 1
      done = .true.
    end if
  end do
  if (rank == 0) call add_ints(iout, n)
  do k = 1, n * size
    iall(k) = 3 * k + 1
  end do
  iblock = -1
  call MPI_ISCATTER(iall, n, MPI_INTEGER, iblock, n, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(1), ierr)
  call verdict(ierr)
  call MPI_WAITALL(1, reqs, MPI_STATUSES_IGNORE, ierr)
  call verdict(ierr)
  call add_ints(iblock, n)
  iall = -7
  do k = 1, n
    dbuf(k) = dble(mod(rank + 2 * k, 7))
  end do
  call MPI_IGATHER(iblock, n, MPI_INTEGER, iall, n, MPI_INTEGER, size - 1, MPI_COMM_WORLD, reqs(1), ierr)
  call verdict(ierr)
  call MPI_IALLREDUCE(MPI_IN_PLACE, dbuf, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, reqs(2), ierr)
  call verdict(ierr)
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call verdict(ierr)
  if (rank == size - 1) call add_ints(iall, n * size)
  call add_ints(int(dbuf), n)
  ! MPI_IALLGATHER + MPI_WAIT; MPI_IALLGATHERV (unequal counts, reverse
  ! rank order) + MPI_WAITALL
  do k = 1, n
    iblock(k) = rank * 100 + 2 * k
  end do
  iall = -7
  call MPI_IALLGATHER(iblock, n, MPI_INTEGER, iall, n, MPI_INTEGER, MPI_COMM_WORLD, reqs(1), ierr)
  call verdict(ierr)
  call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
  call verdict(ierr)
  call add_ints(iall, n * size)
  k = 0
  do root = size - 1, 0, -1
    vcounts(root + 1) = n - mod(root, 4)
    if (mod(root, 3) == 1) vcounts(root + 1) = 0
    displs(root + 1) = k
    k = k + vcounts(root + 1)
  end do
  iall = -7
  call MPI_IALLGATHERV(iblock, vcounts(rank + 1), MPI_INTEGER, iall, vcounts, displs, MPI_INTEGER, &
                       MPI_COMM_WORLD, reqs(1), ierr)
  call verdict(ierr)
  call MPI_WAITALL(1, reqs, MPI_STATUSES_IGNORE, ierr)
  call verdict(ierr)
  call add_ints(iall, n * size)
  ! MPI_IALLTOALL + MPI_WAIT
  do k = 1, n * size
    iall(k) = 1000 * rank + k
  end do
  ipairs = -3
  call MPI_IALLTOALL(iall, n, MPI_INTEGER, ipairs, n, MPI_INTEGER, MPI_COMM_WORLD, reqs(1), ierr)
  call verdict(ierr)
  call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
  call verdict(ierr)
  call add_ints(ipairs, n * size)

  ! MPI_IREDUCE_SCATTER_BLOCK + MPI_WAIT
  do k = 1, n * size
    iall(k) = 1000 * rank + k
  end do
  iblock = -5
  call MPI_IREDUCE_SCATTER_BLOCK(iall, iblock, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
  call verdict(ierr)
  call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
  call verdict(ierr)
  call add_ints(iblock, n)

#if BINDING != 3
  call MPI_OP_FREE(user_op, ierr)
#endif
  call MPI_COMM_FREE(split, ierr)
  write (*, '(A,I0,A,I0)') 'digest ', rank, ' ', digest
  write (*, '(I0,A,I0,A)') passed, ' passed, ', failed, ' failed'
  call MPI_FINALIZE(ierr)

contains

  subroutine verdict(code)
    integer, intent(in) :: code
    if (code == MPI_SUCCESS) then
      passed = passed + 1
    else
      failed = failed + 1
    end if
  end subroutine verdict

  subroutine add_ints(values, count)
    integer, intent(in) :: count
    integer, intent(in) :: values(count)
    integer :: i
    do i = 1, count
      digest = mod(digest * 31 + values(i) + 1000003_8, 1000000007_8)
    end do
  end subroutine add_ints

end program shim_fortran

#if BINDING != 3
subroutine wrapping_sum(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = inoutvec(i) + invec(i)
  end do
end subroutine wrapping_sum
#endif
