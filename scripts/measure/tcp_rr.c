// Loopback TCP_RR as netperf runs it (1-byte request, 1-byte response, TCP_NODELAY), to
// measure the CPU time of one transaction. Not part of the build or the tests:
//   gcc -O2 -o tcp_rr scripts/measure/tcp_rr.c -lpthread
//   ./tcp_rr SERVER_CPU CLIENT_CPU SECONDS PORT    (e.g. ./tcp_rr 0 0 3 23456: both on CPU 0)
// With both ends on one CPU every wake-up is a sync switch with no idle time between, so
// the time per transaction is the CPU time of both ends together.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
static int port = 23456, scpu = 0, ccpu = 0; static double secs = 3;
static void pin(int c) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(c, &s); sched_setaffinity(0, sizeof s, &s); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void *server(void *a) {
  (void)a; pin(scpu);
  int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  bind(l, (void *)&sa, sizeof sa); listen(l, 1);
  int c = accept(l, 0, 0); setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char b;
  while (recv(c, &b, 1, 0) == 1) send(c, &b, 1, 0);
  return 0;
}
int main(int argc, char **argv) {
  if (argc > 1) scpu = atoi(argv[1]);
  if (argc > 2) ccpu = atoi(argv[2]);
  if (argc > 3) secs = atof(argv[3]);
  if (argc > 4) port = atoi(argv[4]);
  pthread_t t; pthread_create(&t, 0, server, 0); usleep(100000);
  pin(ccpu);
  int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  connect(s, (void *)&sa, sizeof sa); setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char b = 'x'; long n = 0; double t0 = now(), end = t0 + secs;
  for (int i = 0; i < 20000; i++) { send(s, &b, 1, 0); recv(s, &b, 1, 0); } // warm
  t0 = now(); end = t0 + secs;
  while (now() < end) { for (int i = 0; i < 1000; i++) { send(s, &b, 1, 0); recv(s, &b, 1, 0); } n += 1000; }
  double w = now() - t0;
  printf("transactions %ld in %.3f s: %.0f tps, %.2f us each\n", n, w, n / w, w / n * 1e6);
  return 0;
}
