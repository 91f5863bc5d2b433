// When bytes arrive on a TCP socket, as the kernel saw them rather than as Node's event loop
// did: a busy loop reads a socket late, and a response timed when JavaScript gets to it is timed
// late by however long the loop was busy.
//
// Watched sockets join this thread's epoll set (edge-triggered: each arrival wakes it once).
// The kernel stamps every segment as it comes in (SO_TIMESTAMPNS, set at watch), and the thread
// reads those stamps with MSG_PEEK, which leaves the data where it is: Node reads the socket as
// usual. So the thread may wake late (it waits for a core like anyone) and still note the true
// time. Data Node has already read cannot be peeked; then the thread's own wake-up time stands
// in for the first arrival, and for the last the byte count tells the caller it was missed.

#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <linux/tcp.h>  // glibc's struct tcp_info lacks tcpi_bytes_received
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include "stamps.h"

#define SLOTS 4096

// The thread writes first/last/last_bytes under the lock and JavaScript reads them under it;
// last_bytes is also read without it (atomically) when the thread wakes, to skip idle wakes.
// gen changes whenever the slot is taken or given back, so a wake-up for a socket no longer
// watched (its event was already in hand when it was unwatched) writes nothing.
typedef struct {
  uint32_t gen;
  int used;
  int fd;
  int64_t first;      // ns, CLOCK_MONOTONIC; 0 while nothing has arrived
  int64_t last;       // when the newest segment seen arrived
  uint64_t last_bytes; // bytes the connection had received by then (at least)
} slot_t;

static slot_t slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ep = -1;

static int64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

// The kernel's receive stamp (CLOCK_REALTIME, ns) of the oldest segment queued on the socket
// (newest: false) or of the newest (true), 0 when nothing is queued. The peek leaves the data
// for Node; for the newest, MSG_TRUNC walks the whole queue without copying a byte. (TCP merges
// a segment into the one queued before it when it can, and the merged one keeps the newer
// stamp: the oldest is exact only if the thread peeked before more came.)
static int64_t peek_stamp(int fd, int newest) {
  char byte;
  stamp_control_t control;
  struct iovec iov = { newest ? NULL : &byte, newest ? (size_t)1 << 30 : 1 };
  struct msghdr msg;
  message_init(&msg, &iov, &control);
  if (recvmsg(fd, &msg, MSG_PEEK | MSG_DONTWAIT | (newest ? MSG_TRUNC : 0)) <= 0) return 0;
  return kernel_stamp(&msg);
}

static void stamp(const struct epoll_event *events, int n) {
  int64_t woke = now_ns();
  // Kernel stamps are wall-clock time; the caller's clock is the monotonic one.
  int64_t wall = clock_ns(CLOCK_REALTIME) - woke;
  for (int i = 0; i < n; i++) {
    uint32_t index = (uint32_t)(events[i].data.u64 & 0xffffffffu);
    uint32_t gen = (uint32_t)(events[i].data.u64 >> 32);
    slot_t *s = &slots[index];
    if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != gen) continue;
    int fd = s->fd;
    // Received so far, read before the peek: the newest queued segment then arrived no earlier
    // than the last of these bytes did.
    struct tcp_info info;
    socklen_t size = sizeof info;
    memset(&info, 0, sizeof info);
    uint64_t bytes = getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) == 0 ? info.tcpi_bytes_received : 0;
    // Nothing new since the last wake: this one is for the peer's FIN, which carries no data.
    // Two peeks less per connection.
    if (bytes && bytes == __atomic_load_n(&s->last_bytes, __ATOMIC_ACQUIRE)) continue;
    int64_t counted = now_ns();
    int64_t oldest = 0;
    if (__atomic_load_n(&s->first, __ATOMIC_ACQUIRE) == 0) oldest = peek_stamp(fd, 0);
    int64_t newest = peek_stamp(fd, 1);
    // A stamp is never later than the peek that read it (bytes may have come since the wake).
    int64_t peeked = now_ns();
    pthread_mutex_lock(&lock);
    if (s->gen == gen) {
      if (s->first == 0) {
        int64_t at = oldest ? oldest - wall : woke;
        s->first = at < peeked ? at : peeked;
      }
      if (newest) {
        int64_t at = newest - wall;
        s->last = at < peeked ? at : peeked;
        __atomic_store_n(&s->last_bytes, bytes, __ATOMIC_RELEASE);
      } else if (bytes > s->last_bytes) {
        // Node read the new bytes before the peek: they had all come by the time they were
        // counted, which is still earlier than the event loop can say.
        s->last = counted;
        __atomic_store_n(&s->last_bytes, bytes, __ATOMIC_RELEASE);
      }
    }
    pthread_mutex_unlock(&lock);
  }
}

static void *watch_loop(void *unused) {
  (void)unused;
  struct epoll_event events[256];
  for (;;) {
    int n = epoll_wait(ep, events, 256, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return NULL;
    }
    stamp(events, n);
  }
}

// One thread for the process, started when the addon loads (or, failing that, at a watch);
// it lives as long as the process.
static int start_once(void) {
  if (ep >= 0) return 0;
  int fd = epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) return -1;
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  ep = fd;
  if (pthread_create(&thread, &attr, watch_loop, NULL) != 0) {
    ep = -1;
    return -1;
  }
  return 0;
}

