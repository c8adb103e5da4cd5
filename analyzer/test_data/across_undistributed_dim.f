C     A recurrence along the second dimension, swept in J from low to
C     high while I runs free: loop J carries the dependence A(I,J-1) ->
C     A(I,J) (and A(I,J+1) is read before it is overwritten). When the
C     expert distributes only the first dimension, the ACROSS clause must
C     still name the second one (A(0:0,1:1)): a PARALLEL tuple without it
C     lets threads, processes and accelerator threads race on J.
      PROGRAM R1
      PARAMETER (N=60)
      DOUBLE PRECISION A(N,N)
C EXPECT: parallel
      DO J=1,N
C EXPECT: parallel
        DO I=1,N
          A(I,J) = MOD(I*J,7)
        ENDDO
      ENDDO
C EXPECT: sequential blockers(dep)
      DO IT=1,20
C EXPECT: across
        DO J=2,N-1
C EXPECT: parallel
          DO I=2,N-1
            A(I,J) = (A(I,J-1)+A(I,J+1))/2
          ENDDO
        ENDDO
      ENDDO
      PRINT *, A(N/2,N/2), A(3,N-2)
      END
