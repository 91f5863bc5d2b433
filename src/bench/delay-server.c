// The timing benchmark's target (and the URL runner test's): an HTTP server that waits 20 ms
// before the first byte of its answer and 20 ms more before the last, and records the delays it
// really applied. Its own timer fires late by whatever the machine is busy with, so it measures
// rather than trusts, on the kernel's stamps (exact however late this process gets to read
// them): from the request's arrival to the first byte's departure, and from there to the last
// byte's departure.
//
// In C, in its own process, because a Node server cannot know when its request arrived: the
// event loop reads the socket first, and the kernel's stamp goes with that read.
//
// Usage: delay_server. Prints "port N" once listening on 127.0.0.1. Each line "applied" on
// stdin is answered with one line of JSON, {"/path": {"firstByte": ms, "download": ms}, ...},
// for the requests answered since the last such line. Exits when stdin closes.

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "stamps.h"

#define MAX_FD 65536
#define DELAY_NS 20000000LL
#define HEAD "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: close\r\n\r\n"

enum { READING, WAIT_FIRST, WAIT_LAST, DONE };

typedef struct {
  int state;
  size_t len;
  char buf[2048];
  char path[128];
  int64_t t0, t1, due;
  int64_t sent[2]; // departure stamps of the first byte's write and the last's
  int n_sent;
} conn_t;

typedef struct {
  char path[128];
  double first_byte, download;
} record_t;

static conn_t *conns[MAX_FD];
static int active[MAX_FD];
static int n_active;
static record_t *records;
static size_t n_records, cap_records;

// Wall-clock time, the clock of the kernel's receive stamps: only differences are reported.
static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void on_stamps(int fd);

static void drop(int ep, int fd) {
  on_stamps(fd); // stamps not yet read would be lost with the socket
  epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
  close(fd);
  free(conns[fd]);
  conns[fd] = NULL;
  for (int i = 0; i < n_active; i++) {
    if (active[i] == fd) {
      active[i] = active[--n_active];
      break;
    }
  }
}

static void record(const conn_t *c) {
  if (n_records == cap_records) {
    cap_records = cap_records ? cap_records * 2 : 1024;
    records = realloc(records, cap_records * sizeof *records);
    if (!records) exit(1);
  }
  record_t *r = &records[n_records++];
  memcpy(r->path, c->path, sizeof r->path);
  r->first_byte = (double)(c->sent[0] - c->t0) / 1e6;
  r->download = (double)(c->sent[1] - c->sent[0]) / 1e6;
}

// Reads what came; once the request's head is complete, t0 is the stamp of the segment that
// completed it.
static void on_readable(int ep, int fd) {
  conn_t *c = conns[fd];
  for (;;) {
    stamp_control_t control;
    char scratch[512];
    struct iovec iov;
    if (c->state == READING) {
      iov.iov_base = c->buf + c->len;
      iov.iov_len = sizeof c->buf - 1 - c->len;
    } else {
      iov.iov_base = scratch;
      iov.iov_len = sizeof scratch;
    }
    struct msghdr msg;
    message_init(&msg, &iov, &control);
    ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0 || iov.iov_len == 0) {
      drop(ep, fd);
      return;
    }
    if (c->state != READING) continue;
    int64_t stamp = kernel_stamp(&msg);
    c->len += (size_t)n;
    c->buf[c->len] = 0;
    if (!strstr(c->buf, "\r\n\r\n")) continue;
    c->t0 = stamp ? stamp : now_ns();
    const char *p = strchr(c->buf, ' ');
    size_t k = 0;
    if (p) {
      for (p++; *p && *p != ' ' && *p != '"' && *p != '\\' && k < sizeof c->path - 1; p++) c->path[k++] = *p;
    }
    c->path[k] = 0;
    c->state = WAIT_FIRST;
    c->due = c->t0 + DELAY_NS;
  }
}

// The departure stamps of this connection's writes, queued by the kernel on its error queue.
static void on_stamps(int fd) {
  conn_t *c = conns[fd];
  for (;;) {
    stamp_control_t control;
    struct msghdr msg;
    message_init(&msg, NULL, &control);
    if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return;
    int64_t t = kernel_stamp(&msg);
    if (t && c->n_sent < 2) c->sent[c->n_sent++] = t;
    if (c->n_sent == 2 && c->state == DONE) {
      record(c);
      c->n_sent = 3;
    }
  }
}

