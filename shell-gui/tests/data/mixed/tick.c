/* Part of a mixed Fortran and C program (as NPB's common/wtime.c): a tick counter the
 * Fortran timers call. sapfor does not analyze it; `sapfor run` compiles it with cc. */
#include "tick.h"

static double count = 0;

void tick_(double *t)
{
    count += TICK_STEP;
    *t = count;
}
