// When the first bytes arrive on a TCP socket, as seen by a thread of our own rather than by
// Node's event loop: a busy loop reads a socket late, and a response timed when JavaScript gets
// to it is timed late by however long the loop was busy.
//
// Watched sockets join this thread's epoll set, one-shot, so the first arrival of data wakes the
// thread, which notes the time (CLOCK_MONOTONIC, the clock behind performance.now()) in the
// socket's slot. The thread never reads: Node reads the socket as usual.

#define _GNU_SOURCE
#include <errno.h>
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#define SLOTS 4096

// first is written by the thread and read by JavaScript, atomically. gen changes whenever the
// slot is taken or given back, so a wake-up for a socket no longer watched (its event was
// already in hand when it was unwatched) writes nothing.
typedef struct {
  uint32_t gen;
  int used;
  int64_t first;
} slot_t;

static slot_t slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ep = -1;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void stamp(const struct epoll_event *events, int n) {
  int64_t t = now_ns();
  for (int i = 0; i < n; i++) {
    uint32_t index = (uint32_t)(events[i].data.u64 & 0xffffffffu);
    uint32_t gen = (uint32_t)(events[i].data.u64 >> 32);
    slot_t *s = &slots[index];
    if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != gen) continue;
    int64_t unset = 0;
    __atomic_compare_exchange_n(&s->first, &unset, t, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
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
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN | EPOLLONESHOT;
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
static napi_value first(napi_env env, napi_callback_info info) {
  int32_t index = arg_int(env, info, 0);
  napi_value out;
  int64_t f = index >= 0 && index < SLOTS ? __atomic_load_n(&slots[index].first, __ATOMIC_ACQUIRE) : 0;
  napi_create_double(env, (double)f / 1e6, &out);
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
  napi_property_descriptor fns[] = {
    { "watch", NULL, watch, NULL, NULL, NULL, napi_default, NULL },
    { "unwatch", NULL, unwatch, NULL, NULL, NULL, napi_default, NULL },
    { "first", NULL, first, NULL, NULL, NULL, napi_default, NULL },
    { "now", NULL, now, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_value obj;
  napi_create_object(env, &obj);
  napi_define_properties(env, obj, 4, fns);
  napi_set_named_property(env, exports, "arrivals", obj);
  return exports;
}