static int32_t arg_int(napi_env env, napi_callback_info info, size_t i) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t v = -1;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (i < argc) napi_get_value_int32(env, argv[i], &v);
  return v;
}

static napi_value int_value(napi_env env, int32_t v) {
  napi_value out;
  napi_create_int32(env, v, &out);
  return out;
}

// watch(fd) -> slot, or -1 when nothing can be watched (no slot free, epoll refused).
static napi_value watch(napi_env env, napi_callback_info info) {
  int32_t fd = arg_int(env, info, 0);
  if (fd < 0) return int_value(env, -1);
  pthread_mutex_lock(&lock);
  int32_t index = -1;
  if (start_once() == 0) {
    for (int32_t i = 0; i < SLOTS; i++) {
      if (!slots[i].used) {
        index = i;
        break;
      }
    }
  }
  if (index >= 0) {
    slot_t *s = &slots[index];
    uint32_t gen = __atomic_add_fetch(&s->gen, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&s->first, 0, __ATOMIC_RELEASE);
    s->fd = fd;
    s->last = 0;
    __atomic_store_n(&s->last_bytes, 0, __ATOMIC_RELEASE);
    // Without stamps the thread still notes when it woke (the first arrival's upper bound).
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = ((uint64_t)gen << 32) | (uint32_t)index;
    int rc = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    if (rc < 0 && errno == EEXIST) rc = epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
    if (rc == 0) s->used = 1;
    else index = -1;
  }
  pthread_mutex_unlock(&lock);
  return int_value(env, index);
}

// unwatch(slot, fd): fd is the socket's while it is still open, -1 once it is closed (closing
// took it out of the epoll set already, and its number may belong to another socket now).
static napi_value unwatch(napi_env env, napi_callback_info info) {
  int32_t index = arg_int(env, info, 0);
  int32_t fd = arg_int(env, info, 1);
  if (index < 0 || index >= SLOTS) return NULL;
  pthread_mutex_lock(&lock);
  if (fd >= 0) epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
  __atomic_add_fetch(&slots[index].gen, 1, __ATOMIC_ACQ_REL);
  slots[index].used = 0;
  pthread_mutex_unlock(&lock);
  return NULL;
}

// first(slot) -> when the first bytes arrived (ms on CLOCK_MONOTONIC), 0 when none yet.
// last(slot) -> when the newest bytes seen arrived (ms on CLOCK_MONOTONIC), 0 when none were.
// lastBytes(slot) -> how many bytes the connection had received by then, at least. Bytes Node
// read before the thread could peek them are not seen: a caller whose socket has read more than
// lastBytes knows the newest arrival was missed.
enum { FIRST, LAST, LAST_BYTES };

static napi_value read_slot(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  void *data;
  int32_t index = -1;
  napi_get_cb_info(env, info, &argc, argv, NULL, &data);
  if (argc > 0) napi_get_value_int32(env, argv[0], &index);
  double v = 0;
  if (index >= 0 && index < SLOTS) {
    pthread_mutex_lock(&lock);
    slot_t *s = &slots[index];
    int which = (int)(intptr_t)data;
    v = which == FIRST ? (double)s->first / 1e6 : which == LAST ? (double)s->last / 1e6 : (double)s->last_bytes;
    pthread_mutex_unlock(&lock);
  }
  napi_value out;
  napi_create_double(env, v, &out);
  return out;
}

// now() -> CLOCK_MONOTONIC in ms, to line these times up with performance.now().
static napi_value now(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  napi_create_double(env, (double)now_ns() / 1e6, &out);
  return out;
}

napi_value arrivals_init(napi_env env, napi_value exports) {
  // Started now rather than at the first watch, so it is already waiting when bytes come.
  pthread_mutex_lock(&lock);
  start_once();
  pthread_mutex_unlock(&lock);
  // The kernel stamps incoming packets only while some socket asks for stamps, and it switches
  // that on and off by patching its own code, on every core. One socket that asks for as long as
  // the process lives keeps it on, so watches one after another do not switch it each time.
  int keeper = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int on = 1;
  if (keeper >= 0) setsockopt(keeper, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
  napi_property_descriptor fns[] = {
    { "watch", NULL, watch, NULL, NULL, NULL, napi_default, NULL },
    { "unwatch", NULL, unwatch, NULL, NULL, NULL, napi_default, NULL },
    { "first", NULL, read_slot, NULL, NULL, NULL, napi_default, (void *)(intptr_t)FIRST },
    { "last", NULL, read_slot, NULL, NULL, NULL, napi_default, (void *)(intptr_t)LAST },
    { "lastBytes", NULL, read_slot, NULL, NULL, NULL, napi_default, (void *)(intptr_t)LAST_BYTES },
    { "now", NULL, now, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_value obj;
  napi_create_object(env, &obj);
  napi_define_properties(env, obj, sizeof fns / sizeof fns[0], fns);
  napi_set_named_property(env, exports, "arrivals", obj);
  return exports;
}
