// hackbench's pipe traffic on one CPU: 100-byte write()s into a pipe and 100-byte read()s
// out of it, timed apart. Not part of the build or the tests:
//   gcc -O2 -o pipe_msg scripts/measure/pipe_msg.c && ./pipe_msg SECONDS
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#define DATASIZE 100 /* hackbench's default message (hackbench.c DATASIZE) */
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 2;
  int fd[2]; char buf[DATASIZE] = {0};
  if (pipe(fd)) return 1;
  // Batches of 600 messages: under the 640 that 16 pages of 40 merged writes hold, so no write blocks.
  long n = 0; double tw = 0, tr = 0, end = now() + secs;
  while (now() < end) {
    double a = now();
    for (int i = 0; i < 600; i++) if (write(fd[1], buf, DATASIZE) != DATASIZE) return 2;
    double b = now();
    for (int i = 0; i < 600; i++) if (read(fd[0], buf, DATASIZE) != DATASIZE) return 3;
    double c = now();
    tw += b - a; tr += c - b; n += 600;
  }
  printf("%ld messages: write %.0f ns, read %.0f ns each\n", n, tw / n * 1e9, tr / n * 1e9);
  return 0;
}
