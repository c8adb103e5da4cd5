C     A wavefront over the planes of V: SWEEP adds plane K-1 to plane K,
C     then updates plane K in place from its lower neighbours in I and J
C     (an ACROSS nest). Under V(*,*,BLOCK) both nests run on the owner of
C     plane K, which they do not iterate over (K is an argument): the
C     expert maps them ON V(I,J,K), the second with ACROSS on the
C     invariant plane (NPB LU's blts). A constant plane subscript in an
C     ACROSS nest is what the runtime refuses (fuzz-ci seed 9).
      PROGRAM PLANE
      INTEGER N, NK
      PARAMETER (N=24, NK=12)
      INTEGER V(N,N,NK), S
      INTEGER I, J, K, IT
      DO K=1,NK
        DO J=1,N
          DO I=1,N
            V(I,J,K) = MOD(I+2*J+3*K, 11)
          ENDDO
        ENDDO
      ENDDO
      DO IT=1,3
        DO K=2,NK
          CALL SWEEP(V, N, NK, K)
        ENDDO
      ENDDO
      S = 0
      DO K=1,NK
        DO J=1,N
          DO I=1,N
            S = MOD(S + V(I,J,K) * MOD(I+J+K, 5), 1000003)
          ENDDO
        ENDDO
      ENDDO
      PRINT *, S
      END

      SUBROUTINE SWEEP(V, N, NK, K)
      INTEGER N, NK, K, I, J
      INTEGER V(N,N,NK)
      DO J=1,N
        DO I=1,N
          V(I,J,K) = MOD(V(I,J,K) + V(I,J,K-1), 997)
        ENDDO
      ENDDO
      DO J=2,N
        DO I=2,N
          V(I,J,K) = MOD(V(I,J,K) + 3*V(I-1,J,K) + 5*V(I,J-1,K), 997)
        ENDDO
      ENDDO
      END
