/* The step of the tick counter; included by tick.c from its own directory, as NPB's
 * wtime.c includes wtime.h. */
#define TICK_STEP 1