static void on_due(int ep, int fd) {
  conn_t *c = conns[fd];
  if (c->state == WAIT_FIRST) {
    c->t1 = now_ns();
    if (write(fd, HEAD "o", sizeof HEAD) < 0) return drop(ep, fd);
    c->state = WAIT_LAST;
    c->due = c->t1 + DELAY_NS;
  } else if (c->state == WAIT_LAST) {
    if (write(fd, "k", 1) < 0) return drop(ep, fd);
    shutdown(fd, SHUT_WR);
    c->state = DONE;
  }
}

static void answer_applied(void) {
  fputs("{", stdout);
  for (size_t i = 0; i < n_records; i++) {
    printf("%s\"%s\":{\"firstByte\":%.6f,\"download\":%.6f}", i ? "," : "", records[i].path, records[i].first_byte, records[i].download);
  }
  fputs("}\n", stdout);
  fflush(stdout);
  n_records = 0;
}

int main(void) {
  // Timers may otherwise fire up to 50 us late, for the kernel's convenience.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t alen = sizeof addr;
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 1024) < 0 ||
      getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0) {
    perror("delay_server");
    return 1;
  }
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = lfd };
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  ev.data.fd = 0;
  epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
  // One timer for the earliest due write, to the ns (epoll_wait alone counts in whole ms).
  int tfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
  ev.data.fd = tfd;
  epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
  printf("port %d\n", ntohs(addr.sin_port));
  fflush(stdout);

  char line[64];
  size_t line_len = 0;
  struct epoll_event events[256];
  for (;;) {
    int64_t next = -1;
    for (int i = 0; i < n_active; i++) {
      conn_t *c = conns[active[i]];
      if ((c->state == WAIT_FIRST || c->state == WAIT_LAST) && (next < 0 || c->due < next)) next = c->due;
    }
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    if (next > 0) {
      when.it_value.tv_sec = next / 1000000000;
      when.it_value.tv_nsec = next % 1000000000;
    }
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &when, NULL);
    int n = epoll_wait(ep, events, 256, -1);
    if (n < 0 && errno != EINTR) return 1;
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd == lfd) {
        int cfd;
        while ((cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
          if (cfd >= MAX_FD) {
            close(cfd);
            continue;
          }
          int on = 1;
          int stamps = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_TSONLY;
          if (setsockopt(cfd, SOL_SOCKET, SO_TIMESTAMPING, &stamps, sizeof stamps) < 0) {
            perror("delay_server: SO_TIMESTAMPING");
            return 1;
          }
          setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
          conns[cfd] = calloc(1, sizeof(conn_t));
          active[n_active++] = cfd;
          struct epoll_event cev = { .events = EPOLLIN, .data.fd = cfd };
          epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &cev);
        }
      } else if (fd == tfd) {
        uint64_t expirations;
        if (read(tfd, &expirations, sizeof expirations) < 0) continue;
      } else if (fd == 0) {
        ssize_t r = read(0, line + line_len, sizeof line - 1 - line_len);
        if (r <= 0) return 0;
        line_len += (size_t)r;
        char *nl;
        while ((nl = memchr(line, '\n', line_len))) {
          *nl = 0;
          if (strcmp(line, "applied") == 0) answer_applied();
          size_t used = (size_t)(nl - line) + 1;
          memmove(line, nl + 1, line_len - used);
          line_len -= used;
        }
        if (line_len == sizeof line - 1) line_len = 0;
      } else if (conns[fd]) {
        // EPOLLERR is the stamps' queue, or the socket's own error: reading after the stamps
        // are taken meets the error (and drops the connection) rather than spinning on it.
        if (events[i].events & EPOLLERR) on_stamps(fd);
        if (conns[fd]) on_readable(ep, fd);
      }
    }
    int64_t now = now_ns();
    for (int i = 0; i < n_active; i++) {
      int fd = active[i];
      conn_t *c = conns[fd];
      if ((c->state == WAIT_FIRST || c->state == WAIT_LAST) && c->due <= now) on_due(ep, fd);
    }
  }
}
