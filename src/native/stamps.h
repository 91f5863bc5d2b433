// Reading the kernel's receive and transmit stamps off a message, for arrivals.c (the agent's
// watcher) and src/bench/delay-server.c (the timing benchmark's target).
#ifndef OUTPOST_STAMPS_H
#define OUTPOST_STAMPS_H

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

// Room for either stamp message, SCM_TIMESTAMPNS (one timespec) or SCM_TIMESTAMPING (three),
// and for the error report that comes with a transmit stamp off the error queue.
typedef union {
  char buf[CMSG_SPACE(3 * sizeof(struct timespec)) + CMSG_SPACE(64)];
  struct cmsghdr align;
} stamp_control_t;

static inline void message_init(struct msghdr *msg, struct iovec *iov, stamp_control_t *control) {
  memset(msg, 0, sizeof *msg);
  msg->msg_iov = iov;
  msg->msg_iovlen = iov ? 1 : 0;
  msg->msg_control = control->buf;
  msg->msg_controllen = sizeof control->buf;
}

// The software stamp a message carries (SCM_TIMESTAMPNS, or the first of SCM_TIMESTAMPING's
// three), in ns of CLOCK_REALTIME; 0 when it carries none.
static inline int64_t kernel_stamp(struct msghdr *msg) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && (c->cmsg_type == SCM_TIMESTAMPNS || c->cmsg_type == SCM_TIMESTAMPING)) {
      struct timespec ts;
      memcpy(&ts, CMSG_DATA(c), sizeof ts);
      return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    }
  }
  return 0;
}

#endif
